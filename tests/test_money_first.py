"""Money first when the stake changes (docs/rules.md 17d, #41 item 3): once a night's hands were played
for more than one stake, the board, /summary's ranking and the chart all go by money, and no net
flower figure is shown beside it; a night played for one stake reads as it always did.

The night, worked by hand from docs/rules.md (nanjing, 张三 东 deals hand 1; seats 东 南 西 北 in the
order named):
- hand 1 at 1 a flower: 李四 wins on 王五 `11p 567s 79s [EEE] [444p] +8s`, 4 hard flowers (RULES §11
  example 2): 20 + 2 × (4 + 压档 1 + 风碰 1 + 缺一 1) = 34 from 王五. A small win by a non-dealer: no
  比下胡 (§9), the deal passes to 李四.
- hand 2 at 1: 王五 wins on 赵六 `123m 456m 789m 234p 5p +5p`, 2 hard (§11 example 1's hand on a
  discard): 20 + 2 × (2 + 缺一 1) + 门清 20 = 46 from 赵六. 门清 is no 大胡: no 比下胡; 王五 deals next.
- 改底 5 after hand 2: hand 3 is played for 5.
- hand 3 at 5: 赵六 wins on 李四 with hand 1's hand and count: 34 flowers, 170 money from 李四.

Flowers: 张三 0, 李四 34 − 34 = 0, 王五 −34 + 46 = 12, 赵六 −46 + 34 = −12.
Money:   张三 0, 李四 34 − 170 = −136, 王五 −34 + 46 = 12, 赵六 −46 + 170 = 124.
By flowers 赵六 would be last with −12; he takes home 124, the most at the table.
"""

from __future__ import annotations

from bot.views.charts import night_chart
from tests.kit.harness import Table

HAND_1 = "李四: 胡 王五 11p 567s 79s [EEE] [444p] +8s 花4"
HAND_2 = "王五: 胡 赵六 123m 456m 789m 234p 5p +5p 花2"
HAND_3 = "赵六: 胡 李四 11p 567s 79s [EEE] [444p] +8s 花4"


def players_of(board: str) -> list[str]:
    """The board's lines for the four seats (`  东 张三：…`)."""
    return [line for line in board.splitlines() if line[:3] in ("  东", "  南", "  西", "  北")]


async def chart_values(table: Table) -> tuple[str, dict[str, tuple[float | None, ...]]]:
    night = await table.referee.nights.latest(table.chat_id)
    assert night is not None
    chart = night_chart(night, await night.tally(), "zh-Hans")
    return chart.y_label, {series.label: series.values for series in chart.series}


async def test_one_stake_keeps_flowers_with_their_money(table: Table) -> None:
    table.default_speaker = "张三"
    await table.play(f"开局 张三 李四 王五 赵六 底=1\n{HAND_1}\n{HAND_2}")
    # at one stake money is flowers × 1: both are shown, and the chart plots flowers
    assert players_of(await table.say("/score")) == [
        "  东 张三：0 花（0 元）",
        "  南 李四：34 花（34 元）",
        "  西 王五：12 花（12 元）",
        "  北 赵六：-46 花（-46 元）",
    ]
    axis, values = await chart_values(table)
    assert axis == "花"
    assert values == {
        "张三": (0, 0, 0),
        "李四": (0, 34, 34),
        "王五": (0, -34, 12),
        "赵六": (0, 0, -46),
    }


async def test_after_a_stake_change_the_board_the_ranking_and_the_chart_say_money(table: Table) -> None:
    table.default_speaker = "张三"
    await table.play(f"开局 张三 李四 王五 赵六 底=1\n{HAND_1}\n{HAND_2}\n改底 5\n{HAND_3}")
    board = players_of(await table.say("/score"))
    assert board == [
        "  东 张三：0 元",
        "  南 李四：-136 元",
        "  西 王五：12 元",
        "  北 赵六：124 元",
    ]
    assert not any("花" in line for line in board)  # no "-12 花" beside a win of 124
    summary = (await table.say("结算")).splitlines()
    assert [line for line in summary if line[:2] in ("1.", "2.", "3.", "4.")] == [
        "1. 赵六：124 元",
        "2. 王五：12 元",
        "3. 张三：0 元",
        "4. 李四：-136 元",
    ]
    # the per-player lines carry no gang or penalty net in flowers either
    assert not any(line.startswith("  ") and "杠钱" in line for line in summary)
    axis, values = await chart_values(table)
    assert axis == "元"
    # hand by hand in money: hand 1 at 1 (李四 +34, 王五 −34), hand 2 at 1 (王五 +46, 赵六 −46),
    # hand 3 at 5 (赵六 +170, 李四 −170)
    assert values == {
        "张三": (0, 0, 0, 0),
        "李四": (0, 34, 34, -136),
        "王五": (0, -34, 12, 12),
        "赵六": (0, 0, -46, 124),
    }


async def test_the_chart_prices_fractions_of_a_stake(table: Table) -> None:
    table.default_speaker = "张三"
    await table.play(f"开局 张三 李四 王五 赵六 底=1\n{HAND_1}\n改底 0.5\n{HAND_2}")
    # hand 1 at 1: 李四 +34, 王五 −34; hand 2 at 0.5: 王五 +23, 赵六 −23
    axis, values = await chart_values(table)
    assert axis == "元"
    assert values["王五"] == (0, -34, -11) and values["赵六"] == (0, 0, -23)
    board = players_of(await table.say("/score"))
    assert board[2:] == ["  西 王五：-11 元", "  北 赵六：-23 元"]


async def test_english_reads_money_alone_too(table: Table) -> None:
    await table.say("/lang en")
    table.default_speaker = "张三"
    await table.play(f"开局 张三 李四 王五 赵六 底=1\n{HAND_1}\n{HAND_2}\n改底 5\n{HAND_3}")
    summary = await table.say("/summary")
    assert "1. 赵六: money 124" in summary and "4. 李四: money -136" in summary
    assert "flowers (money" not in summary


async def test_the_board_turns_to_money_at_the_stake_change_and_for_who_left(table: Table) -> None:
    table.default_speaker = "张三"
    await table.play(f"开局 张三 李四 王五 赵六 底=1\n{HAND_1}\n{HAND_2}\n/swap 赵六 钱七")
    # 赵六 leaves with −46 (hands 1–2 at 1); one stake so far: flowers with their money
    assert "  赵六（已离座）：-46 花（-46 元）" in await table.say("/score")
    await table.say("改底 5")
    # hand 3, the hand being played, is for 5: the night mixes stakes from now on, before anything is
    # paid at 5, so the board does not change its form in the middle of a hand
    board = await table.say("/score")
    assert "  赵六（已离座）：-46 元" in board
    assert players_of(board) == ["  东 张三：0 元", "  南 李四：34 元", "  西 王五：12 元", "  北 钱七：0 元"]
