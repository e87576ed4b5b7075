"""点牌: the guided 胡 with the hand tapped tile by tile (the state is `bot.handlers.tile_pad`).

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

from bot.commands import Command
from bot.handlers import tile_pad
from bot.handlers.common import Context, Refusal, recording_night
from bot.handlers.flows import (
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
from bot.handlers.table_events import hu, is_bare_hu
from bot.handlers.tile_pad import Pad, Table, Unreadable
from bot.night import Night
from bot.replies import Choice, Joined, Reply, Response
from engine.checks import logged_copies
from engine.hand import Meld, MeldKind
from engine.tiles import (
    COPIES,
    NUM_KINDS,
    SUITS,
    Tile,
    format_tiles,
    is_wind,
    rank_of,
    suit_of,
    tile_name,
)

TILES = re.compile(HEAD_PATTERN + rf"c([0-9A-Za-z]{{1,{tile_pad.TOKEN_LENGTH}}})$")
WIND_ROW = 2 * len(SUITS)
ACTION_ROW = WIND_ROW + 1


def is_tile_token(word: str) -> bool:
    return TILES.match(word) is not None


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
    """The flags that can apply (the tiles give the patterns; bot.handlers.flows.applies)."""
    discarder = None if pad.self_draw else pad.source
    winning = pad.last if tile_pad.complete(pad, pad_table(night, pad)) else None
    facts = situation(night, pad.winner, discarder, pad.hard, winning)
    return tuple(t for t in flow_toggles(night.preset, discard=not pad.self_draw, facts=facts) if t.flag)


async def tile_flow(context: Context, state: str) -> Response:
    night = recording_night(context)
    head, (code,) = read_state(TILES, state)
    stop = await ended(context, night, head)
    if stop is not None:
        return stop
    pad = read_pad(context, night, code or "")
    table = pad_table(night, pad)
    toggles = tile_toggles(night, pad)
    if pad.flags >> len(toggles):
        raise Refusal(Reply("flow.bad"))
    flow = TileFlow(context, night, head, table, toggles)
    complete = tile_pad.complete(pad, table)
    if pad.confirm:
        if not complete or pad.last is None or pad.hard is None:  # no 确认 button is ever made for it
            raise Refusal(Reply("flow.bad"))
        return await finish(context, head, flow.command(pad), hu)
    if not complete:
        return flow.respond(pad, flow.tap_step(pad))
    if pad.last is None:
        return flow.respond(pad, flow.mark_step(pad))
    if pad.hard is None:
        return flow.respond(pad, flow.flowers_step(pad))
    return flow.respond(pad, flow.preview_step(pad))


def read_pad(context: Context, night: Night, code: str) -> Pad:
    """The pad of a token; one no button could make is unreadable, and a fifth copy says which tile."""
    try:
        pad = tile_pad.decode(code)
    except Unreadable:
        raise Refusal(Reply("flow.bad")) from None
    seats = len(context.seats)
    if pad.winner >= seats or (not pad.self_draw and pad.source >= seats):
        raise Refusal(Reply("flow.bad"))
    table = pad_table(night, pad)
    counts = tile_pad.at_table(pad, table)
    fifth = [tile for tile in range(NUM_KINDS) if counts[tile] > COPIES]
    if fifth:
        raise Refusal(Reply("tiles.fifth_copy", {"tile": tile_label(fifth[0])}))
    if not tile_pad.valid(pad, table):
        raise Refusal(Reply("flow.bad"))
    return pad


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

    def at(self, pad: Pad) -> str:
        return f"/hu {self.head.text}c{tile_pad.encode(pad)}"

    def source_step(self, pad: Pad) -> str:
        """The discarder step (the way back from an empty pad)."""
        return f"/hu {self.head.text}w{pad.winner}"

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
                choices.append(Choice(tile_label(tile), self.at(tile_pad.tap(pad, self.table, tile)), tile_row(tile)))
        choices.append(self.backspace(pad, WIND_ROW))
        return choices

    def backspace(self, pad: Pad, row: int | None) -> Choice:
        undone = tile_pad.backspace(pad, self.table)
        if undone is None:
            return Choice(Reply("button.back"), self.source_step(pad), row)
        return Choice(Reply("button.backspace"), self.at(undone), row)

    def meld_buttons(self, pad: Pad) -> list[Choice]:
        return [
            Choice(Reply(f"button.add_{'gang' if gang else 'pong'}"), self.at(tile_pad.add_meld(pad, gang)), ACTION_ROW)
            for gang in (False, True)
            if tile_pad.can_meld(pad, self.table, gang)
        ]

    def mark_step(self, pad: Pad) -> Step:
        """The hand is full but its last move was a meld: which tile won it?"""
        kinds = sorted(set(pad.tiles))
        choices = [Choice(tile_label(t), self.at(replace(pad, last=t)), tile_row(t)) for t in kinds]
        return Step(Reply("tiles.mark", {"how": self.how(pad)}), (), (*choices, self.backspace(pad, None)))

    def flowers_step(self, pad: Pad) -> Step:
        counts = range(FEW_FLOWERS, tile_pad.MAX_FLOWERS + 1) if pad.more else range(FEW_FLOWERS)
        choices = [
            Choice(
                Reply("button.count", {"count": n}), self.at(replace(pad, hard=n, more=False, flags=0)), flower_row(n)
            )
            for n in counts
        ]
        if pad.more:
            choices.append(Choice(Reply("button.back"), self.at(replace(pad, more=False)), ACTION_ROW))
        else:
            choices.append(Choice(Reply("button.more"), self.at(replace(pad, more=True)), flower_row(FEW_FLOWERS - 1)))
            choices.extend(self.meld_buttons(pad))
            choices.append(self.backspace(pad, ACTION_ROW))
        return Step(Reply("flow.hu_flowers", {"winner": self.winner_name(pad)}), (), tuple(choices))

    def preview_step(self, pad: Pad) -> Step:
        choices: list[Choice] = []
        for index, toggle in enumerate(self.toggles):
            on = pad.flags >> index & 1
            label = Reply("button.pattern_on" if on else "button.pattern", {"name": Reply(toggle.label)})
            choices.append(Choice(label, self.at(replace(pad, flags=pad.flags ^ (1 << index)))))
        command = self.command(pad)
        lines = preview(self.context, self.night, command)
        line = Reply("tiles.as_line", {"winner": self.winner_name(pad), "line": self.typed_line(command)})
        if lines and lines[0].key != "flow.refused":
            choices.append(Choice(Reply("button.confirm"), self.at(replace(pad, confirm=True))))
        # the flags offered depend on the count (小杠开 needs a hard flower): a new count starts afresh
        choices.append(Choice(Reply("button.back"), self.at(replace(pad, hard=None, flags=0))))
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
