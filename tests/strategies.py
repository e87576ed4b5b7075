"""Hypothesis strategies: random legal winning hands (four sets + a pair, or seven pairs)."""

from __future__ import annotations

from collections import Counter

from hypothesis import strategies as st

from engine.hand import Hand, Meld, MeldKind
from engine.tiles import COPIES, NUM_KINDS, SUIT_SIZE, Tile, is_wind

SEQUENCE_STARTS = [t for t in range(NUM_KINDS) if not is_wind(t) and t % SUIT_SIZE <= SUIT_SIZE - 3]
MELD_KINDS = list(MeldKind)


@st.composite
def standard_hands(draw: st.DrawFn) -> Hand:
    """Four sets and a pair; some triplets become melds (pong or gang), never more than 4 copies."""
    counts: Counter[Tile] = Counter()
    closed: list[Tile] = []
    melds: list[Meld] = []
    for _ in range(4):
        if draw(st.booleans()):
            start = draw(st.sampled_from(SEQUENCE_STARTS))
            tiles = [start, start + 1, start + 2]
            if any(counts[t] >= COPIES for t in tiles):
                continue
            counts.update(tiles)
            closed.extend(tiles)
        else:
            tile = draw(st.integers(0, NUM_KINDS - 1).filter(lambda t: counts[t] == 0))
            kind = draw(st.sampled_from([None, *MELD_KINDS]))
            if kind is None:
                counts[tile] += 3
                closed.extend([tile] * 3)
            else:
                counts[tile] += 4 if kind.is_gang else 3
                melds.append(Meld(kind, tile))
    sets_made = (len(closed) // 3) + len(melds)
    while sets_made < 4:  # top up with triplets where a draw was skipped
        tile = draw(st.integers(0, NUM_KINDS - 1).filter(lambda t: counts[t] == 0))
        counts[tile] += 3
        closed.extend([tile] * 3)
        sets_made += 1
    pair = draw(st.integers(0, NUM_KINDS - 1).filter(lambda t: counts[t] <= COPIES - 2))
    closed.extend([pair, pair])
    winning = draw(st.sampled_from(closed))
    closed.remove(winning)
    return Hand(tuple(sorted(closed)), tuple(melds), winning)


@st.composite
def seven_pairs_hands(draw: st.DrawFn) -> Hand:
    kinds = draw(st.lists(st.integers(0, NUM_KINDS - 1), min_size=4, max_size=7))
    counts: Counter[Tile] = Counter()
    for kind in kinds:
        if counts[kind] <= COPIES - 2 and sum(counts.values()) < 14:
            counts[kind] += 2
    filler = 0
    while sum(counts.values()) < 14:
        if counts[filler] <= COPIES - 2:
            counts[filler] += 2
        filler += 1
    tiles = sorted(counts.elements())
    winning = draw(st.sampled_from(tiles))
    tiles.remove(winning)
    return Hand(tuple(tiles), (), winning)


winning_hands = st.one_of(standard_hands(), seven_pairs_hands())
