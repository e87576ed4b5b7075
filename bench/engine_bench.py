"""Hands scored per second: this engine (all presets) against the `mahjong` library's riichi
HandCalculator on the same hands (4 sets + a pair, 14 concealed tiles), two ways:

- the bot's path: hands this process has never scored, each night's preset decoded afresh from its
  stored JSON as bot/night/nights.py does (an equal preset, never the same object), `NIGHT` hands a night.
  Every turn draws new hands, so no turn times a hand an earlier one has seen. The figure to quote.
- seen hands: the same `HANDS` hands every turn, with the 8 preset objects loaded once: what the
  engine costs when everything it keeps is warm.

First checks that the fast readings (per-suit tables, kept plans) and the straightforward reference
readings (engine/reference.py) agree on every hand: same splits, same waits, same score; and that
an equal preset decoded afresh scores every hand as the loaded one does. Each turn times the engine
and the library on the same hands one after the other (which goes first alternates), so a busy
spell of this shared machine hits both; a ratio is taken per turn and the median of the turns is
quoted. Rates are hands per CPU-second of this process (on a shared machine, wall time also counts
the time other processes hold the cores).

Run: python -m bench.engine_bench   (pip install -e '.[bench]' for the comparison)
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable

from engine import decompose, reference
from engine.hand import Hand
from engine.preset import PRESET_NAMES, Preset, load_preset, preset_from_dict, resolved_builtin
from engine.scoring import WinScore, score_hand
from engine.units import WinFlags
from tests.kit.random_hands import random_closed_hand

HANDS = 10_000
SEED = 2026
TURNS = 5
NIGHT = 16  # hands a night: a night of four rounds of four hands at least

Scored = list[tuple[Hand, WinFlags, Preset]]
Drawn = list[tuple[list[int], int]]  # 14 tiles and the winning tile among them


def draw(seed: int, count: int) -> Drawn:
    rng = random.Random(seed)
    return [random_closed_hand(rng) for _ in range(count)]


def prepare(hands: Drawn, seed: int, preset_for: Callable[[int], Preset]) -> Scored:
    """Each hand as typed at a win, with random flags and the preset `preset_for(its index)`."""
    rng = random.Random(seed)
    prepared: Scored = []
    for tiles, winning in hands:
        rest = list(tiles)
        rest.remove(winning)
        flags = WinFlags(hard_flowers=rng.randrange(0, 8), self_draw=rng.random() < 0.4)
        prepared.append((Hand(tuple(rest), (), winning), flags, preset_for(len(prepared))))
    return prepared


def loaded_presets() -> Callable[[int], Preset]:
    """The 8 preset objects, loaded once, in turn."""
    presets = [load_preset(name) for name in PRESET_NAMES]
    return lambda index: presets[index % len(presets)]


def nightly_presets() -> Callable[[int], Preset]:
    """Hand `index` is in night `index // NIGHT`, whose preset is decoded from the JSON the ledger
    keeps (bot/night/nights.py: `preset_from_dict(json.loads(row.preset_json))`), the presets in turn."""
    stored = [json.dumps(resolved_builtin(name), ensure_ascii=False) for name in PRESET_NAMES]
    nights: dict[int, Preset] = {}

    def preset_for(index: int) -> Preset:
        night = index // NIGHT
        if night not in nights:
            nights[night] = preset_from_dict(json.loads(stored[night % len(stored)]))
        return nights[night]

    return preset_for


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


def same_with_fresh_presets(hands: Drawn) -> int:
    """How many hands score identically with presets decoded per night and with the loaded ones."""
    loaded = {preset.name: preset for preset in map(load_preset, PRESET_NAMES)}
    nightly = prepare(hands, SEED, nightly_presets())
    return sum(score_hand(h, f, p) == score_hand(h, f, loaded[p.name]) for h, f, p in nightly)


def engine_rate(prepared: Scored, score: Callable[[Hand, WinFlags, Preset], WinScore] = score_hand) -> float:
    # Fresh Hand objects each pass: nothing cached on a hand carries over between passes.
    fresh = [(Hand(hand.concealed, hand.melds, hand.winning), flags, preset) for hand, flags, preset in prepared]
    started = time.process_time()
    for hand, flags, preset in fresh:
        score(hand, flags, preset)
    return len(fresh) / (time.process_time() - started)


def mahjong_timer() -> Callable[[Drawn], float] | None:
    """A function timing the library on hands, or None without the library."""
    try:
        from mahjong.hand_calculating.hand import HandCalculator
        from mahjong.hand_calculating.hand_config import HandConfig
    except ImportError:
        return None
    calculator = HandCalculator()
    config = HandConfig(is_tsumo=True)

    def rate(hands: Drawn) -> float:
        prepared = []
        for tiles, winning in hands:
            seen: dict[int, int] = {}
            tiles136 = []
            for tile in tiles:  # our kinds 0-30 are the same as the 34-format man/pin/sou/winds
                tiles136.append(tile * 4 + seen.get(tile, 0))
                seen[tile] = seen.get(tile, 0) + 1
            prepared.append((tiles136, tiles136[tiles.index(winning)]))
        started = time.process_time()
        for tiles136, win136 in prepared:
            calculator.estimate_hand_value(tiles136, win136, config=config)
        return len(prepared) / (time.process_time() - started)

    return rate


def side_by_side(
    turn_hands: Callable[[int], Drawn], presets: Callable[[], Callable[[int], Preset]], theirs: Callable[[Drawn], float]
) -> tuple[list[float], list[float]]:
    """Per turn: the engine's rate and the library's on that turn's hands, in alternating order;
    `presets()` gives the turn's presets (a fresh decoding each turn, or the same loaded objects)."""
    ours, libs = [], []
    for turn in range(TURNS):
        hands = turn_hands(turn)
        prepared = prepare(hands, SEED + turn, presets())
        if turn % 2:
            libs.append(theirs(hands))
            ours.append(engine_rate(prepared))
        else:
            ours.append(engine_rate(prepared))
            libs.append(theirs(hands))
    return ours, libs


