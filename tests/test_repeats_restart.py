"""An unanswered repeat question outlives a restart: `再记一次` after the bot started again records the
held event, once; it still expires after 10 minutes and belongs to its hand. Money by hand (nanjing,
stake 1): a flower gang costs each other player 6."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from bot.chat.service import Referee
from tests.kit.harness import Table


@asynccontextmanager
async def started(path: Path, clock: Callable[[], float] | None = None) -> AsyncIterator[Table]:
    referee = await Referee.open(path, charts_enabled=False)
    if clock is not None:
        referee.services.clock = clock
    try:
        yield Table(referee, "group-1")
    finally:
        await referee.close()


async def ask_twice(table: Table) -> None:
    await table.say("/new A B C D")
    assert "✅" in await table.say("D: 花杠")  # #2: D +18, each other −6
    assert "和 #2 一样" in await table.say("D: 花杠")  # held: asked, nothing recorded


async def test_again_after_a_restart_records_the_held_event_once(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    async with started(path) as table:
        await ask_twice(table)
        assert await table.balances() == {"A": -6, "B": -6, "C": -6, "D": 18}
    async with started(path) as table:
        out = await table.say("A: 再记一次")
        assert "✅" in out
        # two flower gangs: D +36, each other −12
        assert await table.balances() == {"A": -12, "B": -12, "C": -12, "D": 36}
        assert "没有等着再记一次的事件" in await table.say("A: 再记一次")  # answered once
    async with started(path) as table:  # and not again after another restart
        assert "没有等着再记一次的事件" in await table.say("A: 再记一次")
        assert await table.balances() == {"A": -12, "B": -12, "C": -12, "D": 36}


async def test_a_dropped_question_stays_dropped_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    async with started(path) as table:
        await ask_twice(table)
        assert "好，不记（#2 已经记过了）" in await table.say("A: /again no")
    async with started(path) as table:
        assert "没有等着再记一次的事件" in await table.say("A: 再记一次")
        assert await table.balances() == {"A": -6, "B": -6, "C": -6, "D": 18}


async def test_a_question_kept_over_a_restart_still_expires(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    async with started(path) as table:
        await ask_twice(table)
        asked = table.referee.services.clock()
    async with started(path, clock=lambda: asked + 10 * 60 + 1) as table:  # 10 minutes and a second on
        out = await table.say("A: 再记一次")
        assert "这个问题过期了" in out and "✅" not in out
        assert await table.balances() == {"A": -6, "B": -6, "C": -6, "D": 18}


async def test_a_question_kept_over_a_restart_belongs_to_its_hand(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    async with started(path) as table:
        await ask_twice(table)
    async with started(path) as table:
        await table.say("A: 荒庄")  # the hand is over: the question with it
        assert "没有等着再记一次的事件" in await table.say("A: 再记一次")
        assert await table.balances() == {"A": -6, "B": -6, "C": -6, "D": 18}
