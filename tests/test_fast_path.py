"""The fast readings (per-suit tables, engine/decompose.py) agree with the straightforward ones
(engine/reference.py) on every hand: same splits, same waits, same sole-wait answer, same score."""

from __future__ import annotations

import random

from engine import decompose, reference
from engine.hand import Hand
from engine.notation import parse_hand
from engine.preset import PRESET_NAMES, load_preset
from engine.scoring import evaluate, score_hand
from engine.units import FLAG_NAMES, UNITS_BY_KEY, WinFlags
from tests.kit.varied_hands import varied_hands

HANDS = varied_hands(seed=14, per_kind=100)
PRESETS = [load_preset(name) for name in PRESET_NAMES]


def _meld_tiles(hand: Hand) -> list[int]:
    return [m.tile for m in hand.melds for _ in range(m.size)]


def test_the_mix_has_every_kind_of_hand() -> None:
    # Not vacuous: the hands below really exercise melds, seven pairs, sole waits and 压绝.
    flags = WinFlags(hard_flowers=1)
    nanjing = load_preset("nanjing")
    assert sum(1 for h in HANDS if h.melds) >= 100
    assert sum(1 for h in HANDS if decompose.is_seven_pairs(h.closed_tiles)) >= 50
    assert sum(1 for h in HANDS if "yajue" in score_hand(h, flags, nanjing).keys) >= 20
    sole = [h for h in HANDS if reference.waits_only_on(h.concealed, _meld_tiles(h), len(h.melds), h.winning)]
    assert len(sole) >= 50
    assert sum(1 for h in HANDS if len(reference.standard_decompositions(h.closed_tiles)) > 1) >= 20


def test_same_decompositions_and_wait_shapes() -> None:
    for hand in HANDS:
        closed = hand.closed_tiles
        splits = decompose.standard_decompositions(closed)
        assert splits == reference.standard_decompositions(closed), hand
        for split in splits:
            for tile in set(closed):
                assert decompose.wait_shapes(split, tile) == reference.wait_shapes(split, tile), (split, tile)


def test_same_waits_before_the_win() -> None:
    for hand in HANDS:
        meld_tiles, count = _meld_tiles(hand), len(hand.melds)
        fast = decompose.waiting_tiles(hand.concealed, meld_tiles, count)
        assert fast == reference.waiting_tiles(hand.concealed, meld_tiles, count), hand
        for tile in {hand.winning, *hand.concealed}:
            fast_only = decompose.waits_only_on(hand.concealed, meld_tiles, count, tile)
            assert fast_only == reference.waits_only_on(hand.concealed, meld_tiles, count, tile), (hand, tile)


def test_same_score_in_every_preset() -> None:
    # Random flags too: the fast path skips the units whose flag (or other fact) a reading lacks.
    rng = random.Random(14)
    for hand in HANDS:
        flags = WinFlags(hard_flowers=rng.randint(0, 5), **{name: rng.random() < 0.2 for name in FLAG_NAMES})
        table_pongs = frozenset({hand.winning}) if rng.random() < 0.3 else frozenset()
        for preset in PRESETS:
            fast = score_hand(hand, flags, preset, table_pongs)
            assert fast == reference.reference_score_hand(hand, flags, preset, table_pongs), (hand, flags, preset.name)


# Two-sided waits whose other side is dead (docs/rules.md C20): rare in the random mix, and the fast
# path asks whether they were sole only when the winning tile may be 压绝.
DEAD_SIDE_HANDS = [
    parse_hand(text)
    for text in (
        "67m 234p 99s [555m] (8888m) +5m",  # the other side in a concealed gang, the winner's pong
        "67m 234p 99s [111s] (8888m) +5m",  # ... and no pong of the winning tile in the hand
        "678m 67m 234p 99s [888m] +5m",  # the other side in the winner's pong and hand
        "678m 67m 234p 99s [111s] +5m",  # not sole: one 8m left to draw
        "23m 456p 789s 11s (1111m) +4m",  # 23m waits 1m/4m, all four 1m a concealed gang
    )
]


def test_same_score_on_dead_side_waits() -> None:
    for hand in DEAD_SIDE_HANDS:
        for table_pongs in (frozenset(), frozenset({hand.winning})):
            for robbing in (False, True):
                flags = WinFlags(hard_flowers=4, robbing_gang=robbing)
                for preset in PRESETS:
                    fast = score_hand(hand, flags, preset, table_pongs)
                    assert fast == reference.reference_score_hand(hand, flags, preset, table_pongs), (hand, preset.name)


def test_kept_plans_score_like_a_fresh_evaluation() -> None:
    # Random sets of units with random counts (0 included, as a declared win has), in every preset
    # (flat, doubling, highest-only and refused-together rules included): the kept plan gives what
    # working it out afresh gives.
    rng = random.Random(14)
    keys = sorted(UNITS_BY_KEY)
    for preset in PRESETS:
        for _ in range(300):
            counts = {key: rng.randint(0, 3) for key in rng.sample(keys, rng.randint(1, 8))}
            hard, menqing = rng.randint(0, 8), rng.random() < 0.5
            fresh = reference.reference_evaluate(counts, preset, hard, menqing)
            assert evaluate(counts, preset, hard, menqing) == fresh, (preset.name, counts)