def report(label: str, ours: list[float], libs: list[float]) -> None:
    ratios = sorted(o / t for o, t in zip(ours, libs, strict=True))
    print(
        f"{label}: engine {statistics.median(ours):,.0f} hands/s, mahjong {statistics.median(libs):,.0f} hands/s; "
        f"ratio {statistics.median(ratios):.2f}x (median of {TURNS} turns, {ratios[0]:.2f}-{ratios[-1]:.2f}; "
        "target >= 2x)"
    )


def table_build() -> str:
    """How long the per-suit reading table takes to build (once per process), if this engine has one."""
    try:
        from engine.suit_shapes import reading_table
    except ImportError:
        return "per-suit tables filled shape by shape as met"
    reading_table.cache_clear()
    started = time.process_time()
    table = reading_table()
    took = time.process_time() - started
    return f"per-suit reading table: {len(table):,} shapes, built in {took * 1000:,.0f} ms CPU (once per process)"


def main() -> None:
    print(table_build())
    seen = draw(SEED, HANDS)
    loaded = loaded_presets()  # the same 8 objects for every pass over the seen hands
    prepared = prepare(seen, SEED, loaded)
    print(f"agreement: fast and reference paths agree on {agreeing(prepared):,} of {HANDS:,} hands")
    print(f"presets decoded per night score {same_with_fresh_presets(seen):,} of {HANDS:,} hands as the loaded ones")
    theirs = mahjong_timer()
    if theirs is None:
        print(f"engine, seen hands: {statistics.median(engine_rate(prepared) for _ in range(TURNS)):,.0f} hands/s")
        print("mahjong library not installed: pip install -e '.[bench]' for the comparison")
        return
    # Turn t of the bot's path draws its own hands (seed SEED + 1 + t), never scored before.
    ours, libs = side_by_side(lambda turn: draw(SEED + 1 + turn, HANDS), nightly_presets, theirs)
    report(f"bot's path ({HANDS:,} unseen hands a turn, a preset decoded per night of {NIGHT})", ours, libs)
    ours, libs = side_by_side(lambda turn: seen, lambda: loaded, theirs)
    report(f"seen hands (the same {HANDS:,} every turn, the 8 loaded preset objects)", ours, libs)
    ref = statistics.median(engine_rate(prepared, reference.reference_score_hand) for _ in range(3))
    print(f"engine, reference path (seen hands): {ref:,.0f} hands/s")


if __name__ == "__main__":
    main()
