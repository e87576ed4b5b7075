"""The tile pad of the guided 胡: a hand entered by tapping its tiles, as one compact token (pure).

A Telegram button carries at most 64 bytes, and the flow's whole state travels in it, after the
night and hand of the button and the flow's head (`/hu ~t…g…d…n…`, up to 44 bytes). A hand typed one
character a tile would need 14 bytes for the tiles alone, leaving no room for the count of hard
flowers, the flags and the confirm. So everything a tap step knows is one number in mixed radix,
written in base 62 after the letter `c` (`/hu ~t…cGZvveHMrxPf5yy`, at most 14 characters, 59 bytes
with the longest head):

- who won and from whom (4 × 5: a seat, or self-draw);
- the concealed tiles tapped, as a multiset: the order does not matter except for the last tile
  tapped, which is kept on its own (the winning tile, and what ⌫ takes back). A multiset of k tiles
  of 31 kinds is ranked by the combinatorial number system (stars and bars), after the multisets of
  fewer tiles, so every hand of up to 14 tiles has one number below C(45, 14);
- the melds added on the pad, four slots (a tile and whether it is a gang): the first ones give the
  tiles of the winner's melds logged without a tile (`碰 王五`), in log order, the rest are melds the
  log never saw (`+碰`, `+杠` on the tiles just tapped);
- the hard flowers (unset, or 0-20), whether the 9-20 counts are shown, the flags toggled (杠开,
  海底 …), and the confirm.

Every decoded state is checked (counts, copies, the last tile among the tapped ones); a token that
could not have come from a button is unreadable, never a crash.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from math import comb, prod

from engine.hand import MAX_MELDS, WINNING_HAND_SIZE, Meld, MeldKind
from engine.tiles import COPIES, NUM_KINDS, Tile

SELF = 4  # the source of a self-drawn win
SEATS = 4
MAX_FLOWERS = 20
FLAG_BITS = 6  # WinFlags' yes/no flags a player names (bot.vocabulary.flag_fields)
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
MAX_CONCEALED = WINNING_HAND_SIZE
TILE_CODES = comb(NUM_KINDS + MAX_CONCEALED, MAX_CONCEALED)  # multisets of 0-14 tiles of 31 kinds
MELD_CODES = 1 + 2 * NUM_KINDS  # an empty slot, or a tile with a pong/gang bit

# (name, radix) from the most significant field: the token's number is read in this order.
RADICES: tuple[tuple[str, int], ...] = (
    ("winner", SEATS),
    ("source", SEATS + 1),
    ("tiles", TILE_CODES),
    ("last", NUM_KINDS + 1),
    *((f"meld{i}", MELD_CODES) for i in range(MAX_MELDS)),
    ("hard", MAX_FLOWERS + 2),
    ("more", 2),
    ("flags", 1 << FLAG_BITS),
    ("confirm", 2),
)
CAPACITY = prod(radix for _, radix in RADICES)
TOKEN_LENGTH = next(n for n in range(1, 40) if len(ALPHABET) ** n >= CAPACITY)  # 14


class Unreadable(ValueError):
    """A token no button could have carried."""


@dataclass(frozen=True)
class Added:
    """A meld given on the pad: its tile, and whether it is a gang."""

    tile: Tile
    gang: bool


@dataclass(frozen=True)
class Pad:
    """Where a tap flow stands."""

    winner: int
    source: int  # a seat, or SELF
    tiles: tuple[Tile, ...] = ()  # the concealed tiles tapped, sorted (the last one included)
    last: Tile | None = None
    melds: tuple[Added, ...] = ()
    hard: int | None = None
    more: bool = False
    flags: int = 0
    confirm: bool = False

    @property
    def self_draw(self) -> bool:
        return self.source == SELF


# ---- the number ------------------------------------------------------------------------------------


def multiset_code(tiles: tuple[Tile, ...]) -> int:
    """The rank of a sorted multiset of tiles among all multisets of up to 14 tiles."""
    size = len(tiles)
    before = comb(NUM_KINDS - 1 + size, size - 1) if size else 0  # every smaller multiset
    return before + sum(comb(tile + index, index + 1) for index, tile in enumerate(tiles))


def multiset_of(code: int) -> tuple[Tile, ...]:
    size = 0
    while comb(NUM_KINDS - 1 + size + 1, size) <= code:  # the multisets of up to `size` tiles
        size += 1
    rest = code - (comb(NUM_KINDS - 1 + size, size - 1) if size else 0)
    tiles: list[Tile] = []
    for index in range(size - 1, -1, -1):
        value = index  # the largest value with C(value, index + 1) <= rest
        while comb(value + 1, index + 1) <= rest:
            value += 1
        rest -= comb(value, index + 1)
        tiles.append(value - index)
    return tuple(reversed(tiles))


def encode(pad: Pad) -> str:
    slots = [1 + 2 * m.tile + m.gang for m in pad.melds] + [0] * (MAX_MELDS - len(pad.melds))
    values = {
        "winner": pad.winner,
        "source": pad.source,
        "tiles": multiset_code(pad.tiles),
        "last": 0 if pad.last is None else pad.last + 1,
        **{f"meld{i}": slot for i, slot in enumerate(slots)},
        "hard": 0 if pad.hard is None else pad.hard + 1,
        "more": int(pad.more),
        "flags": pad.flags,
        "confirm": int(pad.confirm),
    }
    number = 0
    for name, radix in RADICES:
        assert 0 <= values[name] < radix, name
        number = number * radix + values[name]
    digits = []
    while number:
        number, digit = divmod(number, len(ALPHABET))
        digits.append(ALPHABET[digit])
    return "".join(reversed(digits)) or "0"


def decode(text: str) -> Pad:
    """The pad a token stands for; Unreadable if no button could have carried it."""
    if not text or len(text) > TOKEN_LENGTH or any(char not in ALPHABET for char in text):
        raise Unreadable(text)
    number = 0
    for char in text:
        number = number * len(ALPHABET) + ALPHABET.index(char)
    if number >= CAPACITY:
        raise Unreadable(text)
    values: dict[str, int] = {}
    for name, radix in reversed(RADICES):
        number, values[name] = divmod(number, radix)
    slots = [values[f"meld{i}"] for i in range(MAX_MELDS)]
    used = [slot for slot in slots if slot]
    if slots[: len(used)] != used:  # an empty slot before a meld
        raise Unreadable(text)
    tiles = multiset_of(values["tiles"])
    pad = Pad(
        winner=values["winner"],
        source=values["source"],
        tiles=tiles,
        last=values["last"] - 1 if values["last"] else None,
        melds=tuple(Added((slot - 1) // 2, bool((slot - 1) % 2)) for slot in used),
        hard=values["hard"] - 1 if values["hard"] else None,
        more=bool(values["more"]),
        flags=values["flags"],
        confirm=bool(values["confirm"]),
    )
    if pad.winner == pad.source or (pad.last is not None and pad.last not in pad.tiles):
        raise Unreadable(text)
    if len(tiles) + 3 * len(pad.melds) > WINNING_HAND_SIZE:
        raise Unreadable(text)
    return pad


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


def valid(pad: Pad, table: Table) -> bool:
    """A decoded pad is one the buttons could have made: no fifth copy, not over-full."""
    if meld_count(pad, table) > MAX_MELDS or len(pad.tiles) > needed(pad, table):
        return False
    if unfilled(pad, table) and pad.tiles:
        return False  # a logged meld's tile is asked first
    return all(count <= COPIES for count in at_table(pad, table).values())


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
