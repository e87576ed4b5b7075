"""点牌: the guided 胡 with the hand tapped tile by tile (the state is `bot.chat.handlers.tile_pad`).

After the winner and the discarder the flow shows the winner's melds logged this hand (not tapped
again) and a tile keyboard: a suit in two rows, the winds and ⌫, then `+碰`/`+杠` for a meld the log
never saw and `报番型` for the declared-pattern steps. A logged meld without its tile asks for it first
(one tap). The last tile tapped is the winning tile; with the hand full come the hard flowers, then
the preview, with the soft flowers the tiles give and the flags that can apply, then 确认. The win is
recorded exactly as the hand typed in notation would be (`/hu Bob 11p567s79s[EEE][444p]+8s 花4`),
under the flow's key, once.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.chat.command import Command
from bot.chat.handlers import tile_pad
from bot.chat.handlers.common import Context, Refusal, recording_night
from bot.chat.handlers.flows import (
    FEW_FLOWERS,
    HEAD_PATTERN,
    Head,
    Step,
    Toggle,
    ended,
    finish,
    flow_response,
    flow_toggles,
    hu_flow,
    preview,
    read_state,
    situation,
    tile_label,
    tile_row,
)
from bot.chat.handlers.retyped import hu
from bot.chat.handlers.table_events import is_bare_hu
from bot.chat.handlers.tile_pad import ALPHABET, Pad, Table, Why
from bot.night.night import Night
from bot.text.replies import Choice, Joined, Reply, Response
from engine.checks import logged_copies
from engine.hand import Meld, MeldKind
from engine.tiles import (
    NUM_KINDS,
    SUITS,
    Tile,
    format_tiles,
    is_wind,
    rank_of,
    suit_of,
    tile_name,
)

TAPS = re.compile(HEAD_PATTERN + r"o([a-z])([0-9A-Za-z]{0,2})$")
WIND_ROW = 2 * len(SUITS)
ACTION_ROW = WIND_ROW + 1
ARGUMENTS = {"s": 2, "t": 1, "w": 1, "h": 1, "f": 1, "b": 0, "q": 0, "p": 0, "g": 0, "m": 0, "l": 0, "r": 0, "x": 0}


def is_tile_token(word: str) -> bool:
    return TAPS.match(word) is not None


def pad_table(night: Night, pad: Pad) -> Table:
    """What the log knows for this pad. On a discard win the tile of an added gang the discarder
    made may be the winning tile (抢杠 robs it before it lands): one copy of it stays tappable, and
    the engine checks the claim as for a typed hand."""
    logged = tuple((m.kind, m.tile) for m in night.state.melds[pad.winner])
    copies = logged_copies(night.state.melds)
    if not pad.self_draw:
        for meld in night.state.melds[pad.source]:
            if meld.kind is MeldKind.ADDED_GANG and meld.tile is not None:
                copies[meld.tile] -= 1
    return Table(logged, copies)


def tile_toggles(night: Night, pad: Pad) -> tuple[Toggle, ...]:
    """The flags that can apply (the tiles give the patterns; bot.chat.handlers.flows.applies)."""
    discarder = None if pad.self_draw else pad.source
    winning = pad.last if tile_pad.complete(pad, pad_table(night, pad)) else None
    facts = situation(night, pad.winner, discarder, pad.hard, winning)
    return tuple(t for t in flow_toggles(night.preset, discard=not pad.self_draw, facts=facts) if t.flag)


def well_formed(op: str, seats: int) -> bool:
    """A tap a button could carry: its letter, its argument's length, seats and tiles in range."""
    letter, arg = op[0], op[1:]
    if ARGUMENTS.get(letter) != len(arg):
        return False
    if letter == "s":
        winner, source = arg[0], arg[1]
        if not winner.isdigit() or int(winner) >= seats:
            return False
        return source == "s" or (source.isdigit() and source != winner and int(source) < seats)
    if letter in "tw":
        return tile_pad.ALPHABET.index(arg) < NUM_KINDS
    return True


