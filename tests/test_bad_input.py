"""Bad input always gets a clear, localized error and changes nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.chat.service import Referee
from bot.store.ledger import Ledger
from bot.store.schema import _MIGRATIONS, SCHEMA_VERSION
from tests.kit.harness import Table

NEW = "/new Alice Bob Carol Dave"


async def opened(table: Table) -> Table:
    await table.play(f"{NEW}\nBob: /pong Carol 7p")
    return table


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Bob: /pong Zed", "没有这个玩家：Zed。在座的有：Alice, Bob, Carol, Dave"),
        ("Bob: /hu Carol 0m23m456m789m234p5p+5p flowers=4", "没有这张牌：0m"),
        ("Bob: /hu Carol 11111m 22p 33p 44s +4s flowers=4", "1m 出现了 5 张"),
        ("Dave: /hu Carol 123m 456m 789m 234p +5p flowers=4", "手牌共 13 张"),
        ("Dave: /hu Carol 123m 456m 789m 235p 5p +5p flowers=4", "不成胡"),
        ("Bob: /hu Carol 11p 567s 79s [EEE] [444p] +8s flowers=4", "#2 碰 7p 不在胡的牌里"),
        ("Bob: /hu Carol 11p 567s 79s 444p [777p] +8s flowers=3", "小胡要至少 4 个硬花"),
        ("Bob: /hu Carol 123m 456m 789m 234p 5p +5p", "请给出硬花数"),
        ("Bob: /hu Carol 中 123m 456m 789m 234p +5p flowers=1", "是硬花"),
        ("Bob: /pong Bob", "不能碰/杠自己打的牌"),
        ("Zed: /pong Carol", "只有在座的玩家"),
        ("/new Eve Frank Gina Hal", "已经有一局在进行"),
        ("Bob: /undo 999", "没有 #999"),
        ("Bob: /gang add 9s", "补杠要先有碰"),
        ("Bob: /penalty Carol", "自定义罚分要写数目"),
        ("Bob: /penalty Carol 1.5", "罚分数目不对：1.5（要写整数花数"),  # not "too many names"
    ],
)
async def test_bad_input_is_explained_and_records_nothing(table: Table, line: str, expected: str) -> None:
    await opened(table)
    before = await table.row_counts()
    balances = await table.balances()
    out = await table.say(line)
    assert expected in out
    assert await table.row_counts() == before
    assert await table.balances() == balances


async def test_english_errors_when_the_chat_speaks_english(table: Table) -> None:
    await opened(table)
    await table.say("/lang en")
    assert "no player Zed. At the table: Alice, Bob, Carol, Dave" in await table.say("Bob: /pong Zed")
    assert "there is no tile 0m" in await table.say("Bob: /hu Carol 0m flowers=1")


async def test_event_with_no_night_open(table: Table) -> None:
    before = await table.row_counts()
    assert "没有进行中的牌局" in await table.say("Bob: /pong Carol")
    assert await table.row_counts() == before


async def test_new_night_needs_distinct_names(table: Table) -> None:
    assert "名字重复了" in await table.say("/new Alice Bob Bob Dave")
    assert "底分不对" in await table.say("/new Alice Bob Carol Dave stake=abc")
    assert "没有规则 shanghai" in await table.say("/new Alice Bob Carol Dave preset=shanghai")
    assert await table.row_counts() == (0, 0, 0)


async def test_a_repeated_update_is_recorded_once(table: Table) -> None:
    await table.say(NEW, update_key="u-1")
    await table.say("Carol: /gang self 3m", update_key="u-2")
    before = await table.row_counts()
    assert await table.say("Carol: /gang self 3m", update_key="u-2") == ""
    assert await table.row_counts() == before
    assert (await table.balances())["Carol"] == 9


async def test_chats_never_see_each_other(referee: Referee) -> None:
    first, second = Table(referee, "group-a"), Table(referee, "group-b")
    await first.play(f"{NEW}\nCarol: /gang self 3m")
    assert "还没有开局" in await second.say("/score")
    assert "没有进行中的牌局" in await second.say("Carol: /gang self 3m")
    await second.play("/new Eve Frank Gina Hal\nEve: /flowergang")
    assert await first.balances() == {"Alice": -3, "Bob": -3, "Carol": 9, "Dave": -3}
    assert await second.balances() == {"Eve": 18, "Frank": -6, "Gina": -6, "Hal": -6}


async def test_plain_chat_is_ignored(table: Table) -> None:
    await opened(table)
    assert await table.say("Bob: hello everyone") == ""
    assert await table.say("Bob: pongs are fun") == ""
    assert await table.say("Bob: gang of four is a band") == ""


async def test_schema_version_is_set(ledger: Ledger) -> None:
    assert await ledger.schema_version() == SCHEMA_VERSION


async def test_an_old_database_is_migrated_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as connection:  # a version-1 database, as an older release left it
        connection.executescript(_MIGRATIONS[1] + "; PRAGMA user_version = 1;")
        connection.execute(
            "INSERT INTO nights (chat_id, preset_name, preset_json, stake_cents, players, dealer, opened_by)"
            " VALUES ('c', 'nanjing', '{}', 100, '[]', 0, 'x')"
        )
    ledger = await Ledger.open(path)
    try:
        assert await ledger.schema_version() == SCHEMA_VERSION
        assert (await ledger.nights("c"))[0].preset_name == "nanjing"
    finally:
        await ledger.close()
