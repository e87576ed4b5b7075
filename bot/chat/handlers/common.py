"""What every handler shares: the incoming line, its context, refusals, and reply building."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot.chat.command import Command
from bot.chat.handlers.causes import doubled_causes, notice_choices
from bot.chat.parser import ReadLine
from bot.chat.zones import DEFAULT_ZONE, ZONE_SETTING
from bot.night.fold import Line
from bot.night.night import Night, Recorded
from bot.night.nights import Nights
from bot.night.played import Played
from bot.night.records import PaymentRow, Seat
from bot.night.seating import Speaker, may_record, player_list, resolve, seat_of
from bot.text.replies import Choice, Reply, Response
from bot.views.charts import Charts
from bot.views.lines import payment_lines
from bot.views.said import board, describe, doubled_mark, explained, readable
from engine.events import (
    Event,
    Notice,
    Win,
)


@dataclass(frozen=True)
class Replied:
    """The message a line replies to (Telegram; the console has none): a reply with /undo or /fix
    acts on the line it recorded or reports (bot/chat/handlers/reply_to.py)."""

    chat: int | None  # the Telegram chat it is in; None: a message of another chat
    message_id: int
    answer: bool = False  # the bot's own answer (its author is this bot), else a player's message


@dataclass(frozen=True)
class Upload:
    """A file sent with the line (Telegram: a document whose caption is the line): its name, its size
    in bytes, and its text (None when it was not read: too big, or not text)."""

    name: str
    size: int
    text: str | None = None
    fetched: bool = True  # False: the front end could not fetch it (a network failure): sending it again may do


@dataclass(frozen=True)
class Incoming:
    chat_id: str
    speaker: Speaker
    text: str
    update_key: str | None = None
    private: bool = False
    mentions: tuple[Speaker, ...] = ()  # users the line @mentions or replies to (Telegram)
    press: str | None = None  # a button press's own id (Telegram's callback query): a tap counted once
    read: ReadLine | None = None  # the line as the front end had it read (Referee.read): not read again
    replied: Replied | None = None  # the message the line replies to (Telegram), None: no reply
    upload: Upload | None = None  # a rules file sent with `/rules` (bot/chat/handlers/house.py)


@dataclass
class Services:
    """The services every handler may use: the nights' owner, the charts, the clock, the front end's
    settings, and what the referee keeps between lines (a summary awaiting `yes`, repeat questions
    not answered yet, lines kept for a seat claim)."""

    nights: Nights
    rules_dir: Path | None = None  # the operator's rules files (RULES_DIR; the console: its folder)
    charts_enabled: bool = True
    pending_close: set[str] = field(default_factory=set)  # chats shown /summary, awaiting `yes`
    clock: Callable[[], float] = time.time  # guided flows expire (tests move it on)
    time_zone: str = DEFAULT_ZONE  # the operator's (TIME_ZONE): a group's days, unless it set its own (/tz)
    # by chat: the repeat questions asked and not answered yet (bot/chat/handlers/repeats.py keeps them)
    pending_repeats: dict[str, tuple[PendingRepeat, ...]] = field(default_factory=dict)
    charts: Charts = field(default_factory=Charts)  # each night's chart, kept by its version
    # (chat, account) -> the line an account with no seat sent: recorded once it claims a seat
    pending_lines: dict[tuple[str, str], PendingLine] = field(default_factory=dict)
    # (chat, account) -> the kept line its seat claim released: answered right after the claim's reply
    released_lines: dict[tuple[str, str], PendingLine] = field(default_factory=dict)
    # chats whose newest line answered recorded nothing (a hint, a refusal, a question): a bare /undo
    # there asks before it undoes an older event (bot/chat/service.py keeps it; lost on a restart)
    unrecorded: set[str] = field(default_factory=set)


async def chat_zone(context: Context) -> str:
    """The time zone the chat's days are counted in: its own (/tz), else the operator's."""
    own = await context.services.nights.setting(context.incoming.chat_id, ZONE_SETTING)
    return own or context.services.time_zone


@dataclass(frozen=True)
class PendingLine:
    """A line kept while its sender claims a seat: sent again only in the same hand, soon after."""

    text: str
    night_id: int
    hand_no: int
    at: float
    # the line's own update key: the line is recorded under it once the seat is claimed, so that its
    # message stands for what it recorded (an edit of it, a reply to it: bot/chat/handlers/reply_to.py)
    update_key: str | None = None


@dataclass(frozen=True)
class PendingRepeat:
    """An event the same as one already in its hand, held until the table says it happened twice."""

    night_id: int
    hand_no: int
    same_id: int  # the event it repeats
    event: Event
    speaker: str  # who typed it, and what: the line is recorded as theirs
    text: str
    asked_at: float
    question: int = 0  # the question's id in its chat (given by bot/chat/handlers/repeats.remember)
    # the night's newest row when it was asked (Night.log_size): nothing recorded since, the question is
    # the table's latest word and a bare /undo withdraws its line; -1 for one stored before this was kept
    after: int = -1
    retyped: bool = False  # a win typed again, changed: [改 #N] or [下一盘又胡了] (bot/chat/handlers/retyped.py)


@dataclass(frozen=True)
class Context:
    """Everything a handler needs about the chat's current night."""

    incoming: Incoming
    command: Command
    language: str
    night: Night | None
    services: Services
    seated: tuple[Seat, ...] | None = None  # who sat where at an earlier place (a fix): names resolve there

    @property
    def closed(self) -> bool:
        return self.night.closed if self.night is not None else False

    @property
    def seats(self) -> tuple[Seat, ...]:
        if self.seated is not None:
            return self.seated
        return self.night.seats if self.night is not None else ()

    @property
    def line(self) -> Line:
        return Line(self.incoming.speaker.name, self.incoming.text.strip(), self.incoming.update_key)


