"""Small things that were answered with silence or with what was typed: two patterns that cannot both
be true are refused with the reason, never one of them dropped; a new name is echoed as recorded
(cleaned of bidi controls), never as typed. Money by hand from docs/rules.md (nanjing, stake 1)."""

from __future__ import annotations

from itertools import permutations

import pytest

from engine.claims import conflicting_patterns
from engine.preset import PRESET_NAMES, load_preset
from engine.scoring import _views
from engine.units import PATTERN_UNITS, UNITS_BY_KEY, WinFlags
from locales import LANGUAGES, Translator
from tests.kit.harness import Table
from tests.kit.varied_hands import varied_hands

OPEN = "/new A B C D"


async def test_seven_pairs_and_all_pongs_together_are_refused_with_the_reason(table: Table) -> None:
    await table.say(OPEN)
    before = await table.row_counts()
    out = await table.say("A: /hu C 七对 对对胡 flowers=1")
    assert "七对 和 对对胡 不能同时成立：七对 要七个对子，对对胡 不会有" in out, out
    assert "✅" not in out
    assert await table.row_counts() == before
    # asked before the hard flowers: no flower buttons for a win that cannot be recorded anyway
    response = await table.respond("A: /hu C 对对胡 七对")
    assert response is not None and response.refused and not response.choices
    # the one that holds, sent again: A's 七对 on C's discard, 1 hard flower (docs/rules.md, nanjing):
    # total = 跑 20 + 砸 2 × 1 hard + 七对 80 = 102 (七对 excludes 门清 and 对对胡); C pays it alone
    assert "✅" in await table.say("A: /hu C 七对 flowers=1")
    assert await table.balances() == {"A": 102, "B": 0, "C": -102, "D": 0}


async def test_in_plain_words_and_in_english_too(table: Table) -> None:
    await table.say(OPEN)
    assert "不能同时成立" in await table.say("A: 胡 C 清一色 混一色 花1")
    await table.say("/lang en")
    out = await table.say("A: /hu C seven pairs all pongs flowers=1")
    assert (
        "seven pairs and all pongs cannot both be true: seven pairs needs a hand of seven pairs, which all pongs never"
        in out
    ), out


def test_the_conflicts_come_from_the_units_own_facts() -> None:
    # every seven-pairs unit with 对对胡 (and with 全球独钓, which needs melds), 混一色 with 清一色
    assert conflicting_patterns(("qidui", "duiduihu")) == ("qidui", "duiduihu", "seven_pairs")
    assert conflicting_patterns(("duiduihu", "haohua_qidui")) == ("haohua_qidui", "duiduihu", "seven_pairs")
    assert conflicting_patterns(("qidui", "quanqiu")) == ("quanqiu", "qidui", "melds")
    assert conflicting_patterns(("qingyise", "hunyise")) == ("hunyise", "qingyise", "winds")
    assert conflicting_patterns(("qingyise", "duiduihu", "menqing")) is None  # 清一色对对胡 is a hand
    assert conflicting_patterns(("qidui", "qingyise")) is None  # 清一色七对 too


@pytest.mark.parametrize("preset_name", PRESET_NAMES)
def test_no_hand_ever_scores_a_pair_the_units_call_impossible(preset_name: str) -> None:
    """What a unit says it never counts on is what it counts: over seeded hands of every kind, no
    reading holds a fact in a unit's `never_with` and counts that unit."""
    preset = load_preset(preset_name)
    rules = {unit.key: rule for unit, rule in preset.scored_units}
    checked = 0
    for hand in varied_hands(seed=29, per_kind=40):
        for view in _views(hand, WinFlags(hard_flowers=1), frozenset()):
            facts = view.facts()
            for unit in PATTERN_UNITS:
                if unit.key in rules and unit.never_with & facts:
                    assert unit.count(view, rules[unit.key]) == 0, (unit.key, hand)
                    checked += 1
    assert checked > 0


def test_every_fact_a_conflict_names_is_said_in_every_language() -> None:
    facts = {found[2] for a, b in permutations(UNITS_BY_KEY, 2) if (found := conflicting_patterns((a, b))) is not None}
    assert facts == {"seven_pairs", "melds", "winds"}
    for language in LANGUAGES:
        for fact in facts:
            assert Translator(language).t(f"fact.{fact}") != f"fact.{fact}", (language, fact)


async def test_a_rename_is_echoed_as_recorded_without_its_bidi_control(table: Table) -> None:
    await table.say(OPEN)
    out = await table.say("A: /rename D Eve\u202eX")
    assert "D 改名为 EveX" in out and "\u202e" not in out
    out = await table.say("A: /swap C Fay\u202eY")
    assert "FayY 坐西" in out and "\u202e" not in out
