"""The tile pad of the guided 胡: a whole win entered by tapping one keyboard that never changes (pure).

A button carries the flow's head and one tap (`/hu ~t…g…d…n…ot5`: the tile 6万), never the pad: the
pad is the fold of the flow's taps in the order they came (stored with the flow, bot/store/ledger.py
`flow_taps`). So taps pressed faster than anything is shown all count, in order, and a tap that
cannot apply to the pad as it now stands (a tile when the hand is full, a fifth copy, ⌫ on an empty
pad, a tile before the winner) changes nothing and is answered with why.

The keyboard is the same from the first tap to 确认 (Telegram counts an edit of it against the group's
20 messages a minute, bot/chat/handlers/tile_flow.py): every choice is a tap on it, whatever was
tapped before. The taps (`op` letter, then its argument):

- `v<s>` the winner (a seat): a tap on another winner keeps what was tapped (a slip of the finger
  is mended by the next tap); `d<s>` whose discard (a seat other than the winner's, or `s`: a
  self-draw);
- `t<c>` a tile (`c` in ALPHABET: 0-8 万, 9-17 筒, 18-26 条, 27-30 the winds); with the hand full and
  its winning tile not known (its last move was a meld), a tile of the hand marks the winning one;
  `b` ⌫; `p`/`g` the last tile tapped becomes a pong/gang the log never saw;
- `h<c>` the hard flowers (0-20); `f<c>` a flag toggled (杠开, 海底 …, `c` its place in
  `bot.text.vocabulary.flag_fields`, which does not move when the table does);
- `x` 确认 (recorded under the flow's key, once: it is not a tap); `y` 报番型 (the patterns declared
  instead of the tiles: bot/chat/handlers/flows.py `hu_flow`, from the winner and discarder tapped).

The pad holds who won and from whom; the concealed tiles tapped as a multiset, with the last tile
tapped on its own (the winning tile, and what ⌫ takes back); the melds added on the pad (the first
ones give the tiles of the winner's melds logged without a tile (`碰 王五`), in log order, the rest
are melds the log never saw); the hard flowers and the flags.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from engine.hand import MAX_MELDS, WINNING_HAND_SIZE, Meld, MeldKind
from engine.tiles import COPIES, NUM_KINDS, Tile

SELF = 4  # the source of a self-drawn win
MAX_FLOWERS = 20
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Added:
    """A meld given on the pad: its tile, and whether it is a gang."""

    tile: Tile
    gang: bool


@dataclass(frozen=True)
class Pad:
    """Where a tap flow stands."""

    winner: int | None = None
    source: int | None = None  # a seat, or SELF; None: not tapped yet
    tiles: tuple[Tile, ...] = ()  # the concealed tiles tapped, sorted (the last one included)
    last: Tile | None = None
    melds: tuple[Added, ...] = ()
    hard: int | None = None
    flags: int = 0  # a bit per flag, by its place in flag_fields

    @property
    def self_draw(self) -> bool:
        return self.source == SELF

    @property
    def empty(self) -> bool:
        return not self.tiles and not self.melds


@dataclass(frozen=True)
class Why:
    """Why a tap changed nothing: a message key and its parameters (tiles as Tile numbers)."""

    key: str
    tile: Tile | None = None
    left: int = 0


# ---- what the pad allows ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """What the log knows that the pad needs: the winner's logged melds (kind, tile or None) and the
    copies of each tile in everyone's logged melds with a known tile."""

    logged: tuple[tuple[MeldKind, Tile | None], ...]
    copies: Counter[Tile]

    @property
    def unknown(self) -> tuple[MeldKind, ...]:
        """The kinds of the winner's melds logged without a tile, in log order."""
        return tuple(kind for kind, tile in self.logged if tile is None)


def fills(pad: Pad, table: Table) -> int:
    """How many of the pad's melds give a logged meld its tile."""
    return min(len(pad.melds), len(table.unknown))


def unfilled(pad: Pad, table: Table) -> int:
    return len(table.unknown) - fills(pad, table)


def meld_count(pad: Pad, table: Table) -> int:
    """The hand's melds: every logged one, and those the log never saw."""
    return len(table.logged) + len(pad.melds) - fills(pad, table)


def needed(pad: Pad, table: Table) -> int:
    """Concealed tiles the hand holds: 14 − 3 per meld."""
    return WINNING_HAND_SIZE - 3 * meld_count(pad, table)


def complete(pad: Pad, table: Table) -> bool:
    return unfilled(pad, table) == 0 and len(pad.tiles) == needed(pad, table)


def size(gang: bool) -> int:
    return 4 if gang else 3


def at_table(pad: Pad, table: Table) -> Counter[Tile]:
    """Copies of each tile at the table with this pad: logged melds, the pad's melds and tiles."""
    counts = Counter(table.copies)
    counts.update(pad.tiles)
    unknown = table.unknown
    for index, meld in enumerate(pad.melds):
        # a filled meld is the logged one's kind; an added one's tiles were tapped first and moved
        gang = unknown[index].is_gang if index < len(unknown) else meld.gang
        counts[meld.tile] += size(gang)
    return counts


def offered(pad: Pad, table: Table) -> tuple[Tile, ...]:
    """The tiles a tap may add now: none once the hand is full, never a fifth copy at the table."""
    counts = at_table(pad, table)
    if unfilled(pad, table):  # the next tap gives a logged meld its tile: all its copies are new
        gang = table.unknown[fills(pad, table)].is_gang
        return tuple(t for t in range(NUM_KINDS) if counts[t] + size(gang) <= COPIES)
    if len(pad.tiles) >= needed(pad, table):
        return ()
    return tuple(t for t in range(NUM_KINDS) if counts[t] < COPIES)


