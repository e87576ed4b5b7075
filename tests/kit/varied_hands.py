"""Seeded winning hands of every kind the readings must get right, for checking the fast path
against the reference one: melded hands, one-suit hands (many splits, many waits), seven pairs
(with fours of a kind) and 压绝 hands (a sole wait on the tile whose other three copies are ponged).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from engine.errors import EngineError
from engine.hand import Hand, Meld, MeldKind
from engine.tiles import COPIES, FIRST_WIND, NUM_KINDS, SUIT_SIZE, Tile, is_wind

SEQUENCE_STARTS = frozenset(t for t in range(NUM_KINDS) if not is_wind(t) and t % SUIT_SIZE <= SUIT_SIZE - 3)
ALL_KINDS = list(range(NUM_KINDS))


class _Builder:
    """A hand being drawn: closed tiles, melds, and how many of each kind are used."""

    def __init__(self, closed: list[Tile] | None = None, melds: list[Meld] | None = None) -> None:
        self.closed = closed or []
        self.melds = melds or []
        self.counts: Counter[Tile] = Counter(self.closed)
        for meld in self.melds:
            self.counts[meld.tile] += meld.size

    def add_set(self, rng: random.Random, kinds: list[Tile], meld_chance: float) -> None:
        """One sequence or triplet of `kinds`, skipped if it would need a fifth copy."""
        tile = rng.choice(kinds)
        sequence = tile in SEQUENCE_STARTS and rng.random() < 0.6
        tiles = [tile, tile + 1, tile + 2] if sequence else [tile] * 3
        if any(self.counts[t] + tiles.count(t) > COPIES for t in tiles):
            return
        if not sequence and rng.random() < meld_chance:
            kind = rng.choice(list(MeldKind))
            if kind.is_gang and self.counts[tile]:
                return
            self.melds.append(Meld(kind, tile))
            self.counts[tile] += 4 if kind.is_gang else 3
        else:
            self.closed += tiles
            self.counts.update(tiles)

    def fill(self, rng: random.Random, kinds: list[Tile], meld_chance: float, sets: int) -> bool:
        """Add sets until there are `sets` of them (melds included), then a pair; False if no pair fits."""
        while len(self.closed) // 3 + len(self.melds) < sets:
            self.add_set(rng, kinds, meld_chance)
        pair = rng.choice(kinds)
        if self.counts[pair] > COPIES - 2:
            return False
        self.closed += [pair, pair]
        self.counts[pair] += 2
        return True

    def hand(self, winning: Tile) -> Hand:
        rest = list(self.closed)
        rest.remove(winning)
        return Hand(tuple(sorted(rest)), tuple(self.melds), winning)


def melded_hand(rng: random.Random) -> Hand | None:
    builder = _Builder()
    return builder.hand(rng.choice(builder.closed)) if builder.fill(rng, ALL_KINDS, 0.5, sets=4) else None


def one_suit_hand(rng: random.Random) -> Hand | None:
    suit = rng.randrange(3)
    kinds = list(range(suit * SUIT_SIZE, (suit + 1) * SUIT_SIZE))
    if rng.random() < 0.3:
        kinds += list(range(FIRST_WIND, NUM_KINDS))
    # Three consecutive triplets read as three sequences too (111222333m): several splits.
    low = kinds[rng.randrange(SUIT_SIZE - 2)]
    builder = _Builder([low, low + 1, low + 2] * 3 if rng.random() < 0.4 else [])
    return builder.hand(rng.choice(builder.closed)) if builder.fill(rng, kinds, 0.2, sets=4) else None


def seven_pairs_hand(rng: random.Random) -> Hand | None:
    counts: Counter[Tile] = Counter()
    kinds = rng.sample(ALL_KINDS, 9) if rng.random() < 0.5 else rng.sample(range(SUIT_SIZE), 7)
    while sum(counts.values()) < 14:
        tile = rng.choice(kinds)
        if counts[tile] <= COPIES - 2:
            counts[tile] += 2
    tiles = sorted(counts.elements())
    winning = rng.choice(tiles)
    tiles.remove(winning)
    return Hand(tuple(tiles), (), winning)


def yajue_hand(rng: random.Random) -> Hand | None:
    """The winning tile's other three copies are ponged and it fills a middle wait (79 wins 8) or
    an edge wait (12 wins 3, 89 wins 7); the rest of the hand is random, so the wait may or may
    not be sole."""
    base = rng.randrange(3) * SUIT_SIZE
    rank = rng.randint(2, 8)
    edge = rank in (3, 7) and rng.random() < 0.5
    partner = {3: [1, 2], 7: [8, 9]}[rank] if edge else [rank - 1, rank + 1]
    winning = base + rank - 1
    builder = _Builder([base + r - 1 for r in partner] + [winning], [Meld(MeldKind.PONG, winning)])
    return builder.hand(winning) if builder.fill(rng, ALL_KINDS, 0.3, sets=4) else None


GENERATORS: tuple[Callable[[random.Random], Hand | None], ...] = (
    melded_hand,
    one_suit_hand,
    seven_pairs_hand,
    yajue_hand,
)


def varied_hands(seed: int, per_kind: int) -> list[Hand]:
    """`per_kind` legal hands from each generator, the same ones for the same seed."""
    rng = random.Random(seed)
    hands: list[Hand] = []
    for generate in GENERATORS:
        made = 0
        while made < per_kind:
            hand = generate(rng)
            if hand is None:
                continue
            try:
                hand.validate()
            except EngineError:
                continue
            hands.append(hand)
            made += 1
    return hands
