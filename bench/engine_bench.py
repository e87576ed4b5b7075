"""Hands scored per second: this engine (all presets) against the `mahjong` library's riichi
HandCalculator on hands of the same shape (4 sets + a pair, 14 concealed tiles).

Run: python -m bench.engine_bench   (pip install -e '.[bench]' for the comparison)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from bench.hands import random_closed_hand
from engine.hand import Hand
from engine.preset import PRESET_NAMES, load_preset
from engine.scoring import score_hand
from engine.units import WinFlags

HANDS = 10_000
SEED = 2026
REPEATS = 3  # best of three: this machine's timings vary run to run


def best_of(rate: Callable[[], float]) -> float:
    return max(rate() for _ in range(REPEATS))


def our_rate(hands: list[tuple[list[int], int]]) -> float:
    presets = [load_preset(name) for name in PRESET_NAMES]
    rng = random.Random(SEED)
    prepared = []
    for tiles, winning in hands:
        rest = list(tiles)
        rest.remove(winning)
        flags = WinFlags(hard_flowers=rng.randrange(0, 8), self_draw=rng.random() < 0.4)
        prepared.append((Hand(tuple(rest), (), winning), flags, presets[len(prepared) % len(presets)]))
    started = time.perf_counter()
    for hand, flags, preset in prepared:
        score_hand(hand, flags, preset)
    return len(prepared) / (time.perf_counter() - started)


def mahjong_rate(hands: list[tuple[list[int], int]]) -> float | None:
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
    started = time.perf_counter()
    for tiles136, win136 in prepared:
        calculator.estimate_hand_value(tiles136, win136, config=config)
    return len(prepared) / (time.perf_counter() - started)


def main() -> None:
    rng = random.Random(SEED)
    hands = [random_closed_hand(rng) for _ in range(HANDS)]
    ours = best_of(lambda: our_rate(hands))
    print(f"engine: {ours:,.0f} hands/s, best of {REPEATS} ({HANDS:,} seeded hands, presets {', '.join(PRESET_NAMES)})")
    if mahjong_rate(hands[:10]) is None:
        print("mahjong library not installed: pip install -e '.[bench]' for the comparison")
        return
    theirs = best_of(lambda: mahjong_rate(hands) or 0.0)
    print(
        f"mahjong HandCalculator.estimate_hand_value: {theirs:,.0f} hands/s (same {HANDS:,} hands, best of {REPEATS})"
    )
    print(f"ratio: {ours / theirs:.1f}x (target >= 2x)")


if __name__ == "__main__":
    main()
