"""A number never changes once given, across an upgrade too (issue #39, item 4).

The code before per-night numbers (commit 1877e7b, schema 6) showed a line's ledger row id as its
number, and the re-pricing row a correction books at another place took an id of its own. The
night in tests/fixtures/schema6_row_id_numbers.sqlite3 was played by that code (the script and what
it answered are next to it): `撤销 2` undid the 荒庄 that doubled hand 2, which re-priced 王五's win
on a row of its own (id 6), so the next lines were announced `✅ #7 李四 碰 张三` and
`✅ #8 赵六 花杠`. Today's code reads that night with those numbers, and a line typed after them
takes #9.

Money, worked by hand (docs/rules.md §4, §9): 王五's win off 李四, with the 荒庄 undone a plain hand: 跑 20
+ 砸 2 × 2 hard flowers + 缺一门 2 + 门清 20 = 46 (李四 → 王五); 赵六's 花杠: 6 from each other.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.chat.service import Referee
from bot.store.ledger import Ledger
from bot.store.schema import SCHEMA_VERSION
from tests.kit.harness import Table

FIXTURES = Path(__file__).parent / "fixtures"
OLD_NIGHT = FIXTURES / "schema6_row_id_numbers.sqlite3"
OLD_REPLIES = FIXTURES / "schema6_row_id_numbers.out"
CHAT = "console"  # the console's chat, where the older code played the night
HISTORY_LINE = re.compile(r"^#(\d+) \[第\d+盘\] [^：]+：(.+?)（张三）", re.MULTILINE)


def copy_of(fixture: Path, tmp_path: Path) -> Path:
    path = tmp_path / fixture.name
    shutil.copyfile(fixture, path)
    return path


@pytest.fixture
async def old_table(tmp_path: Path) -> AsyncIterator[Table]:
    ledger = await Ledger.open(copy_of(OLD_NIGHT, tmp_path))
    yield Table(Referee(ledger, rules_dir=tmp_path, charts_enabled=False), CHAT, default_speaker="张三")
    await ledger.close()


def history_numbers(history: str) -> dict[str, int]:
    """Each line's text as typed -> its number in /history."""
    return {text: int(number) for number, text in HISTORY_LINE.findall(history)}


def test_the_fixture_is_the_older_codes_and_it_announced_7_and_8() -> None:
    with sqlite3.connect(OLD_NIGHT) as connection:
        assert connection.execute("PRAGMA user_version").fetchone() == (6,)
        kinds = connection.execute("SELECT id, kind FROM events ORDER BY id").fetchall()
    assert (6, "correction") in kinds  # the re-pricing row that took an id of its own
    announced = OLD_REPLIES.read_text(encoding="utf-8")
    assert "✅ #7 李四 碰 张三" in announced and "✅ #8 赵六 花杠" in announced


async def test_the_history_lists_the_numbers_the_older_code_announced(old_table: Table) -> None:
    history = await old_table.say("/history")
    assert history_numbers(history) == {
        "开局 张三 李四 王五 赵六": 1,
        "荒庄": 2,
        "改底 2": 3,
        "王五 胡 李四 123m 456m 789m 234p 5p +5p 花2": 4,
        "撤销 2": 5,
        "李四 碰 张三": 7,  # not 6: the re-pricing row had taken 6
        "赵六 花杠": 8,
    }
    assert await old_table.referee.nights.ledger.schema_version() == SCHEMA_VERSION


async def test_undo_8_reverses_the_line_announced_as_8(old_table: Table) -> None:
    assert await old_table.balances() == {"张三": -6, "李四": -52, "王五": 40, "赵六": 18}
    reply = await old_table.say("撤销 8")
    assert "撤销了 #8：赵六 花杠" in reply
    assert await old_table.balances() == {"张三": 0, "李四": -46, "王五": 46, "赵六": 0}
    assert "没有 #6" in await old_table.say("撤销 6")  # the re-pricing row is no line


async def test_a_line_typed_after_them_takes_the_next_number_and_keeps_it_after_a_restart(
    old_table: Table,
) -> None:
    assert "✅ #9 王五 碰 李四" in await old_table.say("王五 碰 李四")
    assert "✅ #10 荒庄" in await old_table.say("荒庄")  # closes hand 2: a checkpoint of today's code
    old_table.referee.nights.forget(CHAT)  # a restart: the night is read from that checkpoint
    assert "✅ #11 李四 花杠" in await old_table.say("李四 花杠")
    assert "撤销了 #7：李四 碰 张三" in await old_table.say("撤销 7")  # a number the older code gave
    assert "撤销了 #11：李四 花杠" in await old_table.say("撤销 11")
    numbers = history_numbers(await old_table.say("/history"))
    assert [numbers[line] for line in ("赵六 花杠", "王五 碰 李四", "李四 花杠", "撤销 7", "撤销 11")] == [
        8,
        9,
        11,
        12,
        13,
    ]


async def test_a_night_numbered_per_night_by_schema_6_code_is_left_as_it_was(tmp_path: Path) -> None:
    """Schema 6 was also written by the first code with per-night numbers (its checkpoints are of
    codec 3 on): that night's numbers were per night already and stay so."""
    path = copy_of(OLD_NIGHT, tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE checkpoints SET version = '4:' || substr(version, 3)")
    ledger = await Ledger.open(path)
    try:
        table = Table(Referee(ledger, rules_dir=tmp_path, charts_enabled=False), CHAT, default_speaker="张三")
        numbers = history_numbers(await table.say("/history"))
        assert (numbers["李四 碰 张三"], numbers["赵六 花杠"]) == (6, 7)
    finally:
        await ledger.close()


async def test_a_new_night_in_an_upgraded_file_is_numbered_from_1(old_table: Table) -> None:
    await old_table.play("结算\n确认\n开局 张三 李四 王五 赵六")
    assert "✅ #2 赵六 花杠" in await old_table.say("赵六 花杠")
