"""All ways to split closed tiles into sets and a pair, seven pairs, and the waits of a ready hand.

Works suit by suit: a set never spans two suits, so a hand's splits are the products of its suits'
splits, and each suit's splits come from a table keyed by its nine counts (engine/suit_shapes.py).
Winds form no sequences, so each wind is a pair, a triplet or absent. The straightforward
whole-hand algorithms these must agree with are kept in engine/reference.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from itertools import product

from engine.suit_shapes import WIND_SHAPES, SuitCounts, suit_shape, suit_splits
from engine.tile_sets import SetKind as SetKind
from engine.tile_sets import TileSet as TileSet
from engine.tiles import COPIES, FIRST_WIND, NUM_KINDS, SUIT_SIZE, Tile, rank_of

SEVEN_PAIRS_SIZE = 14
SUITS = range(3)
WINDS = range(FIRST_WIND, NUM_KINDS)
# Built once: a hand's wind triplets are these objects, not new ones per hand.
_WIND_TRIPLETS = {tile: TileSet(SetKind.TRIPLET, tile) for tile in WINDS}


@dataclass(frozen=True)
class Decomposition:
    """Closed tiles as a pair plus sets; melds are not part of it."""

    pair: Tile
    sets: tuple[TileSet, ...]


def counts_of(tiles: Iterable[Tile]) -> list[int]:
    counts = [0] * NUM_KINDS
    for tile in tiles:
        counts[tile] += 1
    return counts


def _suit_counts(counts: list[int], suit: int) -> SuitCounts:
    return tuple(counts[suit * SUIT_SIZE : (suit + 1) * SUIT_SIZE])


def standard_decompositions(closed: Iterable[Tile]) -> list[Decomposition]:
    """All distinct pair + sets splits of the closed tiles (empty if none), ordered by pair, then sets."""
    counts = counts_of(closed)
    if sum(counts) % 3 != 2:
        return []
    wind_pairs = [tile for tile in WINDS if counts[tile] == 2]
    wind_triplets = tuple(_WIND_TRIPLETS[tile] for tile in WINDS if counts[tile] == 3)
    if len(wind_pairs) + len(wind_triplets) != sum(1 for tile in WINDS if counts[tile]):
        return []  # a wind held once or four times fits no set
    per_suit = [suit_splits(suit, _suit_counts(counts, suit)) for suit in SUITS]
    pair_holders = len(wind_pairs) + sum(1 for splits in per_suit if splits and splits[0].pair is not None)
    if pair_holders != 1 or not all(per_suit):
        return []
    found = []
    for man, pin, sou in product(*per_suit):
        pair = next(p for p in (man.pair, pin.pair, sou.pair, *wind_pairs) if p is not None)
        # Sequences before triplets, each ascending: the order `sorted` gives TileSets.
        sets = man.sequences + pin.sequences + sou.sequences + man.triplets + pin.triplets + sou.triplets
        found.append(Decomposition(pair, sets + wind_triplets))
    if len(found) > 1:
        found.sort(key=lambda d: (d.pair, d.sets))
    return found


def is_seven_pairs(closed: Iterable[Tile]) -> bool:
    """14 concealed tiles in pairs; four of a kind not declared as a gang counts as two pairs."""
    counts = counts_of(closed)
    return sum(counts) == SEVEN_PAIRS_SIZE and all(c % 2 == 0 for c in counts)


def _standard_waits(counts: list[int]) -> set[Tile]:
    """Tiles that complete `counts` as sets + a pair. Every group (a suit, or one wind) but the one
    the tile joins must already be ready; the one it joins must be ready after; and exactly one
    group may then hold the pair."""
    groups = [suit_shape(suit, _suit_counts(counts, suit)) for suit in SUITS]
    groups += [WIND_SHAPES[tile, counts[tile]] for tile in WINDS]
    broken = [group for group in groups if not group.ready]
    if len(broken) > 1:
        return set()
    pairs = sum(1 for group in groups if group.holds_pair)
    waits: set[Tile] = set()
    for group in broken or groups:
        if pairs - group.holds_pair + group.pair_after == 1:
            waits |= group.completions
    return waits


def _seven_pairs_wait(counts: list[int]) -> Tile | None:
    """The tile that makes 13 concealed tiles seven pairs: the one kind held an odd number of times."""
    odd = [tile for tile, count in enumerate(counts) if count % 2]
    return odd[0] if sum(counts) == SEVEN_PAIRS_SIZE - 1 and len(odd) == 1 else None


def waiting_tiles(concealed: Iterable[Tile], meld_tiles: Iterable[Tile], meld_count: int) -> set[Tile]:
    """The tile kinds that would complete the hand. A kind whose four copies the player already
    holds (melds included) cannot be waited on."""
    counts = counts_of(concealed)
    held = list(counts)
    for tile in meld_tiles:
        held[tile] += 1
    waits = _standard_waits(counts)
    if meld_count == 0 and (seven := _seven_pairs_wait(counts)) is not None:
        waits.add(seven)
    return {tile for tile in waits if held[tile] < COPIES}


def waits_only_on(concealed: Iterable[Tile], meld_tiles: Iterable[Tile], meld_count: int, tile: Tile) -> bool:
    """True if `tile` is the one tile kind that completes the hand ("单听一张")."""
    hand, melded = list(concealed), list(meld_tiles)
    held = hand.count(tile) + melded.count(tile)
    return held < COPIES and waiting_tiles(hand, melded, meld_count) <= {tile}


class WaitShape(StrEnum):
    """Where the winning tile sits in one decomposition."""

    PAIR = "pair"  # 独占/单吊
    MIDDLE = "middle"  # 压档/卡张: 79 wins 8
    EDGE = "edge"  # 边枝: 12 wins 3, 89 wins 7
    OPEN = "open"  # two-sided sequence
    TRIPLET = "triplet"  # completes a triplet
    SEVEN_PAIRS = "seven_pairs"


def wait_shapes(decomposition: Decomposition, winning: Tile) -> set[WaitShape]:
    """Every position the winning tile can take in this decomposition."""
    shapes: set[WaitShape] = set()
    if decomposition.pair == winning:
        shapes.add(WaitShape.PAIR)
    for tile_set in decomposition.sets:
        if not tile_set.contains(winning):
            continue
        if tile_set.kind is SetKind.TRIPLET:
            shapes.add(WaitShape.TRIPLET)
        elif winning == tile_set.tile + 1:
            shapes.add(WaitShape.MIDDLE)
        elif (rank_of(tile_set.tile) == 1 and winning == tile_set.tile + 2) or (
            rank_of(tile_set.tile) == 7 and winning == tile_set.tile
        ):
            shapes.add(WaitShape.EDGE)
        else:
            shapes.add(WaitShape.OPEN)
    return shapes
