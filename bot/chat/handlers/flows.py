"""Guided flows: a gang, a penalty or a win by its declared patterns in a few taps, in one message
edited step by step (a win tapped tile by tile is one keyboard that is not edited until the win is
recorded: bot/chat/handlers/tile_flow.py).

The flow's state travels in the buttons' own command lines (`/hu ~t…g…d…n…w1f2h4p5`; the tile pad's
in its stored taps), so it belongs to the command layer and to no front end: Telegram renders the
choices as buttons and edits the message in place (`Response.edits`), the console prints them as
lines to type. Nothing is recorded before the
last step (确认 for a win); every step has a back button.

A flow is used once, whatever the front end: its head names the flow (the minute it started, its
night and hand, and a random name), and the event its last step records carries the update key
`flow:<night>:<minute>:<name>`, unique in the ledger. So a double tap on the last step, two
different last steps (`Carol` then `Dave` on the penalty's who-step), or a console line typed again
record once, and every later step answers "already recorded #N". A flow of another night or hand,
one from the future, or one older than `FLOW_MINUTES` records nothing; numbers in a token are
bounded by the grammar, so an oversized one is an unreadable token, never an overflow.

Head letters: t = the minute the flow started, g = its night, d = its hand, n = its name. State
letters: w = winner, f = from whom (s: self-draw), h = hard flowers, m = show more counts, p = the
toggled patterns (a bitmask over `flow_patterns`, hex), x = confirm, y = type the hand instead; a
win whose hand is tapped tile by tile (点牌, bot/chat/handlers/tile_flow.py) carries after the head only
o = one tap: the pad is the fold of the flow's taps, stored with the flow (bot/chat/handlers/tile_pad.py);
for gangs k = kind (e exposed, a added, c concealed), a = actor, f = feeder, j = the tile (one
character, bot.chat.handlers.tile_pad.ALPHABET), c = record; for
penalties k = kind, o = offender.
"""

from __future__ import annotations

import re
import secrets
import string
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from bot.chat.command import Command
from bot.chat.handlers import tile_pad
from bot.chat.handlers.common import Context, Refusal, recording_night
from bot.chat.handlers.table_events import gang, hu, penalty, win_event
from bot.night.fold import PENDING_ID
from bot.night.night import Night
from bot.night.records import DuplicateUpdate, PaymentRow
from bot.night.seating import seat_of
from bot.text.replies import Choice, Reply, Response
from bot.text.vocabulary import flag_fields, flag_units, pattern_words
from bot.views.lines import payment_lines
from bot.views.said import explained, readable, refused_reason
from engine.checks import logged_copies
from engine.claims import check_claims, check_declared, situation_of
from engine.errors import EngineError
from engine.events import MeldRecord
from engine.hand import MeldKind
from engine.preset import Preset
from engine.table import WinRefused
from engine.tiles import NUM_KINDS, SUITS, Tile, is_wind, rank_of, suit_of, tile_name
from engine.units import WinFlags

FLOW_MINUTES = 10
TILE_ROW_SPLIT = 5  # a suit's ranks 1-5 on one row, 6-9 on the next: within Telegram's 8 buttons a row
FEW_FLOWERS = 9  # buttons 0-8, then "more"
MAX_FLOWERS = 20
NAME_LETTERS = string.digits + string.ascii_lowercase
NAME_LENGTH = 5  # 36⁵ ≈ 60 million names a minute per night: two flows never share one
# Every number is bounded: a minute stamp (10 digits last until the year 21000), a night id, a hand.
_HEAD = rf"^~t(\d{{1,10}})g(\d{{1,12}})d(\d{{1,6}})n([0-9a-z]{{{NAME_LENGTH}}})"
HEAD_PATTERN = _HEAD
_HU = re.compile(_HEAD + r"(?:w([0-3]))?(?:f([0-3s]))?(?:h(\d{1,2}))?(m)?(?:p([0-9a-f]{1,8}))?([xy])?$")
_GANG = re.compile(_HEAD + r"(?:a([0-3]))?(?:k([eac]))?(?:f([0-3]))?(?:j([0-9A-U]))?(c)?$")
_PENALTY = re.compile(_HEAD + r"(?:k([fo]))?(?:o([0-3]))?$")
GANG_KINDS = {"e": "exposed", "a": "added", "c": "concealed"}
PENALTY_KINDS = {"f": "follow", "o": "four"}
Handler = Callable[[Context], Awaitable[Response]]


