"""点牌: the guided 胡, a whole win tapped on one keyboard (the state is `bot.chat.handlers.tile_pad`).

`胡` alone answers with the pad: one message whose keyboard never changes until the win is recorded —
who won, whose discard (or 自摸), each suit on two rows, the winds and ⌫, `+碰`/`+杠` for a meld the
log never saw, `报番型` for the declared-pattern steps, the hard flowers 0-20, the flags that could
apply at this table, and 确认. Telegram counts every edit of a group message against the group's 20
messages a minute, shared with every other answer: a pad edited at each of a win's 18 taps left the
table's answers trailing by 15-19 s (#41). So a tap is answered to the presser alone (Telegram's
toast: `Response.press_answer`), with what is tapped so far and what is still missing; once nothing
is, the answer is the preview (the total and who pays whom), to read before 确认. The message itself
says only how to tap, never a count that a tap would leave stale. 确认 records the win exactly as the
hand typed in notation would be (`/hu Bob 11p567s79s[EEE][444p]+8s 花4`), under the flow's key, once,
and writes the result over the pad: two group messages for the whole win.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache

from bot.chat.command import Command
from bot.chat.handlers import tile_pad
from bot.chat.handlers.causes import flower_choices
from bot.chat.handlers.common import Context, Refusal, recording_night
from bot.chat.handlers.flows import (
    HEAD_PATTERN,
    Head,
    Step,
    ended,
    finish,
    flow_response,
    flow_toggles,
    hu_flow,
    new_head,
    preview,
    read_state,
    situation,
    tile_label,
    tile_row,
)
from bot.chat.handlers.retyped import hu
from bot.chat.handlers.table_events import is_bare_hu
from bot.chat.handlers.tile_pad import ALPHABET, MAX_FLOWERS, Pad, Table, Why
from bot.night.night import Night
from bot.text.replies import Choice, Joined, Reply, Response
from bot.text.vocabulary import flag_fields
from bot.views.board import live, one_payment_line
from engine.checks import logged_copies
from engine.hand import Meld, MeldKind
from engine.tiles import NUM_KINDS, SUITS, Tile, format_tiles, is_wind, rank_of, suit_of, tile_name

TAPS = re.compile(HEAD_PATTERN + r"o([a-z])([0-9A-Za-z]?)$")
ARGUMENTS = {"v": 1, "d": 1, "t": 1, "h": 1, "f": 1, "b": 0, "p": 0, "g": 0, "x": 0, "y": 0}
# The keyboard's rows, top to bottom (a button joins the row before it when their rows are the same;
# the console prints two of them a line): who won, from whom, the tiles (tile_row: 0-6), the actions,
# the hard flowers, the flags, 确认.
WINNER_ROW, SOURCE_ROW = -4, -2
ACTION_ROW = 8
FLOWER_ROW = 10  # 0-6, 7-13, 14-20: three rows
FLOWERS_A_ROW = 7
FLAG_ROW = 14  # three a row
FLAGS_A_ROW = 3
CONFIRM_ROW = 18


def is_tile_token(word: str) -> bool:
    return TAPS.match(word) is not None


@cache
def flag_index() -> dict[str, int]:
    """A flag's place in `flag_fields`: what its button carries (the same whatever the table)."""
    return {flag: index for index, flag in enumerate(flag_fields())}


def pad_table(night: Night, pad: Pad) -> Table:
    """What the log knows for this pad. On a discard win the tile of an added gang the discarder
    made may be the winning tile (抢杠 robs it before it lands): one copy of it stays tappable, and
    the engine checks the claim as for a typed hand."""
    copies = logged_copies(night.state.melds)
    if pad.winner is None:
        return Table((), copies)
    logged = tuple((m.kind, m.tile) for m in night.state.melds[pad.winner])
    if pad.source is not None and not pad.self_draw:
        for meld in night.state.melds[pad.source]:
            if meld.kind is MeldKind.ADDED_GANG and meld.tile is not None:
                copies[meld.tile] -= 1
    return Table(logged, copies)


def offered_flags(night: Night, seats: int) -> frozenset[int]:
    """The flags (杠开, 海底 …) that could be true of some win at this table now: the pad's keyboard
    is made once, before anyone says who won, so it offers what any winner could claim (the engine's
    own checks, bot.chat.handlers.flows.applies); the preview refuses what this win cannot."""
    found: set[str] = set()
    for winner in range(seats):
        for discarder in (None, *(seat for seat in range(seats) if seat != winner)):
            facts = situation(night, winner, discarder, hard=1)
            found.update(
                t.key for t in flow_toggles(night.preset, discard=discarder is not None, facts=facts) if t.flag
            )
    return frozenset(flag_index()[flag] for flag in found)


