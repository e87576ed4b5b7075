"""Every word in the player's language: catalogs complete, placeholders kept, no stray script."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from bot.chat.grammar import GRAMMARS as COMMANDS
from engine.preset import DEALER_STAYS_ON, LIABILITY_KINDS, TRIGGERS
from engine.units import UNITS_BY_KEY
from locales import LANGUAGES, load_catalog
from tests.kit.harness import Table

ROOT = Path(__file__).resolve().parent.parent
CJK = re.compile(r"[\u3400-\u9fff]")
# Characters that exist only in Simplified Chinese, among the words players see most.
SIMPLIFIED_ONLY = set("杠庄对无压绝钓独门罚结销开华双边张诈胡记录规则")
SIMPLIFIED_ONLY.discard("胡")  # the same in both scripts


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def keys_used_in_code() -> set[str]:
    keys: set[str] = set()
    pattern = re.compile(r"""(?:Reply|EngineError|Notice|Refusal|WinRefused|\.t)\(\s*"([a-z_]+\.[a-z_0-9.]+)\"""")
    for path in [*ROOT.glob("engine/**/*.py"), *ROOT.glob("bot/**/*.py")]:
        keys.update(pattern.findall(path.read_text(encoding="utf-8")))
    keys.update(f"unit.{key}" for key in UNITS_BY_KEY)
    keys.update(f"trigger.{trigger}" for trigger in TRIGGERS | DEALER_STAYS_ON)
    keys.update(f"help.{spec.name}" for spec in COMMANDS)
    keys.update(f"cmd.{spec.name}" for spec in COMMANDS)
    keys.update(
        f"kind.{kind}"
        for kind in (
            "open",
            "join",
            "pong",
            "gang",
            "flower_gang",
            "penalty",
            "win",
            "draw",
            "undo",
            "four_winds",
            "range_mark",
        )
    )
    keys.update(
        f"what.{kind}"
        for kind in (
            "exposed_gang",
            "added_gang",
            "concealed_gang",
            "penalty_follow",
            "penalty_four",
            "penalty_custom",
            "false_win",
            "discard_win",
        )
    )
    keys.update(
        f"factor.{key}"
        for key in ("bixiahu", "leibaota", "chips", "multipliers", "liable_all", "liable_one", "liable_fixed")
    )
    keys.update({"factor.robbing_refund", "multiplier.self_draw", "multiplier.after_gang", "multiplier.robbing_gang"})
    keys.update(f"liability.{kind}" for kind in LIABILITY_KINDS)
    keys.update({"win.below_limit", "win.not_a_winning_shape", "rules.mode_additive", "rules.mode_highest"})
    return keys


def all_keys(language: str) -> set[str]:
    catalog = load_catalog(language)
    return set(catalog.singular) | set(catalog.plural)


def test_every_language_has_the_same_keys() -> None:
    reference = all_keys("zh-Hans")
    for language in LANGUAGES:
        assert all_keys(language) == reference, language


def test_every_key_the_code_uses_exists() -> None:
    missing = keys_used_in_code() - all_keys("zh-Hans")
    assert not missing


@pytest.mark.parametrize("language", ["zh-Hant", "en"])
def test_translations_use_exactly_the_source_placeholders(language: str) -> None:
    source, target = load_catalog("zh-Hans"), load_catalog(language)
    for key, text in source.singular.items():
        assert placeholders(target.singular[key]) == placeholders(text), key
    for key, forms in source.plural.items():
        for form in target.plural[key]:
            assert placeholders(form) <= placeholders(forms[0]) | {"count"}, key


def test_english_has_plural_forms() -> None:
    forms = load_catalog("en").plural["summary.transfers_header"]
    assert len(forms) == 2 and forms[0] != forms[1]


def test_english_catalog_has_no_cjk() -> None:
    for key, text in load_catalog("en").singular.items():
        assert not CJK.search(text), key


def test_traditional_catalog_has_no_simplified_only_characters() -> None:
    for key, text in load_catalog("zh-Hant").singular.items():
        assert not SIMPLIFIED_ONLY & set(text), (key, text)


NIGHT = {
    "zh-Hans": """
        开局 甲 乙 丙 丁
        乙: 碰 丙 7p
        乙: 补杠 7p
        丁: 杠 甲 5s
        丙: 暗杠 9s
        甲: 花杠
        罚 跟牌 乙
        甲: 胡 自摸 123m 456m 789m 234p 5p +5p 花2
        荒庄
        甲: 查分
        甲: 结算
        """,
    "zh-Hant": """
        開局 甲 乙 丙 丁
        乙: 碰 丙 7p
        乙: 補槓 7p
        丁: 槓 甲 5s
        丙: 暗槓 9s
        甲: 花槓
        罰 跟牌 乙
        甲: 胡 自摸 一萬二萬三萬 四萬五萬六萬 七萬八萬九萬 二筒三筒四筒 五餅 +五餅 花2
        荒莊
        甲: 查分
        甲: 結算
        """,
    "en": """
        /new A B C D
        B: /pong C 7p
        B: /gang add 7p
        D: /gang A 5s
        C: /gang self 9s
        A: /flowergang
        /penalty follow B
        A: /hu self 123m 456m 789m 234p 5p +5p flowers=2
        /draw
        A: /score
        A: /summary
        """,
}


@pytest.mark.parametrize("language", LANGUAGES)
async def test_the_same_night_in_each_language_gives_the_same_balances(table: Table, language: str) -> None:
    table.default_speaker = "甲" if language != "en" else "A"
    await table.say("/lang " + language)
    output = await table.play(NIGHT[language])
    # gangs, flower gang and 跟牌 as in the Chinese transcript, then 甲 self-draws 46 from each
    assert list((await table.balances()).values()) == [19 + 138, -33 - 46, 7 - 46, 7 - 46]
    names = {"en": "ABCD"}.get(language, "甲乙丙丁")
    visible = output.translate({ord(c): None for c in names})
    if language == "en":
        assert not CJK.search(visible), CJK.findall(visible)
    if language == "zh-Hant":
        assert not SIMPLIFIED_ONLY & set(visible), SIMPLIFIED_ONLY & set(visible)
