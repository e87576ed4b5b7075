"""The month is the group's month (bot/chat/zones.py): a night counts on the day it was opened on in the
group's time zone (Asia/Shanghai unless the operator's TIME_ZONE or the group's /tz says otherwise),
in /stats periods, "this month" and /export all's dates. The ledger keeps UTC.

The night: a 花杠 by 王五, 6 flowers from each of the three others (docs/rules.md, 花杠), opened at
17:30 UTC on 30 November 2026, which is 01:30 on 1 December in Nanjing (UTC+8)."""

from __future__ import annotations

import csv
import io
import sqlite3
from datetime import UTC, datetime

import pytest

from bot.chat.zones import local_day, utc_span, zone_name
from bot.telegram.settings import BadSetting, Settings
from tests.kit.harness import Table

NIGHT = "张三: 开局 张三 李四 王五 赵六\n王五: 花杠\n张三: 结算\n张三: 确认"
OPENED = "2026-11-30T17:30:00.000Z"


async def night_after_midnight_in_nanjing(table: Table) -> None:
    assert "🔒" in await table.play(NIGHT)

    def write(db: sqlite3.Connection) -> None:
        db.execute("UPDATE nights SET created_at = ?", (OPENED,))

    await table.referee.nights.ledger._writer.run(write)
    table.referee.services.clock = lambda: datetime(2026, 11, 30, 18, tzinfo=UTC).timestamp()  # 02:00 on 1 December


def nights_in(answer: str) -> str:
    return answer.splitlines()[0]


async def test_a_night_opened_after_midnight_in_nanjing_is_december_s(table: Table) -> None:
    await night_after_midnight_in_nanjing(table)
    december = await table.say("张三: /stats 2026-12")
    assert "1 局" in nights_in(december) and "王五" in december
    assert "Asia/Shanghai" in december  # /stats says whose days these are
    assert "没有结算确认过的局" in await table.say("张三: /stats 2026-11")
    assert nights_in(await table.say("张三: /stats 本月")).startswith("📊 本月（2026-12）：1 局")  # 1 December there


async def test_a_group_in_another_zone_sets_its_own(table: Table) -> None:
    await night_after_midnight_in_nanjing(table)
    assert "UTC" in await table.say("张三: /tz utc")
    november = await table.say("张三: /stats 2026-11")
    assert "1 局" in nights_in(november) and "按 UTC 时区计日" in november
    assert "没有结算确认过的局" in await table.say("张三: /stats 2026-12")
    assert nights_in(await table.say("张三: /stats 本月")).startswith("📊 本月（2026-11）：1 局")  # 18:00, 30 Nov UTC
    assert "Europe/Berlin" in await table.say("张三: /tz europe/berlin")  # said as the zone database names it
    assert "本群按 Europe/Berlin 时区计日" in await table.say("张三: /tz")


async def test_a_name_that_is_no_zone_is_refused_and_changes_nothing(table: Table) -> None:
    await night_after_midnight_in_nanjing(table)
    assert "没有这个时区：Mars/Olympus" in await table.say("张三: /tz Mars/Olympus")
    assert "没有这个时区" in await table.say("张三: /tz ../../etc/passwd")
    assert "本群按 Asia/Shanghai 时区计日" in await table.say("张三: /tz")


async def test_in_english_too(table: Table) -> None:
    await night_after_midnight_in_nanjing(table)
    await table.say("张三: /lang en")
    assert "No such time zone: Nowhere" in await table.say("张三: /tz Nowhere")
    assert "counted in America/New_York" in await table.say("张三: /tz America/New_York")


async def test_export_all_dates_a_night_by_the_group_s_day(table: Table) -> None:
    await night_after_midnight_in_nanjing(table)
    response = await table.respond("张三: /export all")
    assert response is not None
    rows = list(csv.DictReader(io.StringIO(response.attachments[0].data.decode("utf-8-sig"))))
    assert {row["date"] for row in rows} == {"2026-12-01"}
    await table.say("张三: /tz UTC")
    response = await table.respond("张三: /export all")
    assert response is not None
    rows = list(csv.DictReader(io.StringIO(response.attachments[0].data.decode("utf-8-sig"))))
    assert {row["date"] for row in rows} == {"2026-11-30"}


def test_a_zone_s_days_as_the_ledger_s_utc_times() -> None:
    assert local_day(OPENED, "Asia/Shanghai").isoformat() == "2026-12-01"
    assert local_day(OPENED, "UTC").isoformat() == "2026-11-30"
    first, last = local_day("2026-12-01T00:00:00.000Z", "UTC"), local_day("2026-12-31T00:00:00.000Z", "UTC")
    assert utc_span(first, last, "Asia/Shanghai") == ("2026-11-30T16:00:00.000Z", "2026-12-31T16:00:00.000Z")
    assert zone_name("ASIA/SHANGHAI") == "Asia/Shanghai" and zone_name("") is None and zone_name("x" * 500) is None


def test_the_operator_s_zone_is_a_checked_setting() -> None:
    assert Settings.from_environment({}).time_zone == "Asia/Shanghai"
    assert Settings.from_environment({"TIME_ZONE": "Europe/Berlin"}).time_zone == "Europe/Berlin"
    with pytest.raises(BadSetting, match="TIME_ZONE"):
        Settings.from_environment({"TIME_ZONE": "Mars/Olympus"})