def started(pad: Pad | None, op: str) -> Pad:
    """The pad after a start: the same winner and discarder keep what was tapped (a double tap)."""
    winner, source = int(op[1]), tile_pad.SELF if op[2] == "s" else int(op[2])
    if pad is not None and (pad.winner, pad.source) == (winner, source):
        return pad
    return Pad(winner, source)


def step(night: Night, pad: Pad | None, op: str) -> Pad | Why:
    if op[0] == "s":
        return started(pad, op)
    if pad is None:  # no start: a tap no button of this flow could have sent
        return Why("flow.bad")
    return tile_pad.apply(pad, pad_table(night, pad), op, len(tile_toggles(night, pad)) if op[0] == "f" else 0)


def fold(night: Night, ops: list[str]) -> Pad | None:
    """The pad of the flow's taps in the order they came (one that no longer applies counts for nothing)."""
    pad: Pad | None = None
    for op in ops:
        result = step(night, pad, op)
        if isinstance(result, Pad):
            pad = result
    return pad


async def tile_flow(context: Context, state: str) -> Response:
    night = recording_night(context)
    head, (letter, arg) = read_state(TAPS, state)
    op = f"{letter}{arg}"
    if not well_formed(op, len(context.seats)):
        raise Refusal(Reply("flow.bad"))
    stop = await ended(context, night, head)
    if stop is not None:
        return stop
    nights = context.services.nights
    taps = await nights.flow_taps(head.update_key)
    pad = fold(night, [tap for tap, _ in taps])
    press = context.incoming.press
    if press is not None and press in {pressed for _, pressed in taps}:  # a repeated update: counted once
        op = "="
    elif op == "q" and pad is not None and pad.empty:
        return await hu_flow(context, f"{head.text}w{pad.winner}")
    elif op == "x":
        return await confirm(context, night, head, pad)
    else:
        result = Why("tiles.tap_not_now") if op == "q" else step(night, pad, op)
        if isinstance(result, Why):
            return why(context, result)
        if result != pad:
            await nights.append_flow_tap(head.update_key, op, press)
        pad = result
    if pad is None:
        raise Refusal(Reply("flow.bad"))
    return TileFlow(context, night, head, pad_table(night, pad), tile_toggles(night, pad)).show(pad)


async def confirm(context: Context, night: Night, head: Head, pad: Pad | None) -> Response:
    """确认: recorded under the flow's key, once, exactly as the hand typed in notation would be."""
    if pad is None:
        raise Refusal(Reply("flow.bad"))
    table = pad_table(night, pad)
    if not tile_pad.complete(pad, table):
        return why(context, Why("tiles.tap_not_full", left=max(tile_pad.needed(pad, table) - len(pad.tiles), 0)))
    if pad.last is None or pad.hard is None:
        return why(context, Why("tiles.tap_not_now"))
    flow = TileFlow(context, night, head, table, tile_toggles(night, pad))
    return await finish(context, head, flow.command(pad), hu)


def why(context: Context, reason: Why) -> Response:
    """A tap that changed nothing: said to the presser alone, the pad as it was."""
    params: dict[str, object] = {"left": reason.left}
    if reason.tile is not None:
        params["tile"] = tile_label(reason.tile)
    return Response((Reply(reason.key, params),), context.language, refused=True)


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


