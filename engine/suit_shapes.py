"""One suit's shapes, looked up instead of searched.

The tiles a hand holds of one suit decide everything its decompositions need from that suit: the
ways to read them as sets (plus the pair when there are 2 mod 3 of them), and the tiles that would
make them readable. The winds are read the same way as a fourth suit that forms no sequences. Sets
never span two suits, so a hand's readings are the products of its suits' readings, and its waits
are the completions of the one suit that is short of a reading.

The tables (`suit_splits` for decompositions, `readable` and `suit_shape` for waits) are keyed by
the suit's tiles (sorted), filled on first sight of a shape and kept (`functools.cache`): winning
hands have few distinct suit shapes, so after warm-up a hand is read with four dictionary look-ups
instead of a recursion over the whole hand. (10,000 random hands leave about 46,000 entries, some
11 MB.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from engine.tile_sets import SetKind, TileSet
from engine.tiles import COPIES, FIRST_WIND, NUM_KINDS, SUIT_SIZE, Tile, is_wind

SuitTiles = tuple[Tile, ...]  # the sorted tiles a hand holds of one suit (or of the winds)


@dataclass(frozen=True)
class SuitSplit:
    """One reading of one suit's tiles, each tuple ascending."""

    pair: Tile | None  # the hand's pair, if this suit holds it
    sequences: tuple[TileSet, ...]
    triplets: tuple[TileSet, ...]


def _kinds_of(tile: Tile) -> range:
    """The tile kinds of the suit `tile` belongs to (the winds count as one suit)."""
    if is_wind(tile):
        return range(FIRST_WIND, NUM_KINDS)
    base = tile - tile % SUIT_SIZE
    return range(base, base + SUIT_SIZE)


def _split_sets(counts: dict[Tile, int], kinds: range, start: int) -> Iterator[tuple[list[Tile], list[Tile]]]:
    """Every way to split `counts` entirely into sequences and triplets (their lowest tiles),
    lowest kind first. A kind held four times yields its triplet + sequence twice (once from each
    branch); the caller drops the repeat. Mutates `counts`, then restores it."""
    index = start
    while index < len(kinds) and counts[kinds[index]] == 0:
        index += 1
    if index == len(kinds):
        yield [], []
        return
    tile = kinds[index]
    if counts[tile] >= 3:
        counts[tile] -= 3
        for sequences, triplets in _split_sets(counts, kinds, index):
            yield sequences, [tile, *triplets]
        counts[tile] += 3
    sequence = (tile, tile + 1, tile + 2)
    if not is_wind(tile) and index <= len(kinds) - 3 and counts[tile + 1] and counts[tile + 2]:
        for kind in sequence:
            counts[kind] -= 1
        for sequences, triplets in _split_sets(counts, kinds, index):
            yield [tile, *sequences], triplets
        for kind in sequence:
            counts[kind] += 1


@cache
def suit_splits(tiles: SuitTiles) -> tuple[SuitSplit, ...]:
    """Every reading of one suit's tiles: sets only if there are a multiple of 3, sets and the pair
    if 2 mod 3, none if 1 mod 3 (or if no reading exists). No tiles: one reading, with nothing."""
    if not tiles:
        return (SuitSplit(None, (), ()),)
    if len(tiles) % 3 == 1:
        return ()
    kinds = _kinds_of(tiles[0])
    counts = {kind: tiles.count(kind) for kind in kinds}
    pairs: list[Tile | None] = [k for k in kinds if counts[k] >= 2] if len(tiles) % 3 == 2 else [None]
    found: dict[SuitSplit, None] = {}  # an ordered set: see _split_sets on fours
    for pair in pairs:
        if pair is not None:
            counts[pair] -= 2
        for sequences, triplets in _split_sets(counts, kinds, 0):
            split = SuitSplit(
                pair=pair,
                sequences=tuple(TileSet(SetKind.SEQUENCE, t) for t in sorted(sequences)),
                triplets=tuple(TileSet(SetKind.TRIPLET, t) for t in sorted(triplets)),
            )
            found[split] = None
        if pair is not None:
            counts[pair] += 2
    return tuple(found)


def _without(tiles: SuitTiles, taken: tuple[Tile, ...]) -> SuitTiles:
    rest = list(tiles)
    for tile in taken:
        rest.remove(tile)
    return tuple(rest)


@cache
def readable(tiles: SuitTiles) -> bool:
    """Whether one suit's tiles have a reading at all: `bool(suit_splits(tiles))`, found by a search
    that stops at the first reading (the waits ask this of many shapes that never win)."""
    if len(tiles) % 3 == 2:
        return any(readable(_without(tiles, (kind, kind))) for kind in set(tiles) if tiles.count(kind) >= 2)
    if not tiles:
        return True
    if len(tiles) % 3 == 1:
        return False
    low = tiles[0]  # the lowest tile starts a triplet or a sequence
    if tiles[:3] == (low, low, low) and readable(tiles[3:]):
        return True
    if is_wind(low) or low + 2 not in _kinds_of(low) or low + 1 not in tiles or low + 2 not in tiles:
        return False  # no sequence starts at `low`
    return readable(_without(tiles, (low, low + 1, low + 2)))


@dataclass(frozen=True)
class SuitShape:
    """What the waits of a hand need to know about the tiles it holds of one suit."""

    ready: bool  # reads as sets, plus the pair if there are 2 mod 3 of them
    holds_pair: bool  # 2 mod 3 tiles: if ready, this suit holds the hand's pair
    completions: frozenset[Tile]  # the tiles that, added, leave it ready
    pair_after: bool  # with one more tile it would hold the pair


@cache
def suit_shape(tiles: SuitTiles) -> SuitShape:
    """One suit's tiles as a group of the hand. A kind already held four times is not among the
    completions: it has no fifth copy to wait on. (No tiles: ready, and no single tile completes it.)"""
    kinds = _kinds_of(tiles[0]) if tiles else range(0)
    completions = frozenset(
        kind for kind in kinds if tiles.count(kind) < COPIES and readable(tuple(sorted((*tiles, kind))))
    )
    size = len(tiles)
    return SuitShape(readable(tiles), size % 3 == 2, completions, (size + 1) % 3 == 2)
