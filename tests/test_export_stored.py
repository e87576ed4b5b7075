"""`/export all` from each closed night's stored rows (bot/store/exports.py): written at the close,
used while the night's newest event is the one they were built after, and read again when a reopen or
a correction came since, or when they are of other code. The file is the same either way.

Figures by hand (preset nanjing, stake 1): a flower gang (花杠) is 6 flowers from each of the three
others (docs/rules.md, 花杠), so 6 money at a stake of 1."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from bot.text.replies import Response
from bot.views.export import CHAT_HEADER, ExportedNight, ExportRow, cell, chat_csv
from bot.views.lines import format_money
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.telegram import ALICE, BOB, Running

TWO_NIGHTS = """
张三: 开局 张三 李四 王五 赵六
王五: 花杠
李四: 花杠
张三: 结算
张三: 确认
张三: 开局 张三 李四 王五 赵六
赵六: 花杠
张三: 结算
张三: 确认
"""


def nights_csv(response: Response | None) -> list[tuple[str, ...]]:
    assert response is not None
    text = response.attachments[0].data.decode("utf-8-sig")
    return [(r["night"], r["hand"], r["event"], r["person"], r["money"]) for r in csv.DictReader(io.StringIO(text))]


async def stored_rows(table: Table) -> dict[int, tuple[str, int]]:
    db = table.referee.nights.ledger._db
    rows = await db.execute_fetchall("SELECT night_id, version, last_event_id FROM night_exports ORDER BY night_id")
    return {int(r[0]): (str(r[1]), int(r[2])) for r in rows}


async def test_a_night_s_rows_are_stored_at_its_close_and_export_as_a_night_read_again(table: Table) -> None:
    await table.play(TWO_NIGHTS)
    assert len(await stored_rows(table)) == 2  # each night's, written by its 确认
    from_stored = nights_csv(await table.respond("张三: /export all"))
    db = table.referee.nights.ledger._db
    await db.execute("DELETE FROM night_exports")  # as a ledger written by older code
    await db.commit()
    read_again = nights_csv(await table.respond("张三: /export all"))
    assert from_stored == read_again
    # night 1: 王五 +18 (line #2), 李四 +18 (line #3); night 2: 赵六 +18; each payer -6
    assert sum(int(row[4]) for row in read_again if row[3] == "王五") == 18 - 6 - 6
    assert len(await stored_rows(table)) == 2  # and stored again for the next export


async def test_a_night_read_again_for_stats_stores_its_export_rows_too(table: Table) -> None:
    """One reading of a night serves both: a ledger of older code pays for it once."""
    await table.play(TWO_NIGHTS)
    before = nights_csv(await table.respond("张三: /export all"))
    db = table.referee.nights.ledger._db
    for stored in ("night_exports", "night_people", "night_figures"):
        await db.execute(f"DELETE FROM {stored}")
    assert await stored_rows(table) == {}
    assert "本群共 2 局" in await table.say("张三: /stats")
    assert len(await stored_rows(table)) == 2
    assert nights_csv(await table.respond("张三: /export all")) == before


async def test_a_night_reopened_and_corrected_is_exported_as_it_now_is(table: Table) -> None:
    await table.play(TWO_NIGHTS)
    before = nights_csv(await table.respond("张三: /export all"))
    assert ("2", "1", "2", "赵六", "6") in before
    # night 2 reopened, its 花杠 (#2) undone, closed again: the undo (#5) takes the 6s back
    await table.play("张三: /reopen\n张三: 撤销 2\n张三: 结算\n张三: 确认")
    after = nights_csv(await table.respond("张三: /export all"))
    night_2 = [row for row in after if row[0] == "2"]
    assert ("2", "1", "5", "赵六", "-6") in night_2 and len(night_2) == 12
    assert all(sum(int(r[4]) for r in night_2 if r[3] == who) == 0 for who in ("张三", "李四", "王五", "赵六"))
    assert [row for row in after if row[0] == "1"] == [row for row in before if row[0] == "1"]


async def test_rows_of_other_code_are_not_used(table: Table) -> None:
    await table.play(TWO_NIGHTS)
    db = table.referee.nights.ledger._db
    await db.execute('UPDATE night_exports SET version = \'0:other\', rows = \'[[1,2,"x","y",999,"pong"]]\'')
    await db.commit()
    rows = nights_csv(await table.respond("张三: /export all"))
    assert all(row[3] not in ("x", "y") for row in rows) and len(rows) == 3 * 2 * 3  # three 花杠, 3 payers each
    assert {version for version, _ in (await stored_rows(table)).values()} != {"0:other"}


def test_the_rows_are_written_as_the_csv_module_writes_them() -> None:
    """Names with a comma, a quote, a line break or a formula's first character, as csv.writer would."""
    names = {"a,b": "A,B", 'q"x': 'Q"X', "=sum": "=SUM(1)", "line": "two\nlines", "plain": "张三"}
    rows: list[ExportRow] = [(1, 2, payer, "plain", 650, "flower_gang") for payer in names if payer != "plain"]
    rows.append((2, None, "plain", "a,b", -125, "pao"))
    night = ExportedNight(7, "2026-12-01", rows, names)
    expected = io.StringIO()
    reference = csv.writer(expected)
    reference.writerow(CHAT_HEADER)
    for hand, number, payer, payee, cents, reason in rows:
        for name, amount in ((payee, cents), (payer, -cents)):
            person = cell(names.get(name, name))
            reference.writerow(
                [7, "2026-12-01", hand, "" if number is None else number, person, format_money(amount), reason]
            )
    assert chat_csv([night]) == ("\ufeff" + expected.getvalue()).encode("utf-8")


async def test_in_telegram_the_file_on_disk_goes_out_as_a_document(fake: FakeTelegram, tmp_path: Path) -> None:
    """`/export all` through PTB's real HTTP stack: the nights' CSV, written to a file as it was read,
    is uploaded whole, and the tab's beside it."""
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        await bot.say(BOB, "花杠")
        await bot.say(ALICE, "/summary")
        await bot.say(ALICE, "确认")
        await bot.say(ALICE, "/export all")
        await fake.wait_for(lambda: len(fake.sent("sendDocument")) == 2)
    files = {c.params["document"]["filename"]: c.params["document"]["size"] for c in fake.sent("sendDocument")}
    # the header, then bob's 花杠 (line #2): 6 from each of alice, carol and dave, a payee's row and
    # a payer's row each (docs/rules.md, 花杠), every byte of it uploaded
    day = "2026-12-08"  # (its length: the day itself is the test machine's)
    rows = [
        f"1,{day},1,2,{who},{amount},flower_gang\r\n"
        for p in ("alice", "carol", "dave")
        for who, amount in (("bob", 6), (p, -6))
    ]
    expected = len(("\ufeff" + ",".join(CHAT_HEADER) + "\r\n" + "".join(rows)).encode())
    assert [size for name, size in files.items() if name.startswith("nights-")] == [expected]
    assert any(name.startswith("tab-") for name in files) and not fake.refused
