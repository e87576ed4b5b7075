"""docs/rules.md §5-§6, nanjing preset: one case per pattern, soft flower and exclusion.

total = 跑 20 + 砸 2 × (hard + soft) + Σ patterns.
"""

from tests.kit.helpers import items, score

# ---- soft flowers 软花 -------------------------------------------------------------------------


def test_wind_pong_counts_each_wind_triplet() -> None:
    result = score("123m 45p 99p [EEE] [SSS] +6p", hard_flowers=4)
    assert items(result)["wind_pong"] == 4


def test_wind_gang_counts_wind_pong_and_gang_soft() -> None:
    # (EEEE) concealed: 风碰 1 + gang 2; one suit + winds: 混一色 40; concealed gang keeps 门清.
    result = score("123m 456m 78m 99m (EEEE) +9m", hard_flowers=1, self_draw=True)
    assert items(result) == {
        "pao": 20,
        "hard": 2,
        "wind_pong": 2,
        "gang_concealed": 4,
        "menqing": 20,
        "hunyise": 40,
    }
    assert result.total == 88


def test_each_gang_is_two_soft_flowers() -> None:
    result = score("123m 456m 789m 5p [2222p] +5p", hard_flowers=1, self_draw=True)
    assert items(result)["gang_exposed"] == 4


def test_que_yi_exactly_one_suit_missing() -> None:
    assert items(score("123m 456m 789m 234p 5p +5p", hard_flowers=4))["que_yi"] == 2


def test_no_que_yi_with_all_three_suits() -> None:
    assert "que_yi" not in items(score("123m 456p 789s 234s 9p +9p", hard_flowers=1))


def test_no_que_yi_on_a_one_suit_hand() -> None:
    assert "que_yi" not in items(score("123m 456m 78m 99m [111m] +9m", hard_flowers=1))


def test_bianzhi_12_wins_3() -> None:
    result = score("12m 456p 789s 234s 99p +3m", hard_flowers=1)
    assert items(result) == {"pao": 20, "hard": 2, "bianzhi": 2, "menqing": 20}
    assert result.total == 44


def test_bianzhi_89_wins_7() -> None:
    assert items(score("89m 456p 789s 234s 99p +7m", hard_flowers=1))["bianzhi"] == 2


def test_dudiao_single_wait_on_the_pair() -> None:
    result = score("123m 456p 789s 234s 9p +9p", hard_flowers=1)
    assert items(result) == {"pao": 20, "hard": 2, "dudiao": 2, "menqing": 20}
    assert result.total == 44


def test_kanzhang_79_wins_8() -> None:
    assert items(score("11p 567s 79s [EEE] [444p] +8s", hard_flowers=4))["kanzhang"] == 2


def test_no_wait_flower_when_the_hand_waits_on_two_tiles() -> None:
    result = score("123m 456m 789m 234p 5p +5p", hard_flowers=4)
    assert not {"kanzhang", "bianzhi", "dudiao"} & set(items(result))


def test_no_wait_flower_for_a_two_sided_wait_even_with_an_edge_reading() -> None:
    # 78m waits 6m or 9m: winning 9m completes 789 but the wait was not sole.
    assert not {"kanzhang", "bianzhi", "dudiao"} & set(items(score("123m 456m 78m 99m [111m] +9m", hard_flowers=1)))


# ---- patterns ----------------------------------------------------------------------------------


def test_menqing_no_pong() -> None:
    assert items(score("123m 456m 789m 234p 5p +5p", hard_flowers=0))["menqing"] == 20


def test_exposed_and_concealed_gangs_keep_menqing() -> None:
    assert "menqing" in items(score("123m 456m 789m 5p [2222p] +5p", hard_flowers=1))
    assert "menqing" in items(score("123m 456m 789m 5p (2222p) +5p", hard_flowers=1))


def test_added_gang_loses_menqing() -> None:
    assert "menqing" not in items(score("123m 456m 789m 5p {2222p} +5p", hard_flowers=4))


def test_hunyise_one_suit_and_winds() -> None:
    result = score("123p 456p EE 78p [NNN] +9p", hard_flowers=2)
    assert items(result) == {"pao": 20, "hard": 4, "wind_pong": 2, "hunyise": 40}
    assert result.total == 66


def test_qingyise_one_suit_only() -> None:
    result = score("123m 456m 78m 99m [111m] +9m", hard_flowers=1)
    assert items(result) == {"pao": 20, "hard": 2, "qingyise": 60}
    assert result.total == 82