class Refusal(Exception):
    """A handler's answer that records nothing (carries the replies to send, and the buttons that
    mend the line, if any: a win typed without its flowers offers their counts)."""

    def __init__(self, *replies: Reply, choices: tuple[Choice, ...] = (), line: int | None = None) -> None:
        super().__init__(replies[0].key if replies else "refusal")
        self.replies = replies
        self.choices = choices
        self.line = line  # the row of the line it names to undo or fix: a reply to it acts there (named_lines.py)


def open_night(context: Context) -> Night:
    if context.night is None or context.closed:
        raise Refusal(Reply("night.none_open"))
    return context.night


def recording_night(context: Context) -> Night:
    night = open_night(context)
    if context.incoming.private:
        raise Refusal(Reply("night.private_chat"))
    if not may_record(night.row, context.seats, context.incoming.speaker):
        raise Refusal(Reply("permission.not_at_table", {"players": player_list(context.seats)}))
    if any(not seat.name for seat in context.seats):
        raise Refusal(Reply("night.seats_free", {"players": player_list(context.seats)}))
    return night


def actor(context: Context, names: Sequence[str]) -> int:
    """The seat an event is about: the name typed first, or else the speaker."""
    if names:
        return resolve(context.seats, names[0])
    seat = seat_of(context.seats, context.incoming.speaker)
    if seat is None:
        raise Refusal(Reply("player.name_the_actor", {"players": player_list(context.seats)}))
    return seat


def ask(context: Context, question: Reply, choices: tuple[Choice, ...]) -> Response:
    """A question answered by buttons; they carry this night and hand so stale ones are refused."""
    night = context.night
    return Response(
        (question,),
        context.language,
        choices=choices,
        night_id=night.id if night else None,
        hand_no=night.state.hand_no if night else None,
    )


def choices_for(context: Context, verb: str, exclude: int | None) -> tuple[Choice, ...]:
    return tuple(
        Choice(Reply("button.player", {"name": seat.name}), f"/{verb} #{index}")
        for index, seat in enumerate(context.seats)
        if index != exclude and seat.name
    )


def played_lines(night: Night, event_id: int, played: Played, payments: Sequence[PaymentRow]) -> list[Reply]:
    """What a recorded event did: the line as recorded, how a win was scored, who paid whom, the notices."""
    replies = [Reply("event.recorded", {"id": night.shown(event_id), "what": describe(played.event, night.seats)})]
    replies.extend(explained(played, night.seats))
    replies.extend(payment_lines(payments, night.seats, night.preset))
    replies.extend(notice(night, played, n) for n in played.notices)
    return replies


def notice(night: Night, played: Played, said: Notice) -> Reply:
    """A table notice; the doubled-hand warning names the events that doubled the next hand."""
    params = readable(said.params, night.seats)
    if said.key == "table.next_doubled":
        hand = night.played_in(played.hand_no)
        causes = doubled_causes(hand, str(said.params["triggers"]), night.seats, night.preset, night.shown)
        params = {**params, "triggers": causes} if causes is not None else params
        params.setdefault("factor", night.next_preset.doubling_factor)  # a notice folded before it said it
    return Reply(said.key, params)


def recorded_reply(
    context: Context, night: Night, replies: Sequence[Reply], moved_money: bool = True, event_id: int | None = None
) -> Response:
    """The reply to something now in the ledger, with the night's board after it; `event_id`: the
    row its first line reports as #N."""
    return Response(
        tuple(replies),
        context.language,
        recorded=True,
        night_id=night.id,
        hand_no=night.state.hand_no,
        scoreboard=board(night),
        moved_money=moved_money,
        event_id=event_id,
    )


def recorded_response(context: Context, night: Night, recorded: Recorded) -> Response:
    played = recorded.played
    replies = played_lines(night, recorded.event_id, played, recorded.payments)
    if isinstance(played.event, Win) and played.hand_no == 1:  # after the first hand it is in /help
        doubled = doubled_mark(played.factors, night.preset) if played.doubled else ""
        replies.append(Reply("win.in_hand", {"hand": played.hand_no, "doubled": doubled}))
    response = recorded_reply(context, night, replies, moved_money=bool(recorded.payments), event_id=recorded.event_id)
    choices = notice_choices(played, night.seats)  # a notice's line to send, as a button
    return replace(response, choices=choices) if choices else response
