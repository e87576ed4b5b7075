"""The transport-neutral command layer: a chat line in, replies (message keys) out.

`Referee.handle` parses the line, checks who may do what, turns it into an engine event with the
table state rebuilt from the ledger, and records the event with its payments in one transaction. Bad
input of any kind becomes a localized error reply and writes nothing. The console and the Telegram
front end both call this and only this.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path

from bot import charts, export
from bot.codec import EVENT_KINDS, decode_event, encode_event, event_kind
from bot.commands import SPEC_BY_NAME, Command, parse, usage_hint
from bot.ledger import DuplicateUpdate, EventRow, Ledger, NewEvent, NightRow, PaymentRow, Seat
from bot.replies import Attachment, Choice, Reply, Response
from bot.seating import SEAT_EVENTS, Speaker, may_record, player_list, resolve, seat_of, seated_names, seats_now
from bot.stats import chat_stats, my_stats
from bot.views import (
    format_money,
    history,
    night_stats,
    payment_lines,
    rules,
    scoreboard,
    summary,
    transfers_json,
    unit_key,
)
from engine.errors import EngineError
from engine.hand import MeldKind
from engine.notation import parse_hand_parts, parse_tile
from engine.preset import PRESET_NAMES, Preset, preset_from_dict, resolved_builtin, resolved_text
from engine.scoring import Item
from engine.settlement import Payment, refund
from engine.table import (
    Draw,
    Event,
    FlowerGang,
    Gang,
    Outcome,
    Penalty,
    Pong,
    TableState,
    Win,
    WinInput,
    WinRefused,
    apply,
    new_table,
)
from engine.tiles import tile_name
from engine.units import WinFlags
from locales import DEFAULT_LANGUAGE, LANGUAGES, normalize_language

SEATS = 4
HISTORY_LINES = 15
REVERSIBLE = frozenset(EVENT_KINDS) | {"join"}
META_EVENTS = frozenset({"join", "bind", "close", "reopen"})  # change what _chat_meta caches
GANG_KINDS = {"exposed": MeldKind.EXPOSED_GANG, "added": MeldKind.ADDED_GANG, "concealed": MeldKind.CONCEALED_GANG}


@dataclass(frozen=True)
class Incoming:
    chat_id: str
    speaker: Speaker
    text: str
    update_key: str | None = None
    private: bool = False
    mentions: tuple[Speaker, ...] = ()  # users the line @mentions or replies to (Telegram)


@dataclass
class Totals:
    """Running sums of a night's payments up to `last_event_id`: derived from the ledger, kept in
    memory, and extended by newer payments only (the log is append-only, so they never change)."""

    last_event_id: int = 0
    amounts: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    money: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    by_reason: dict[tuple[int, str], int] = field(default_factory=dict)

    def add(self, payments: Sequence[PaymentRow]) -> None:
        for p in payments:
            self.amounts[p.payer] -= p.amount
            self.amounts[p.payee] += p.amount
            self.money[p.payer] -= p.money_cents
            self.money[p.payee] += p.money_cents
            self.by_reason[(p.payer, p.reason)] = self.by_reason.get((p.payer, p.reason), 0) - p.amount
            self.by_reason[(p.payee, p.reason)] = self.by_reason.get((p.payee, p.reason), 0) + p.amount


@dataclass(frozen=True)
class Context:
    """Everything a handler needs about the chat's current night."""

    incoming: Incoming
    command: Command
    language: str
    night: NightRow | None
    closed: bool
    seats: tuple[Seat, ...]
    last_event_id: int


class Refusal(Exception):
    """A handler's answer that records nothing (carries the replies to send)."""

    def __init__(self, *replies: Reply) -> None:
        super().__init__(replies[0].key if replies else "refusal")
        self.replies = replies


