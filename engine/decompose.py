"""All ways to split closed tiles into sets and a pair, seven pairs, and the waits of a ready hand.

Works suit by suit (the winds are a fourth suit without sequences): a set never spans two suits, so
a hand's splits are the products of its suits' splits, and each suit's splits and completions come
from tables keyed by the tiles the hand holds of it (engine/suit_shapes.py). The straightforward
whole-hand algorithms these must agree with are kept in engine/reference.py.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from itertools import product

from engine.suit_shapes import SuitSplit, SuitTiles, reading_table, suit_shape
from engine.tile_sets import SetKind as SetKind
from engine.tile_sets import TileSet as TileSet
from engine.tiles import COPIES, FIRST_WIND, NUM_KINDS, SUIT_SIZE, Tile, rank_of

SEVEN_PAIRS_SIZE = 14


@dataclass(frozen=True, slots=True)
class Decomposition:
    """Closed tiles as a pair plus sets; melds are not part of it."""

    pair: Tile
    sets: tuple[TileSet, ...]


def counts_of(tiles: Iterable[Tile]) -> list[int]:
    counts = [0] * NUM_KINDS
    for tile in tiles:
        counts[tile] += 1
    return counts


def _by_suit(tiles: tuple[Tile, ...]) -> tuple[SuitTiles, SuitTiles, SuitTiles, SuitTiles]:
    """Sorted tiles cut into m, p, s and winds (the cuts found by bisection, not by a loop)."""
    pin = bisect_left(tiles, SUIT_SIZE)
    sou = bisect_left(tiles, 2 * SUIT_SIZE, pin)
    winds = bisect_left(tiles, FIRST_WIND, sou)
    return tiles[:pin], tiles[pin:sou], tiles[sou:winds], tiles[winds:]


def standard_decompositions(closed: Iterable[Tile]) -> list[Decomposition]:
    """All distinct pair + sets splits of the closed tiles (empty if none), ordered by pair, then sets."""
    tiles = tuple(sorted(closed))
    if len(tiles) % 3 != 2:
        return []
    return sorted_decompositions(tiles)


def sorted_decompositions(tiles: tuple[Tile, ...]) -> list[Decomposition]:
    """`standard_decompositions` of tiles already sorted, 2 mod 3 of them (a hand's closed tiles)."""
    readings = reading_table()
    m, p, s, w = _by_suit(tiles)
    man, pin, sou, winds = readings.get(m), readings.get(p), readings.get(s), readings.get(w)
    if man is None or pin is None or sou is None or winds is None:
        return []  # a suit with no reading
    if len(man) == len(pin) == len(sou) == len(winds) == 1:  # most hands: one reading of each suit
        return _joined(man[0], pin[0], sou[0], winds[0])
    found = [split for reading in product(man, pin, sou, winds) for split in _joined(*reading)]
    if len(found) > 1:
        found.sort(key=lambda d: (d.pair, d.sets))
    return found


def _joined(man: SuitSplit, pin: SuitSplit, sou: SuitSplit, winds: SuitSplit) -> list[Decomposition]:
    """The hand's reading made of one reading per suit: none unless exactly one suit holds a pair
    (each suit's reading has one exactly when it holds 2 mod 3 tiles)."""
    pairs = [split.pair for split in (man, pin, sou, winds) if split.pair is not None]
    if len(pairs) != 1:
        return []
    # Sequences before triplets, each ascending: the order `sorted` gives TileSets.
    sets = (*man.sequences, *pin.sequences, *sou.sequences, *man.triplets, *pin.triplets, *sou.triplets)
    return [Decomposition(pairs[0], (*sets, *winds.triplets))]


def is_seven_pairs(closed: Iterable[Tile]) -> bool:
    """14 concealed tiles in pairs; four of a kind not declared as a gang counts as two pairs."""
    tiles = sorted(closed)
    return len(tiles) == SEVEN_PAIRS_SIZE and tiles[0::2] == tiles[1::2]  # each tile equals the next


def _standard_waits(tiles: tuple[Tile, ...]) -> set[Tile]:
    """Tiles that complete sorted `tiles` as sets + a pair. Every suit but the one the tile joins
    must already be ready; the one it joins must be ready after; and exactly one suit may then hold
    the pair. (Only the suits a tile may join are asked for their completions.)"""
    readings = reading_table()
    suits = _by_suit(tiles)
    broken = [suit for suit in suits if suit not in readings]
    if len(broken) > 1:
        return set()
    pairs = sum(1 for suit in suits if len(suit) % 3 == 2)  # the suits that hold a pair if ready
    waits: set[Tile] = set()
    for suit in broken or suits:
        shape = suit_shape(suit)
        if pairs - shape.holds_pair + shape.pair_after == 1:
            waits |= shape.completions
    return waits


def _seven_pairs_wait(tiles: tuple[Tile, ...]) -> Tile | None:
    """The tile that makes 13 sorted concealed tiles seven pairs: the one kind held an odd number of
    times (found where the pairs fall out of step)."""
    if len(tiles) != SEVEN_PAIRS_SIZE - 1 or len(set(tiles)) > SEVEN_PAIRS_SIZE // 2:
        return None  # six pairs and a single hold at most seven kinds
    for index in range(0, SEVEN_PAIRS_SIZE - 2, 2):
        if tiles[index] != tiles[index + 1]:
            single = tiles[index]
            rest = tiles[index + 1 :]
            return single if rest[0::2] == rest[1::2] else None
    return tiles[-1]


def waiting_tiles(concealed: Iterable[Tile], meld_tiles: Iterable[Tile], meld_count: int) -> set[Tile]:
    """The tile kinds that would complete the hand. A kind whose four copies the player already
    holds (melds included) cannot be waited on."""
    tiles = tuple(sorted(concealed))
    waits = _completing(tiles, meld_count)
    melded = list(meld_tiles)
    return {tile for tile in waits if tiles.count(tile) + melded.count(tile) < COPIES}


def _completing(tiles: tuple[Tile, ...], meld_count: int) -> set[Tile]:
    """The tiles that complete sorted `tiles` as sets + a pair, or (no melds) as seven pairs; a kind
    held four times may be among them."""
    waits = _standard_waits(tiles)
    if meld_count == 0 and (seven := _seven_pairs_wait(tiles)) is not None:
        waits.add(seven)
    return waits


def waits_only_on(concealed: Iterable[Tile], meld_tiles: Iterable[Tile], meld_count: int, tile: Tile) -> bool:
    """True if `tile` is the one tile kind that completes the hand ("单听一张")."""
    tiles, melded = tuple(sorted(concealed)), list(meld_tiles)
    if tiles.count(tile) + melded.count(tile) >= COPIES:
        return False
    waits = _completing(tiles, meld_count)
    # Any other tile that completes the hand and still has a copy left to draw: not a sole wait.
    return all(wait == tile or tiles.count(wait) + melded.count(wait) >= COPIES for wait in waits)


class WaitShape(StrEnum):
    """Where the winning tile sits in one decomposition."""

    PAIR = "pair"  # 独占/单吊
    MIDDLE = "middle"  # 压档/卡张: 79 wins 8
    EDGE = "edge"  # 边枝: 12 wins 3, 89 wins 7
    OPEN = "open"  # two-sided sequence
    TRIPLET = "triplet"  # completes a triplet
    SEVEN_PAIRS = "seven_pairs"


def wait_shapes(decomposition: Decomposition, winning: Tile) -> tuple[WaitShape, ...]:
    """Every position the winning tile can take in this decomposition, in a fixed order (a set's order
    follows the hash seed, and equal-total readings must itemize the same way in every process)."""
    edge = middle = two_sided = triplet = False
    for tile_set in decomposition.sets:
        low = tile_set.tile
        if not low <= winning <= low + 2:
            continue
        if tile_set.kind is SetKind.TRIPLET:
            triplet = triplet or winning == low
        elif winning == low + 1:
            middle = True
        elif winning == low + 2:  # 12 wins 3 is an edge wait, 34 wins 5 an open one
            edge, two_sided = (True, two_sided) if rank_of(low) == 1 else (edge, True)
        else:  # 89 wins 7 is an edge wait, 56 wins 4 an open one
            edge, two_sided = (True, two_sided) if rank_of(low) == 7 else (edge, True)
    shapes = []  # in the order of the shapes' names, as sorting them gives
    if edge:
        shapes.append(WaitShape.EDGE)
    if middle:
        shapes.append(WaitShape.MIDDLE)
    if two_sided:
        shapes.append(WaitShape.OPEN)
    if decomposition.pair == winning:
        shapes.append(WaitShape.PAIR)
    if triplet:
        shapes.append(WaitShape.TRIPLET)
    return tuple(shapes)
