"""A win typed again, changed, right after it (same winner, same discarder, nothing typed between) is asked
about, never booked as a second win: [改 #2] records it as `/fix 2 <the line>`, [下一盘又胡了] as a new
win, [都不是] nothing (docs/rules.md 16d).

Money by hand (nanjing, stake 1; RULES §4-§9), the discarder paying the whole win:
- 清一色 对对胡, 3 hard flowers, nothing logged (门清 from the log): 跑 20 + 砸 2×3 = 6 + 门清 20 + 清一色 60
  + 对对胡 40 = 146.
- 清一色 alone, 3 hard flowers: 20 + 6 + 20 + 60 = 106.
- A 大胡 is a 比下胡 trigger and keeps the dealer: the next hand is doubled with N = 1 (垒宝塔), so a win
  of 106 there counts (106 + 10×1) × 2 = 232.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from bot.chat.service import Referee
from tests.kit.flows import command_of
from tests.kit.harness import Table

ZH = "/new 张三 李四 王五 赵六"
FIRST_ZH = "李四: 胡 王五 清一色 对对胡 花3"
AGAIN_ZH = "李四: 胡 王五 清一色 花3"
EN = "/new Alice Bob Carol Dave"
FIRST_EN = "Alice: /hu Bob 清一色 对对胡 flowers=3"
AGAIN_EN = "Alice: /hu Bob full flush flowers=3"


async def first_win_zh(table: Table) -> None:
    await table.say(ZH)
    assert "✅ #2" in await table.say(FIRST_ZH)
    assert await table.balances() == {"张三": 0, "李四": 146, "王五": -146, "赵六": 0}


async def first_win_en(table: Table) -> None:
    await table.say(EN)
    await table.say("/lang en")
    assert "✅ #2" in await table.say(FIRST_EN)
    assert await table.balances() == {"Alice": 146, "Bob": -146, "Carol": 0, "Dave": 0}


async def test_a_win_retyped_is_asked_and_fix_corrects_it_zh(table: Table) -> None:
    await first_win_zh(table)
    before = await table.row_counts()
    question = await table.respond(AGAIN_ZH)
    assert question is not None and not question.recorded
    labels = ("改 #2", "下一盘又胡了", "都不是")
    assert [command_of(question, label) for label in labels] == ["/again q1 fix", "/again q1 next", "/again q1 no"]
    out = await table.say(AGAIN_ZH)  # the same question again: it replaces the first, still nothing booked
    assert "刚记了 #2 李四 胡 王五 的炮（146 花）。这一条是改 #2，还是下一盘又胡了？" in out
    assert await table.row_counts() == before
    assert await table.balances() == {"张三": 0, "李四": 146, "王五": -146, "赵六": 0}
    assert "#3 更正了 #2：胡 王五 清一色 花3" in await table.say("王五: /again q2 fix")  # not a new win
    # one win of 106: 王五 pays 106, as if #2 had been typed so
    assert await table.balances() == {"张三": 0, "李四": 106, "王五": -106, "赵六": 0}
    assert "这个问题已经回答过了" in await table.say("王五: /again q2 fix")  # answered once
    assert await table.balances() == {"张三": 0, "李四": 106, "王五": -106, "赵六": 0}


async def test_a_win_retyped_is_asked_and_fix_corrects_it_en(table: Table) -> None:
    await first_win_en(table)
    before = await table.row_counts()
    question = await table.respond(AGAIN_EN)
    assert question is not None and not question.recorded
    labels = ("Change #2", "Next hand's win", "Neither")
    assert [command_of(question, label) for label in labels] == ["/again q1 fix", "/again q1 next", "/again q1 no"]
    out = await table.say(AGAIN_EN)  # asked again: the same question, now q2
    expected = "#2 was just recorded: Alice won on Bob's discard (146 flowers). Does this line change #2"
    assert expected in out and "✅" not in out
    assert await table.row_counts() == before
    assert "#3 corrected #2: /hu Bob full flush flowers=3" in await table.say("Carol: /again q2 fix")
    # one win of 106: Bob pays 106
    assert await table.balances() == {"Alice": 106, "Bob": -106, "Carol": 0, "Dave": 0}


async def test_next_hand_records_a_second_win_zh(table: Table) -> None:
    await first_win_zh(table)
    await table.say(AGAIN_ZH)
    assert "✅ #3" in await table.say("王五: /again q1 next")
    # 146, then the 比下胡 hand's win (106 + 10×1) × 2 = 232: 王五 −378
    assert await table.balances() == {"张三": 0, "李四": 378, "王五": -378, "赵六": 0}


async def test_next_hand_records_a_second_win_en(table: Table) -> None:
    await first_win_en(table)
    await table.say(AGAIN_EN)
    assert "✅ #3" in await table.say("Bob: /again q1 next")
    # 146 + 232: the player-tester's −378, now only on the table's word
    assert await table.balances() == {"Alice": 378, "Bob": -378, "Carol": 0, "Dave": 0}


async def test_neither_records_nothing(table: Table) -> None:
    await first_win_en(table)
    await table.say(AGAIN_EN)
    before = await table.row_counts()
    assert "not recorded" in await table.say("Bob: /again q1 no")
    assert await table.row_counts() == before
    assert await table.balances() == {"Alice": 146, "Bob": -146, "Carol": 0, "Dave": 0}
    assert "answered already" in await table.say("Bob: /again q1 fix")  # a later press changes nothing
    assert await table.balances() == {"Alice": 146, "Bob": -146, "Carol": 0, "Dave": 0}


async def test_neither_records_nothing_zh(table: Table) -> None:
    await first_win_zh(table)
    await table.say(AGAIN_ZH)
    before = await table.row_counts()
    assert "不记" in await table.say("赵六: /again q1 no")
    assert await table.row_counts() == before
    assert await table.balances() == {"张三": 0, "李四": 146, "王五": -146, "赵六": 0}


async def test_another_discarder_or_winner_is_not_asked(table: Table) -> None:
    await first_win_zh(table)
    # another discarder: a win of the next hand, (106 + 10) × 2 = 232 from 赵六
    assert "✅ #3" in await table.say("李四: 胡 赵六 清一色 花3")
    assert await table.balances() == {"张三": 0, "李四": 146 + 232, "王五": -146, "赵六": -232}


async def test_another_discarder_is_not_asked_en(table: Table) -> None:
    await first_win_en(table)
    assert "✅ #3" in await table.say("Alice: /hu Dave full flush flowers=3")
    # the next hand is doubled with N = 1: (106 + 10) × 2 = 232 from Dave
    assert await table.balances() == {"Alice": 146 + 232, "Bob": -146, "Carol": 0, "Dave": -232}


async def test_an_event_between_is_not_asked(table: Table) -> None:
    await first_win_zh(table)
    assert "✅ #3" in await table.say("赵六: 碰 张三")  # a pong of the next hand: no money
    assert "✅ #4" in await table.say(AGAIN_ZH)  # a new hand's win: (106 + 10) × 2 = 232
    assert await table.balances() == {"张三": 0, "李四": 378, "王五": -378, "赵六": 0}


async def test_an_event_between_is_not_asked_en(table: Table) -> None:
    await first_win_en(table)
    assert "✅ #3" in await table.say("Dave: /pong Carol")
    assert "✅ #4" in await table.say(AGAIN_EN)
    # the second win in the doubled hand 2: (106 + 10) × 2 = 232
    assert await table.balances() == {"Alice": 378, "Bob": -378, "Carol": 0, "Dave": 0}


async def test_a_second_self_draw_by_the_same_winner_is_asked(table: Table) -> None:
    await table.say(ZH)
    assert "✅ #2" in await table.say("李四: 自摸 清一色 对对胡 花3")
    out = await table.say("李四: 自摸 清一色 花3")
    assert "刚记了 #2 李四 自摸" in out and "改 #2" in out


async def test_the_same_line_again_is_the_repeat_question_not_this_one(table: Table) -> None:
    await first_win_zh(table)
    out = await table.say(FIRST_ZH)
    assert "和 #2 一样" in out and "改 #2" not in out


async def test_a_win_after_a_draw_is_not_asked(table: Table) -> None:
    await first_win_zh(table)
    await table.say("荒庄")  # hand 2 ends in a draw
    out = await table.say(AGAIN_ZH)
    assert "✅" in out and "改 #2" not in out


async def test_another_winner_on_the_same_discard_is_asked_only_about_one_discard(table: Table) -> None:
    await first_win_zh(table)
    out = await table.say("赵六: 胡 王五 清一色 花3")
    assert "同一张牌吗" in out and "改 #2" not in out  # the 一炮多响 question, not this one


@asynccontextmanager
async def started(path: Path) -> AsyncIterator[Table]:
    referee = await Referee.open(path, charts_enabled=False)
    try:
        yield Table(referee, "group-1")
    finally:
        await referee.close()


async def test_the_question_outlives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    async with started(path) as table:
        await first_win_zh(table)
        assert "改 #2" in await table.say(AGAIN_ZH)
    async with started(path) as table:
        await table.say("王五: /again q1 fix")
        # the correction after the restart: one win of 106
        assert await table.balances() == {"张三": 0, "李四": 106, "王五": -106, "赵六": 0}


async def test_a_typed_fix_answers_the_one_question(table: Table) -> None:
    await first_win_zh(table)
    await table.say(AGAIN_ZH)
    assert "更正了 #2" in await table.say("王五: /again fix")
    assert await table.balances() == {"张三": 0, "李四": 106, "王五": -106, "赵六": 0}  # one win of 106


async def test_fix_answers_only_a_retyped_win(table: Table) -> None:
    await table.say(ZH)
    await table.say("赵六: 花杠")
    await table.say("赵六: 花杠")  # the repeat question (q1): it has no [改] answer
    assert "fix" in await table.say("张三: /again q1 fix")
    assert await table.balances() == {"张三": -6, "李四": -6, "王五": -6, "赵六": 18}  # one flower gang


async def test_undo_withdraws_the_held_line(table: Table) -> None:
    await first_win_en(table)
    await table.say(AGAIN_EN)
    await table.say("Bob: /undo")  # the question is the table's latest word: its line goes, #2 stays
    assert await table.balances() == {"Alice": 146, "Bob": -146, "Carol": 0, "Dave": 0}
    assert "withdrawn" in await table.say("Bob: /again q1 fix")


# ---- a dealer's next win is no question when it cannot be a retype (issue #48, item 6) -------------
# 张三 deals. 123m 456m 789m 234p 5p +5p with 2 hard flowers on 王五's discard (2345p waits 2p or 5p: no
# wait flower): 跑 20 + 砸 2×(2 + 缺一门 1) = 6 + 门清 20 = 46. A dealer's win keeps the deal and makes
# the next hand 比下胡 with N = 1 (垒宝塔): the same-shaped hand in 万 and 条 there, also 46, counts
# (46 + 10×1) × 2 = 112.
DEALER_FIRST = "张三: 胡 王五 123m 456m 789m 234p 5p +5p 花2"
DEALER_NEXT = "张三: 胡 王五 123s 456s 789s 234m 5m +5m 花2"  # shares 4 tiles of 14 with the first
DEALER_SLIP = "张三: 胡 王五 123m 456m 789m 345p 5p +5p 花2"  # 2p typed 5p: one tile off
DEALER_FLOWERS = "张三: 胡 王五 123m 456m 789m 234p 5p +5p 花3"  # the same tiles, another flower count


async def dealer_won(table: Table) -> None:
    await table.say(ZH)
    assert "✅ #2" in await table.say(DEALER_FIRST)
    assert await table.balances() == {"张三": 46, "李四": 0, "王五": -46, "赵六": 0}


def a_minute_later(table: Table) -> None:
    start = table.referee.services.clock()
    table.referee.services.clock = lambda: start + 61


async def test_the_dealers_next_win_with_other_tiles_is_the_next_hand(table: Table) -> None:
    await dealer_won(table)
    a_minute_later(table)
    out = await table.say(DEALER_NEXT)
    assert "✅ #3" in out and "改 #2" not in out  # recorded as the next hand's win, no question
    # 46 + (46 + 10×1) × 2 = 46 + 112 = 158 from 王五
    assert await table.balances() == {"张三": 158, "李四": 0, "王五": -158, "赵六": 0}


async def test_a_heavenly_win_after_the_dealers_win_is_the_next_hand(table: Table) -> None:
    await dealer_won(table)
    a_minute_later(table)
    out = await table.say("张三: 天胡 123s 456s 789s 234m 5m +5m 花2")  # only a new hand can be 天胡
    assert "✅ #3" in out and "改 #2" not in out


async def test_the_same_tiles_but_for_a_slip_are_asked_even_later(table: Table) -> None:
    await dealer_won(table)
    a_minute_later(table)
    assert "这一条是改 #2，还是下一盘又胡了？" in await table.say(DEALER_SLIP)
    assert await table.balances() == {"张三": 46, "李四": 0, "王五": -46, "赵六": 0}  # held


async def test_only_the_flowers_changed_is_asked_even_later(table: Table) -> None:
    await dealer_won(table)
    a_minute_later(table)
    assert "改 #2" in await table.say(DEALER_FLOWERS)
    # [改 #2]: 3 flowers, 20 + 2×(3 + 1) + 20 = 48, one win
    assert "更正了 #2" in await table.say("王五: /again fix")
    assert await table.balances() == {"张三": 48, "李四": 0, "王五": -48, "赵六": 0}


async def test_other_tiles_within_a_minute_are_asked(table: Table) -> None:
    await dealer_won(table)
    assert "改 #2" in await table.say(DEALER_NEXT)  # typed at once: it may be the first retyped whole
    assert await table.balances() == {"张三": 46, "李四": 0, "王五": -46, "赵六": 0}
