"""Each closed night's figures per person as plain rows (`night_people`, schema 10): written with the
night's stored figures at its close, written from those figures for a night closed by older code, and
summed by the nights' day for a period (`Ledger.period_sums`). People, not seats: after a 换人 the one
who left and the newcomer have a row each.

Figures by hand (preset nanjing, stake 1): a flower gang (花杠) is 6 flowers from each of the three
others (RULES: 花杠); a drawn hand (荒庄) moves no money and ends the hand."""

from __future__ import annotations

import sqlite3

import pytest

from bot.night.night import Night
from bot.night.nights import Nights
from bot.store.rows import NightRow, PersonNightRow
from tests.kit.harness import Table

ONE_NIGHT = "张三: 开局 张三 李四 王五 赵六\n王五: 花杠\n张三: /draw\n张三: 结算\n张三: 确认"


async def people_rows(table: Table) -> list[tuple[int, str, int, int, int, int, int, int, int]]:
    db = table.referee.nights.ledger._db
    rows = await db.execute_fetchall(
        "SELECT night_id, person, amount, money_cents, hands, wins, self_draws, deal_ins, biggest"
        " FROM night_people ORDER BY night_id, person"
    )
    return [tuple(int(v) if isinstance(v, int) else v for v in r) for r in rows]  # type: ignore[misc]


async def set_day(table: Table, night_id: int, day: str) -> None:
    def write(db: sqlite3.Connection) -> None:
        db.execute("UPDATE nights SET created_at = ? WHERE id = ?", (f"{day}T20:00:00.000Z", night_id))
        db.execute("UPDATE night_people SET day = ? WHERE night_id = ?", (day, night_id))

    await table.referee.nights.ledger._writer.run(write)


async def test_a_closed_night_stores_a_row_per_person(table: Table) -> None:
    await table.play("张三: 开局 张三 李四 王五 赵六\n王五: 花杠\n张三: /draw\n张三: 结算")
    assert await people_rows(table) == []  # open: nothing stored
    await table.play("张三: 确认")
    # 王五 +18 flowers, each other -6 (at 1 a flower: 18 and -6 money); one hand each (the 荒庄), no wins
    assert await people_rows(table) == [
        (1, "n:张三", -6, -600, 1, 0, 0, 0, 0),
        (1, "n:李四", -6, -600, 1, 0, 0, 0, 0),
        (1, "n:王五", 18, 1800, 1, 0, 0, 0, 0),
        (1, "n:赵六", -6, -600, 1, 0, 0, 0, 0),
    ]


async def test_after_a_swap_the_one_who_left_and_the_newcomer_have_a_row_each(table: Table) -> None:
    await table.play(
        "张三: 开局 张三 李四 王五 赵六\n王五: 花杠\n张三: 换人 赵六 钱七\n钱七: 花杠\n张三: 结算\n张三: 确认"
    )
    # 王五's 花杠: 张三 李四 赵六 -6 each; then 钱七's: 张三 李四 王五 -6 each. No hand ended.
    assert await people_rows(table) == [
        (1, "n:张三", -12, -1200, 0, 0, 0, 0, 0),
        (1, "n:李四", -12, -1200, 0, 0, 0, 0, 0),
        (1, "n:王五", 12, 1200, 0, 0, 0, 0, 0),
        (1, "n:赵六", -6, -600, 0, 0, 0, 0, 0),
        (1, "n:钱七", 18, 1800, 0, 0, 0, 0, 0),
    ]


async def test_a_night_closed_by_older_code_gets_its_rows_from_its_figures(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    await table.play(ONE_NIGHT)
    before = await people_rows(table)
    await table.referee.nights.ledger._writer.run(lambda db: db.execute("DELETE FROM night_people"))
    loaded = Nights.load

    async def no_folding(self: Nights, row: NightRow, history: bool = True) -> Night:
        if history:
            raise AssertionError("a closed night with stored figures was folded again")
        return await loaded(self, row, history)

    monkeypatch.setattr(Nights, "load", no_folding)
    assert "王五：+18 元" in await table.say("张三: 账本")
    assert await people_rows(table) == before and len(before) == 4


async def test_a_period_sums_its_nights_by_day_and_leaves_a_reopened_night_out(table: Table) -> None:
    for _ in range(3):
        await table.play(ONE_NIGHT)
    await set_day(table, 1, "2026-01-10")
    await set_day(table, 2, "2026-02-10")
    await set_day(table, 3, "2026-02-20")
    ledger = table.referee.nights.ledger
    february = dict(await ledger.history.period_sums(table.chat_id, "2026-02-01", "2026-02-28"))
    # nights 2 and 3: 王五 +18 twice = 36 flowers, 3600 cents, two hands; the others -12
    assert february["n:王五"] == PersonNightRow(2, "n:王五", 36, 3600, 2, 0, 0, 0, 0)
    assert february["n:张三"] == PersonNightRow(2, "n:张三", -12, -1200, 2, 0, 0, 0, 0)
    assert set(february) == {"n:张三", "n:李四", "n:王五", "n:赵六"}
    everything = dict(await ledger.history.period_sums(table.chat_id, "2026-01-01", "2026-12-31"))
    assert everything["n:王五"].amount == 54 and everything["n:王五"].night_id == 3
    await table.say("张三: /reopen")  # night 3 is open again: its rows stand for nothing now
    february = dict(await ledger.history.period_sums(table.chat_id, "2026-02-01", "2026-02-28"))
    assert february["n:王五"] == PersonNightRow(1, "n:王五", 18, 1800, 1, 0, 0, 0, 0)