def well_formed(op: str, seats: int) -> bool:
    """A tap a button could carry: its letter, its argument's length, seats, tiles and counts in range."""
    letter, arg = op[0], op[1:]
    if ARGUMENTS.get(letter) != len(arg):
        return False
    if letter == "v":
        return arg.isdigit() and int(arg) < seats
    if letter == "d":
        return arg == "s" or (arg.isdigit() and int(arg) < seats)
    if arg:
        limit = {"t": NUM_KINDS, "h": MAX_FLOWERS + 1, "f": len(flag_fields())}[letter]
        return ALPHABET.index(arg) < limit
    return True


class TileFlow:
    """One tap flow at its night: its keyboard, its taps, and what a tap answers."""

    def __init__(self, context: Context, night: Night, head: Head):
        self.context = context
        self.night = night
        self.head = head
        self.seats = len(context.seats)
        self.flags = offered_flags(night, self.seats)

    def at(self, op: str) -> str:
        """A button: the flow and one tap."""
        return f"/hu {self.head.text}o{op}"

    def step(self, pad: Pad, op: str) -> Pad | Why:
        return tile_pad.apply(pad, pad_table(self.night, pad), op, self.seats, self.flags)

    def fold(self, ops: list[str]) -> Pad:
        """The pad of the flow's taps in the order they came (one that no longer applies counts for nothing)."""
        pad = Pad()
        for op in ops:
            result = self.step(pad, op)
            if isinstance(result, Pad):
                pad = result
        return pad

    # -- the message: sent once -----------------------------------------------------------------------

    def pad(self) -> Response:
        """The pad: never written over (every tap is answered to the presser alone)."""
        pad = flow_response(self.context, self.night, Step(Reply("tiles.pad"), (), self.keyboard()))
        return replace(pad, edits=False)

    def keyboard(self) -> tuple[Choice, ...]:
        names = [seat.name for seat in self.context.seats]
        choices = [
            Choice(Reply("button.pad_winner", {"name": name}), self.at(f"v{seat}"), WINNER_ROW)
            for seat, name in enumerate(names)
        ]
        choices.append(Choice(Reply("button.self_draw"), self.at("ds"), SOURCE_ROW))
        choices += [
            Choice(Reply("button.pad_from", {"name": name}), self.at(f"d{seat}"), SOURCE_ROW)
            for seat, name in enumerate(names)
        ]
        choices += [
            Choice(tile_label(tile), self.at(f"t{ALPHABET[tile]}"), tile_row(tile)) for tile in range(NUM_KINDS)
        ]
        choices.append(Choice(Reply("button.backspace"), self.at("b"), tile_row(NUM_KINDS - 1)))
        choices += [
            Choice(Reply("button.add_pong"), self.at("p"), ACTION_ROW),
            Choice(Reply("button.add_gang"), self.at("g"), ACTION_ROW),
            Choice(Reply("button.declare"), self.at("y"), ACTION_ROW),
        ]
        choices += [
            Choice(
                Reply("button.hard_count", {"count": n}), self.at(f"h{ALPHABET[n]}"), FLOWER_ROW + n // FLOWERS_A_ROW
            )
            for n in range(MAX_FLOWERS + 1)
        ]
        flags = sorted(self.flags)
        choices += [
            Choice(
                Reply(flag_label(self.night, index)), self.at(f"f{ALPHABET[index]}"), FLAG_ROW + place // FLAGS_A_ROW
            )
            for place, index in enumerate(flags)
        ]
        choices.append(Choice(Reply("button.confirm"), self.at("x"), CONFIRM_ROW))
        return tuple(choices)

    # -- a tap's answer: to the presser alone ---------------------------------------------------------

    def answer(self, pad: Pad) -> Response:
        """What is tapped so far and what is missing; with nothing missing, the preview."""
        table = pad_table(self.night, pad)
        if not tile_pad.missing(pad, table):
            return self.preview(pad, table)
        parts = [self.who(pad), *self.hand_parts(pad, table)]
        if pad.hard is not None:
            parts.append(Reply("tiles.hard", {"count": pad.hard}))
        elif pad.winner is not None and tile_pad.complete(pad, table) and pad.last is not None:
            parts.append(Reply("tiles.next_hard"))
        parts += [Reply(flag_label(self.night, index)) for index in self.chosen(pad)]
        return Response(
            (Reply("tiles.state", {"parts": Joined(tuple(parts), " · ")}),), self.context.language, press_answer="toast"
        )

    def who(self, pad: Pad) -> Reply:
        if pad.winner is None:
            return Reply("tiles.winner_first")
        winner = self.context.seats[pad.winner].name
        if pad.source is None:
            return Reply("tiles.won", {"winner": winner})
        if pad.self_draw:
            return Reply("tiles.self_draw", {"winner": winner})
        return Reply("tiles.on_discard", {"winner": winner, "discarder": self.context.seats[pad.source].name})

    def hand_parts(self, pad: Pad, table: Table) -> list[Reply]:
        """The winner's melds the log knows (not tapped again), and the tiles tapped so far."""
        if pad.winner is None:
            return []
        parts: list[Reply] = []
        fills = list(pad.melds[: len(table.unknown)])
        logged = []
        for kind, tile in table.logged:
            if tile is None and fills:
                tile = fills.pop(0).tile
            logged.append(meld_text(kind, tile))
        if logged and not pad.tiles:  # said until the first tile: why fewer than 14 are asked for
            parts.append(Reply("tiles.logged", {"melds": Joined(tuple(logged), " ")}))
        if tile_pad.unfilled(pad, table):
            kind = table.unknown[tile_pad.fills(pad, table)]
            return [*parts, Reply("tiles.fill", {"meld": Reply(f"tiles.kind_{kind.value}")})]
        shown: list[Reply | Joined] = [
            meld_text(MeldKind.EXPOSED_GANG if m.gang else MeldKind.PONG, m.tile)
            for m in pad.melds[len(table.unknown) :]
        ]
        if pad.tiles:
            rest = tile_pad.concealed_before_win(pad) if pad.last is not None else pad.tiles
            if rest:
                shown.append(tiles_text(rest))
            if pad.last is not None:
                shown.append(Reply("tiles.last", {"tile": tile_label(pad.last)}))
        left = tile_pad.needed(pad, table) - len(pad.tiles)
        if not shown:
            parts.append(Reply("tiles.none_yet", {"left": left}))
        elif left > 0:
            parts.append(Reply("tiles.tapped_left", {"tiles": Joined(tuple(shown), " "), "left": left}))
        else:
            parts.append(Reply("tiles.tapped_full", {"tiles": Joined(tuple(shown), " ")}))
            if pad.last is None:
                parts.append(Reply("tiles.mark"))
        return parts

    def chosen(self, pad: Pad) -> list[int]:
        return [index for index in sorted(self.flags) if pad.flags >> index & 1]

    def preview(self, pad: Pad, table: Table) -> Response:
        """The win as it would be recorded, in a few lines (the total with its items, who pays whom), or
        why it cannot be: a note to dismiss, read before 确认."""
        command = self.command(pad, table)
        lines = preview(self.context, self.night, command)
        if lines and lines[0].key == "flow.refused":
            said = Reply("tiles.preview_refused", {"who": self.who(pad), "reason": lines[0].params["reason"]})
        else:
            shown = Joined(live(one_payment_line(lines)), "\n")
            assert pad.winner is not None
            typed = Reply("tiles.as_line", {"winner": self.context.seats[pad.winner].name, "line": self.typed(command)})
            said = Reply("tiles.preview", {"who": self.who(pad), "lines": shown, "typed": typed})
        return Response((said,), self.context.language, press_answer="alert")

    # -- what is recorded --------------------------------------------------------------------------------

    def hand_text(self, pad: Pad, table: Table) -> str:
        assert pad.last is not None
        melds: tuple[Meld, ...] = tile_pad.hand_melds(pad, table)
        parts = [format_tiles(tile_pad.concealed_before_win(pad)), *(m.notation() for m in melds)]
        return " ".join(part for part in parts if part) + f" +{tile_name(pad.last)}"

    def command(self, pad: Pad, table: Table) -> Command:
        """The win as the hand typed in notation: the same line, the same money."""
        assert pad.winner is not None and pad.source is not None
        names = (f"#{pad.winner}",) if pad.self_draw else (f"#{pad.winner}", f"#{pad.source}")
        flags = frozenset(flag_fields()[index] for index in self.chosen(pad))
        return Command(
            "hu",
            self.context.incoming.text,
            names=names,
            self_draw=pad.self_draw,
            hand_text=self.hand_text(pad, table),
            flowers=pad.hard,
            flags=flags,
        )

    def typed(self, command: Command) -> str:
        """The same win as a line to type (the preview shows it: the notation, learnt by tapping)."""
        seats = self.context.seats
        who = "self" if command.self_draw else seats[int(command.names[1][1:])].name
        flags = "".join(f" {flag}" for flag in sorted(command.flags))
        return f"/hu {who} {command.hand_text} flowers={command.flowers}{flags}"


