"""Hands scored per second: this engine (all presets) against the `mahjong` library's riichi
HandCalculator on hands of the same shape (4 sets + a pair, 14 concealed tiles).

First checks that the fast readings (per-suit tables) and the straightforward reference readings
(engine/reference.py) agree on every hand: same splits, same waits, same score. Then times one
pass with the per-suit tables emptied (the cost before warm-up), then the engine, the reference
path and the library in turns (so that a busy spell of this shared machine
hits all three), and prints both rates and their ratio. Rates are hands per CPU-second of this
process (see REPEATS).

Run: python -m bench.engine_bench   (pip install -e '.[bench]' for the comparison)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from bench.hands import random_closed_hand
from engine import decompose, reference
from engine.hand import Hand
from engine.preset import PRESET_NAMES, Preset, load_preset
from engine.scoring import WinScore, score_hand
from engine.suit_shapes import readable, suit_shape, suit_splits
from engine.units import WinFlags

HANDS = 10_000
SEED = 2026
REPEATS = 5  # best of five: this shared machine's timings vary run to run
# Rates are per second of this process's CPU time: on a shared machine, wall time also counts the
# time other processes hold the cores, which swings either side's rate by tens of percent.

Scored = list[tuple[Hand, WinFlags, Preset]]


def prepare(hands: list[tuple[list[int], int]]) -> Scored:
    presets = [load_preset(name) for name in PRESET_NAMES]
    rng = random.Random(SEED)
    prepared: Scored = []
    for tiles, winning in hands:
        rest = list(tiles)
        rest.remove(winning)
        flags = WinFlags(hard_flowers=rng.randrange(0, 8), self_draw=rng.random() < 0.4)
        prepared.append((Hand(tuple(rest), (), winning), flags, presets[len(prepared) % len(presets)]))
    return prepared


def agreeing(prepared: Scored) -> int:
    """How many hands the fast and the reference path read and score identically."""
    same = 0
    for hand, flags, preset in prepared:
        same += (
            decompose.standard_decompositions(hand.closed_tiles) == reference.standard_decompositions(hand.closed_tiles)
            and decompose.waiting_tiles(hand.concealed, (), 0) == reference.waiting_tiles(hand.concealed, (), 0)
            and score_hand(hand, flags, preset) == reference.reference_score_hand(hand, flags, preset)
        )
    return same


def engine_rate(prepared: Scored, score: Callable[[Hand, WinFlags, Preset], WinScore]) -> float:
    # Fresh Hand objects each pass: nothing cached on a hand carries over between passes.
    fresh = [(Hand(hand.concealed, hand.melds, hand.winning), flags, preset) for hand, flags, preset in prepared]
    started = time.process_time()
    for hand, flags, preset in fresh:
        score(hand, flags, preset)
    return len(fresh) / (time.process_time() - started)


def mahjong_timer(hands: list[tuple[list[int], int]]) -> Callable[[], float] | None:
    try:
        from mahjong.hand_calculating.hand import HandCalculator
        from mahjong.hand_calculating.hand_config import HandConfig
    except ImportError:
        return None
    calculator = HandCalculator()
    config = HandConfig(is_tsumo=True)
    prepared = []
    for tiles, winning in hands:
        seen: dict[int, int] = {}
        tiles136 = []
        for tile in tiles:  # our kinds 0-30 are the same as the 34-format man/pin/sou/winds
            tiles136.append(tile * 4 + seen.get(tile, 0))
            seen[tile] = seen.get(tile, 0) + 1
        prepared.append((tiles136, tiles136[tiles.index(winning)]))

    def rate() -> float:
        started = time.process_time()
        for tiles136, win136 in prepared:
            calculator.estimate_hand_value(tiles136, win136, config=config)
        return len(prepared) / (time.process_time() - started)

    return rate


def main() -> None:
    rng = random.Random(SEED)
    hands = [random_closed_hand(rng) for _ in range(HANDS)]
    prepared = prepare(hands)
    print(f"agreement: fast and reference paths agree on {agreeing(prepared):,} of {HANDS:,} hands")
    # Empty the per-suit tables again, so the first timed pass meets every suit shape for the first
    # time and fills them: what the engine costs before warm-up.
    tables = (suit_splits, readable, suit_shape)
    for table in tables:
        table.cache_clear()
    cold = engine_rate(prepared, score_hand)
    entries = sum(table.cache_info().currsize for table in tables)
    print(f"engine, first pass (filling the per-suit tables, {entries:,} entries): {cold:,.0f} hands/s")
    theirs_timer = mahjong_timer(hands)
    ours, ref, theirs = [], [], []
    for _ in range(REPEATS):
        ours.append(engine_rate(prepared, score_hand))
        ref.append(engine_rate(prepared, reference.reference_score_hand))
        if theirs_timer:
            theirs.append(theirs_timer())
    presets = ", ".join(PRESET_NAMES)
    print(f"engine: {max(ours):,.0f} hands/s, best of {REPEATS} ({HANDS:,} seeded hands, presets {presets})")
    print(f"engine, reference path: {max(ref):,.0f} hands/s, best of {REPEATS}")
    if not theirs:
        print("mahjong library not installed: pip install -e '.[bench]' for the comparison")
        return
    print(f"mahjong HandCalculator.estimate_hand_value: {max(theirs):,.0f} hands/s (same hands, best of {REPEATS})")
    print(f"ratio: {max(ours) / max(theirs):.2f}x (target >= 2x)")


if __name__ == "__main__":
    main()
