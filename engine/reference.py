"""The straightforward algorithms the fast path is checked against.

Whole-hand recursion for the decompositions; the waits found by adding each nearby tile to the 13
tiles and asking whether the 14 make a hand; each reading's score worked out afresh (no kept
plans). Slow but plainly right: the benchmark and tests/test_fast_path.py check that the fast path
(engine/decompose.py on per-suit tables, engine/scoring.py with kept plans) gives exactly the same
answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import cache

from engine.decompose import (
    SEVEN_PAIRS_SIZE,
    Decomposition,
    SetKind,
    TileSet,
    WaitShape,
    counts_of,
    is_seven_pairs,
)
from engine.hand import Hand
from engine.preset import Preset
from engine.scoring import (
    DISPLAY_ORDER,
    REFUSED_LIMIT,
    REFUSED_TOGETHER,
    Item,
    WinScore,
    _flat_score,
    _refused_together,
    _surviving,
    best_reading,
)
from engine.tiles import ALL_TILES, COPIES, FIRST_WIND, NUM_KINDS, SUIT_SIZE, Tile, is_wind, rank_of
from engine.units import WinFlags, WinView


def _can_start_sequence(counts: list[int], tile: Tile) -> bool:
    return not is_wind(tile) and tile % SUIT_SIZE <= SUIT_SIZE - 3 and counts[tile + 1] > 0 and counts[tile + 2] > 0


def _split_sets(counts: list[int], start: int) -> Iterator[tuple[TileSet, ...]]:
    """Every way to split `counts` entirely into triplets and sequences (mutates, then restores)."""
    tile = start
    while tile < NUM_KINDS and counts[tile] == 0:
        tile += 1
    if tile == NUM_KINDS:
        yield ()
        return
    if counts[tile] >= 3:
        counts[tile] -= 3
        for rest in _split_sets(counts, tile):
            yield (TileSet(SetKind.TRIPLET, tile), *rest)
        counts[tile] += 3
    if _can_start_sequence(counts, tile):
        for offset in range(3):
            counts[tile + offset] -= 1
        for rest in _split_sets(counts, tile):
            yield (TileSet(SetKind.SEQUENCE, tile), *rest)
        for offset in range(3):
            counts[tile + offset] += 1


def standard_decompositions(closed: Iterable[Tile]) -> list[Decomposition]:
    """All distinct pair + sets splits of the closed tiles (empty if none)."""
    counts = counts_of(closed)
    if sum(counts) % 3 != 2:
        return []
    found: set[Decomposition] = set()
    for pair in ALL_TILES:
        if counts[pair] < 2:
            continue
        counts[pair] -= 2
        for sets in _split_sets(counts, 0):
            found.add(Decomposition(pair, tuple(sorted(sets))))
        counts[pair] += 2
    return sorted(found, key=lambda d: (d.pair, d.sets))


@cache
def _suit_complete(counts: tuple[int, ...], pair_left: bool) -> bool:
    """Can one suit's counts (9 ranks) be split into sets, plus the pair if `pair_left`?"""
    index = next((i for i, c in enumerate(counts) if c), -1)
    if index < 0:
        return not pair_left
    rest = list(counts)
    if rest[index] >= 3:
        rest[index] -= 3
        if _suit_complete(tuple(rest), pair_left):
            return True
        rest[index] += 3
    if index <= SUIT_SIZE - 3 and rest[index + 1] and rest[index + 2]:
        rest[index] -= 1
        rest[index + 1] -= 1
        rest[index + 2] -= 1
        if _suit_complete(tuple(rest), pair_left):
            return True
        rest[index] += 1
        rest[index + 1] += 1
        rest[index + 2] += 1
    if pair_left and rest[index] >= 2:
        rest[index] -= 2
        return _suit_complete(tuple(rest), False)
    return False


def _standard_complete(counts: list[int]) -> bool:
    """Pair + sets, checked suit by suit: the pair lives in the one group whose size is 2 mod 3."""
    if sum(counts) % 3 != 2:
        return False
    groups = [tuple(counts[s * SUIT_SIZE : (s + 1) * SUIT_SIZE]) for s in range(3)]
    winds = counts[FIRST_WIND:]
    wind_pairs = sum(1 for c in winds if c == 2)
    if any(c not in (0, 2, 3) for c in winds) or wind_pairs > 1:
        return False
    pair_in_winds = wind_pairs == 1
    for group in groups:
        remainder = sum(group) % 3
        if remainder == 1 or (remainder == 2 and pair_in_winds):
            return False
        if not _suit_complete(group, remainder == 2):
            return False
        pair_in_winds = pair_in_winds or remainder == 2
    return pair_in_winds


def _candidates(hand: list[Tile]) -> set[Tile]:
    """Only a tile equal to or within two ranks of a held tile (same suit) can complete a hand."""
    near: set[Tile] = set()
    for tile in hand:
        if is_wind(tile):
            near.add(tile)
            continue
        base = tile - tile % SUIT_SIZE
        near.update(t for t in range(tile - 2, tile + 3) if base <= t < base + SUIT_SIZE)
    return near


