"""What every handler shares: the incoming line, its context, refusals, and reply building."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot.chat.command import Command
from bot.chat.grammar import GRAMMAR_BY_NAME
from bot.chat.handlers.causes import doubled_causes, notice_choices
from bot.chat.near_miss import names_with_actor, near_command
from bot.chat.parser import ReadLine, parse
from bot.night.fold import Line
from bot.night.night import Night, Recorded
from bot.night.nights import Nights
from bot.night.played import Played
from bot.night.records import PaymentRow, Seat
from bot.night.seating import Speaker, may_record, player_list, resolve, seat_of, seated_names
from bot.text.replies import LIST, Choice, Joined, Reply, Response
from bot.text.vocabulary import fold, name_key, normalize_width
from bot.views.charts import Charts
from bot.views.house_rules import what as rule_change
from bot.views.lines import factor_lines, money_first, payment_lines, scoreboard
from engine.errors import EngineError
from engine.events import (
    Draw,
    Event,
    FlowerGang,
    FourWinds,
    Gang,
    Notice,
    Penalty,
    Pong,
    RangeMark,
    SetDealer,
    SetRules,
    Win,
)
from engine.melds import LoggedMeldMissing
from engine.scoring import Item
from engine.table import WinRefused
from engine.tiles import WIND_LETTERS, tile_name
from engine.units import COUNTED_KEYS


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
    # by chat: the repeat questions asked and not answered yet (bot/chat/handlers/repeats.py keeps them)
    pending_repeats: dict[str, tuple[PendingRepeat, ...]] = field(default_factory=dict)
    charts: Charts = field(default_factory=Charts)  # each night's chart, kept by its version
    # (chat, account) -> the line an account with no seat sent: recorded once it claims a seat
    pending_lines: dict[tuple[str, str], PendingLine] = field(default_factory=dict)
    # chats whose newest line answered recorded nothing (a hint, a refusal, a question): a bare /undo
    # there asks before it undoes an older event (bot/chat/service.py keeps it; lost on a restart)
    unrecorded: set[str] = field(default_factory=set)


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
    """A handler's answer that records nothing (carries the replies to send)."""

    def __init__(self, *replies: Reply, line: int | None = None) -> None:
        super().__init__(replies[0].key if replies else "refusal")
        self.replies = replies
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


def tile_word(text: str) -> Reply | str:
    """One tile named in a reply: a wind by its name in the chat's language (东 in Simplified, 東 in
    Traditional, E in English), a suited tile in its notation (`9p`). Only a single tile: a hand
    stays notation, and buttons send notation whatever the reply shows."""
    return Reply(f"tiles.wind_{text.lower()}") if len(text) == 1 and text in WIND_LETTERS else text


def readable(params: dict[str, object], seats: Sequence[Seat], night: Night | None = None) -> dict[str, object]:
    """Seat numbers in engine errors become names, a tile (`E`) its name in the chat's language, and
    an event (`id`, a ledger row) the number tonight's players know it by."""
    shown = dict(params)
    if night is not None and isinstance(shown.get("id"), int):
        shown["id"] = night.shown(int(str(shown["id"])))
    if isinstance(shown.get("tile"), str):
        shown["tile"] = tile_word(str(shown["tile"]))
    if isinstance(shown.get("why"), str):
        shown["why"] = Reply(f"liability.{shown['why']}")
    if isinstance(shown.get("triggers"), str):  # which facts of the hand doubled the next one
        triggers = tuple(Reply(f"trigger.{key}") for key in str(shown["triggers"]).split(",") if key)
        shown["triggers"] = Joined(triggers, LIST)  # "、" in Chinese, ", " in English
    for key in ("seat", "winner", "feeder", "taker", "dealer"):
        value = shown.get(key)
        if isinstance(value, int) and 0 <= value < len(seats):
            shown[key] = seats[value].name
    return shown


def meld_conflict(night: Night, error: LoggedMeldMissing, hand: int) -> Reply:
    """A logged meld the typed win does not hold, named by its event number (never internal codes)."""
    events = night.meld_events(int(error.params["seat"]), hand)
    event_id = night.shown(events[error.index]) if error.index < len(events) else "?"
    kind = Reply(f"meld_name.{error.params['kind']}")
    tile = str(error.params["tile"])
    meld = Reply("meld.named", {"kind": kind, "tile": tile_word(tile)}) if tile else kind
    return Reply(error.key, {"id": event_id, "meld": meld})


def board(night: Night) -> Reply:
    """The four seats (a newcomer after 换人 starts at 0), then whoever left tonight with their figures."""
    amounts, money = night.seat_totals()
    seated = {fold(seat.name) for seat in night.seats}
    left = [person for person in night.people() if fold(person.name) not in seated]
    mixed = money_first(night)  # money alone (docs/rules.md 17d)
    return scoreboard(night.seats, night.state, amounts, money, left, mixed)


def item_count(item: Item) -> str:
    """` ×4` after an item's name: a count × a rate says its count, 1 too (`硬花 ×1：2`, never "硬花：2",
    read as two flowers); a pattern counted once says none (`清一色：60`)."""
    return f" ×{item.count}" if item.count > 1 or item.key in COUNTED_KEYS else ""


def breakdown(winner: str, items: Sequence[Item], total: int) -> Reply:
    lines = [
        Reply("score.item", {"name": Reply(f"unit.{i.key}"), "count": item_count(i), "flowers": i.flowers})
        for i in items
    ]
    return Reply("score.breakdown", {"winner": winner, "items": lines, "total": total})