def flag_label(night: Night, index: int) -> str:
    """A flag's button: the name of the pattern it scores in this preset (抢杠 when it scores none).
    Only a flag the preset offers is on the pad (`offered_flags`)."""
    labels = {toggle.key: toggle.label for toggle in flow_toggles(night.preset, discard=True)}
    return labels[flag_fields()[index]]


async def tile_flow(context: Context, state: str) -> Response:
    night = recording_night(context)
    head, (letter, arg) = read_state(TAPS, state)
    op = f"{letter}{arg}"
    if not well_formed(op, len(context.seats)):
        raise Refusal(Reply("flow.bad"))
    stop = await ended(context, night, head)
    if stop is not None:  # recorded already (a toast), stale or expired: said to the presser, the pad left as it is
        return replace(stop, edits=False, press_answer="alert" if stop.edits else "toast")
    nights = context.services.nights
    taps = await nights.flows.flow_taps(head.update_key)
    flow = TileFlow(context, night, head)
    pad = flow.fold([tap for tap, _ in taps])
    press = context.incoming.press
    if press is not None and press in {pressed for _, pressed in taps}:  # a repeated update: counted once
        return flow.answer(pad)
    if op == "x":
        return await confirm(context, flow, pad)
    if op == "y":  # 报番型: the patterns named instead of the tiles, from who won on whom
        return await hu_flow(context, declared_state(head, pad))
    result = flow.step(pad, op)
    if isinstance(result, Why):
        return why(context, result)
    if result != pad:
        await nights.flows.append_flow_tap(head.update_key, op, press)
    return flow.answer(result)


