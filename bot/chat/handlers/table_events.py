"""Handlers for what happens at the table: 碰, 杠, 花杠, 罚, 胡, 荒庄, 四风归齐 and 架 (敞开头)."""

from __future__ import annotations

from dataclasses import replace

from bot.chat.command import Command
from bot.chat.handlers import repeats
from bot.chat.handlers.common import (
    Context,
    PendingRepeat,
    Refusal,
    actor,
    ask,
    choices_for,
    recorded_response,
    recording_night,
)
from bot.chat.handlers.counted_melds import with_logged_melds
from bot.chat.near_miss import not_whole_amount
from bot.night.fold import Line, win_with_dealer
from bot.night.night import Night
from bot.night.seating import resolve, seat_of
from bot.text.replies import Choice, Reply, Response
from bot.views.said import tile_word
from engine.claims import conflicting_patterns
from engine.errors import EngineError
from engine.events import Draw, Event, FlowerGang, FourWinds, Gang, Penalty, Pong, RangeMark, Win, WinInput
from engine.hand import Hand, MeldKind
from engine.notation import parse_hand_parts, parse_tile
from engine.scoring import undeclared_pattern
from engine.table import TableState, reconcile_melds, table_pongs
from engine.tiles import tile_name
from engine.units import WinFlags

GANG_KINDS = {"exposed": MeldKind.EXPOSED_GANG, "added": MeldKind.ADDED_GANG, "concealed": MeldKind.CONCEALED_GANG}
REVERSIBLE = (
    "pong",
    "gang",
    "flower_gang",
    "penalty",
    "win",
    "draw",
    "four_winds",
    "range_mark",
    "fix",
    "join",
    "rename",
    "swap",
    "stake",
    "dealer",
    "rules",
)


def tile_of(text: str | None) -> int | None:
    return parse_tile(text) if text else None


def from_flow(context: Context) -> bool:
    """A guided flow's last step (its event is keyed `flow:…`, bot/chat/handlers/flows.py): tapped through
    step by step and recorded once per flow, it is a deliberate second event, never a line sent twice."""
    return (context.incoming.update_key or "").startswith("flow:")


async def record(context: Context, event: Event) -> Response:
    night = recording_night(context)
    same = None if from_flow(context) else repeat_of(night, event)
    if same is not None:  # reported twice, or happened twice: the table says which, never silence
        night.check(event)  # what the table refuses anyway is refused, not asked about
        return await repeats.ask_repeat(context, night, event, same)
    return recorded_response(context, night, await night.record(context.line, event))


def same_report(new: Event, old: Event) -> bool:
    """Whether two events of a hand are alike with nothing to tell them apart (same kind, actor and
    target, no differing tile): `A: 杠 B` twice, `D: 花杠` twice."""
    if isinstance(new, Pong | Gang) and type(new) is type(old):
        assert isinstance(old, Pong | Gang)
        kinds = not isinstance(new, Gang) or (isinstance(old, Gang) and old.kind is new.kind)
        tiles = new.tile is None or old.tile is None  # the same tile twice is refused by the table
        return kinds and tiles and (new.actor, new.feeder) == (old.actor, old.feeder)
    if isinstance(new, FlowerGang | FourWinds) and type(new) is type(old):
        assert isinstance(old, FlowerGang | FourWinds)
        return new.actor == old.actor
    if isinstance(new, Penalty) and isinstance(old, Penalty):
        # a fine with its amount typed (罚 李四 5) is told apart by the one who types it, like a tile
        return new.kind != "penalty_custom" and (new.kind, new.offender) == (old.kind, old.offender)
    return False


def repeat_of(night: Night, event: Event) -> int | None:
    """The event of this hand that `event` repeats (the latest), if any; for a win, the win just
    played (`repeated_win`)."""
    if isinstance(event, Win):
        return repeated_win(night, event)
    return next((p.place for p in reversed(night.in_hand()) if same_report(event, p.event)), None)


def repeated_win(night: Night, event: Win) -> int | None:
    """The place of the win just played, if `event` says the same — the same winners with the same
    claims (the same tiles, flowers and flags, whoever deals now), on the same discarder — and
    nothing was typed since: a win sent twice is one win until the table says there were two."""
    played = night.whole_fold().played
    if not played or not isinstance(played[-1].event, Win):
        return None
    last = played[-1]
    previous = last.event
    assert isinstance(previous, Win)
    if win_with_dealer(replace(event, joins=None), -1) != win_with_dealer(replace(previous, joins=None), -1):
        return None
    return last.place if nothing_typed_since(night, last.place) else None


