"""One suit's shapes, looked up instead of searched.

A suit's nine counts (how many of ranks 1-9 a hand holds) decide everything a hand's decomposition
needs from that suit: the ways to read it as sets, plus the pair when the suit's size is 2 mod 3,
and the tiles that would make it readable. Suits do not interact (a set never spans two suits), so
a hand's readings are the products of its suits' readings, and its waits are the completions of the
one suit that is short of a reading. Both tables are filled on first sight of a shape and kept
(`functools.cache`): there are few distinct suit shapes, so after warm-up a hand is read with a
handful of dictionary look-ups instead of a recursion over the whole hand.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from engine.tile_sets import SetKind, TileSet
from engine.tiles import COPIES, FIRST_WIND, NUM_KINDS, SUIT_SIZE, Tile

SuitCounts = tuple[int, ...]  # counts of ranks 1-9 of one suit


@dataclass(frozen=True)
class SuitSplit:
    """One reading of one suit, as tiles of that suit, each tuple ascending."""

    pair: Tile | None  # the hand's pair, if this suit holds it
    sequences: tuple[TileSet, ...]
    triplets: tuple[TileSet, ...]


def _split_sets(counts: list[int], start: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every way to split `counts` entirely into sequences and triplets, as their lowest ranks
    (rank indices 0-8), lowest rank first. A rank held four times yields its triplet + sequence
    twice (once from each branch); callers drop the repeat. Mutates `counts`, then restores it."""
    rank = start
    while rank < SUIT_SIZE and counts[rank] == 0:
        rank += 1
    if rank == SUIT_SIZE:
        yield (), ()
        return
    if counts[rank] >= 3:
        counts[rank] -= 3
        for sequences, triplets in _split_sets(counts, rank):
            yield sequences, (rank, *triplets)
        counts[rank] += 3
    if rank <= SUIT_SIZE - 3 and counts[rank + 1] and counts[rank + 2]:
        for offset in range(3):
            counts[rank + offset] -= 1
        for sequences, triplets in _split_sets(counts, rank):
            yield (rank, *sequences), triplets
        for offset in range(3):
            counts[rank + offset] += 1


@cache
def suit_splits(suit: int, counts: SuitCounts) -> tuple[SuitSplit, ...]:
    """Every reading of suit `suit` (0 m, 1 p, 2 s) holding `counts`: sets only if its size is a
    multiple of 3, sets and the pair if 2 mod 3, none if 1 mod 3 (or if no reading exists). An
    empty suit has one reading, with nothing in it."""
    remainder = sum(counts) % 3
    if remainder == 1:
        return ()
    base = suit * SUIT_SIZE
    rest = list(counts)
    pairs: list[int | None] = [r for r in range(SUIT_SIZE) if counts[r] >= 2] if remainder == 2 else [None]
    found: dict[SuitSplit, None] = {}  # ordered set: a rank held four times is reached two ways
    for pair in pairs:
        if pair is not None:
            rest[pair] -= 2
        for sequences, triplets in _split_sets(rest, 0):
            split = SuitSplit(
                pair=None if pair is None else base + pair,
                sequences=tuple(TileSet(SetKind.SEQUENCE, base + r) for r in sorted(sequences)),
                triplets=tuple(TileSet(SetKind.TRIPLET, base + r) for r in sorted(triplets)),
            )
            found[split] = None
        if pair is not None:
            rest[pair] += 2
    return tuple(found)


@dataclass(frozen=True)
class GroupShape:
    """What the waits of a hand need to know about one group of its tiles: a suit, or one wind
    (winds form no sequences, so each wind is a group of its own)."""

    ready: bool  # reads as sets, plus the pair if its size is 2 mod 3
    holds_pair: bool  # its size is 2 mod 3: if ready, it holds the hand's pair
    completions: frozenset[Tile]  # the tiles that, added, leave it ready
    pair_after: bool  # with one more tile its size is 2 mod 3


@cache
def suit_shape(suit: int, counts: SuitCounts) -> GroupShape:
    """Suit `suit` holding `counts`, as a group. A rank already held four times is not among the
    completions: it has no fifth copy to wait on."""
    base = suit * SUIT_SIZE
    completions = frozenset(
        base + rank
        for rank in range(SUIT_SIZE)
        if counts[rank] < COPIES and suit_splits(suit, (*counts[:rank], counts[rank] + 1, *counts[rank + 1 :]))
    )
    size = sum(counts)
    return GroupShape(bool(suit_splits(suit, counts)), size % 3 == 2, completions, (size + 1) % 3 == 2)


def _wind_shape(tile: Tile, count: int) -> GroupShape:
    """One wind held `count` times: absent, a pair or a triplet is ready; one more tile turns a
    single into the pair and the pair into a triplet."""
    return GroupShape(count in (0, 2, 3), count == 2, frozenset({tile}) if count in (1, 2) else frozenset(), count == 1)


WIND_SHAPES: Mapping[tuple[Tile, int], GroupShape] = MappingProxyType(
    {(tile, count): _wind_shape(tile, count) for tile in range(FIRST_WIND, NUM_KINDS) for count in range(COPIES + 1)}
)
