"""A wind named alone in a reply is named in the chat's language: 东 南 西 北 in Simplified Chinese,
東 南 西 北 in Traditional, E S W N in English (the catalogs' `tiles.wind_*`). A suited tile keeps its
notation (`9p`), and so does a whole hand; buttons and the log keep notation too. No money moves in
these cases: a pong costs nobody anything."""

from __future__ import annotations

import pytest

from bot.text.replies import Reply
from bot.views.said import tile_word
from tests.kit.harness import Table

CHINESE = "/new 张三 李四 王五 赵六"


async def test_a_ponged_wind_is_named_in_simplified_chinese(table: Table) -> None:
    await table.say(CHINESE)
    assert await table.say("李四: 碰 王五 东") == "✅ #2 李四 碰 王五 东"
    assert await table.say("李四: 碰 王五 东") == "这一条已经记过了：#2（要改用 /fix 2，要删用 /undo 2）"
    assert "东 已经在 李四 的碰或杠里了" in await table.say("王五: 杠 李四 东")  # the engine's refusal too
    assert "✅ #3 张三 碰 王五 9p" in await table.say("张三: 碰 王五 9p")  # a suited tile stays notation
    assert "碰 王五 东（李四）" in await table.say("/history")  # the log shows the line as typed


async def test_a_ponged_wind_is_named_in_traditional_chinese(table: Table) -> None:
    await table.say(CHINESE)
    await table.say("/lang zh-Hant")
    assert await table.say("李四: 碰 王五 北") == "✅ #2 李四 碰 王五 北"
    assert await table.say("赵六: 碰 李四 東") == "✅ #3 赵六 碰 李四 東"
    assert await table.say("张三: 碰 赵六 東") == "東 已經在 赵六 的碰或槓裡了：什麼都沒有記錄"


async def test_in_english_a_wind_keeps_its_letter(table: Table) -> None:
    await table.say("/new Alice Bob Carol Dave")
    await table.say("/lang en")
    assert await table.say("Bob: pong Carol E") == "✅ #2 Bob ponged E on Carol's discard"
    assert "Bob already holds E as a pong or gang" in await table.say("Carol: gang Bob E")


@pytest.mark.parametrize("notation", ["9p", "123m456m789m2p+2p", "EEE", ""])
def test_only_a_single_wind_letter_becomes_a_name(notation: str) -> None:
    assert tile_word(notation) == notation


def test_each_wind_letter_is_its_catalog_name() -> None:
    assert [tile_word(letter) for letter in "ESWN"] == [Reply(f"tiles.wind_{w}") for w in "eswn"]