def test_duiduihu_four_triplets_and_a_pair() -> None:
    result = score("111m 222p EE 99s [333s] +9s", hard_flowers=1)
    assert items(result) == {"pao": 20, "hard": 2, "duiduihu": 40}
    assert result.total == 62


def test_quanqiu_all_melded_counts_with_duiduihu_and_takes_no_dudiao() -> None:
    result = score("5p [111m] [222m] [EEE] [999s] +5p", hard_flowers=1)
    assert items(result) == {"pao": 20, "hard": 2, "wind_pong": 2, "duiduihu": 40, "quanqiu": 60}
    assert result.total == 124


def test_qidui_takes_no_menqing() -> None:
    result = score("11m 22m 33p 44p 55s 66s 7s +7s", hard_flowers=2)
    assert items(result) == {"pao": 20, "hard": 4, "qidui": 80}
    assert result.total == 104


def test_chaohaohua_qidui_two_fours() -> None:
    result = score("1111m 2222p 33s 44s 5s +5s", hard_flowers=1)
    assert items(result) == {"pao": 20, "hard": 2, "chaohaohua_qidui": 240}
    assert result.total == 262


def test_chaochaohaohua_qidui_three_fours() -> None:
    result = score("1111m 2222p 3333s E +E", hard_flowers=1)
    assert items(result) == {"pao": 20, "hard": 2, "chaochaohaohua_qidui": 320}
    assert result.total == 342


def test_shuang_qidui_winning_tile_completes_a_four() -> None:
    result = score("11m 22m 33p 44p 555s 66s +5s", hard_flowers=1)
    assert items(result) == {"pao": 20, "hard": 2, "shuang_qidui": 180}
    assert result.total == 202


def test_yajue_replaces_the_middle_wait_flower() -> None:
    result = score("11p 234s 567s 79s [888s] +8s", hard_flowers=1)
    assert items(result) == {"pao": 20, "hard": 2, "que_yi": 2, "yajue": 40}
    assert result.total == 64


def test_yajue_lifts_the_small_win_limit() -> None:
    assert score("11p 234s 567s 79s [888s] +8s", hard_flowers=1).valid


def test_wuhuaguo_with_menqing() -> None:
    result = score("123m 456m 789m 234p 5p +5p", hard_flowers=0, self_draw=True)
    assert items(result) == {"pao": 20, "que_yi": 2, "menqing": 20, "wuhuaguo": 40}
    assert result.total == 82


def test_wuhuaguo_alone_does_not_lift_the_limit() -> None:
    result = score("11p 567s 79s [EEE] [444p] +8s", hard_flowers=0)
    assert not result.valid and result.reason == "win.below_limit"


def test_xiaogangkai_adds_20_and_lifts_the_limit() -> None:
    result = score("11p 567s 79s [EEE] [444p] +8s", hard_flowers=3, after_flower=True, self_draw=True)
    assert result.valid and items(result)["xiaogangkai"] == 20
    assert result.total == 52


def test_dagangkai_adds_40() -> None:
    result = score("123m 456m 789m 5p [2222p] +5p", hard_flowers=1, after_gang=True, self_draw=True)
    assert items(result) == {
        "pao": 20,
        "hard": 2,
        "gang_exposed": 4,
        "que_yi": 2,
        "dudiao": 2,
        "menqing": 20,
        "dagangkai": 40,
    }
    assert result.total == 90


def test_tianhu_adds_320() -> None:
    assert score("123m 456m 789m 234p 5p +5p", hard_flowers=2, self_draw=True, heavenly=True).total == 46 + 320


def test_dihu_adds_280() -> None:
    assert score("123m 456m 789m 234p 5p +5p", hard_flowers=2, earthly=True).total == 46 + 280


def test_haidi_adds_10_on_a_self_draw() -> None:
    assert score("123m 456m 789m 234p 5p +5p", hard_flowers=2, self_draw=True, last_stacks=True).total == 56


def test_haidi_needs_a_self_draw() -> None:
    assert "haidi" not in items(score("123m 456m 789m 234p 5p +5p", hard_flowers=2, last_stacks=True))


def test_not_a_winning_shape_is_refused() -> None:
    result = score("123m 456m 789m 235p 5p +5p", hard_flowers=4)
    assert not result.valid and result.reason == "win.not_a_winning_shape"


def test_the_highest_scoring_reading_is_used() -> None:
    # 111222333m: three triplets or three sequences; 对对胡 needs the triplet reading.
    result = score("111m 222m 333m 5p [666s] +5p", hard_flowers=1)
    assert "duiduihu" in items(result)