def nothing_typed_since(night: Night, place: int) -> bool:
    """Whether the newest event in force is the one at `place` (no chore, no fix elsewhere since)."""
    newest = night.last_active(REVERSIBLE)
    return newest is not None and night.place_of(newest.id) == place


# ---- building events from commands (also used by /fix) -----------------------------------------


def pong_event(context: Context, command: Command) -> Pong:
    names = command.names
    if len(names) > 2:
        raise Refusal(Reply("command.too_many_names", {"names": " ".join(names)}))
    feeder = resolve(context.seats, names[-1])
    return Pong(actor(context, names[:-1]), feeder, tile_of(command.tile), command.flowers)


def gang_event(context: Context, command: Command) -> Gang:
    kind = GANG_KINDS[command.kind or "exposed"]
    names = command.names
    if kind is MeldKind.EXPOSED_GANG:
        if len(names) > 2:
            raise Refusal(Reply("command.too_many_names", {"names": " ".join(names)}))
        feeder = resolve(context.seats, names[-1])
        return Gang(actor(context, names[:-1]), kind, feeder, tile_of(command.tile), command.flowers)
    if len(names) > 1:
        raise Refusal(Reply("command.too_many_names", {"names": " ".join(names)}))
    return Gang(actor(context, names), kind, None, tile_of(command.tile), command.flowers)


def flower_gang_event(context: Context, command: Command) -> FlowerGang:
    if len(command.names) > 1:
        raise Refusal(Reply("command.too_many_names", {"names": " ".join(command.names)}))
    return FlowerGang(actor(context, command.names))


def winds_event(context: Context, command: Command) -> FourWinds:
    if len(command.names) > 1:
        raise Refusal(Reply("command.too_many_names", {"names": " ".join(command.names)}))
    return FourWinds(actor(context, command.names))


def range_event(context: Context, command: Command, state: TableState) -> RangeMark:
    """架 TILE: the seat named, else the one seat that has just made its fourth meld by a pong, else
    the speaker."""
    if len(command.names) > 1:
        raise Refusal(Reply("command.too_many_names", {"names": " ".join(command.names)}))
    tile = tile_of(command.tile)
    if tile is None:
        raise Refusal(Reply("range.needs_tile"))
    if command.names:
        return RangeMark(resolve(context.seats, command.names[0]), tile)
    ready = [
        seat
        for seat, melds in enumerate(state.melds)
        if len(melds) == 4 and melds[-1].kind is MeldKind.PONG and state.range_marks[seat] is None
    ]
    return RangeMark(ready[0] if len(ready) == 1 else actor(context, ()), tile)


def penalty_event(context: Context, command: Command) -> Penalty:
    amounts = [name for name in command.names if not_whole_amount(name)]
    if amounts:  # `罚 李四 1.5`: a penalty is whole flowers; the number is not a second name
        raise Refusal(Reply("penalty.bad_amount", {"amount": amounts[0]}))
    if len(command.names) > 1:
        raise Refusal(Reply("command.too_many_names", {"names": " ".join(command.names)}))
    offender = resolve(context.seats, command.names[0])
    kind = command.kind or "penalty_custom"
    if kind == "penalty_custom" and command.amount is None:
        raise Refusal(Reply("penalty.needs_amount"))
    return Penalty(kind, offender, command.amount)


# a win these flags describe is drawn by the winner (杠上开花, 补花胡, 天胡): the flag alone says 自摸
SELF_DRAWN_FLAGS = frozenset({"after_gang", "after_flower", "heavenly"})


def win_event(context: Context, command: Command, state: TableState) -> Win:
    robbing = "robbing_gang" in command.flags
    names = list(command.names)
    discarder: int | None
    if (command.self_draw or command.flags & SELF_DRAWN_FLAGS) and not robbing:
        winners = [resolve(context.seats, n) for n in names] or [actor(context, ())]
        discarder = None
    else:
        if not names:
            raise Refusal(Reply("hu.whose_discard"))
        discarder = resolve(context.seats, names[-1])
        winners = [resolve(context.seats, n) for n in names[:-1]] or [actor(context, ())]
    conflict = conflicting_patterns(command.declared)
    if conflict is not None:  # 七对 对对胡: never one dropped without a word, and asked before the flowers
        pattern, other, fact = conflict
        params = {"pattern": Reply(f"unit.{pattern}"), "other": Reply(f"unit.{other}"), "fact": Reply(f"fact.{fact}")}
        raise Refusal(Reply("win.patterns_conflict", params), Reply("error.nothing_recorded"))
    if command.flowers is None and "wuhuaguo" not in command.declared:
        raise Refusal(Reply("hu.needs_flowers"))
    flowers = command.flowers or 0
    if command.hand_text and len(winners) > 1:
        raise Refusal(Reply("hu.one_hand_per_line"))
    self_draw = discarder is None or robbing
    claims = tuple(claim(command, winner, state, flowers, self_draw) for winner in winners)
    for typed in claims:
        check_declared_in_hand(context, command.declared, typed, state)
    return Win(claims, discarder)


