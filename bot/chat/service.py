"""The transport-neutral command layer: a chat line in, replies (message keys) out.

`Referee.handle` parses the line, finds the chat's night (its one owner, `bot.night.night.Night`), and
hands the command to its feature's handler (`bot.chat.handlers.*`). Bad input of any kind becomes a
localized error reply and writes nothing. The console and the Telegram front end call this and only
this: they never touch the ledger.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bot.chat.app_desk import AppDesk
from bot.chat.commands import Handler, handler_of
from bot.chat.grammar import GRAMMAR_BY_NAME, only_looks
from bot.chat.handlers import kept, opening, refusals, reply_to
from bot.chat.handlers.app_view import BadDraft, WinDraft
from bot.chat.handlers.common import Context, Incoming, Refusal, Replied, Services, Upload
from bot.chat.handlers.house import MAX_RULES_BYTES
from bot.chat.handlers.house import allowed as allowed_to_change_rules
from bot.chat.handlers.reply_to import edited_line as edited_line  # the Telegram front end reads edits with it
from bot.chat.parser import ReadLine, read_line
from bot.night.codec import SeatChange
from bot.night.fold import Line
from bot.night.log_index import LogIndex
from bot.night.night import Night
from bot.night.nights import Nights
from bot.night.records import DuplicateUpdate, Seat
from bot.night.seating import Speaker, claimable_seat, seat_of, seated_names
from bot.store.inbox import Inbox
from bot.store.ledger import Ledger
from bot.store.writer import storage_unavailable
from bot.text.replies import Reply, Response
from bot.threads import in_thread
from bot.views.board import DEFAULT_MODE, shaped
from bot.views.board import SETTING as BOARD_SETTING
from bot.views.charts import GIVE_UP_SECONDS, Charts
from bot.views.lines import format_money, transfers_json, unit_key
from engine.errors import EngineError
from engine.suit_shapes import reading_table
from locales import DEFAULT_LANGUAGE, normalize_language

__all__ = ["MAX_RULES_BYTES", "BadDraft", "Incoming", "Referee", "Replied", "Speaker", "Upload", "WinDraft"]

log = logging.getLogger(__name__)
KEEP_TAPS_DAYS = 7  # a guided flow's taps are dropped this long after (a flow lasts FLOW_MINUTES)


@dataclass(frozen=True)
class Binding:
    """An account bound to its seat by the line it sends."""

    change: SeatChange
    claimed: str | None  # the seat's name, claimed by the account's own name; None: seated by @username


def read_among(incoming: Incoming, night: Night | None) -> ReadLine:
    """The line read among the names seated now: as the front end had it read, unless the seats
    changed since (or it was not read yet, or a reply aimed it at another line)."""
    known = tuple(seated_names(night.seats if night is not None else ()))
    read = incoming.read
    if read is None or read.text != incoming.text or read.known != known:
        return read_line(incoming.text, known)
    return read


class Referee:
    def __init__(
        self,
        ledger: Ledger,
        rules_dir: Path | None = None,
        charts_enabled: bool = True,
        chart_seconds: float | None = None,
    ) -> None:
        give_up = GIVE_UP_SECONDS if chart_seconds is None else chart_seconds
        self.services = Services(Nights(ledger), rules_dir, charts_enabled, charts=Charts(give_up=give_up))

    @classmethod
    async def open(
        cls,
        path: str | Path,
        rules_dir: Path | None = None,
        charts_enabled: bool = True,
        chart_seconds: float | None = None,
        busy_timeout: float | None = None,
    ) -> Referee:
        """A referee over the ledger at `path` (created and migrated as needed). The Telegram front end
        passes its settings (CHART_SECONDS: how long a chart may take to draw; REFEREE_BUSY_TIMEOUT: how
        long a write waits for another process's lock); None, as the console passes, is the default."""
        return cls(await Ledger.open(path, busy_timeout), rules_dir, charts_enabled, chart_seconds)

    @property
    def nights(self) -> Nights:
        return self.services.nights

    # ---- entry point ---------------------------------------------------------------------------

    async def handle(self, incoming: Incoming) -> Response | None:
        """Answer one chat line; None when the line is not for the referee. Never raises for any
        input: an unexpected failure is logged, the chat's night is reloaded from the ledger (which
        rolled the line back), and the reply says nothing was recorded (`unwritten` when it was the
        storage that failed: locked by another program, full; the line may be handled again)."""
        async with self.nights.using(incoming.chat_id):  # its night stays cached until answered
            return await self._guarded(incoming)

    async def _guarded(self, incoming: Incoming) -> Response | None:
        before = self.nights.recorded(incoming.chat_id)
        try:
            return await self._handle(incoming)
        except Exception as error:
            busy = storage_unavailable(error)  # a front end may handle the same line again later
            if busy:
                log.warning("line %r in chat %s not recorded: %s", incoming.text, incoming.chat_id, error)
            else:
                log.exception("line %r in chat %s failed", incoming.text, incoming.chat_id)
            self.nights.forget(incoming.chat_id)
            self.services.released_lines.pop((incoming.chat_id, incoming.speaker.id), None)  # its claim rolled back
            language = await self._language_after_failure(incoming)
            # it failed after the line's commit: say so (a binding is only written with an event)
            if self.nights.recorded(incoming.chat_id) != before:
                return Response((Reply("error.internal_after_recording"),), language, recorded=True)
            return Response((Reply("error.internal"),), language, refused=True, unwritten=busy)

    async def _language_after_failure(self, incoming: Incoming) -> str:
        """The chat's language, if the ledger can still say it."""
        try:
            return await self.language(incoming.chat_id, incoming.speaker.language)
        except Exception:
            return DEFAULT_LANGUAGE

    async def _handle(self, incoming: Incoming) -> Response | None:
        """The pipeline a line goes down: the chat's language, its night, the line a reply aims at, the
        line read; then a refusal, talk, or a command answered; then the line its seat claim kept."""
        language = await self.language(incoming.chat_id, incoming.speaker.language)
        # a restart's first /score reads only the events after the newest checkpoint; any other
        # command reads the whole night first (Night.load_history)
        night = await self.nights.latest(incoming.chat_id, history=False)
        aimed = await reply_to.aim(incoming, night, self.nights, language)  # a reply that corrects: the line it names
        if isinstance(aimed, Response):
            return self._noted(incoming, aimed)
        if aimed is not None:
            incoming = replace(incoming, text=aimed, read=None)
        read = read_among(incoming, night)
        if read.error is not None:
            return self._noted(incoming, refusals.unreadable(incoming.text, read.error, language))
        if read.command is None:
            return self._noted(incoming, await refusals.talk(incoming, read, night, language))
        handler = handler_of(read.command.name)
        if handler is None:
            return None
        context = Context(incoming, read.command, language, night, self.services)
        try:
            response = await self._dispatch(context, handler)
        except DuplicateUpdate:
            return Response((), language)
        except (Refusal, EngineError) as error:
            refused = await refusals.answer(context, error)
            if not refused.said or refused.response is None:  # silence, or no answer of the table's line
                return refused.response
            response = refused.response
        if not only_looks(read.command):  # /score or /export after /summary: `yes` still closes
            self.services.pending_close.discard(incoming.chat_id)
            self._noted(incoming, response)  # a look at the night is no line of the table
        return await self._kept_line(incoming, response)

    async def _dispatch(self, context: Context, handler: Handler) -> Response:
        """The command answered by its handler: the night read as far as the command needs, the
        speaker's account bound to its seat with the line's own event, the reply shaped as the chat's
        board setting wants it (one quiet line per event, the board when the hand changes)."""
        night, spec = context.night, GRAMMAR_BY_NAME.get(context.command.name)
        if night is not None and not (spec is not None and spec.head_only):
            await night.load_history()
            await night.folded()  # a long night folds off the event loop, not inside the handler
        binding = None
        if night is not None and not night.closed and not (spec is not None and spec.seats_itself):
            binding = self._binding(context.incoming, night, spec is not None and spec.claims_a_seat)
        hand_before = night.state.hand_no if night is not None else None
        response, bound = await self._bound(context, handler, binding)
        mode = await self.nights.setting(context.incoming.chat_id, BOARD_SETTING) or DEFAULT_MODE
        response = shaped(response, mode, hand_before)
        if binding is None or binding.claimed is None or not bound:
            return response
        if not await opening.first_claim(self.nights, context.incoming.chat_id, context.incoming.speaker.id):
            return response
        # one line saying who the account was bound to: once per account in a chat, not every night
        said = Reply("telegram.claimed", {"name": binding.claimed})
        live = (said, *response.live) if response.live is not None else None
        return replace(response, replies=(said, *response.replies), live=live)

    @staticmethod
    async def _bound(context: Context, handler: Handler, binding: Binding | None) -> tuple[Response, bool]:
        """The handler's answer, and whether the speaker's account was bound to its seat with it."""
        night = context.night
        if night is None or binding is None:
            return await handler(context), False
        await night.load_history()
        # a known account (seated by @username): bound once its line is answered, refusal-free
        alone = Line(context.incoming.speaker.name, "(bind)") if binding.claimed is None else None
        return await night.answer_bound(binding.change, alone, lambda: handler(context))

    def _noted(self, incoming: Incoming, response: Response | None) -> Response | None:
        """Keep whether the chat's newest line answered recorded nothing (a hint, a refusal, a question
        or an answer that wrote nothing): a bare /undo next asks before it undoes an older event. Talk
        left unanswered is no line of the table."""
        if response is None:
            return None
        if response.recorded:
            self.services.unrecorded.discard(incoming.chat_id)
        elif response.refused or response.choices or response.settles:
            self.services.unrecorded.add(incoming.chat_id)
        return response

    async def _kept_line(self, incoming: Incoming, answered: Response) -> Response:
        """A seat claimed by an account whose line was refused for want of one (`我是 陈静` after
        `碰 李娜 北`): the line is recorded now, as if sent again (bot/chat/handlers/kept.py), and
        answered with the claim."""
        line = kept.released(self.services, incoming)
        if line is None:
            return answered
        night = await self.nights.latest(incoming.chat_id, history=False)
        if night is None or not kept.still_due(line, night, self.services.clock()):
            return answered
        bind_id = night.log_size()  # the claim's row: the last the chat wrote
        again = await self._handle(kept.sent_again(incoming, line))
        return answered if again is None else await self._joined(answered, again, night, bind_id)

    @staticmethod
    async def _joined(claimed: Response, line: Response, night: Night, bind_id: int) -> Response:
        """The claim's reply and the kept line's, one answer. A claim by another name carries a button
        that undoes it: it undoes the line it recorded too, and its warning says so."""
        replies = (*claimed.replies, *line.replies)
        live = (*claimed.replies, *line.live) if line.live is not None else None
        choices = line.choices
        undo = next((c for c in claimed.choices if c.command.startswith(opening.UNDO_CLAIM)), None)
        if undo is not None:  # a claim by another name: its button undoes the line it recorded too
            await night.load_history()
            line_id = kept.row_after(night.events, bind_id)
            choices = (*choices, replace(undo, command=opening.undo_claim_line(bind_id, line_id)))
            if line_id is not None:  # the warning says the button undoes this line too
                replies = tuple(opening.with_line(reply) for reply in replies)
                live = tuple(opening.with_line(reply) for reply in live) if live is not None else None
        recorded = claimed.recorded or line.recorded
        night_id = line.night_id or claimed.night_id
        return replace(line, replies=replies, live=live, choices=choices, recorded=recorded, night_id=night_id)

    @staticmethod
    def _binding(incoming: Incoming, night: Night, recording: bool) -> Binding | None:
        """A player seated by @username gets their Telegram id the first time they speak, so that
        /me finds their nights later (recorded as a `bind` event: the ledger stays append-only). A
        seat opened by plain name is claimed by the one account whose own name folds equal to it,
        when it records. The binding is written with the line's own event (Night.answer_bound): a
        refused line binds nobody, and a claim by name is written only with an event it served."""
        speaker = incoming.speaker
        seat = seat_of(night.seats, speaker)
        claimed = None
        if seat is None and recording:
            seat = claimable_seat(night.seats, speaker)
            claimed = seat
        if seat is None or speaker.by_name or not speaker.id or night.seats[seat].user_id is not None:
            return None
        current = night.seats[seat]
        change = SeatChange(seat, current.name, speaker.id, speaker.username)
        return Binding(change, current.name if claimed is not None else None)

    # ---- what the front ends may ask -----------------------------------------------------------

    async def read(self, chat_id: str, text: str) -> ReadLine:
        """The line read with the names seated in the chat's night, once: a front end asks it whether
        the line only asks (`asks_only`, no admin lookup needed) and hands it back in `Incoming.read`.
        Never raises: a night that cannot be loaded leaves the line unread, for `handle` to answer."""
        try:
            async with self.nights.using(chat_id):
                night = await self.nights.latest(chat_id, history=False)
                return read_line(text, seated_names(night.seats) if night is not None else ())
        except Exception:
            log.exception("line %r in chat %s could not be read", text, chat_id)
            return ReadLine(text, None)

    async def warm(self) -> None:
        """Build what a process builds once, in a worker, before the first line: the engine's table of
        suit shapes (about 0.35 s and 18 MB), which the first win scored would otherwise build on the
        event loop, holding every chat that long; and the process charts are drawn in, so that a chart
        never holds the chats this process answers meanwhile."""
        if self.services.charts_enabled:
            self.services.charts.start_drawing()
        await in_thread(reading_table)

    async def language(self, chat_id: str, speaker_language: str | None = None) -> str:
        stored = await self.nights.setting(chat_id, "language")
        return stored or normalize_language(speaker_language) or DEFAULT_LANGUAGE

    async def chat_setting(self, chat_id: str, key: str) -> str | None:
        """A front end's own per-chat value (Telegram: the migrated chat's key, the scoreboard id)."""
        return await self.nights.setting(chat_id, key)

    async def set_chat_setting(self, chat_id: str, key: str, value: str) -> None:
        await self.nights.set_setting(chat_id, key, value)

    async def may_change_rules(self, chat_id: str, speaker: Speaker) -> bool:
        """Whether a rules file `speaker` sends here would be read (the night's opener, the chat's
        admins): asked before the file is downloaded."""
        return allowed_to_change_rules(speaker, await self.nights.latest(chat_id, history=False))

    async def current_hand(self, chat_id: str) -> tuple[int, int] | None:
        """(night id, hand number) of the chat's latest night: buttons for another are stale."""
        night = await self.nights.latest(chat_id, history=False)
        return (night.id, night.state.hand_no) if night is not None else None

    async def night_open(self, chat_id: str, night_id: int) -> bool:
        """Whether `night_id` is the chat's latest night and still open: a board of any other is news
        of a night over, which only its closing answer tells (#48 item 5)."""
        night = await self.nights.latest(chat_id, history=False)
        return night is not None and night.id == night_id and not night.closed

    async def event_of_message(
        self, chat_id: str, telegram_chat: int, message_id: int
    ) -> tuple[int | None, bool] | None:
        """The number of the latest line a chat message recorded tonight, and whether an earlier edit
        of it recorded it: an edit corrects it. None: the message recorded nothing (an edit is a new
        line); a number None: what it recorded is no line of tonight's (a seat claim, another night)."""
        found = await self.nights.event_of_message(chat_id, f"{telegram_chat}:{message_id}")
        if found is None:
            return None
        event_id, edited = found
        return await self.number_of_event(chat_id, event_id), edited

    def remember_answer(self, telegram_chat: int, message_id: int, reported: Sequence[tuple[int | None, bool]]) -> None:
        """Keep what a message the bot sent carried (each answer's ✅ #N row, and whether it recorded
        anything), so that a reply to it acts on that line."""
        self.nights.remember_answer(telegram_chat, message_id, reported)

    async def number_of_event(self, chat_id: str, event_id: int) -> int | None:
        """The number tonight's players know a row by (a button answered before names it), None
        when it is no line of the chat's latest night."""
        night = await self.nights.latest(chat_id, history=False)
        if night is None:
            return None
        await night.load_history()
        if event_id > night.log_size():  # committed while its line is still being answered: read the log
            return LogIndex(night.row.ids_through).number_of(await self.nights.logged_events(night.id), event_id)
        return night.number_of(event_id)

    async def first_player(self, chat_id: str) -> str | None:
        night = await self.nights.latest(chat_id, history=False)
        return night.row.seats[0].name or None if night is not None and night.row.seats else None

    async def tidy(self, days: int = KEEP_TAPS_DAYS) -> None:
        """What a process clears at start: the taps of guided flows over for `days` (a flow lasts ten
        minutes; kept, they would grow with every 胡 ever tapped), and the bot's old answers that
        report no line (bot/store/answers.py)."""
        await self.nights.flows.forget_flow_taps(days)
        await self.nights.forget_answers()

    async def close(self) -> None:
        self.services.charts.stop_drawing()
        await self.nights.close()

    @property
    def app(self) -> AppDesk:
        """What the Mini App asks (bot/web/): reads only; what it records comes in as a chat line."""
        return AppDesk(self.services)

    def inbox(self) -> Inbox:
        """The Telegram front end's durable intake, on the ledger's connection, so that an update is
        marked done by the very transaction that records its events."""
        return self.nights.inbox()

    # ---- for the console's --json ---------------------------------------------------------------

    async def night_json(self, chat_id: str) -> dict[str, object] | None:
        night = await self.nights.latest(chat_id)
        if night is None:
            return None
        everyone = night.people()
        money = [p.money_cents for p in everyone]
        names = tuple(Seat(p.name) for p in everyone)
        return {
            "night": night.id,
            "preset": night.row.preset_name,
            "stake": format_money(night.stake_at(night.state.hand_no)),  # the stake in force
            "balances": {p.name: p.amount for p in everyone},
            "money": {p.name: format_money(p.money_cents) for p in everyone},
            "transfers": transfers_json(money, names),
            "hands": night.hands_played(),
            "unit": unit_key(night.preset).rsplit(".", 1)[-1],
        }