class Referee:
    def __init__(self, ledger: Ledger, rules_dir: Path | None = None, charts_enabled: bool = True) -> None:
        self.ledger = ledger
        self.rules_dir = rules_dir  # where /new rules=FILE may read house rules (console only)
        self.charts_enabled = charts_enabled
        self._tables: dict[int, tuple[int, TableState]] = {}
        self._totals: dict[int, Totals] = {}
        self._presets: dict[int, Preset] = {}
        self._pending_close: set[str] = set()
        self._languages: dict[str, str | None] = {}
        self._meta: dict[
            str, tuple[NightRow | None, tuple[Seat, ...], bool]
        ] = {}  # chat -> stored language; this referee writes it

    # ---- entry point ---------------------------------------------------------------------------

    async def handle(self, incoming: Incoming) -> Response | None:
        """Answer one chat line; None when the line is not for the referee."""
        language = await self._language(incoming)
        night, seats, closed = await self._chat_meta(incoming.chat_id)
        last_event_id = await self.ledger.last_event_id(night.id) if night else 0
        try:
            command = parse(incoming.text, seated_names(seats))
        except EngineError as error:
            return Response((Reply(error.key, error.params),), language)
        if command is None:
            return None
        if night is not None and not closed:
            seats = await self._bind_user(incoming, night, seats)
        context = Context(incoming, command, language, night, closed, seats, last_event_id)
        handler = self._handlers().get(command.name)
        if handler is None:
            return None
        try:
            response = await handler(context)
        except DuplicateUpdate:
            return Response((), language)
        except (Refusal, EngineError) as error:
            if command.plain and incoming.text.strip()[:1].isascii():
                return None  # an English word that merely starts a chat message: stay quiet
            if isinstance(error, Refusal):
                response = Response(error.replies, language)
            elif isinstance(error, WinRefused):
                response = Response(self._refused_win(context, error), language)
            else:
                response = Response((Reply(error.key, self._readable(error.params, seats)),), language)
            hint = usage_hint(command, response.replies)
            if hint is not None:  # a /command in the wrong form: show the right one
                response = replace(response, replies=(*response.replies, hint))
        if command.name != "summary":
            self._pending_close.discard(incoming.chat_id)
        return response

    async def _chat_meta(self, chat_id: str) -> tuple[NightRow | None, tuple[Seat, ...], bool]:
        """The chat's latest night, its seats and whether it is closed. Cached: they change only by
        this referee's own writes (/new, join, bind, close, reopen), which drop the entry. One
        process owns a database."""
        if chat_id not in self._meta:
            night = await self.ledger.latest_night(chat_id)
            seats = seats_now(night, await self.ledger.events_of_kinds(night.id, SEAT_EVENTS)) if night else ()
            closed = await self.ledger.is_closed(night.id) if night else False
            self._meta[chat_id] = (night, seats, closed)
        return self._meta[chat_id]

    async def _bind_user(self, incoming: Incoming, night: NightRow, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        """A player seated by @username gets their Telegram id the first time they speak, so that
        /me finds their nights later (recorded as a `join` event: the ledger stays append-only)."""
        speaker = incoming.speaker
        seat = seat_of(seats, speaker)
        if seat is None or speaker.by_name or not speaker.id or seats[seat].user_id is not None:
            return seats
        bound = Seat(seats[seat].name, speaker.id, speaker.username)
        payload = json.dumps({"seat": seat, "name": bound.name, "user_id": bound.user_id, "username": bound.username})
        await self.ledger.append(
            incoming.chat_id,
            night.id,
            speaker.name,
            "(bind)",
            None,
            night.stake_cents,
            [NewEvent((await self.table_state(night)).hand_no, "bind", seat, payload)],
        )
        self._meta.pop(incoming.chat_id, None)
        return tuple(bound if i == seat else s for i, s in enumerate(seats))

    def _handlers(self) -> dict[str, Callable[[Context], Awaitable[Response]]]:
        return {
            "new": self._new,
            "join": self._join,
            "pong": self._pong,
            "gang": self._gang,
            "added_gang": self._gang,
            "concealed_gang": self._gang,
            "flower_gang": self._flower_gang,
            "penalty": self._penalty,
            "hu": self._hu,
            "draw": self._draw,
            "undo": self._undo,
            "score": self._score,
            "history": self._history,
            "rules": self._rules,
            "summary": self._summary,
            "close": self._close,
            "reopen": self._reopen,
            "lang": self._lang,
            "help": self._help,
            "stats": self._stats,
            "me": self._me,
            "export": self._export,
            "unknown": self._unknown,
        }

    async def _set_language(self, chat_id: str, language: str) -> None:
        await self.ledger.set_setting(chat_id, "language", language)
        self._languages[chat_id] = language

    async def _language(self, incoming: Incoming) -> str:
        if incoming.chat_id not in self._languages:
            self._languages[incoming.chat_id] = await self.ledger.setting(incoming.chat_id, "language")
        stored = self._languages[incoming.chat_id]
        return stored or normalize_language(incoming.speaker.language) or DEFAULT_LANGUAGE

    @staticmethod
    def _readable(params: dict[str, object], seats: Sequence[Seat]) -> dict[str, object]:
        """Seat numbers in engine errors become names."""
        readable = dict(params)
        if isinstance(readable.get("why"), str):
            readable["why"] = Reply(f"liability.{readable['why']}")
        for key in ("seat", "winner", "feeder", "taker", "dealer"):
            value = readable.get(key)
            if isinstance(value, int) and 0 <= value < len(seats):
                readable[key] = seats[value].name
        return readable

    # ---- night, state, preset ------------------------------------------------------------------

    def _preset(self, night: NightRow) -> Preset:
        if night.id not in self._presets:
            self._presets[night.id] = preset_from_dict(json.loads(night.preset_json))
        return self._presets[night.id]

    def _replay(self, night: NightRow, events: Sequence[EventRow], skip: frozenset[int] = frozenset()) -> TableState:
        """Rebuild the table from the log: every event not undone, in order. An event that no longer
        applies after an earlier undo keeps its recorded payments but does not move the table."""
        reversed_ids = {e.reverses for e in events if e.reverses is not None} | skip
        state = new_table(self._preset(night), night.dealer)
        for event in events:
            if event.id in reversed_ids or event.kind not in EVENT_KINDS:
                continue
            try:
                state = apply(state, decode_event(event.kind, event.payload)).state
            except EngineError:
                continue
        return state

    async def _state(self, context: Context) -> TableState:
        assert context.night is not None
        return await self.table_state(context.night, context.last_event_id)

    async def table_state(self, night: NightRow, last_event_id: int | None = None) -> TableState:
        """The table now, from a per-night cache: only events newer than the cache are applied, and
        the log is replayed from the start only after an undo (which can change the past)."""
        last = await self.ledger.last_event_id(night.id) if last_event_id is None else last_event_id
        cached = self._tables.get(night.id)
        if cached and cached[0] == last:
            return cached[1]
        newer = await self.ledger.events(night.id, after_id=cached[0]) if cached else []
        if cached and not any(e.reverses is not None for e in newer):
            state = cached[1]
            for event in newer:
                if event.kind in EVENT_KINDS:
                    with contextlib.suppress(EngineError):
                        state = apply(state, decode_event(event.kind, event.payload)).state
        else:
            state = self._replay(night, await self.ledger.events(night.id))
        self._tables[night.id] = (last, state)
        return state

    async def totals(self, night: NightRow, last_event_id: int | None = None) -> Totals:
        """Balances and per-reason nets, brought up to date with any newer payments."""
        totals = self._totals.setdefault(night.id, Totals())
        last = await self.ledger.last_event_id(night.id) if last_event_id is None else last_event_id
        if last != totals.last_event_id:
            totals.add(await self.ledger.payments_after(night.id, totals.last_event_id))
            totals.last_event_id = last
        return totals

    def _open_night(self, context: Context) -> NightRow:
        if context.night is None or context.closed:
            raise Refusal(Reply("night.none_open"))
        return context.night

    def _recording_night(self, context: Context) -> NightRow:
        night = self._open_night(context)
        if context.incoming.private:
            raise Refusal(Reply("night.private_chat"))
        if not may_record(night, context.seats, context.incoming.speaker):
            raise Refusal(Reply("permission.not_at_table", {"players": player_list(context.seats)}))
        if any(not seat.name for seat in context.seats):
            raise Refusal(Reply("night.seats_free", {"players": player_list(context.seats)}))
        return night

    def _actor(self, context: Context, names: Sequence[str]) -> int:
        """The seat an event is about: the name typed first, or else the speaker."""
        if names:
            return resolve(context.seats, names[0])
        seat = seat_of(context.seats, context.incoming.speaker)
        if seat is None:
            raise Refusal(Reply("player.name_the_actor", {"players": player_list(context.seats)}))
        return seat

    # ---- recording -----------------------------------------------------------------------------

    async def _record(
        self,
        context: Context,
        event: Event,
        outcome: Outcome,
        extra_payload: dict[str, object] | None = None,
        undo_first: EventRow | None = None,
    ) -> Response:
        night = context.night
        assert night is not None
        state = await self._state(context)
        payload = encode_event(event)
        if extra_payload:
            payload = json.dumps({**json.loads(payload), **extra_payload}, ensure_ascii=False, sort_keys=True)
        actor = getattr(event, "actor", getattr(event, "offender", None))
        new_events: list[NewEvent] = []
        if undo_first is not None:
            undo_payments = tuple(refund([self._as_payment(p) for p in await self.ledger.payments_of(undo_first.id)]))
            new_events.append(
                NewEvent(
                    undo_first.hand_no,
                    "undo",
                    None,
                    json.dumps({"target": undo_first.id}),
                    undo_payments,
                    undo_first.id,
                )
            )
        new_events.append(
            NewEvent(
                state.hand_no if undo_first is None else undo_first.hand_no,
                event_kind(event),
                actor,
                payload,
                outcome.payments,
            )
        )
        ids = await self._append(context, night, new_events)
        self._tables[night.id] = (ids[-1], outcome.state)
        written = [
            PaymentRow(event_id, p.payer, p.payee, p.amount, p.amount * night.stake_cents, p.reason)
            for event_id, new in zip(ids, new_events, strict=True)
            for p in new.payments
        ]
        rows = [row for row in written if row.event_id == ids[-1]]
        totals = self._totals.get(night.id)
        if totals is not None and totals.last_event_id == context.last_event_id:
            # what was just written is all that is new: extend the running totals without a query
            totals.add(written)
            totals.last_event_id = ids[-1]
        preset = self._preset(night)
        replies: list[Reply] = [Reply("event.recorded", {"id": ids[-1], "what": self._describe(event, context.seats)})]
        if undo_first is not None:
            replies.insert(0, Reply("win.merged", {"id": undo_first.id}))
        for winner, score in outcome.scores:
            replies.append(self._breakdown(context.seats[winner].name, score.items, score.total))
        replies.extend(payment_lines(rows, context.seats, preset))
        replies.extend(Reply(n.key, self._readable(n.params, context.seats)) for n in outcome.notices)
        board = await self._board(night, context.seats, outcome.state, ids[-1])
        return Response(
            tuple(replies),
            context.language,
            recorded=True,
            night_id=night.id,
            hand_no=outcome.state.hand_no,
            scoreboard=board,
        )

    async def _append(self, context: Context, night: NightRow, events: Sequence[NewEvent]) -> list[int]:
        """Record this line's events in one transaction, with the line's text, speaker and update key."""
        incoming = context.incoming
        if any(e.kind in META_EVENTS for e in events):
            self._meta.pop(incoming.chat_id, None)
        return await self.ledger.append(
            incoming.chat_id,
            night.id,
            incoming.speaker.name,
            incoming.text.strip(),
            incoming.update_key,
            night.stake_cents,
            events,
        )

    @staticmethod
    def _as_payment(row: PaymentRow) -> Payment:
        return Payment(row.payer, row.payee, row.amount, row.reason)

    async def _board(
        self, night: NightRow, seats: Sequence[Seat], state: TableState, last_event_id: int | None = None
    ) -> Reply:
        totals = await self.totals(night, last_event_id)
        return scoreboard(seats, state, totals.amounts, totals.money)

    @staticmethod
    def _breakdown(winner: str, items: Sequence[Item], total: int) -> Reply:
        lines = [
            Reply(
                "score.item",
                {"name": Reply(f"unit.{i.key}"), "count": f" ×{i.count}" if i.count > 1 else "", "flowers": i.flowers},
            )
            for i in items
        ]
        return Reply("score.breakdown", {"winner": winner, "items": lines, "total": total})

    def _refused_win(self, context: Context, refused: WinRefused) -> tuple[Reply, ...]:
        seats = context.seats
        name = seats[refused.params["winner"]].name if seats else "?"
        replies = [Reply(refused.key, {"winner": name, "total": refused.score.total})]
        if refused.score.items:
            replies.append(self._breakdown(name, refused.score.items, refused.score.total))
        replies.append(Reply("error.nothing_recorded"))
        return tuple(replies)

    def _describe(self, event: Event, seats: Sequence[Seat]) -> Reply:
        def who(seat: int | None) -> str:
            return seats[seat].name if seat is not None else "?"

        def tile(value: int | None) -> str:
            return tile_name(value) if value is not None else ""

        if isinstance(event, Pong):
            return Reply(
                "what.pong", {"actor": who(event.actor), "feeder": who(event.feeder), "tile": tile(event.tile)}
            )
        if isinstance(event, Gang):
            return Reply(
                f"what.{event.kind.value}",
                {"actor": who(event.actor), "feeder": who(event.feeder), "tile": tile(event.tile)},
            )
        if isinstance(event, FlowerGang):
            return Reply("what.flower_gang", {"actor": who(event.actor)})
        if isinstance(event, Penalty):
            return Reply(f"what.{event.kind}", {"offender": who(event.offender), "amount": event.amount or ""})
        if isinstance(event, Win):
            winners = ", ".join(who(c.winner) for c in event.claims)
            if event.discarder is None:
                return Reply("what.self_draw", {"winners": winners})
            robbing = any(c.flags.robbing_gang for c in event.claims)
            return Reply(
                "what.robbing" if robbing else "what.discard_win",
                {"winners": winners, "discarder": who(event.discarder)},
            )
        return Reply("what.draw")

    # ---- handlers: starting a night ------------------------------------------------------------

    async def _new(self, context: Context) -> Response:
        incoming, command = context.incoming, context.command
        if incoming.private:
            raise Refusal(Reply("night.private_chat"))
        if context.night is not None and not context.closed:
            raise Refusal(Reply("night.already_open", {"players": player_list(context.seats)}))
        seats = self._seats_for_new(command, incoming)
        preset_name, preset_json = self._preset_choice(command)
        stake_cents = self._stake_cents(command.options.get("stake", "1"))
        dealer = 0
        if "dealer" in command.options:
            dealer = resolve(seats, command.options["dealer"])
        night_id = await self.ledger.open_night(
            incoming.chat_id,
            seats,
            preset_name,
            json.dumps(preset_json, ensure_ascii=False),
            stake_cents,
            dealer,
            incoming.speaker.id,
            incoming.text.strip(),
            incoming.update_key,
        )
        self._meta.pop(incoming.chat_id, None)
        language = context.language
        if self._languages.get(incoming.chat_id) is None and normalize_language(incoming.speaker.language):
            await self._set_language(incoming.chat_id, language)
        replies = [
            Reply(
                "night.opened",
                {
                    "night": night_id,
                    "preset": preset_name,
                    "stake": format_money(stake_cents),
                    "dealer": seats[dealer].name or "?",
                },
            )
        ]
        replies.extend(
            Reply("night.seat", {"seat": Reply(f"seat.{w}"), "name": s.name or Reply("night.free_seat")})
            for w, s in zip(("east", "south", "west", "north"), seats, strict=True)
        )
        choices: tuple[Choice, ...] = ()
        if any(not s.name for s in seats):
            replies.append(Reply("night.join_hint"))
            choices = (Choice(Reply("button.join"), "/join"),)
        return Response(tuple(replies), language, choices=choices, recorded=True, night_id=night_id, hand_no=1)

    def _seats_for_new(self, command: Command, incoming: Incoming) -> tuple[Seat, ...]:
        mentioned = {(m.username or "").casefold(): m for m in incoming.mentions if m.username}
        by_name = {m.name.casefold(): m for m in incoming.mentions}
        seats: list[Seat] = []
        for token in command.names:
            user = mentioned.get(token.lstrip("@").casefold()) or by_name.get(token.casefold())
            if user is not None and not user.by_name:
                seats.append(Seat(user.name, user.id or None, user.username))
            else:
                seats.append(Seat(token.lstrip("@")))
        if len(seats) > SEATS:
            raise Refusal(Reply("new.too_many_players", {"count": len(seats)}))
        if not incoming.mentions and len(seats) < SEATS and incoming.speaker.by_name:
            raise Refusal(Reply("new.needs_four", {"count": len(seats)}))
        folded = [s.name.casefold() for s in seats]
        if len(set(folded)) != len(folded):
            raise Refusal(Reply("new.duplicate_name"))
        seats += [Seat("")] * (SEATS - len(seats))
        return tuple(seats)

    def _preset_choice(self, command: Command) -> tuple[str, dict[str, object]]:
        if "rules" in command.options:
            if self.rules_dir is None:
                raise Refusal(Reply("preset.files_console_only"))
            path = (self.rules_dir / command.options["rules"]).resolve()
            if not path.is_file():
                raise Refusal(Reply("preset.no_file", {"path": command.options["rules"]}))
            raw = resolved_text(path.read_text(encoding="utf-8"))
            return str(raw.get("name", path.stem)), raw
        name = command.options.get("preset", "nanjing").lower()
        if name not in PRESET_NAMES:
            raise Refusal(Reply("preset.unknown", {"name": name, "known": ", ".join(PRESET_NAMES)}))
        return name, resolved_builtin(name)

    @staticmethod
    def _stake_cents(text: str) -> int:
        try:
            cents = Decimal(text) * 100
        except InvalidOperation:
            raise Refusal(Reply("new.bad_stake", {"stake": text})) from None
        if cents <= 0 or cents != cents.to_integral_value():
            raise Refusal(Reply("new.bad_stake", {"stake": text}))
        return int(cents)

    async def _join(self, context: Context) -> Response:
        night = self._open_night(context)
        speaker = context.incoming.speaker
        if seat_of(context.seats, speaker) is not None:
            raise Refusal(Reply("join.already_seated", {"name": speaker.name}))
        free = [i for i, s in enumerate(context.seats) if not s.name]
        if not free:
            raise Refusal(Reply("join.table_full", {"players": player_list(context.seats)}))
        name = context.command.word if context.command.word and speaker.is_admin else speaker.name
        if any(s.name.casefold() == name.casefold() for s in context.seats if s.name):
            raise Refusal(Reply("new.duplicate_name"))
        seat = free[0]
        payload = json.dumps(
            {
                "seat": seat,
                "name": name,
                "user_id": None if speaker.by_name else speaker.id,
                "username": speaker.username,
            },
            ensure_ascii=False,
        )
        await self._append(context, night, [NewEvent((await self._state(context)).hand_no, "join", seat, payload)])
        return Response(
            (
                Reply(
                    "join.done",
                    {"name": name, "seat": Reply(("seat.east", "seat.south", "seat.west", "seat.north")[seat])},
                ),
            ),
            context.language,
            recorded=True,
            night_id=night.id,
        )

    # ---- handlers: events ----------------------------------------------------------------------

    def _tile(self, text: str | None) -> int | None:
        return parse_tile(text) if text else None

    async def _apply_and_record(self, context: Context, event: Event) -> Response:
        state = await self._state(context)
        outcome = apply(state, event)
        return await self._record(context, event, outcome)

    async def _ask(self, context: Context, question: Reply, choices: tuple[Choice, ...]) -> Response:
        """A question answered by buttons; they carry this night and hand so stale ones are refused."""
        night = context.night
        hand = (await self._state(context)).hand_no if night is not None else None
        return Response(
            (question,), context.language, choices=choices, night_id=night.id if night else None, hand_no=hand
        )

    def _choices_for(self, context: Context, verb: str, exclude: int | None) -> tuple[Choice, ...]:
        return tuple(
            Choice(Reply("button.player", {"name": seat.name}), f"/{verb} #{index}")
            for index, seat in enumerate(context.seats)
            if index != exclude and seat.name
        )

    async def _pong(self, context: Context) -> Response:
        self._recording_night(context)
        names = context.command.names
        if not names:
            me = seat_of(context.seats, context.incoming.speaker)
            return await self._ask(context, Reply("pong.who_fed"), self._choices_for(context, "pong", me))
        if len(names) > 2:
            raise Refusal(Reply("command.too_many_names", {"names": " ".join(names)}))
        actor = self._actor(context, names[:-1])
        feeder = resolve(context.seats, names[-1])
        return await self._apply_and_record(context, Pong(actor, feeder, self._tile(context.command.tile)))

    async def _gang(self, context: Context) -> Response:
        self._recording_night(context)
        command = context.command
        kind = GANG_KINDS[command.kind or "exposed"]
        names = command.names
        if kind is MeldKind.EXPOSED_GANG:
            if not names:
                me = seat_of(context.seats, context.incoming.speaker)
                choices = (
                    *self._choices_for(context, "gang", me),
                    Choice(Reply("button.added_gang"), "/gang add"),
                    Choice(Reply("button.concealed_gang"), "/gang self"),
                )
                return await self._ask(context, Reply("gang.which"), choices)
            if len(names) > 2:
                raise Refusal(Reply("command.too_many_names", {"names": " ".join(names)}))
            actor = self._actor(context, names[:-1])
            feeder: int | None = resolve(context.seats, names[-1])
        else:
            if len(names) > 1:
                raise Refusal(Reply("command.too_many_names", {"names": " ".join(names)}))
            actor = self._actor(context, names)
            feeder = None
        return await self._apply_and_record(context, Gang(actor, kind, feeder, self._tile(command.tile)))

    async def _flower_gang(self, context: Context) -> Response:
        self._recording_night(context)
        actor = self._actor(context, context.command.names)
        return await self._apply_and_record(context, FlowerGang(actor))

    async def _penalty(self, context: Context) -> Response:
        self._recording_night(context)
        command = context.command
        if not command.names:
            choices = tuple(
                Choice(Reply(f"button.{kind}", {"name": seat.name}), f"/penalty {word} #{index}")
                for kind, word in (("penalty_follow", "follow"), ("penalty_four", "four"))
                for index, seat in enumerate(context.seats)
            )
            return await self._ask(context, Reply("penalty.who"), choices)
        if len(command.names) > 1:
            raise Refusal(Reply("command.too_many_names", {"names": " ".join(command.names)}))
        offender = resolve(context.seats, command.names[0])
        kind = command.kind or "penalty_custom"
        if kind == "penalty_custom" and command.amount is None:
            raise Refusal(Reply("penalty.needs_amount"))
        return await self._apply_and_record(context, Penalty(kind, offender, command.amount))

    async def _draw(self, context: Context) -> Response:
        self._recording_night(context)
        return await self._apply_and_record(context, Draw())

    async def _hu(self, context: Context) -> Response:
        self._recording_night(context)
        command = context.command
        state = await self._state(context)
        if not command.names and not command.self_draw and not command.hand_text and not command.declared:
            me = seat_of(context.seats, context.incoming.speaker)
            choices = (Choice(Reply("button.self_draw"), "/hu self"), *self._choices_for(context, "hu", me))
            return await self._ask(context, Reply("hu.how"), choices)
        robbing = "robbing_gang" in command.flags
        names = list(command.names)
        if command.self_draw and not robbing:
            winners = [resolve(context.seats, n) for n in names] or [self._actor(context, ())]
            discarder = None
        else:
            if not names:
                raise Refusal(Reply("hu.whose_discard"))
            discarder = resolve(context.seats, names[-1])
            winners = [resolve(context.seats, n) for n in names[:-1]] or [self._actor(context, ())]
        if command.flowers is None and "wuhuaguo" not in command.declared:
            raise Refusal(Reply("hu.needs_flowers"))
        flowers = command.flowers or 0
        if command.hand_text and len(winners) > 1:
            raise Refusal(Reply("hu.one_hand_per_line"))
        claims = tuple(self._claim(command, winner, state, flowers, discarder is None or robbing) for winner in winners)
        event = Win(claims, discarder)
        merge_with = await self._mergeable_win(context, discarder, winners)
        if merge_with is not None:
            previous = decode_event("win", merge_with.payload)
            assert isinstance(previous, Win)
            assert context.night is not None
            all_events = await self.ledger.events(context.night.id)
            state = self._replay(context.night, all_events, frozenset({merge_with.id}))
            event = Win(previous.claims + claims, discarder)
        outcome = apply(state, event)
        results = [
            {
                "winner": w,
                "total": s.total,
                "keys": [item.key for item in s.items],
                "self_draw": event.discarder is None or any(c.flags.robbing_gang for c in event.claims),
            }
            for w, s in outcome.scores
        ]
        extra = {"results": results, "doubled": state.doubled}
        return await self._record(context, event, outcome, extra, undo_first=merge_with)

    def _claim(self, command: Command, winner: int, state: TableState, flowers: int, self_draw: bool) -> WinInput:
        flags = WinFlags(
            hard_flowers=flowers,
            self_draw=self_draw,
            dealer=winner == state.dealer,
            after_gang="after_gang" in command.flags,
            after_flower="after_flower" in command.flags,
            last_stacks="last_stacks" in command.flags,
            heavenly="heavenly" in command.flags,
            earthly="earthly" in command.flags,
            robbing_gang="robbing_gang" in command.flags,
        )
        if command.hand_text:
            concealed, melds, winning = parse_hand_parts(command.hand_text)
            if winning is None:
                raise EngineError("hand.no_winning_tile")
            return WinInput(winner, flags, concealed, melds, winning)
        return WinInput(winner, flags, declared=command.declared, soft=command.soft)

    async def _mergeable_win(self, context: Context, discarder: int | None, winners: Sequence[int]) -> EventRow | None:
        """A second 胡 on the same discard, typed as its own line right after the first (一炮多响)."""
        if discarder is None or context.night is None:
            return None
        last = await self.ledger.last_active_event(context.night.id, sorted(REVERSIBLE))
        if last is None or last.kind != "win":
            return None
        previous = decode_event("win", last.payload)
        assert isinstance(previous, Win)
        earlier = {c.winner for c in previous.claims}
        if previous.discarder != discarder or earlier & set(winners):
            return None
        return last

    # ---- undo ----------------------------------------------------------------------------------

    async def _undo(self, context: Context) -> Response:
        night = self._recording_night(context)
        if context.command.number is not None:
            target = await self.ledger.event(night.id, context.command.number)
            if target is None:
                raise Refusal(Reply("undo.no_such_event", {"id": context.command.number}))
            if await self.ledger.is_reversed(target.id):
                raise Refusal(Reply("undo.already_undone", {"id": target.id}))
            if target.kind not in REVERSIBLE:
                kind = Reply(f"kind.{target.kind}")
                raise Refusal(Reply("undo.not_undoable", {"id": target.id, "kind": kind}))
        else:
            target = await self.ledger.last_active_event(night.id, sorted(REVERSIBLE))
            if target is None:
                raise Refusal(Reply("undo.nothing"))
        payments = tuple(refund([self._as_payment(p) for p in await self.ledger.payments_of(target.id)]))
        ids = await self._append(
            context,
            night,
            [NewEvent(target.hand_no, "undo", None, json.dumps({"target": target.id}), payments, target.id)],
        )
        state = await self.table_state(night)  # an undo can change the past: this replays the log
        seats = context.seats
        rows = await self.ledger.payments_of(ids[0])
        replies = [Reply("undo.done", {"id": ids[0], "target": target.id, "text": target.raw_text})]
        replies.extend(payment_lines(rows, seats, self._preset(night)))
        board = await self._board(night, seats, state)
        return Response(
            tuple(replies), context.language, recorded=True, night_id=night.id, hand_no=state.hand_no, scoreboard=board
        )

    # ---- questions -----------------------------------------------------------------------------

    async def _score(self, context: Context) -> Response:
        night = context.night
        if night is None:
            raise Refusal(Reply("night.none"))
        state = await self._state(context)
        board = await self._board(night, context.seats, state)
        replies = [board] if not context.closed else [Reply("night.closed_note", {"night": night.id}), board]
        return Response(tuple(replies), context.language, night_id=night.id)

    async def _history(self, context: Context) -> Response:
        night = context.night
        if night is None:
            raise Refusal(Reply("night.none"))
        events = await self.ledger.recent_events(night.id, HISTORY_LINES)
        reversed_ids = await self.ledger.reversed_among([e.id for e in events])
        return Response(tuple(history(events, reversed_ids)), context.language, night_id=night.id)

    async def _rules(self, context: Context) -> Response:
        """The open night's numbers, or any built-in preset's when named (`/rules chengbei`)."""
        night = context.night
        name = (context.command.word or "").lower()
        if not name and night is not None and not context.closed:
            return Response(tuple(rules(self._preset(night), night.stake_cents)), context.language)
        name = name or "nanjing"
        if name not in PRESET_NAMES:
            raise Refusal(Reply("preset.unknown", {"name": name, "known": ", ".join(PRESET_NAMES)}))
        return Response(tuple(rules(preset_from_dict(resolved_builtin(name)), 100)), context.language)

    async def _summary_replies(self, context: Context, night: NightRow) -> tuple[list[Reply], list[int], list[int]]:
        wins = await self.ledger.events_of_kinds(night.id, ("win",))
        undone = await self.ledger.reversed_among([e.id for e in wins])
        totals = await self.totals(night)
        amounts, money = totals.amounts, totals.money
        stats = night_stats(wins, undone, totals.by_reason)
        state = await self._state(context)
        lines = summary(night, context.seats, self._preset(night), amounts, money, stats, state.hand_no - 1)
        return lines, amounts, money

    async def _summary(self, context: Context) -> Response:
        night = context.night
        if night is None:
            raise Refusal(Reply("night.none"))
        lines, _, _ = await self._summary_replies(context, night)
        attachments: list[Attachment] = []
        if self.charts_enabled:
            chart = await self._chart(night, context)
            wanted = Path(context.command.options.get("chart", chart.filename)).name  # a file name, no path
            attachments.append(replace(chart, filename=wanted))
        choices: tuple[Choice, ...] = ()
        if not context.closed:
            lines.append(Reply("summary.confirm"))
            self._pending_close.add(context.incoming.chat_id)
            choices = (Choice(Reply("button.close_night"), "/close"),)
        return Response(
            tuple(lines), context.language, attachments=tuple(attachments), choices=choices, night_id=night.id
        )

    async def _chart(self, night: NightRow, context: Context) -> Attachment:
        deltas = await self.ledger.hand_deltas(night.id)
        wins = await self.ledger.events_of_kinds(night.id, ("win",))
        png = charts.balance_chart(night, context.seats, deltas, charts.doubled_hands(wins), context.language)
        return Attachment("photo", f"night-{night.id}.png", png)

    async def _close(self, context: Context) -> Response:
        night = self._recording_night(context)
        if context.incoming.chat_id not in self._pending_close and context.command.plain:
            return Response((Reply("close.summary_first"),), context.language)
        self._pending_close.discard(context.incoming.chat_id)
        await self._append(context, night, [NewEvent((await self._state(context)).hand_no, "close", None, "{}")])
        return Response((Reply("close.done", {"night": night.id}),), context.language, recorded=True, night_id=night.id)

    async def _reopen(self, context: Context) -> Response:
        night = context.night
        if night is None or not context.closed:
            raise Refusal(Reply("reopen.not_closed"))
        if not may_record(night, context.seats, context.incoming.speaker):
            raise Refusal(Reply("permission.not_at_table", {"players": player_list(context.seats)}))
        await self._append(context, night, [NewEvent((await self._state(context)).hand_no, "reopen", None, "{}")])
        return Response(
            (Reply("reopen.done", {"night": night.id}),), context.language, recorded=True, night_id=night.id
        )

    async def _lang(self, context: Context) -> Response:
        choice = normalize_language(context.command.word)
        if choice is None:
            raise Refusal(Reply("lang.unknown", {"given": context.command.word or "", "known": ", ".join(LANGUAGES)}))
        await self._set_language(context.incoming.chat_id, choice)
        return Response((Reply("lang.done"),), choice)

    async def _unknown(self, context: Context) -> Response:
        raise Refusal(Reply("command.unknown", {"command": context.command.word or ""}))

    async def _help(self, context: Context) -> Response:
        lines = [Reply("help.header")]
        lines.extend(Reply(f"help.{spec.name}", {"example": spec.example}) for spec in SPEC_BY_NAME.values())
        lines.append(Reply("rules.not_enforced"))
        return Response(tuple(lines), context.language)

    async def _stats(self, context: Context) -> Response:
        replies = await chat_stats(self.ledger, context.incoming.chat_id, context.command.word)
        return Response(tuple(replies), context.language)

    async def _me(self, context: Context) -> Response:
        if not context.incoming.private:
            return Response((Reply("me.private_only"),), context.language)
        replies = await my_stats(self.ledger, context.incoming.speaker.id)
        return Response(tuple(replies), context.language)

    async def _export(self, context: Context) -> Response:
        night = context.night
        if night is None:
            raise Refusal(Reply("night.none"))
        events = await self.ledger.events(night.id)
        data = export.night_csv(night, seats_now(night, events), events, await self.ledger.payments(night.id))
        return Response(
            (Reply("export.done", {"night": night.id}),),
            context.language,
            attachments=(Attachment("document", f"night-{night.id}.csv", data),),
        )

    # ---- for the console's --json ---------------------------------------------------------------

    async def night_json(self, chat_id: str) -> dict[str, object] | None:
        night = await self.ledger.latest_night(chat_id)
        if night is None:
            return None
        seats = seats_now(night, await self.ledger.events_of_kinds(night.id, SEAT_EVENTS))
        totals = await self.totals(night)
        amounts, money = totals.amounts, totals.money
        state = await self.table_state(night)
        return {
            "night": night.id,
            "preset": night.preset_name,
            "stake": format_money(night.stake_cents),
            "balances": {seats[i].name: amounts[i] for i in range(SEATS)},
            "money": {seats[i].name: format_money(money[i]) for i in range(SEATS)},
            "transfers": transfers_json(money, seats),
            "hands": state.hand_no - 1,
            "unit": unit_key(self._preset(night)).rsplit(".", 1)[-1],
        }