def minute_stamp(now: float) -> str:
    return str(int(now // 60))


@dataclass(frozen=True)
class Head:
    """Which flow a step belongs to: when and where it started, and its own random name."""

    minute: int
    night: int
    hand: int
    name: str

    @property
    def text(self) -> str:
        return f"~t{self.minute}g{self.night}d{self.hand}n{self.name}"

    @property
    def update_key(self) -> str:
        """What the flow's recorded event is keyed by: the flow, not the button that finished it."""
        return f"flow:{self.night}:{self.minute}:{self.name}"


def new_head(context: Context, night: Night) -> Head:
    name = "".join(secrets.choice(NAME_LETTERS) for _ in range(NAME_LENGTH))
    return Head(int(minute_stamp(context.services.clock())), night.id, night.state.hand_no, name)


def read_state(pattern: re.Pattern[str], state: str) -> tuple[Head, tuple[str | None, ...]]:
    """The head and the step letters of a token; an unreadable one (a number too long, a letter out
    of place) is refused."""
    match = pattern.match(state)
    if match is None:
        raise Refusal(Reply("flow.bad"))
    minute, night, hand, name, *rest = match.groups()
    return Head(int(minute), int(night), int(hand), name), tuple(rest)


async def ended(context: Context, night: Night, head: Head) -> Response | None:
    """Why this flow cannot take a step any more, if it cannot: already recorded (told to the
    presser alone), of another night or hand, from the future, or expired."""
    recorded = await context.services.nights.event_of_update(head.update_key)
    if recorded is not None:
        return already_recorded(context, recorded)
    now = context.services.clock()
    if head.night != night.id or head.hand != night.state.hand_no or head.minute * 60 > now:
        return Response((Reply("flow.stale"),), context.language, edits=True)
    if now - head.minute * 60 > FLOW_MINUTES * 60:
        return Response((Reply("flow.expired"),), context.language, edits=True)
    return None


def already_recorded(context: Context, event_id: int | None) -> Response:
    """Said to the presser: the line's number tonight, or only that it was recorded (another night's)."""
    night = context.night
    number = night.number_of(event_id) if night is not None and event_id is not None else None
    if number is None:
        return Response((Reply("button.recorded_before"),), context.language)
    return Response((Reply("button.already_recorded", {"id": number}),), context.language)


def as_flow(context: Context, head: Head, command: Command) -> Context:
    """The last step's context: the command it stands for, recorded under the flow's key."""
    return replace(context, command=command, incoming=replace(context.incoming, update_key=head.update_key))


async def finish(context: Context, head: Head, command: Command, handler: Handler) -> Response:
    """Record the flow's event once: a second last step (a double tap, another button of the same
    step, the line typed again) finds the flow's key taken and says which event it is."""
    try:
        response = await handler(as_flow(context, head, command))
    except DuplicateUpdate:
        recorded = await context.services.nights.event_of_update(head.update_key)
        return already_recorded(context, recorded)
    return replace(response, edits=True)


@dataclass(frozen=True)
class Toggle:
    """A button of the pattern step: a pattern the players name, or a flag (杠开, 海底 …) shown by the
    name of the pattern it scores in this preset."""

    key: str  # a unit key, or a WinFlags field for a flag
    label: str  # the message key of its name
    flag: bool = False


@dataclass(frozen=True)
class Situation:
    """What the table knows of a win before it is recorded: enough to drop what cannot apply."""

    self_draw: bool
    dealer: bool
    logged: tuple[MeldRecord, ...]  # the winner's melds logged this hand
    last_act: str | None
    hard: int = 0
    robbable: bool = True  # the discarder holds a pong that could have been upgraded (抢杠)


def situation(
    night: Night, winner: int, discarder: int | None, hard: int | None = None, winning: Tile | None = None
) -> Situation:
    """`discarder` None: a self-draw; `winning` the winning tile when the tiles are known."""
    act = night.state.last_acts[winner]
    robbable = discarder is not None and any(
        m.kind in (MeldKind.PONG, MeldKind.ADDED_GANG) and (winning is None or m.tile in (None, winning))
        for m in night.state.melds[discarder]
    )
    dealer = winner == night.state.dealer
    logged = night.state.melds[winner]
    return Situation(discarder is None, dealer, logged, act.kind if act else None, hard or 0, robbable)


def applies(preset: Preset, key: str, flag: bool, facts: Situation | None) -> bool:
    """Whether a pattern or flag can be this win's, asked of the engine's own checks (RULES §5): no
    self-draw's flag (杠开, 海底 …) on a discard, 杠开 only right after the winner's gang, 天胡 only for
    the dealer, no seven pairs or 清一色 a logged meld rules out, 抢杠 only from a pong."""
    if facts is None:
        return True
    if key == "robbing_gang" and not facts.robbable:
        return False  # 抢杠 robs a pong being upgraded: the discarder has none (engine.table)
    try:
        if flag:
            flags = WinFlags(hard_flowers=facts.hard, self_draw=facts.self_draw, **{key: True})
            logged = tuple(m.kind for m in facts.logged)
            known = situation_of(
                None,
                self_draw=facts.self_draw,
                dealer=facts.dealer,
                logged=logged,
                last_act=facts.last_act,
                has_log=True,
            )
            check_claims(flags, preset, known)
        else:
            check_declared((key,), facts.logged, preset, 0)  # the seat only names the meld in an error
    except EngineError:
        return False
    return True


def flow_toggles(preset: Preset, discard: bool, facts: Situation | None = None) -> tuple[Toggle, ...]:
    """The preset's patterns in its order (门清 and 无花果 come from the log and the count), then the
    flags that score a pattern here; 抢杠 on a discard win (the discarder is the robbed player). Only
    what can apply is offered (`applies`)."""
    nameable = set(pattern_words().values())
    toggles = [
        Toggle(k, f"unit.{k}")
        for k in preset.patterns
        if k in nameable and k not in ("pao", "menqing", "wuhuaguo") and applies(preset, k, False, facts)
    ]
    for flag in flag_fields():
        units = [unit for unit in flag_units(flag) if unit in preset.patterns]
        if units and applies(preset, flag, True, facts):
            toggles.append(Toggle(flag, f"unit.{units[0]}", flag=True))
    if discard and "robbing_gang" not in {t.key for t in toggles} and applies(preset, "robbing_gang", True, facts):
        toggles.append(Toggle("robbing_gang", "button.robbing_gang", flag=True))
    return tuple(toggles)


@dataclass(frozen=True)
class Step:
    """What a flow step answers: a question, extra lines, and the buttons."""

    question: Reply
    lines: tuple[Reply, ...]
    choices: tuple[Choice, ...]


def flow_response(context: Context, night: Night, step: Step) -> Response:
    return Response(
        (step.question, *step.lines),
        context.language,
        choices=step.choices,
        night_id=night.id,
        hand_no=night.state.hand_no,
        edits=True,
    )


def back(command: str) -> Choice:
    return Choice(Reply("button.back"), command)


def player_choices(context: Context, prefix: str, exclude: int | None = None, first: int | None = None) -> list[Choice]:
    """A button per seated player, labelled with the name; `first` (the speaker) leads."""
    order = sorted(range(len(context.seats)), key=lambda seat: seat != first)
    return [
        Choice(Reply("button.player", {"name": context.seats[seat].name}), f"{prefix}{seat}")
        for seat in order
        if seat != exclude and context.seats[seat].name
    ]


# ---- 胡 -------------------------------------------------------------------------------------------


async def hu_flow(context: Context, state: str) -> Response:
    """The declared-pattern 胡 (报番型 on the tile pad): who won → from whom → hard flowers → patterns."""
    night = recording_night(context)
    head, (winner, source, hard, more, mask, last) = read_state(_HU, state)
    stop = await ended(context, night, head)
    if stop is not None:
        return stop
    base = f"/hu {head.text}"
    me = seat_of(context.seats, context.incoming.speaker)
    if winner is None:
        return flow_response(
            context, night, Step(Reply("flow.hu_who"), (), tuple(player_choices(context, f"{base}w", first=me)))
        )
    w = int(winner)
    name = context.seats[w].name
    at_w = f"{base}w{w}"
    if source is None:
        choices = [Choice(Reply("button.self_draw"), f"{at_w}fs"), *player_choices(context, f"{at_w}f", exclude=w)]
        return flow_response(context, night, Step(Reply("flow.hu_from", {"winner": name}), (), (*choices, back(base))))
    at_f = f"{at_w}f{source}"
    if hard is None:
        counts = range(FEW_FLOWERS, MAX_FLOWERS + 1) if more else range(FEW_FLOWERS)
        choices = [Choice(Reply("button.count", {"count": n}), f"{at_f}h{n}") for n in counts]
        if not more:
            choices.append(Choice(Reply("button.more"), f"{at_f}m"))
        return flow_response(
            context,
            night,
            Step(Reply("flow.hu_flowers", {"winner": name}), (), (*choices, back(at_w if not more else at_f))),
        )
    at_h = f"{at_f}h{int(hard)}"
    facts = situation(night, w, None if source == "s" else int(source), int(hard))
    keys = flow_toggles(night.preset, discard=source != "s", facts=facts)
    chosen = int(mask, 16) if mask else 0
    selected = [toggle for index, toggle in enumerate(keys) if chosen >> index & 1]
    command = hu_command(context, w, source, int(hard), selected)
    if last == "x":  # 确认: recorded exactly as the line /hu would be, once
        return await finish(context, head, command, hu)
    if last == "y":  # type the hand instead: the line to complete, and the way back
        example = Reply("flow.type_hand", {"example": typed_example(context, command)})
        return flow_response(context, night, Step(example, (), (back(f"{at_h}p{chosen:x}"),)))
    return pattern_step(context, night, at_h, keys, chosen, command)


def hu_command(context: Context, winner: int, source: str, hard: int, selected: list[Toggle]) -> Command:
    self_draw = source == "s"
    names = (f"#{winner}",) if self_draw else (f"#{winner}", f"#{source}")
    declared = tuple(t.key for t in selected if not t.flag)
    flags = frozenset(t.key for t in selected if t.flag)
    return Command(
        "hu", context.incoming.text, names=names, self_draw=self_draw, declared=declared, flowers=hard, flags=flags
    )


def pattern_step(
    context: Context, night: Night, at_h: str, keys: tuple[Toggle, ...], chosen: int, command: Command
) -> Response:
    """Toggle patterns; the preview of the win as it stands is shown with every toggle."""
    choices: list[Choice] = []
    for index, toggle in enumerate(keys):
        on = chosen >> index & 1
        label = Reply("button.pattern_on" if on else "button.pattern", {"name": Reply(toggle.label)})
        choices.append(Choice(label, f"{at_h}p{chosen ^ (1 << index):x}"))
    lines = preview(context, night, command)
    here = f"{at_h}p{chosen:x}"
    tail = [Choice(Reply("button.type_hand"), f"{here}y")]
    if lines and lines[0].key != "flow.refused":
        tail.append(Choice(Reply("button.confirm"), f"{here}x"))
    at_f = at_h.rsplit("h", 1)[0]
    return flow_response(context, night, Step(Reply("flow.hu_patterns"), tuple(lines), (*choices, *tail, back(at_f))))


def typed_example(context: Context, command: Command) -> str:
    winner = context.seats[int(command.names[0][1:])].name
    source = "self" if command.self_draw else context.seats[int(command.names[1][1:])].name
    return f"{winner}: /hu {source} 123m 456m 789m 234p 5p +5p flowers={command.flowers}"


def preview(context: Context, night: Night, command: Command) -> list[Reply]:
    """The win as it would be recorded: breakdown, multipliers and payments; nothing is written."""
    try:
        event = win_event(context, command, night.state)
        played = night.whole_fold().then(PENDING_ID, PENDING_ID, event).last
    except WinRefused as refused:
        name = context.seats[refused.params["winner"]].name
        return [Reply("flow.refused", {"reason": refused_reason(refused, name)})]
    except EngineError as error:
        return [
            Reply("flow.refused", {"reason": Reply(error.key, readable(error.params, context.seats, context.night))})
        ]
    except Refusal as refusal:
        return [Reply("flow.refused", {"reason": refusal.replies[0]})]
    stake = night.stake_at(night.state.hand_no)
    rows = [PaymentRow(PENDING_ID, p.payer, p.payee, p.amount, p.amount * stake, p.reason) for p in played.payments]
    return [*explained(played, night.seats), *payment_lines(rows, night.seats, night.preset)]


# ---- 杠 -------------------------------------------------------------------------------------------


async def gang_flow(context: Context, state: str | None) -> Response:
    """Kind → from whom (an exposed gang) → record; the tile may be typed instead (`/gang Bob 5s`)."""
    night = recording_night(context)
    if state is None:
        me = seat_of(context.seats, context.incoming.speaker)
        state = new_head(context, night).text + (f"a{me}" if me is not None else "")
    head, (actor, kind, feeder, tile, record) = read_state(_GANG, state)
    stop = await ended(context, night, head)
    if stop is not None:
        return stop
    base = f"/gang {head.text}"
    if actor is None:
        return flow_response(
            context, night, Step(Reply("flow.gang_who"), (), tuple(player_choices(context, f"{base}a")))
        )
    at_a = f"{base}a{actor}"
    name = context.seats[int(actor)].name
    if kind is None:
        kinds = [Choice(Reply(f"button.gang_{word}"), f"{at_a}k{letter}") for letter, word in GANG_KINDS.items()]
        return flow_response(context, night, Step(Reply("flow.gang_kind", {"actor": name}), (), (*kinds, back(base))))
    at_k = f"{at_a}k{kind}"
    if kind == "e" and feeder is None:
        feeders = player_choices(context, f"{at_k}f", exclude=int(actor))
        return flow_response(context, night, Step(Reply("flow.gang_from", {"actor": name}), (), (*feeders, back(at_a))))
    line = f"{at_k}f{feeder}" if feeder is not None else at_k
    names = (f"#{actor}", f"#{feeder}") if feeder is not None else (f"#{actor}",)
    tiled = tile_name(tile_pad.ALPHABET.index(tile)) if tile is not None else None
    command = Command("gang", context.incoming.text, names=names, kind=GANG_KINDS[kind], tile=tiled)
    if record:
        return await finish(context, head, command, gang)
    hint = Reply("tiles.gang_tile", {"actor": name, "example": gang_example(context, command)})
    tiles = [
        Choice(tile_label(t), f"{line}j{tile_pad.ALPHABET[t]}c", tile_row(t))
        for t in gang_tiles(night, int(actor), GANG_KINDS[kind])
    ]
    choices = (*tiles, Choice(Reply("button.record"), f"{line}c"), back(at_a if kind != "e" else at_k))
    return flow_response(context, night, Step(hint, (), choices))


def gang_tiles(night: Night, actor: int, kind: str) -> list[Tile]:
    """The tiles this gang can be of: four copies nobody has shown (exposed, concealed), or the
    actor's own pong (added; any unshown tile if a pong was logged without its tile)."""
    copies = logged_copies(night.state.melds)
    free = [t for t in range(NUM_KINDS) if copies[t] == 0]
    if kind != "added":
        return free
    pongs = [m for m in night.state.melds[actor] if m.kind is MeldKind.PONG]
    own = sorted({m.tile for m in pongs if m.tile is not None})
    return sorted({*own, *free}) if any(m.tile is None for m in pongs) else own


def tile_label(tile: Tile) -> Reply:
    """One tile as a player reads it: `5筒`, `东` (`5p`, `E` in English)."""
    if is_wind(tile):
        return Reply(f"tiles.wind_{tile_name(tile).lower()}")
    return Reply(f"tiles.suit_{SUITS[suit_of(tile) or 0]}", {"ranks": rank_of(tile)})


def tile_row(tile: Tile) -> int:
    """A tile keyboard: a suit on two rows (1-5, 6-9), the winds on the seventh."""
    return 2 * len(SUITS) if is_wind(tile) else 2 * (suit_of(tile) or 0) + (rank_of(tile) > TILE_ROW_SPLIT)


def gang_example(context: Context, command: Command) -> str:
    actor = context.seats[int(command.names[0][1:])].name
    if command.kind == "exposed":
        return f"{actor}: /gang {context.seats[int(command.names[1][1:])].name} 5s"
    return f"{actor}: /gang {'add' if command.kind == 'added' else 'self'} 5s"


# ---- 罚 -------------------------------------------------------------------------------------------


async def penalty_flow(context: Context, state: str | None) -> Response:
    """Kind (跟牌, 四张) → who: recorded at the second tap; a custom amount is typed (`/penalty Bob 50`)."""
    night = recording_night(context)
    head, (kind, offender) = read_state(_PENALTY, state or new_head(context, night).text)
    stop = await ended(context, night, head)
    if stop is not None:
        return stop
    base = f"/penalty {head.text}"
    if kind is None:
        kinds = [
            Choice(Reply(f"button.penalty_kind_{word}"), f"{base}k{letter}") for letter, word in PENALTY_KINDS.items()
        ]
        return flow_response(context, night, Step(Reply("flow.penalty_kind"), (), tuple(kinds)))
    if offender is None:
        who = player_choices(context, f"{base}k{kind}o")
        return flow_response(context, night, Step(Reply("flow.penalty_who"), (), (*who, back(base))))
    command = Command("penalty", context.incoming.text, names=(f"#{offender}",), kind=f"penalty_{PENALTY_KINDS[kind]}")
    return await finish(context, head, command, penalty)


# ---- entry points: a line with arguments is recorded as typed; without, the flow starts --------------


async def guided_gang(context: Context) -> Response:
    command = context.command
    if command.word and command.word.startswith("~"):
        return await gang_flow(context, command.word)
    if command.name == "gang" and (command.kind or "exposed") == "exposed" and not command.names:
        return await gang_flow(context, None)
    return await gang(context)


async def guided_penalty(context: Context) -> Response:
    command = context.command
    if command.word and command.word.startswith("~"):
        return await penalty_flow(context, command.word)
    if not command.names:
        return await penalty_flow(context, None)
    return await penalty(context)