def waiting_tiles(concealed: Iterable[Tile], meld_tiles: Iterable[Tile], meld_count: int) -> set[Tile]:
    """The tile kinds that would complete the hand. A kind whose four copies the player already
    holds (melds included) cannot be waited on."""
    hand = list(concealed)
    held = counts_of([*hand, *meld_tiles])
    counts = counts_of(hand)
    waits: set[Tile] = set()
    for tile in _candidates(hand):
        if held[tile] >= COPIES:
            continue
        counts[tile] += 1
        seven = meld_count == 0 and sum(counts) == SEVEN_PAIRS_SIZE and all(c % 2 == 0 for c in counts)
        if seven or _standard_complete(counts):
            waits.add(tile)
        counts[tile] -= 1
    return waits


def waits_only_on(concealed: Iterable[Tile], meld_tiles: Iterable[Tile], meld_count: int, tile: Tile) -> bool:
    """True if `tile` is the one tile kind that completes the hand ("单听一张")."""
    hand = list(concealed)
    held = counts_of([*hand, *meld_tiles])
    counts = counts_of(hand)
    for candidate in _candidates(hand) - {tile}:
        if held[candidate] >= COPIES:
            continue
        counts[candidate] += 1
        seven = meld_count == 0 and sum(counts) == SEVEN_PAIRS_SIZE and all(c % 2 == 0 for c in counts)
        complete = seven or _standard_complete(counts)
        counts[candidate] -= 1
        if complete:
            return False
    return held[tile] < COPIES


def wait_shapes(decomposition: Decomposition, winning: Tile) -> tuple[WaitShape, ...]:
    """Every position the winning tile can take in this decomposition, in a fixed order (a set's order
    follows the hash seed, and equal-total readings must itemize the same way in every process)."""
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
    return tuple(sorted(shapes))


def reference_views(hand: Hand, flags: WinFlags, table_pongs: frozenset[Tile]) -> list[WinView]:
    """Every reading of the win, found with the algorithms above (as `engine.scoring` reads it)."""
    closed = hand.closed_tiles
    readings: list[tuple[Decomposition | None, WaitShape]] = []
    if not hand.melds and is_seven_pairs(closed):
        readings.append((None, WaitShape.SEVEN_PAIRS))
    for split in standard_decompositions(closed):
        readings.extend((split, shape) for shape in wait_shapes(split, hand.winning))
    # Asked of every hand, whatever its shapes: the units look at the shape themselves.
    meld_tiles = [m.tile for m in hand.melds for _ in range(m.size)]
    unique = bool(readings) and waits_only_on(hand.concealed, meld_tiles, len(hand.melds), hand.winning)
    return [WinView(hand, flags, reading, shape, unique, table_pongs) for reading, shape in readings]


def reference_evaluate(counts: Mapping[str, int], preset: Preset, hard_flowers: int, menqing: bool) -> WinScore:
    """`engine.scoring.evaluate` worked out afresh for every reading, without its kept plans."""
    rules = _surviving(counts, preset)
    if (flat := _flat_score(rules)) is not None:
        return flat
    items: list[Item] = []
    for key, rule in rules.items():
        multiplier = preset.zha if key in preset.soft else 1
        flowers = counts[key] * rule.value * multiplier
        if flowers or rule.takes_all or rule.doubles_total:
            items.append(Item(key, counts[key], flowers))
    order = {key: index for index, key in enumerate(DISPLAY_ORDER)}
    items.sort(key=lambda item: order[item.key])
    total = sum(item.flowers for item in items)
    doubling = [item for item in items if rules[item.key].doubles_total]
    if doubling:
        items = [Item(i.key, i.count, total) if i in doubling else i for i in items]
        total *= 2
    big = any(rule.big for key, rule in rules.items() if key in preset.patterns)
    valid = menqing or big or hard_flowers >= preset.small_hu_min_hard
    reason = None if valid else REFUSED_LIMIT
    if _refused_together(counts, preset):
        valid, reason = False, REFUSED_TOGETHER
    return WinScore(
        valid=valid,
        total=total,
        items=tuple(items),
        reason=reason,
        big=big,
        takes_all=any(rule.takes_all for rule in rules.values()),
    )


def reference_score_hand(
    hand: Hand,
    flags: WinFlags,
    preset: Preset,
    table_pongs: frozenset[Tile] = frozenset(),
    forced: frozenset[str] = frozenset(),
) -> WinScore:
    """`engine.scoring.score_hand` the straightforward way: every unit asked on every reading."""
    scores = []
    for view in reference_views(hand, flags, table_pongs):
        menqing = preset.is_menqing(m.kind for m in hand.melds)
        counts = {unit.key: count for unit, rule in preset.scored_units if (count := unit.count(view, rule))}
        counts.update(dict.fromkeys(forced, 1))
        scores.append(reference_evaluate(counts, preset, flags.hard_flowers, menqing))
    return best_reading(scores)