def declared_state(head: Head, pad: Pad) -> str:
    """The declared-pattern flow's state at the step the pad has reached (who won, from whom)."""
    if pad.winner is None:
        return head.text
    source = "" if pad.source is None else "fs" if pad.self_draw else f"f{pad.source}"
    return f"{head.text}w{pad.winner}{source}"


async def confirm(context: Context, flow: TileFlow, pad: Pad) -> Response:
    """确认: recorded under the flow's key, once, exactly as the hand typed in notation would be."""
    table = pad_table(flow.night, pad)
    lacking = tile_pad.missing(pad, table)
    if lacking:
        return why(context, Why("tiles.tap_missing"), tuple(Reply(key) for key in lacking))
    # a message of its own, which can share a turn with the other answers waiting (bot/telegram/delivery.py);
    # the pad's buttons are taken off later, in a turn no answer needs
    return replace(await finish(context, flow.head, flow.command(pad, table), hu), edits=False)


def why(context: Context, reason: Why, lacking: tuple[Reply, ...] = ()) -> Response:
    """A tap that changed nothing: said to the presser alone, the pad as it was."""
    params: dict[str, object] = {"left": reason.left, "missing": Joined(lacking, Reply("list.separator"))}
    if reason.tile is not None:
        params["tile"] = tile_label(reason.tile)
    return Response((Reply(reason.key, params),), context.language, refused=True, press_answer="alert")


# ---- how tiles read ----------------------------------------------------------------------------------


def tiles_text(tiles: tuple[Tile, ...]) -> Joined:
    """Tiles grouped by suit as a player reads them: `123万 55筒 东东`."""
    groups: list[Reply | Joined] = []
    for index, letter in enumerate(SUITS):
        ranks = "".join(str(rank_of(t)) for t in sorted(tiles) if suit_of(t) == index)
        if ranks:
            groups.append(Reply(f"tiles.suit_{letter}", {"ranks": ranks}))
    winds = tuple(tile_label(t) for t in sorted(tiles) if is_wind(t))
    if winds:
        groups.append(Joined(winds, ""))
    return Joined(tuple(groups), " ")


def meld_text(kind: MeldKind, tile: Tile | None) -> Reply:
    shown = tile_label(tile) if tile is not None else Reply("tiles.unknown_tile")
    return Reply(f"tiles.meld_{kind.value}", {"tile": shown})


# ---- the entry point: a line with arguments is recorded as typed; without, the pad is sent ---------------


async def guided_hu(context: Context) -> Response:
    try:
        return await _guided_hu(context)
    except Refusal as refused:
        if not refused.replies or refused.replies[0].key != "hu.needs_flowers":
            raise
        # a win typed whole but for its hard flowers: the count as buttons, each the line with it
        raise Refusal(*refused.replies, choices=flower_choices(context.incoming.text)) from refused


async def _guided_hu(context: Context) -> Response:
    command = context.command
    if command.word and command.word.startswith("~"):
        if is_tile_token(command.word):
            return await tile_flow(context, command.word)
        return await hu_flow(context, command.word)
    if is_bare_hu(command):
        night = recording_night(context)
        return TileFlow(context, night, new_head(context, night)).pad()
    return await hu(context)
