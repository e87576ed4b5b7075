"""The bot decodes a night's preset afresh from the ledger (bot/night/nights.py), so scoring meets presets
that are equal but not the same object, while its kept plans were worked out for another one. Every
hand must score the same whichever it is given; presets are equal exactly when their contents are."""

from __future__ import annotations

import json
from dataclasses import replace
from types import MappingProxyType

import pytest

from engine.preset import PRESET_NAMES, Preset, load_preset, preset_from_dict, resolved_builtin
from engine.reference import reference_score_hand
from engine.scoring import score_hand
from engine.units import WinFlags
from tests.kit.varied_hands import varied_hands

HANDS = varied_hands(seed=31, per_kind=40)
NIGHT = 16  # hands a night, each night with its own decoding of the preset
FLAGS = (
    WinFlags(),
    WinFlags(hard_flowers=3, self_draw=True),
    WinFlags(hard_flowers=1, after_gang=True),
    WinFlags(hard_flowers=5, last_stacks=True, self_draw=True),
    WinFlags(dealer=True, heavenly=True),
)


def _decoded(name: str) -> Preset:
    """The preset as a night reads it back from its stored JSON."""
    return preset_from_dict(json.loads(json.dumps(resolved_builtin(name), ensure_ascii=False)))


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_varied_hands_score_alike_with_fresh_equal_presets_and_the_same_one(name: str) -> None:
    loaded = load_preset(name)
    fresh = _decoded(name)
    for index, hand in enumerate(HANDS):
        if index % NIGHT == 0:
            fresh = _decoded(name)  # a new night: a new object, equal to the last
            assert fresh == loaded and fresh is not loaded and hash(fresh) == hash(loaded)
        flags = FLAGS[index % len(FLAGS)]
        # The fresh preset first on even hands, the loaded one first on odd ones: either may be the
        # one whose plans the other finds kept.
        first, second = (fresh, loaded) if index % 2 == 0 else (loaded, fresh)
        score = score_hand(hand, flags, first)
        assert score_hand(hand, flags, second) == score, hand
        assert score_hand(hand, flags, loaded) == score, hand  # the same object again
        # And the score is the one worked out afresh, with nothing kept.
        assert reference_score_hand(hand, flags, fresh) == score, hand


def _with_pattern_value(preset: Preset, key: str, value: int) -> Preset:
    patterns = dict(preset.patterns)
    patterns[key] = replace(patterns[key], value=value)
    return replace(preset, patterns=MappingProxyType(patterns))


def test_a_preset_differing_in_one_value_is_not_equal_and_keeps_its_own_plans() -> None:
    nanjing = load_preset("nanjing")
    changed = (
        replace(nanjing, zha=nanjing.zha + 1),
        replace(nanjing, small_hu_min_hard=nanjing.small_hu_min_hard + 1),
        replace(nanjing, triggers=nanjing.triggers - {"draw"}),
        replace(nanjing, liability=replace(nanjing.liability, fixed=nanjing.liability.fixed + 1)),
        _with_pattern_value(nanjing, "qingyise", nanjing.patterns["qingyise"].value + 10),
    )
    for other in changed:
        assert other != nanjing
    assert replace(nanjing, zha=nanjing.zha) == nanjing  # the same contents: equal again
    # 清一色 worth 10 more in the changed preset: each counts its own value, whichever was scored first.
    richer = changed[-1]
    qingyise = [hand for hand in HANDS if "qingyise" in score_hand(hand, WinFlags(), nanjing).keys]
    assert qingyise
    for hand in qingyise:
        plain, rich = score_hand(hand, WinFlags(), nanjing), score_hand(hand, WinFlags(), richer)
        assert rich == reference_score_hand(hand, WinFlags(), richer)
        assert plain == reference_score_hand(hand, WinFlags(), nanjing)
        assert rich.total == plain.total + 10  # no doubling pattern in nanjing: 清一色's value + 10
