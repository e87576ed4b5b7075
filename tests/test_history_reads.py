"""The record shows what happened, never a guided flow's internal token line."""

from __future__ import annotations

import csv
import io

from tests.kit.flows import command_of, penalty_who_step
from tests.kit.harness import Table


async def test_history_shows_the_event_a_flow_line_stands_for(table: Table) -> None:
    await table.say("/new A B C D")
    who = await penalty_who_step(table)
    await table.say(f"A: {command_of(who, 'C')}")
    history = await table.say("/history")
    assert "~t" not in history
    # 跟牌 by C, told through the flow: the line reads as the penalty, named
    assert "跟牌" in history.splitlines()[-1] and "C" in history.splitlines()[-1]


async def test_rules_and_the_summary_show_the_stake_in_force(table: Table) -> None:
    await table.play("/new A B C D stake=1\n/stake 2")
    assert "每花 2" in await table.say("/rules")
    assert "每花 2" in await table.say("/summary")


async def test_every_figure_on_the_board_says_what_it_is(table: Table) -> None:
    await table.play("/new A B C D stake=2\nB: /gang C 5s")
    out = await table.say("/score")
    # B's exposed gang on C's discard: C pays 6 flowers, at 2 a flower 12
    assert "南 B：6 花（12 元）" in out and "西 C：-6 花（-12 元）" in out
    await table.say("/lang en")
    assert "B: 6 flowers (money 12)" in await table.say("/score")


async def test_changkaitou_boards_show_points_not_flowers(table: Table) -> None:
    await table.say("/new A B C D preset=changkaitou")
    score = await table.say("/score")
    # everyone starts from 1000 points (RULES: 敞开头 counts from a start), nothing played yet
    assert "东 A：1000 分（0 元）" in score and "花" not in score.split("\n", 1)[1]


async def test_a_doubled_hand_says_what_doubled_it(table: Table) -> None:
    out = await table.play("/new A B C D\n/draw")
    assert "⚠️ 下一盘比下胡（×2）：#2 荒庄" in out  # a drawn hand (#2) doubles the next (比下胡)


async def test_the_csv_shows_the_event_a_flow_line_stands_for(table: Table) -> None:
    await table.say("/new A B C D")
    who = await penalty_who_step(table)
    await table.say(f"A: {command_of(who, 'C')}")
    response = await table.respond("/export")
    assert response is not None
    text = response.attachments[0].data.decode("utf-8-sig")
    assert "~t" not in text and "跟牌" in text


async def test_the_csv_gives_a_fix_and_a_fix_of_it_the_hand_they_correct_as_history_does(table: Table) -> None:
    await table.say("/lang en")
    await table.play(
        """
        /new A B C D
        B: /gang C 5s
        C: /hu B 123m 456m 789m 234p 5p +5p flowers=2
        /fix 2 /gang D 5s
        /fix 4 /gang A 5s
        """
    )
    # #2 is hand 1's gang; both fixes are typed in hand 2 (C's win ended hand 1), #4 then replaced by #5
    history = await table.say("/history")
    assert "#4 [hand 1] fix" in history and "#5 [hand 1] fix" in history
    response = await table.respond("/export")
    assert response is not None
    rows = list(csv.DictReader(io.StringIO(response.attachments[0].data.decode("utf-8-sig"))))
    fixes = {row["number"]: row["hand"] for row in rows if row["kind"] == "fix"}
    assert fixes == {"4": "1", "5": "1"}
