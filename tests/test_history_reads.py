"""The record shows what happened, never a guided flow's internal token line."""

from __future__ import annotations

from tests.harness import Table
from tests.test_flow_once import command_of, penalty_who_step


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
