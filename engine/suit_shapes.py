"""One suit's shapes, looked up instead of searched.

The tiles a hand holds of one suit decide everything its decompositions need from that suit: the
ways to read them as sets (plus the pair when there are 2 mod 3 of them), and the tiles that would
make them readable. The winds are read the same way as a fourth suit that forms no sequences. Sets
never span two suits, so a hand's readings are the products of its suits' readings, and its waits
are the completions of the one suit that is short of a reading.

`reading_table` holds every readable shape of every suit, with its readings: built whole the first
time it is asked for, by walking the ranks and laying sets on them (up to four sets and a pair: a
hand's suit never holds more), so a hand never met before is read with four look-ups like any
other, and a shape missing from it has no reading. (65,274 shapes and 70,644 readings: the m, p and
s suits' 21,742 shapes each, the winds' 47 and no tiles; some 0.3 s of CPU and 18 MB once per
process.) The waits ask `suit_shape`, kept per shape as first seen, which finds the completions in
the same table.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from engine.tile_sets import SetKind, TileSet
from engine.tiles import COPIES, FIRST_WIND, NUM_KINDS, SUIT_SIZE, Tile, is_wind

SuitTiles = tuple[Tile, ...]  # the sorted tiles a hand holds of one suit (or of the winds)
MAX_SETS = 4  # a hand holds four sets and a pair: no suit of it holds more


@dataclass(frozen=True, slots=True)
class SuitSplit:
    """One reading of one suit's tiles, each tuple ascending."""

    pair: Tile | None  # the hand's pair, if this suit holds it
    sequences: tuple[TileSet, ...]
    triplets: tuple[TileSet, ...]


NO_TILES = SuitSplit(None, (), ())


def _kinds_of(tile: Tile) -> range:
    """The tile kinds of the suit `tile` belongs to (the winds count as one suit)."""
    if is_wind(tile):
        return range(FIRST_WIND, NUM_KINDS)
    base = tile - tile % SUIT_SIZE
    return range(base, base + SUIT_SIZE)


SUIT_KINDS = (range(0, SUIT_SIZE), range(SUIT_SIZE, 2 * SUIT_SIZE), range(2 * SUIT_SIZE, FIRST_WIND))


def _lay_sets(kinds: range, sequences_allowed: bool, found: dict[SuitTiles, tuple[SuitSplit, ...]]) -> None:
    """Add to `found` every shape of the suit `kinds` that reads as up to four sets and at most one
    pair, with each of its readings: rank by rank, how many sequences start there, whether a
    triplet or the pair sits there; a rank's tile count is final once the walk moves past it."""
    # The walk carries the sets' lowest tiles; each distinct tuple of them becomes TileSets once,
    # shared by every reading that has those sets (less memory, and fewer objects to build).
    sequence_sets: dict[SuitTiles, tuple[TileSet, ...]] = {}
    triplet_sets: dict[SuitTiles, tuple[TileSet, ...]] = {}
    last_start = len(kinds) - 3 if sequences_allowed else -1

    def keep(tiles: SuitTiles, pair: Tile | None, seqs: SuitTiles, trips: SuitTiles) -> None:
        sequences = sequence_sets.get(seqs)
        if sequences is None:
            sequences = sequence_sets[seqs] = tuple(TileSet(SetKind.SEQUENCE, tile) for tile in seqs)
        triplets = triplet_sets.get(trips)
        if triplets is None:
            triplets = triplet_sets[trips] = tuple(TileSet(SetKind.TRIPLET, tile) for tile in trips)
        found[tiles] = (*found.get(tiles, ()), SuitSplit(pair, sequences, triplets))

    def walk(
        rank: int,
        tiles: SuitTiles,
        running: int,  # sequences started below `rank` that cover it
        next_running: int,  # of those, the ones that cover `rank + 1` too
        sets_left: int,
        pair: Tile | None,
        seqs: SuitTiles,  # the lowest tile of each sequence laid so far
        trips: SuitTiles,  # the tile of each triplet laid so far
    ) -> None:
        if sets_left == 0 and running == next_running == 0:  # no set left to lay: the pair at most
            if tiles:
                keep(tiles, pair, seqs, trips)
            if pair is None:
                for kind in kinds[rank:]:
                    keep((*tiles, kind, kind), kind, seqs, trips)
            return
        if rank == len(kinds):
            if running == 0 and tiles:
                keep(tiles, pair, seqs, trips)
            return
        kind = kinds[rank]
        starts = min(sets_left, COPIES - running) if rank <= last_start else 0
        for started in range(starts + 1):
            for triplet in (0, 1) if sets_left > started else (0,):
                for paired in (0, 1) if pair is None else (0,):
                    held = running + started + 3 * triplet + 2 * paired
                    if held > COPIES:
                        continue
                    walk(
                        rank + 1,
                        tiles + (kind,) * held,
                        next_running + started,
                        started,
                        sets_left - started - triplet,
                        kind if paired else pair,
                        seqs + (kind,) * started,
                        (*trips, kind) if triplet else trips,
                    )

    walk(0, (), 0, 0, MAX_SETS, None, (), ())


@cache
def reading_table() -> Mapping[SuitTiles, tuple[SuitSplit, ...]]:
    """Every readable shape of each suit and of the winds, with all its readings (built once)."""
    table: dict[SuitTiles, tuple[SuitSplit, ...]] = {(): (NO_TILES,)}
    for kinds in SUIT_KINDS:
        _lay_sets(kinds, True, table)
    _lay_sets(range(FIRST_WIND, NUM_KINDS), False, table)
    return table


def readable(tiles: SuitTiles) -> bool:
    """Whether one suit's sorted tiles have a reading at all."""
    return tiles in reading_table()


@dataclass(frozen=True)
class SuitShape:
    """What the waits of a hand need to know about the tiles it holds of one suit."""

    ready: bool  # reads as sets, plus the pair if there are 2 mod 3 of them
    holds_pair: bool  # 2 mod 3 tiles: if ready, this suit holds the hand's pair
    completions: frozenset[Tile]  # the tiles that, added, leave it ready
    pair_after: bool  # with one more tile it would hold the pair


@cache
def suit_shape(tiles: SuitTiles) -> SuitShape:
    """One suit's sorted tiles as a group of the hand. A kind already held four times is not among
    the completions: it has no fifth copy to wait on. (No tiles: ready, and no single tile completes
    it.)"""
    table = reading_table()
    completions = []
    for kind in _kinds_of(tiles[0]) if tiles else range(0):
        at = bisect_right(tiles, kind)
        if (at < COPIES or tiles[at - COPIES] != kind) and (*tiles[:at], kind, *tiles[at:]) in table:
            completions.append(kind)
    size = len(tiles)
    return SuitShape(tiles in table, size % 3 == 2, frozenset(completions), (size + 1) % 3 == 2)