def tap(pad: Pad, table: Table, tile: Tile) -> Pad:
    if unfilled(pad, table):
        return replace(pad, melds=(*pad.melds, Added(tile, table.unknown[fills(pad, table)].is_gang)))
    return replace(pad, tiles=tuple(sorted((*pad.tiles, tile))), last=tile)


def can_meld(pad: Pad, table: Table, gang: bool) -> bool:
    """`+碰`/`+杠`: the last tile tapped, three or four times, becomes a meld the log did not know."""
    if pad.last is None or unfilled(pad, table) or meld_count(pad, table) >= MAX_MELDS:
        return False
    copies = pad.tiles.count(pad.last)
    return copies == 4 if gang else copies >= 3


def add_meld(pad: Pad, gang: bool) -> Pad:
    assert pad.last is not None
    tiles = list(pad.tiles)
    for _ in range(size(gang)):
        tiles.remove(pad.last)
    return replace(pad, tiles=tuple(tiles), last=None, melds=(*pad.melds, Added(pad.last, gang)))


def backspace(pad: Pad, table: Table) -> Pad | None:
    """⌫: the last tile tapped; else the newest meld added on the pad back into tiles (a `+碰`
    undone); else the highest tile shown; else the newest tile given to a logged meld. None: the
    pad is empty (the button goes back a step instead)."""
    if pad.last is not None:
        tiles = list(pad.tiles)
        tiles.remove(pad.last)
        return replace(pad, tiles=tuple(tiles), last=None)
    if len(pad.melds) > len(table.unknown):
        meld = pad.melds[-1]
        restored = tuple(sorted((*pad.tiles, *[meld.tile] * size(meld.gang))))
        return replace(pad, tiles=restored, last=meld.tile, melds=pad.melds[:-1])
    if pad.tiles:
        return replace(pad, tiles=pad.tiles[:-1])
    if pad.melds:
        return replace(pad, melds=pad.melds[:-1])
    return None


def hand_melds(pad: Pad, table: Table) -> tuple[Meld, ...]:
    """The hand's melds as typed at a win: the logged ones (those without a tile get the pad's), then
    the ones the log never saw (a pong, or an exposed gang)."""
    given = iter(pad.melds)
    melds: list[Meld] = []
    for kind, tile in table.logged:
        melds.append(Meld(kind, tile if tile is not None else next(given).tile))
    for meld in given:
        melds.append(Meld(MeldKind.EXPOSED_GANG if meld.gang else MeldKind.PONG, meld.tile))
    return tuple(melds)


def concealed_before_win(pad: Pad) -> tuple[Tile, ...]:
    """The concealed tiles without the winning (last) one."""
    assert pad.last is not None
    tiles = list(pad.tiles)
    tiles.remove(pad.last)
    return tuple(tiles)


# ---- one tap -------------------------------------------------------------------------------------------


def seat_tap(pad: Pad, letter: str, value: int, seats: int) -> Pad | Why:
    """`v` the winner, `d` whose discard (`SELF`: a self-draw)."""
    if letter == "v":
        if value >= seats:
            return Why("tiles.tap_not_now")
        return replace(pad, winner=value, source=None if pad.source == value else pad.source)
    if pad.winner is None:
        return Why("tiles.tap_winner_first")
    if value == pad.winner:
        return Why("tiles.tap_own_discard")
    if value >= seats and value != SELF:
        return Why("tiles.tap_not_now")
    return replace(pad, source=value)


def tile_tap(pad: Pad, table: Table, tile: Tile) -> Pad | Why:
    """A tile: added to the hand, or, the hand full with its winning tile unknown, marked as that."""
    if pad.winner is None:
        return Why("tiles.tap_winner_first")
    if tile in offered(pad, table):
        return tap(pad, table, tile)
    if complete(pad, table) and pad.last is None and tile in pad.tiles:
        return replace(pad, last=tile)
    full = not unfilled(pad, table) and len(pad.tiles) >= needed(pad, table)
    return Why("tiles.tap_full" if full else "tiles.tap_fifth", tile=tile)


def apply(pad: Pad, table: Table, op: str, seats: int, flags: frozenset[int]) -> Pad | Why:
    """The pad after one tap (`op`, see the module's list; `x` and `y` are the flow's), or why the
    tap cannot apply to the pad as it stands. `flags`: the places of the flags the pad offers."""
    letter = op[0]
    value = SELF if op[1:] == "s" else ALPHABET.index(op[1]) if len(op) > 1 else 0
    if letter in "vd":
        return seat_tap(pad, letter, value, seats)
    if letter == "t":
        return tile_tap(pad, table, value)
    if letter == "b":
        undone = backspace(pad, table)
        return Why("tiles.tap_nothing") if undone is None else undone
    if letter in "pg":
        gang = letter == "g"
        if can_meld(pad, table, gang):
            return add_meld(pad, gang)
        return Why("tiles.tap_no_gang" if gang else "tiles.tap_no_pong")
    if letter == "h" and value <= MAX_FLOWERS:
        return replace(pad, hard=value)
    if letter == "f" and value in flags:
        return replace(pad, flags=pad.flags ^ (1 << value))
    return Why("tiles.tap_not_now")


def missing(pad: Pad, table: Table) -> tuple[str, ...]:
    """What the win still lacks before 确认, in the order the pad asks for it (message keys)."""
    lacking: list[str] = []
    if pad.winner is None:
        lacking.append("tiles.missing_winner")
    if pad.source is None:
        lacking.append("tiles.missing_source")
    if pad.winner is None or not complete(pad, table):
        lacking.append("tiles.missing_tiles")
    elif pad.last is None:
        lacking.append("tiles.missing_winning")
    if pad.hard is None:
        lacking.append("tiles.missing_hard")
    return tuple(lacking)