def check_declared_in_hand(context: Context, declared: tuple[str, ...], typed: WinInput, state: TableState) -> None:
    """Patterns named with the tiles must be in the tiles (RULES §5: a claim that cannot be true is
    refused with the reason). Checked before the win is scored, so a 大胡 claimed but not there is
    what the refusal names, not the 小胡 limit it would have lifted."""
    if not declared or typed.winning is None or typed.declared is not None:
        return
    melds = reconcile_melds(typed.winner, typed.melds, state.melds[typed.winner])
    hand = Hand(tuple(sorted(typed.concealed)), melds, typed.winning)
    hand.validate()
    missing = undeclared_pattern(hand, typed.flags, state.preset, dict.fromkeys(declared), table_pongs(state))
    if missing is None:
        return
    key = "win.declared_yajue_not_in_hand" if missing == "yajue" else "win.declared_not_in_hand"
    params = {
        "winner": context.seats[typed.winner].name,
        "pattern": Reply(f"unit.{missing}"),
        "tile": tile_word(tile_name(typed.winning)),
    }
    raise Refusal(Reply(key, params), Reply("error.nothing_recorded"))


def claim(command: Command, winner: int, state: TableState, flowers: int, self_draw: bool) -> WinInput:
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
    declared = tuple(dict.fromkeys(command.declared))  # a pattern named twice counts once
    return WinInput(winner, flags, declared=declared, soft=command.soft)


# ---- handlers -----------------------------------------------------------------------------------


async def pong(context: Context) -> Response:
    recording_night(context)
    if not context.command.names:
        me = seat_of(context.seats, context.incoming.speaker)
        return ask(context, Reply("pong.who_fed"), choices_for(context, "pong", me))
    return await record(context, pong_event(context, context.command))


async def gang(context: Context) -> Response:
    recording_night(context)
    command = context.command
    if GANG_KINDS[command.kind or "exposed"] is MeldKind.EXPOSED_GANG and not command.names:
        me = seat_of(context.seats, context.incoming.speaker)
        choices = (
            *choices_for(context, "gang", me),
            Choice(Reply("button.added_gang"), "/gang add"),
            Choice(Reply("button.concealed_gang"), "/gang self"),
        )
        return ask(context, Reply("gang.which"), choices)
    return await record(context, gang_event(context, command))


async def flower_gang(context: Context) -> Response:
    recording_night(context)
    return await record(context, flower_gang_event(context, context.command))


async def penalty(context: Context) -> Response:
    recording_night(context)
    if not context.command.names:
        choices = tuple(
            Choice(Reply(f"button.{kind}", {"name": seat.name}), f"/penalty {word} #{index}")
            for kind, word in (("penalty_follow", "follow"), ("penalty_four", "four"))
            for index, seat in enumerate(context.seats)
        )
        return ask(context, Reply("penalty.who"), choices)
    return await record(context, penalty_event(context, context.command))


async def winds(context: Context) -> Response:
    recording_night(context)
    return await record(context, winds_event(context, context.command))


async def range_mark(context: Context) -> Response:
    night = recording_night(context)
    return await record(context, range_event(context, context.command, night.state))


async def draw(context: Context) -> Response:
    recording_night(context)
    return await record(context, Draw())


def is_bare_hu(command: Command) -> bool:
    """`/hu` with nothing after it (the guided flow starts); a flag or a flower count alone is a win typed
    (`杠上开花 花4`), never dropped for a flow that would forget it."""
    said = command.names or command.self_draw or command.hand_text or command.declared or command.flags
    return not said and not command.soft and command.flowers is None