class TileFlow:
    """The steps of one tap flow: what each shows and the buttons it offers."""

    def __init__(self, context: Context, night: Night, head: Head, table: Table, toggles: tuple[Toggle, ...]):
        self.context = context
        self.night = night
        self.head = head
        self.table = table
        self.toggles = toggles

    def at(self, op: str) -> str:
        """A button: the flow and one tap."""
        return f"/hu {self.head.text}o{op}"

    def show(self, pad: Pad) -> Response:
        """The step the pad stands at."""
        if not tile_pad.complete(pad, self.table):
            return self.respond(pad, self.tap_step(pad))
        if pad.last is None:
            return self.respond(pad, self.mark_step(pad))
        if pad.hard is None:
            return self.respond(pad, self.flowers_step(pad))
        return self.respond(pad, self.preview_step(pad))

    def respond(self, pad: Pad, step: Step) -> Response:
        return flow_response(self.context, self.night, replace(step, lines=(*self.hand_lines(pad), *step.lines)))

    # -- the message ----------------------------------------------------------------------------------

    def hand_lines(self, pad: Pad) -> tuple[Reply, ...]:
        """The melds the log knows (not tapped again), and the tiles tapped so far."""
        lines: list[Reply] = []
        fills = list(pad.melds[: len(self.table.unknown)])
        logged = []
        for kind, tile in self.table.logged:
            if tile is None and fills:
                tile = fills.pop(0).tile
            logged.append(meld_text(kind, tile))
        if logged:
            done = not tile_pad.unfilled(pad, self.table)  # until then, one of them is being asked
            lines.append(
                Reply("tiles.logged" if done else "tiles.logged_open", {"melds": Joined(tuple(logged), " · ")})
            )
        added = pad.melds[len(self.table.unknown) :]
        shown: list[Reply | Joined] = [
            meld_text(MeldKind.EXPOSED_GANG if m.gang else MeldKind.PONG, m.tile) for m in added
        ]
        if pad.tiles:
            rest = tile_pad.concealed_before_win(pad) if pad.last is not None else pad.tiles
            if rest:
                shown.append(tiles_text(rest))
            if pad.last is not None:
                shown.append(Reply("tiles.last", {"tile": tile_label(pad.last)}))
        if shown:
            lines.append(Reply("tiles.tapped", {"tiles": Joined(tuple(shown), " ")}))
        return tuple(lines)

    def winner_name(self, pad: Pad) -> str:
        return self.context.seats[pad.winner].name

    def how(self, pad: Pad) -> Reply:
        if pad.self_draw:
            return Reply("tiles.self_draw", {"winner": self.winner_name(pad)})
        name = self.context.seats[pad.source].name
        return Reply("tiles.on_discard", {"winner": self.winner_name(pad), "discarder": name})

    # -- the steps -----------------------------------------------------------------------------------

    def tap_step(self, pad: Pad) -> Step:
        unfilled = tile_pad.unfilled(pad, self.table)
        if unfilled:
            kind = self.table.unknown[tile_pad.fills(pad, self.table)]
            question = Reply("tiles.fill", {"how": self.how(pad), "meld": Reply(f"tiles.kind_{kind.value}")})
        else:
            left = tile_pad.needed(pad, self.table) - len(pad.tiles)
            question = Reply("tiles.tap", {"how": self.how(pad), "left": left})
        choices = [*self.keyboard(pad), *self.meld_buttons(pad)]
        choices.append(Choice(Reply("button.declare"), f"/hu {self.head.text}w{pad.winner}f{source(pad)}", ACTION_ROW))
        return Step(question, (), tuple(choices))

    def keyboard(self, pad: Pad) -> list[Choice]:
        """A button per tile that may be tapped: a suit in two rows, the winds with ⌫ on the last."""
        offered = set(tile_pad.offered(pad, self.table))
        choices: list[Choice] = []
        for tile in range(NUM_KINDS):
            if tile in offered:
                choices.append(Choice(tile_label(tile), self.at(f"t{ALPHABET[tile]}"), tile_row(tile)))
        choices.append(self.backspace(pad, WIND_ROW))
        return choices

    def backspace(self, pad: Pad, row: int | None) -> Choice:
        if tile_pad.backspace(pad, self.table) is None:
            return Choice(Reply("button.back"), self.at("q"), row)  # to the discarder step
        return Choice(Reply("button.backspace"), self.at("b"), row)

    def meld_buttons(self, pad: Pad) -> list[Choice]:
        return [
            Choice(Reply(f"button.add_{'gang' if gang else 'pong'}"), self.at("g" if gang else "p"), ACTION_ROW)
            for gang in (False, True)
            if tile_pad.can_meld(pad, self.table, gang)
        ]

    def mark_step(self, pad: Pad) -> Step:
        """The hand is full but its last move was a meld: which tile won it?"""
        kinds = sorted(set(pad.tiles))
        choices = [Choice(tile_label(t), self.at(f"w{ALPHABET[t]}"), tile_row(t)) for t in kinds]
        return Step(Reply("tiles.mark", {"how": self.how(pad)}), (), (*choices, self.backspace(pad, None)))

    def flowers_step(self, pad: Pad) -> Step:
        counts = range(FEW_FLOWERS, tile_pad.MAX_FLOWERS + 1) if pad.more else range(FEW_FLOWERS)
        choices = [
            Choice(Reply("button.count", {"count": n}), self.at(f"h{ALPHABET[n]}"), flower_row(n)) for n in counts
        ]
        if pad.more:
            choices.append(Choice(Reply("button.back"), self.at("l"), ACTION_ROW))
        else:
            choices.append(Choice(Reply("button.more"), self.at("m"), flower_row(FEW_FLOWERS - 1)))
            choices.extend(self.meld_buttons(pad))
            choices.append(self.backspace(pad, ACTION_ROW))
        return Step(Reply("flow.hu_flowers", {"winner": self.winner_name(pad)}), (), tuple(choices))

    def preview_step(self, pad: Pad) -> Step:
        choices: list[Choice] = []
        for index, toggle in enumerate(self.toggles):
            on = pad.flags >> index & 1
            label = Reply("button.pattern_on" if on else "button.pattern", {"name": Reply(toggle.label)})
            choices.append(Choice(label, self.at(f"f{ALPHABET[index]}")))
        command = self.command(pad)
        lines = preview(self.context, self.night, command)
        line = Reply("tiles.as_line", {"winner": self.winner_name(pad), "line": self.typed_line(command)})
        if lines and lines[0].key != "flow.refused":
            choices.append(Choice(Reply("button.confirm"), self.at("x")))
        # the flags offered depend on the count (小杠开 needs a hard flower): a new count starts afresh
        choices.append(Choice(Reply("button.back"), self.at("r")))
        question = Reply("tiles.preview_flags" if self.toggles else "tiles.preview")
        return Step(question, (*lines, line), tuple(choices))

    # -- what is recorded --------------------------------------------------------------------------------

    def hand_text(self, pad: Pad) -> str:
        assert pad.last is not None
        melds: tuple[Meld, ...] = tile_pad.hand_melds(pad, self.table)
        parts = [format_tiles(tile_pad.concealed_before_win(pad)), *(m.notation() for m in melds)]
        return " ".join(part for part in parts if part) + f" +{tile_name(pad.last)}"

    def command(self, pad: Pad) -> Command:
        """The win as the hand typed in notation: the same line, the same money."""
        names = (f"#{pad.winner}",) if pad.self_draw else (f"#{pad.winner}", f"#{pad.source}")
        flags = frozenset(t.key for index, t in enumerate(self.toggles) if pad.flags >> index & 1)
        return Command(
            "hu",
            self.context.incoming.text,
            names=names,
            self_draw=pad.self_draw,
            hand_text=self.hand_text(pad),
            flowers=pad.hard,
            flags=flags,
        )

    def typed_line(self, command: Command) -> str:
        seats = self.context.seats
        who = "self" if command.self_draw else seats[int(command.names[1][1:])].name
        flags = "".join(f" {flag}" for flag in sorted(command.flags))
        return f"/hu {who} {command.hand_text} flowers={command.flowers}{flags}"


def flower_row(count: int) -> int:
    """0-4 and 5-8 (with 更多) on two rows; 9-20 six a row."""
    return count // 5 if count < FEW_FLOWERS else 2 + (count - FEW_FLOWERS) // 6


def source(pad: Pad) -> str:
    return "s" if pad.self_draw else str(pad.source)


# ---- the entry point: a line with arguments is recorded as typed; without, the flow starts ---------------


async def guided_hu(context: Context) -> Response:
    command = context.command
    if command.word and command.word.startswith("~"):
        if is_tile_token(command.word):
            return await tile_flow(context, command.word)
        return await hu_flow(context, command.word)
    if is_bare_hu(command):
        return await hu_flow(context, None)
    return await hu(context)
