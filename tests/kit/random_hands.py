"""Seeded random legal winning hands for benchmarks and the busy table: four sets and a pair, as tile-kind lists."""

from __future__ import annotations

import random
from collections import Counter

from engine.tiles import COPIES, NUM_KINDS, SUIT_SIZE, is_wind

SEQUENCE_STARTS = [t for t in range(NUM_KINDS) if not is_wind(t) and t % SUIT_SIZE <= SUIT_SIZE - 3]


def random_closed_hand(rng: random.Random) -> tuple[list[int], int]:
    """14 tiles (4 sets + a pair, no tile more than 4 times) and the winning tile among them."""
    while True:
        counts: Counter[int] = Counter()
        tiles: list[int] = []
        for _ in range(4):
            if rng.random() < 0.6:
                start = rng.choice(SEQUENCE_STARTS)
                tiles += [start, start + 1, start + 2]
            else:
                tile = rng.randrange(NUM_KINDS)
                tiles += [tile] * 3
        tiles += [rng.randrange(NUM_KINDS)] * 2
        counts.update(tiles)
        if max(counts.values()) <= COPIES:
            return sorted(tiles), rng.choice(tiles)
