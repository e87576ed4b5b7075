"""Patterns named with the tiles must be in the tiles (RULES §5: "a claim that cannot be true is
refused with the reason (nothing recorded), never scored"). Nanjing, A deals; B wins on C's discard
with RULES §11 example 2's hand, `11p 567s 79s [EEE] [444p] +8s`: sole wait 8s (压档 1), 风碰 1,
缺一 1 (no 万), so with 4 hard flowers 20 + 2×(4+3) = 34. Figures by hand in each test."""

from __future__ import annotations

from tests.kit.harness import Table

HAND = "11p 567s 79s [EEE] [444p] +8s"
NOBODY_PAID = {"A": 0, "B": 0, "C": 0, "D": 0}


async def test_plain_hand_is_example_two(table: Table) -> None:
    await table.say("/new A B C D")
    out = await table.say(f"B: 胡 C {HAND} 花4")
    assert "合计 34 花" in out
    assert await table.balances() == {"A": 0, "B": 34, "C": -34, "D": 0}


async def test_yajue_the_tiles_do_not_have_is_refused_with_the_reason(table: Table) -> None:
    await table.say("/new A B C D")
    out = await table.say(f"B: 胡 C {HAND} 花4 压绝")
    # the other three 8s are not B's pong (B ponged E and 4p): no 压绝
    assert "B 报了压绝，但压绝不成立" in out
    assert "8s" in out
    assert "没有记录" in out
    assert "合计" not in out
    assert await table.balances() == NOBODY_PAID


async def test_each_missing_pattern_is_named_in_the_order_typed(table: Table) -> None:
    await table.say("/new A B C D")
    out = await table.say(f"B: 胡 C {HAND} 花4 清一色 门清")
    assert "B 报了清一色，但手牌里没有清一色" in out  # p and s and a wind: not one suit
    out = await table.say(f"B: 胡 C {HAND} 花4 门清")
    assert "B 报了门清，但手牌里没有门清" in out  # two pongs break it (RULES §5)
    assert await table.balances() == NOBODY_PAID


async def test_a_missing_big_pattern_is_named_before_the_small_win_limit(table: Table) -> None:
    await table.say("/new A B C D")
    out = await table.say(f"B: 胡 C {HAND} 花1 压绝")
    assert "压绝不成立" in out
    assert "小胡要至少 4 个硬花" not in out
    assert await table.balances() == NOBODY_PAID
    out = await table.say(f"B: 胡 C {HAND} 花1")  # nothing claimed: the limit is the reason (RULES §11)
    assert "小胡要至少 4 个硬花" in out
    assert await table.balances() == NOBODY_PAID


async def test_a_yajue_the_tiles_have_is_scored(table: Table) -> None:
    await table.say("/new A B C D")
    # B's own pong of 8s, sole 压档 wait on the fourth: 压绝 40 replaces 压档; 风碰 1, 缺一 1.
    # 1 hard flower is enough: 压绝 is a 大胡. 20 + 2×(1+2) + 40 = 66
    out = await table.say("B: 胡 C 11p 567s 79s [EEE] [888s] +8s 花1 压绝")
    assert "合计 66 花" in out
    assert await table.balances() == {"A": 0, "B": 66, "C": -66, "D": 0}


async def test_a_pattern_true_of_the_tiles_but_excluded_by_the_preset_is_no_refusal(table: Table) -> None:
    await table.say("/new A B C D")
    # seven pairs are concealed: 门清 is true of them, and the preset does not add it (RULES §6).
    # 20 + 七对 80 + 无花果 40 = 140
    out = await table.say("B: 胡 C 11m 22m 33m 44p 55p 66s 7s +7s 花0 七对 门清")
    assert "合计 140 花" in out
    assert await table.balances() == {"A": 0, "B": 140, "C": -140, "D": 0}


async def test_the_refusal_in_traditional_and_english(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("/lang zh-Hant")
    out = await table.say(f"B: 胡 C {HAND} 花4 清一色")
    assert "B 報了清一色，但手牌裡沒有清一色" in out
    await table.say("/lang en")
    out = await table.say(f"B: /hu C {HAND} flowers=4 压绝")
    assert "B claimed" in out
    assert "does not hold" in out
    assert "8s" in out
    assert await table.balances() == NOBODY_PAID


async def test_a_slip_of_a_pattern_word_on_a_win_line_is_said_not_taken_for_talk(table: Table) -> None:
    await table.say("/new A B C D")
    out = await table.say(f"B: 胡 C {HAND} 花4 压决")  # one character from 压绝 and from 压档
    assert "没有 压决 这个番型，是不是 压档 / 压绝？" in out
    out = await table.say("B: 胡 C 花4 青一色")  # one character from 清一色 and from 混一色
    assert "没有 青一色 这个番型，是不是 混一色 / 清一色？" in out
    assert await table.balances() == NOBODY_PAID
