"""docs/rules.md §11: the four worked examples (nanjing, stake 1)."""

from tests.kit.helpers import items, score


def test_example_1_self_draw_menqing_two_sided_wait() -> None:
    result = score("123m 456m 789m 234p 5p +5p", hard_flowers=2, self_draw=True)
    assert items(result) == {"pao": 20, "hard": 4, "que_yi": 2, "menqing": 20}
    assert result.total == 46


def test_example_2_discard_win_middle_wait() -> None:
    result = score("11p 567s 79s [EEE] [444p] +8s", hard_flowers=4)
    assert items(result) == {"pao": 20, "hard": 8, "wind_pong": 2, "que_yi": 2, "kanzhang": 2}
    assert result.total == 34 and result.valid


def test_example_2_with_three_hard_flowers_is_refused_by_the_small_win_limit() -> None:
    result = score("11p 567s 79s [EEE] [444p] +8s", hard_flowers=3)
    assert not result.valid and result.reason == "win.below_limit"


def test_example_3_full_flush_all_pongs_with_concealed_gang() -> None:
    result = score("222m 55m 88m [777m] (3333m) +8m", hard_flowers=1, self_draw=True)
    assert items(result) == {"pao": 20, "hard": 2, "gang_concealed": 4, "qingyise": 60, "duiduihu": 40}
    assert result.total == 126


def test_example_4_luxury_seven_pairs_without_flowers() -> None:
    result = score("1111m 22p 33p 44s 55s 6s +6s")
    assert items(result) == {"pao": 20, "haohua_qidui": 160, "wuhuaguo": 40}
    assert result.total == 220