async def hu(context: Context) -> Response:
    night = recording_night(context)
    command = context.command
    if is_bare_hu(command):
        me = seat_of(context.seats, context.incoming.speaker)
        choices = (Choice(Reply("button.self_draw"), "/hu self"), *choices_for(context, "hu", me))
        return ask(context, Reply("hu.how"), choices)
    event = win_event(context, command, night.state)
    try:
        first = joinable_win(night, event)
        if command.also:  # the line says it (一炮多响, also): joined without a question, or refused
            if first is None:
                raise Refusal(Reply("hu.nothing_to_join"))
            return joined(await record(context, replace(event, joins=first)), shown_win(night, first))
        if first is None or not fits(night, replace(event, joins=first)):
            # not the discard just won on, or the table says it cannot be (the claim's hand does not fit
            # the table of that discard): a win of its own, checked against the hand being played
            return await record(context, event)
        return await ask_same_discard(context, night, replace(event, joins=first), first)
    except EngineError as error:  # 17 tiles: say which logged meld made them so
        raise with_logged_melds(night, event, error) or error from None


def fits(night: Night, event: Event) -> bool:
    """Whether the table takes `event` now (Night.check), without saying why not."""
    try:
        night.check(event)
    except EngineError:
        return False
    return True


def shown_win(night: Night, root: int) -> int | str:
    """The number a win several claims share is called by: its first claim still in force (the
    first one typed may have been undone since; the others share its place in the night)."""
    group = night.whole_fold().joined_group(root)
    return night.shown(group[0].place if group else root)


def joinable_win(night: Night, event: Win) -> int | None:
    """The place of the win this one may share a discard with (一炮多响): the win must be the last
    event played (by its place in the night, so a fix of an older hand's win never counts), on the
    same discarder, with other winners, on the same tile when both say it, and nothing typed since.
    Only the table knows whether it was the same discard: it is asked, or the line says it."""
    if event.discarder is None or not night.whole_fold().played:
        return None
    last = night.whole_fold().played[-1]
    previous = last.event
    if not isinstance(previous, Win) or previous.discarder != event.discarder:
        return None
    root = (
        previous.joins if previous.joins is not None and night.whole_fold().joined_group(previous.joins) else last.place
    )
    group = night.whole_fold().joined_group(root)
    claims = [c for p in group if isinstance(p.event, Win) for c in p.event.claims]
    if {c.winner for c in claims} & {c.winner for c in event.claims}:
        return None
    tiles = {c.winning for c in (*claims, *event.claims) if c.winning is not None}
    if len(tiles) > 1:
        return None  # another tile: another discard, the next hand's win
    return root if nothing_typed_since(night, last.place) else None


async def ask_same_discard(context: Context, night: Night, event: Win, first: int) -> Response:
    """Hold the win and ask whether it was the same discard as #first (the repeat question's way:
    kept in the ledger, answered once, bot/chat/handlers/repeats.py); no money moves before the answer."""
    night.check(event)  # what the table refuses anyway is refused, not asked about
    speaker = context.incoming.speaker.name
    text, asked_at = context.incoming.text.strip(), context.services.clock()
    held = PendingRepeat(night.id, night.state.hand_no, first, event, speaker, text, asked_at, after=night.log_size())
    held = await repeats.remember(context.services, context.incoming.chat_id, held)
    same = repeats.again_command(held, True)
    choices = (Choice(Reply("button.same_discard"), same), Choice(Reply("button.next_hand"), f"{same} next"))
    asked = ask(context, Reply("hu.same_discard", {"id": shown_win(night, first)}), choices)
    return replace(asked, event_id=first)  # a reply to it acts on the win it names (named_lines.py)


async def answer_same_discard(
    context: Context, night: Night, pending: PendingRepeat, drop: bool, next_hand: bool
) -> Response:
    """[一炮多响] (`/again`): the claim joins #first, if nothing was played since; [是下一盘]
    (`/again next`): a win of its own; `/again no`: dropped."""
    event = pending.event
    assert isinstance(event, Win)
    if drop:
        return Response(
            (Reply("repeat.dropped", {"id": night.shown(pending.same_id)}),), context.language, settles=True
        )
    if next_hand:
        event = replace(event, joins=None)
    elif joinable_win(night, replace(event, joins=None)) != pending.same_id:
        raise Refusal(Reply("repeat.expired"))  # something was played since: no longer the discard just won on
    line = Line(pending.speaker, pending.text, context.incoming.update_key)  # the line as first typed
    response = recorded_response(context, night, await night.record(line, event))
    return joined(response, shown_win(night, event.joins)) if event.joins is not None else response


def joined(response: Response, first: int | str) -> Response:
    """A joined claim's reply says first which win it joined (与 #2 合并为一炮多响)."""
    return replace(response, replies=(Reply("win.merged", {"id": first}), *response.replies))
