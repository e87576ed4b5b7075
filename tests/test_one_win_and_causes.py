"""A win on one discard by several winners reads as one win in /history; the doubled-hand warning names
the events that doubled it; a correction of an event that does not exist is answered; a correction
that moves money at places of different stakes says which. Money by hand from docs/rules.md (nanjing).

Seats: 张三 East (first dealer), 李四 South, 王五 West, 赵六 North.
"""

from __future__ import annotations

from tests.kit.harness import Table

OPEN = "张三: 开局 张三 李四 王五 赵六"


async def test_several_winners_on_one_discard_read_as_one_win_in_history(table: Table) -> None:
    await table.say(OPEN)
    await table.say("李四: 胡 王五 清一色 花2")  # #2
    out = await table.say("赵六: 胡 王五 一炮多响 清一色 花2")  # #3, on #2's discard: the line says so
    assert "与 #2 合并为一炮多响" in out
    history = await table.say("张三: 记录")
    assert "#2 [第1盘] 胡：胡 王五 清一色 花2（李四）— 一炮多响，与 #3 是同一次胡" in history
    assert "#3 [第1盘] 胡（一炮多响，同 #2 一炮）：胡 王五 一炮多响 清一色 花2（赵六）" in history
    assert "更正" not in history  # not a replacement
    # RULES §8 一炮多响: the discarder pays each winner his own total. Each: 跑 20 + 2×2 hard + 门清 20
    # (from the log: no meld) + 清一色 60 = 104; hand 1 is not doubled. 王五 pays 2 × 104 = 208.
    assert await table.balances() == {"张三": 0, "李四": 104, "王五": -208, "赵六": 104}


async def test_a_later_correction_of_the_joined_win_is_still_a_correction(table: Table) -> None:
    await table.say("/lang en")
    await table.say(OPEN)
    await table.say("李四: 胡 王五 清一色 花2")  # #2
    await table.say("赵六: 胡 王五 清一色 花2")  # asked: the same discard as #2?
    await table.say("李四: /again")  # #3, joined
    await table.say("张三: /fix 3 /hu 赵六 王五 清一色 flowers=3")  # #4, a real correction of 赵六's claim
    history = await table.say("张三: /history")
    assert "#3 [hand 1] win: 胡 王五 清一色 花2 (赵六) — corrected by #4" in history
    assert "#2 [hand 1] win: 胡 王五 清一色 花2 (李四) — one win with #3" in history
    # 李四 keeps 20 + 2×2 + 门清 20 + 清一色 60 = 104; 赵六 now 20 + 2×3 + 20 + 60 = 106; 王五 pays 210
    assert await table.balances() == {"张三": 0, "李四": 104, "王五": -210, "赵六": 106}


async def test_the_doubled_hand_warning_names_the_events_that_doubled_it(table: Table) -> None:
    await table.say(OPEN)
    out = await table.say("李四: 胡 自摸 清一色 花2")  # #2
    assert "⚠️ 下一盘比下胡（×2）：#2 李四 清一色" in out
    await table.say("王五: 花杠")  # #3
    await table.say("赵六: 罚 跟牌 王五")  # #4
    out = await table.say("张三: 荒庄")  # #5
    assert "⚠️ 下一盘比下胡（×2）：#3 王五 花杠；#4 王五 跟牌；#5 荒庄" in out
    # hand 1: 20 + 2×2 + 门清 20 + 清一色 60 = 104 from each of three (李四 +312).
    # hand 2 is doubled (§9: gangs and penalties ×2): 花杠 6×2 = 12 from each other player to 王五;
    # 跟牌 10×2 = 20 from 王五 to each other player; 荒庄 pays nothing.
    # 张三 −104 −12 +20 = −96; 李四 312 −12 +20 = 320; 王五 −104 +36 −60 = −128; 赵六 −96.
    assert await table.balances() == {"张三": -96, "李四": 320, "王五": -128, "赵六": -96}


async def test_the_warning_in_english_names_the_winners_and_the_patterns(table: Table) -> None:
    await table.say("/lang en")
    await table.say(OPEN)
    await table.say("李四: 胡 王五 清一色 花2")  # #2
    out = await table.say("赵六: 胡 王五 清一色 花2 also")  # #3
    assert "⚠️ next hand is doubled (×2): #2 李四, 赵六 full flush, several winners" in out


async def test_a_fix_of_an_event_that_does_not_exist_is_answered_however_it_is_typed(table: Table) -> None:
    await table.say(OPEN)
    await table.say("李四: 碰 王五")  # #2
    for line in ("张三: 改 99 胡 自摸 花2", "张三: fix 99 pong 李四", "张三: fix 99 碰 李四", "张三: 更正 99 荒庄"):
        response = await table.respond(line)
        assert response is not None and response.refused, line
        out = await table.say(line)
        assert "本局没有 #99 这条记录" in out and "最近一条是 #2；每条的编号见 /history" in out
    assert await table.say("张三: fix the table") == ""  # talk stays talk
    assert "本局没有 #99 这条记录" in await table.say("张三: undo 99")
    assert await table.say("张三: undo that") == ""
    assert await table.balances() == {"张三": 0, "李四": 0, "王五": 0, "赵六": 0}


async def test_a_correction_across_stakes_says_which_stakes(table: Table) -> None:
    await table.say(OPEN)
    await table.say("李四: 胡 自摸 清一色 花2")  # #2, hand 1 at 1 per flower
    await table.say("张三: 改底 2")  # #3: from hand 2 (nothing logged there yet)
    await table.say("王五: 胡 自摸 123m456m789m234p5p+5p 花2")  # #4, hand 2 at 2
    out = await table.say("张三: 改 2 胡 李四 自摸 花4")
    assert "涉及不同的底：第1盘 每花 1、第2盘 每花 2" in out
    # Now #2 is 20 + 2×4 + 门清 20 = 48 (no 大胡: hand 2 is not doubled, 李四 deals it) from each of
    # three at 1. #4: 20 + 2×(2 hard + 缺一门 1) + 门清 20 = 46 from each of three at 2 (92 money).
    # 张三 −48 −92 = −140; 李四 144 −92 = 52; 王五 −48 + 3×92 = 228; 赵六 −140.
    night = await table.night()
    assert night["money"] == {"张三": "-140", "李四": "52", "王五": "228", "赵六": "-140"}
    # flowers: 张三 −48 −46 = −94; 李四 144 −46 = 98; 王五 −48 +138 = 90; 赵六 −94
    assert night["balances"] == {"张三": -94, "李四": 98, "王五": 90, "赵六": -94}


async def test_a_correction_at_one_stake_lists_no_stakes(table: Table) -> None:
    await table.say(OPEN)
    await table.say("李四: 胡 自摸 清一色 花2")
    out = await table.say("张三: 改 2 胡 李四 自摸 花4")
    assert "涉及不同的底" not in out
