"""A rules change keeps the hand it was announced for (#47 item 4, docs/rules.md 20): a change typed
once the hand had begun counts from the next hand, and no later correction of something else (an
undo of the pong that had begun the hand) re-prices the hand it was typed in under it.

Money, worked by hand from docs/rules.md (nanjing, stake 1): 李四's win on 王五's discard
`11p 567s 79s [EEE] [444p] +8s`, 4 hard flowers, is worked example 2: 跑 + 2 × (4 hard + 压档 1 +
风碰 1 + 缺一 1) = 跑 + 14; at 跑 20 that is 34, at 跑 30 it would be 44. 王五 pays it alone.
"""

from __future__ import annotations

from tests.kit.harness import Table

OPEN = "张三: 开局 张三 李四 王五 赵六"
WIN = "李四: 胡 王五 11p 567s 79s [EEE] [444p] +8s 花4"
SELF_DRAW = "张三: 胡 自摸 123m 456m 789m 234p 5p +5p 花2"
AT_20 = {"张三": 0, "李四": 34, "王五": -34, "赵六": 0}


async def test_undoing_the_pong_that_began_the_hand_keeps_the_change_for_the_next_hand(table: Table) -> None:
    await table.say(OPEN)
    await table.say("李四: 碰 王五")  # #2: the hand has begun
    assert "从第 2 盘起" in await table.say("张三: /rules set 跑=30")  # #3
    await table.say(WIN)  # #4: hand 1, played at 跑 20
    assert await table.balances() == AT_20
    out = await table.say("张三: 撤销 2")
    assert "重新计算了第 1 盘" not in out
    assert await table.balances() == AT_20  # not 44: the table agreed to 跑 30 from hand 2


async def test_the_change_still_counts_from_the_next_hand_there(table: Table) -> None:
    """Hand 2 (李四 deals after a non-dealer's small win, not doubled) is played at 跑 30: 张三
    self-draws worked example 1, `123m 456m 789m 234p 5p +5p` with 2 hard flowers: 跑 + 2 × (2 hard +
    缺一 1) + 门清 20 = 56 from each. 张三 +168, 李四 34 − 56 = −22, 王五 −34 − 56 = −90, 赵六 −56.
    Undoing the pong re-prices neither hand."""
    await table.play(f"{OPEN}\n李四: 碰 王五\n张三: /rules set 跑=30\n{WIN}\n{SELF_DRAW}")
    both = {"张三": 168, "李四": -22, "王五": -90, "赵六": -56}
    assert await table.balances() == both
    await table.say("张三: 撤销 2")
    assert await table.balances() == both


async def test_a_change_typed_before_anything_in_a_hand_counts_from_that_hand(table: Table) -> None:
    await table.say(OPEN)
    assert "从这一盘（第 1 盘）起" in await table.say("张三: /rules set 跑=30")
    await table.say(WIN)
    assert await table.balances() == {"张三": 0, "李四": 44, "王五": -44, "赵六": 0}
