"""docs/rules.md §6-§7: how each preset differs, and house-rules files."""

import pytest

from engine.errors import EngineError
from engine.preset import PRESET_NAMES, load_preset, load_preset_text
from tests.kit.helpers import items, score

EXAMPLE_1 = "123m 456m 789m 234p 5p +5p"
EXAMPLE_2 = "11p 567s 79s [EEE] [444p] +8s"


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_builtin_preset_loads(name: str) -> None:
    assert load_preset(name).name == name


@pytest.mark.parametrize(
    ("preset", "total"), [("nanjing", 46), ("nanjing-6", 46), ("nanjing-20", 46), ("chengbei", 26)]
)
def test_example_1_per_nanjing_family_preset(preset: str, total: int) -> None:
    assert score(EXAMPLE_1, preset, hard_flowers=2, self_draw=True).total == total


def test_chengbei_paolo_10_menqing_10() -> None:
    assert items(score(EXAMPLE_1, "chengbei", hard_flowers=2)) == {"pao": 10, "hard": 4, "que_yi": 2, "menqing": 10}


def test_chengbei_yajue_does_not_lift_the_limit() -> None:
    result = score("11p 234s 567s 79s [888s] +8s", "chengbei", hard_flowers=1)
    assert not result.valid and items(result)["yajue"] == 30


def test_chengbei_dagangkai_doubles_the_whole_total() -> None:
    # 10 + 2×(1 + gang 2 + 缺一 1 + 独占 1) + 门清 10 = 30, 兜底翻 ×2 = 60.
    result = score("123m 456m 789m 5p [2222p] +5p", "chengbei", hard_flowers=1, after_gang=True, self_draw=True)
    assert result.total == 60 and items(result)["dagangkai"] == 30


def test_chengbei_shuang_qidui_is_100_but_a_four_makes_it_luxury_160() -> None:
    # the seven-pairs family keeps only its highest member: 豪华 160 beats 双七对 100 in chengbei
    result = score("11m 22m 33p 44p 555s 66s +5s", "chengbei", hard_flowers=1)
    assert items(result) == {"pao": 10, "hard": 2, "haohua_qidui": 160}


def test_jinyuanzi_values_are_pre_doubled_without_zha() -> None:
    result = score(EXAMPLE_2, "jinyuanzi", hard_flowers=4)
    assert items(result) == {"pao": 20, "hard": 8, "wind_pong": 2, "que_yi": 2, "kanzhang": 2}
    assert result.total == 34


def test_jinyuanzi_concealed_gang_is_4_exposed_is_2() -> None:
    assert items(score("123m 456m 789m 5p (2222p) +5p", "jinyuanzi", hard_flowers=1))["gang_concealed"] == 4
    assert items(score("123m 456m 789m 5p [2222p] +5p", "jinyuanzi", hard_flowers=1))["gang_exposed"] == 2


def test_jinyuanzi_wuhuaguo_is_a_big_win() -> None:
    assert score(EXAMPLE_2, "jinyuanzi", hard_flowers=0).valid


def test_jinyuanzi_seven_pairs_80_and_shuang_qidui_180() -> None:
    assert items(score("11m 22m 33p 44p 55s 66s 7s +7s", "jinyuanzi", hard_flowers=1))["qidui"] == 80
    assert items(score("11m 22m 33p 44p 555s 66s +5s", "jinyuanzi", hard_flowers=1))["shuang_qidui"] == 180


def test_jinyuanzi_ben_lower_values() -> None:
    assert items(score(EXAMPLE_1, "jinyuanzi-ben", hard_flowers=2)) == {
        "pao": 10,
        "hard": 4,
        "que_yi": 2,
        "menqing": 10,
    }
    assert items(score("11m 22m 33p 44p 555s 66s +5s", "jinyuanzi-ben", hard_flowers=1))["shuang_qidui"] == 100


def test_jinyuanzi_tianhu_takes_everything() -> None:
    assert score(EXAMPLE_1, "jinyuanzi", hard_flowers=2, self_draw=True, heavenly=True).takes_all


def test_app_patterns_are_exclusive_highest_only() -> None:
    # 门清 40 beats 小胡 20; hard 5 each; 缺一门 5.
    result = score(EXAMPLE_1, "app", hard_flowers=2, self_draw=True)
    assert items(result) == {"hard": 10, "que_yi": 5, "menqing": 40}
    assert result.total == 55


def test_app_small_win_with_soft_flowers() -> None:
    result = score(EXAMPLE_2, "app", hard_flowers=4)
    assert items(result) == {"pao": 20, "hard": 20, "wind_pong": 5, "que_yi": 5, "kanzhang": 5}
    assert result.total == 55


def test_app_que_yi_counts_on_a_one_suit_hand() -> None:
    result = score("123m 456m 78m 99m (EEEE) +9m", "app", hard_flowers=1)
    assert items(result) == {"hard": 5, "wind_pong": 5, "que_yi": 5, "hunyise": 80}


def test_app_luxury_seven_pairs_320() -> None:
    assert score("1111m 22p 33p 44s 55s 6s +6s", "app").total == 320


def test_app_wuhuaguo_needs_menqing() -> None:
    result = score("123p 456p EE 78p [NNN] +9p", "app", hard_flowers=0)
    assert "wuhuaguo" not in items(result)


def test_house_rules_file_starting_from_a_builtin() -> None:
    preset = load_preset_text(
        'base = "nanjing"\nname = "our-table"\n[patterns]\npao = 30\n[instant]\nexposed_gang = 8\n'
    )
    assert preset.name == "our-table" and preset.patterns["pao"].value == 30 and preset.instant.exposed_gang == 8
    assert preset.patterns["qingyise"].value == 60


@pytest.mark.parametrize(
    ("text", "key", "named"),
    [
        ('base = "nanjing"\n[patterns]\nqingyse = 60\n', "preset.unknown_key", "patterns.qingyse"),
        ('base = "nanjing"\n[win]\nzha = "two"\n', "preset.bad_value", "win.zha"),
        ('base = "nanjing"\n[instant]\nbogus = 1\n', "preset.unknown_key", "instant.bogus"),
        ('name = "x"\n', "preset.missing_key", "win.zha"),
        ('base = "nanjing"\n[bixiahu]\ntriggers = ["sunrise"]\n', "preset.bad_value", "bixiahu.triggers"),
    ],
)
def test_bad_house_file_names_the_key(text: str, key: str, named: str) -> None:
    with pytest.raises(EngineError) as caught:
        load_preset_text(text)
    assert caught.value.key == key and caught.value.params["key"] == named


def test_bad_toml_is_a_clear_error() -> None:
    with pytest.raises(EngineError) as caught:
        load_preset_text("[win\n")
    assert caught.value.key == "preset.bad_toml"


def test_unknown_builtin_preset() -> None:
    with pytest.raises(EngineError) as caught:
        load_preset("shanghai")
    assert caught.value.key == "preset.unknown"