def refused_win(seats: Sequence[Seat], refused: WinRefused) -> tuple[Reply, ...]:
    name = seats[refused.params["winner"]].name if seats else "?"
    replies = [Reply(refused.key, {"winner": name, "total": refused.score.total})]
    if refused.score.items:
        replies.append(breakdown(name, refused.score.items, refused.score.total))
    replies.append(Reply("error.nothing_recorded"))
    return tuple(replies)


def describe(event: Event, seats: Sequence[Seat]) -> Reply:
    def who(seat: int | None) -> str:
        return seats[seat].name if seat is not None else "?"

    def tile(value: int | None) -> Reply | str:
        return tile_word(tile_name(value)) if value is not None else ""

    if isinstance(event, Pong | Gang):
        kind = "pong" if isinstance(event, Pong) else event.kind.value
        # a tile typed or not: its own sentence each way, so no language is left with a dangling word
        key = f"what.{kind}_tile" if event.tile is not None else f"what.{kind}"
        return Reply(key, {"actor": who(event.actor), "feeder": who(event.feeder), "tile": tile(event.tile)})
    if isinstance(event, FlowerGang):
        return Reply("what.flower_gang", {"actor": who(event.actor)})
    if isinstance(event, FourWinds):
        return Reply("what.four_winds", {"actor": who(event.actor)})
    if isinstance(event, RangeMark):
        return Reply("what.range_mark", {"actor": who(event.actor), "tile": tile(event.tile)})
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
    if isinstance(event, SetDealer):
        return Reply("what.dealer", {"dealer": who(event.seat)})
    if isinstance(event, SetRules):
        return rule_change(event)
    assert isinstance(event, Draw)
    return Reply("what.draw")


def explained(played: Played, seats: Sequence[Seat]) -> list[Reply]:
    """Each winner's breakdown followed by the steps that made the payments from it, one per line."""
    replies: list[Reply] = []
    for winner, score in played.scores:
        replies.append(breakdown(seats[winner].name, score.items, score.total))
        if score.from_log:
            units = Joined(tuple(Reply(f"unit.{key}") for key in score.from_log), " · ")
            replies.append(Reply("score.from_log", {"units": units}))
        replies.extend(factor_lines([f for f in played.factors if f.seat == winner], seats))
    replies.extend(factor_lines([f for f in played.factors if f.seat is None], seats))
    return replies


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
        doubled = Reply("hand.doubled_mark") if played.doubled else ""
        replies.append(Reply("win.in_hand", {"hand": played.hand_no, "doubled": doubled}))
    response = recorded_reply(context, night, replies, moved_money=bool(recorded.payments), event_id=recorded.event_id)
    choices = notice_choices(played, night.seats)  # a notice's line to send, as a button
    return replace(response, choices=choices) if choices else response


def near_miss(incoming: Incoming, read: ReadLine, night: Night | None, language: str) -> Response | None:
    """A plain line one piece away from a table event (`碰 李思 6s`): a short hint, nothing recorded,
    and the mended line as a button (the speaker's seat named, so whoever presses it records the
    speaker's event); None — silence — for talk, and when no night is open. `read`: the line as read
    among the names seated in `night`, whose whole history is loaded (its renames and swaps: a name
    the seat had earlier tonight is answered with its name now)."""
    if night is None or night.closed or incoming.private:
        return None
    miss = near_command(read, night.former_names())
    if miss is None:
        return None
    choices: tuple[Choice, ...] = ()
    if miss.corrected is not None:
        seat = resolve(night.seats, miss.params["name"])
        mine = seat_of(night.seats, incoming.speaker)
        if not miss.needs_actor or mine is not None:  # whose event it is is known: the button may record it
            button = miss.button(f"#{seat}", f"#{mine}" if mine is not None else None)
            choices = (Choice(Reply("hint.button", {"line": miss.corrected}), button),)
    return Response(
        (Reply(miss.key, dict(miss.params)),),
        language,
        refused=True,
        choices=choices,
        night_id=night.id,
        hand_no=night.state.hand_no,
    )


def former_name_hint(context: Context, typed: str) -> Response | None:
    """A /command refused for a name its seat had earlier tonight (`/gang Carol 3m` after `/rename
    Carol Caroline`, or the one who left at a 换人): the near-command's hint with the seat's name now,
    and the mended command as a button recording the speaker's event; None for any other name."""
    night = context.night
    if night is None or night.closed:
        return None
    key = name_key(typed.lstrip("@"))
    was = night.former_names().get(key)
    words = normalize_width(context.incoming.text).split()
    at = next((i for i, word in enumerate(words) if i and name_key(word.lstrip("@")) == key), None)
    if was is None or at is None:
        return None
    line = " ".join([*words[:at], was.now, *words[at + 1 :]])
    try:
        command = parse(line, seated_names(night.seats))
        seat = resolve(night.seats, was.now)
    except EngineError:
        return None
    if command is None or command.plain:
        return None
    mine = seat_of(night.seats, context.incoming.speaker)
    needs_actor = len(command.names) < names_with_actor(command)
    choices: tuple[Choice, ...] = ()
    if not needs_actor or mine is not None:  # whose event it is is known: the button may record it
        head = f"/{GRAMMAR_BY_NAME[command.name].slash[0]}"
        actor = [f"#{mine}"] if needs_actor else []
        button = " ".join([head, *actor, *words[1:at], f"#{seat}", *words[at + 1 :]])
        choices = (Choice(Reply("hint.button", {"line": line}), button),)
    hint = Reply("hint.swapped" if was.swapped else "hint.renamed", {"typed": typed, "name": was.now, "line": line})
    return replace(ask(context, hint, choices), refused=True)
