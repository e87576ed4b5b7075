"""The night cache: each chat's latest night and settings, loaded from the ledger and kept within bounds."""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace

from bot.night import checkpoint as checkpoints
from bot.night.codec import (
    decode_body,
)
from bot.night.fold import (
    Line,
    active_ids,
    claim_joins_across,
)
from bot.night.interner import Interner
from bot.night.night import Night
from bot.night.people import stake_schedule
from bot.night.records import ExportRows, FlowLog, NightHistory, SeasonLog, TabLog
from bot.store import house_rules
from bot.store.answers import MessageRecords, Reported
from bot.store.heap import free_off_loop
from bot.store.inbox import Inbox
from bot.store.ledger import Ledger
from bot.store.rows import (
    EventRow,
    HouseRules,
    NightRow,
    Seat,
)
from bot.threads import in_thread
from engine.preset import Preset, preset_from_dict

# The night cache's bounds (Nights): events held in memory by the cached nights (about 1 KB each),
# and chats; the chat used last always stays, however long its night.
CACHE_EVENTS = 30_000
CACHE_CHATS = 500
PRESETS_KEPT = 16  # house rules read lately, by their text: most groups play a handful of presets


class Nights:
    """Loads and caches each chat's latest night and settings. One process owns a database, and
    every write goes through here, so the cache never goes stale.

    The cache is bounded: it holds the nights of the chats used most recently, up to `budget`
    events held in memory (a night from a checkpoint's head holds only the events after it) and
    `most` chats; the least recently used night not in use leaves it first, and a closed night
    leaves it once the line that used it is answered. A night that left is read again from the
    ledger (its newest checkpoint first) when its chat next speaks: the ledger is the truth, so it
    is the same night."""

    def __init__(self, ledger: Ledger, budget: int = CACHE_EVENTS, most: int = CACHE_CHATS) -> None:
        self.ledger = ledger
        self.answers = ledger.answers()  # the bot's sent answers, for replies (Telegram)
        # the ledger's parts the layers above use, as their Protocols (bot/night/records.py)
        self.history: NightHistory = ledger.history  # each night's marks, stored figures, rows per person
        self.tab: TabLog = ledger.tab  # the chat's tab entries
        self.seasons: SeasonLog = ledger.seasons  # the chat's seasons and spans of nights summed
        self.exports: ExportRows = ledger.exports  # the closed nights' rows of /export all
        self.flows: FlowLog = ledger.flows  # the guided flows' taps
        self.budget = budget
        self.most = most
        self._latest: OrderedDict[str, Night | None] = OrderedDict()  # least recently used first
        self._settings: dict[str, dict[str, str | None]] = {}  # chat -> key -> value, for cached chats
        self._busy: dict[str, int] = {}  # chats with a line being handled: their night stays
        # a preset's text -> that text as held and the preset read from it
        self._presets: OrderedDict[str, tuple[str, Preset]] = OrderedDict()

    async def load(self, row: NightRow, history: bool = True) -> Night:
        """The night from its newest valid checkpoint; without `history`, only the events after the
        checkpoint are read (its head stands for the rest) when they fit it."""
        cached = self._latest.get(row.chat_id)
        if cached is not None and cached.id == row.id:
            if history:
                await cached.load_history()
            return cached
        checkpoint = await self.ledger.tallies.checkpoint(row.id, checkpoints.version(row.preset_json))
        row, preset = self._same_rules(row)
        if not history and checkpoint is not None:
            night = await self._from_head(row, preset, checkpoint)
            if night is not None:
                return night
        events = await self.ledger.events(row.id, decode=Interner().decode)  # what repeats held once
        payments = await self.ledger.payments(row.id)
        return await in_thread(Night, self.ledger, row, events, payments, checkpoint, None, preset)

    def _same_rules(self, row: NightRow) -> tuple[NightRow, Preset]:
        """The night's row and its preset, both shared with the nights read lately that play the same
        rules: a preset read from its text holds some 13 KB and costs 1.3 ms to read (its digest),
        which every chat's first line after a restart paid for the same few presets."""
        kept = self._presets.get(row.preset_json)
        if kept is None:
            stored = preset_from_dict(json.loads(row.preset_json), bounded=False)  # as kept: bounds are the doors'
            kept = self._presets[row.preset_json] = (row.preset_json, stored)
            if len(self._presets) > PRESETS_KEPT:
                self._presets.popitem(last=False)
        else:
            self._presets.move_to_end(row.preset_json)
        text, preset = kept
        return replace(row, preset_json=text), preset

    async def _from_head(self, row: NightRow, preset: Preset, checkpoint: tuple[int, str]) -> Night | None:
        """The night from the checkpoint's head and the events after it, or None when they do not fit
        (another engine's checkpoint; a later 改底 that reprices hands it covers)."""
        try:
            state, head = checkpoints.decode(checkpoint[1], preset)
        except checkpoints.CheckpointMismatch:
            return None
        after = await self.ledger.events(row.id, checkpoint[0], Interner().decode)
        active = active_ids(after)
        if any(start < state.hand_no for start, _ in stake_schedule(0, after, active)[1:]):
            return None
        if claim_joins_across(after, active, checkpoint[0]):
            return None
        payments = await self.ledger.payments_after(row.id, checkpoint[0])
        return Night(self.ledger, row, after, payments, checkpoint, head, preset)

    async def latest(self, chat_id: str, history: bool = True) -> Night | None:
        """The chat's latest night; `history=False` (a restart's /score) may leave its older history
        unread until `Night.load_history`."""
        if chat_id not in self._latest:
            row = await self.ledger.latest_night(chat_id)
            night = await self.load(row, history) if row is not None else None
            if chat_id not in self._latest:  # (another line of the chat may have loaded it meanwhile)
                self._latest[chat_id] = night
        self._latest.move_to_end(chat_id)
        night = self._latest[chat_id]
        if night is not None and history:
            await night.load_history()
        self._trim()
        return night

    def cached(self, chat_id: str) -> bool:
        """Whether the chat's night is in memory (the tests and benches ask)."""
        return chat_id in self._latest

    def held(self) -> int:
        """Events held by the cached nights (what `budget` bounds)."""
        return sum(night.held() for night in self._latest.values() if night is not None)

    @asynccontextmanager
    async def using(self, chat_id: str) -> AsyncIterator[None]:
        """While a line of the chat is handled its night stays cached; after it, a closed night
        leaves the cache (it is read again from its checkpoint if asked about)."""
        self._busy[chat_id] = self._busy.get(chat_id, 0) + 1
        try:
            yield
        finally:
            left = self._busy.pop(chat_id) - 1
            if left:
                self._busy[chat_id] = left
            else:
                night = self._latest.get(chat_id)
                if night is not None and night.closed:
                    self._evict(chat_id)
                self._trim()

    def _trim(self) -> None:
        """Evict the least recently used nights not in use until the cache fits its bounds (the
        chat used last always stays: a night longer than the budget is still answered from memory)."""
        held = self.held()
        for chat_id in list(self._latest)[:-1]:
            if held <= self.budget and len(self._latest) <= self.most:
                break
            if chat_id in self._busy:
                continue
            night = self._latest[chat_id]
            held -= night.held() if night is not None else 0
            self._evict(chat_id)
        if len(self._settings) > len(self._latest) + len(self._busy):  # settings of chats that left
            for chat_id in [c for c in self._settings if c not in self._latest and c not in self._busy]:
                del self._settings[chat_id]

    def _evict(self, chat_id: str) -> None:
        free_off_loop([self._latest.pop(chat_id, None)])  # a long night is freed off the event loop
        self._settings.pop(chat_id, None)

    def forget(self, chat_id: str) -> None:
        """Drop the cached night (after an unexpected failure): it is loaded again from the ledger."""
        self._evict(chat_id)

    async def open(
        self,
        chat_id: str,
        seats: Sequence[Seat],
        preset_name: str,
        preset_json: str,
        stake_cents: int,
        dealer: int,
        opened_by: str,
        line: Line,
    ) -> Night:
        night_id = await self.ledger.open_night(
            chat_id, seats, preset_name, preset_json, stake_cents, dealer, opened_by, line.text, line.update_key
        )
        free_off_loop([self._latest.pop(chat_id, None)])  # the night before: freed off the event loop
        night = await self.latest(chat_id)
        assert night is not None and night.id == night_id
        await night.start_tally()
        return night

    async def setting(self, chat_id: str, key: str) -> str | None:
        known = self._settings.get(chat_id, {})
        if key not in known:
            value = await self.ledger.setting(chat_id, key)
            known = self._settings.setdefault(chat_id, {})
            known[key] = value
        return known[key]

    async def set_setting(self, chat_id: str, key: str, value: str) -> None:
        await self.ledger.set_setting(chat_id, key, value)
        self._settings.setdefault(chat_id, {})[key] = value

    async def house_rules(self, chat_id: str) -> HouseRules:
        """The group's house rules by name (bot/store/house_rules.py: a chat setting of the group's)."""
        return await house_rules.read(self, chat_id)

    async def keep_house_rules(self, chat_id: str, house: HouseRules) -> None:
        await house_rules.write(self, chat_id, house)

    # ---- what the layers above read and write of the ledger, named (they never reach it) ---------

    async def has_update(self, update_key: str) -> bool:
        """Whether a line with this update key was recorded (a repeated Telegram update)."""
        return await self.ledger.has_update(update_key)

    async def event_of_update(self, update_key: str) -> int | None:
        """The first event recorded under this update key (a guided flow already recorded)."""
        return await self.ledger.event_of_update(update_key)

    async def event_of_message(self, chat_id: str, message_key: str) -> tuple[int, bool] | None:
        """The latest event a Telegram message recorded, by its own line or by an edit of it."""
        return await self.ledger.event_of_message(chat_id, message_key)

    async def logged_events(self, night_id: int) -> list[EventRow]:
        """The night's events as the ledger holds them now (read afresh, not the cached night's)."""
        return await self.ledger.events(night_id, decode=decode_body)

    async def latest_event_time(self, night_id: int) -> str | None:
        """When the night's newest event was recorded (its `created_at`)."""
        return await self.ledger.latest_event_time(night_id)

    async def night_rows(self, chat_id: str) -> list[NightRow]:
        """The chat's nights, oldest first, as rows (none of them loaded)."""
        return await self.ledger.nights(chat_id)

    async def night_rows_of_user(self, user_id: str) -> list[NightRow]:
        """Nights, in any chat, that may have seated this Telegram user (rows; callers confirm)."""
        return await self.ledger.nights_of_user(user_id)

    def recorded(self, chat_id: str) -> int:
        """How many commits wrote the chat's events (a night opened counts): moved, a line recorded."""
        return self.ledger.recorded(chat_id)

    def inbox(self) -> Inbox:
        """The Telegram intake, on the ledger's connection (an update is marked done by the
        transaction that records its events)."""
        return self.ledger.inbox()

    # ---- replies (Telegram): what a replied message recorded (bot/store/answers.py) -------------------

    def remember_answer(self, chat: int, message_id: int, reported: Sequence[tuple[int | None, bool]]) -> None:
        """Keep what a message the bot sent carried: each answer's reported row (✅ #N) and whether it
        recorded anything."""
        self.answers.remember(chat, message_id, [Reported(event_id, recorded) for event_id, recorded in reported])

    async def answer_records(self, chat: int, message_id: int) -> MessageRecords | None:
        """What a message the bot sent carried; None when it is not known."""
        return await self.answers.of_answer(chat, message_id)

    async def message_records(self, message_key: str) -> MessageRecords:
        """What a player's message recorded (its latest version's row, a claim's kept line)."""
        return await self.answers.of_message(message_key)

    async def forget_answers(self) -> int:
        return await self.answers.forget()

    async def close(self) -> None:
        await self.answers.flush()
        await self.ledger.close()
