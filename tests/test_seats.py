"""Seats: undoing a join frees the seat; /unseat (admins, the opener) frees a seat with no event in
the open hand."""

from __future__ import annotations

from tests.harness import Table


async def test_undo_of_a_join_frees_the_seat(table: Table) -> None:
    table.language = "en"
    await table.say("Alice: /new Alice Bob Carol Dave")
    await table.say("Alice: /unseat Dave")
    assert "Eve takes the North seat" in await table.say("Eve: /join")
    assert "undid" in await table.say("Alice: /undo")
    assert "Frank takes the North seat" in await table.say("Frank: /join")


async def test_unseat_needs_the_opener_and_an_idle_seat(table: Table) -> None:
    table.language = "en"
    await table.say("Alice: /new Alice Bob Carol Dave")
    assert "only chat admins and whoever opened" in await table.say("Bob: /unseat Dave")
    await table.say("Dave: /flowergang")
    assert "Dave already has events in hand 1" in await table.say("Alice: /unseat Dave")
    await table.say("Alice: /draw")
    assert "the North seat is free" in await table.say("Alice: /unseat Dave")
    # Dave's flower gang (6 from each) stays his: the seat's balance is kept for whoever sits next
    assert "seats are still free" in await table.say("Alice: /flowergang")
    assert await table.balances() == {"Alice": -6, "Bob": -6, "Carol": -6, "": 18}


async def test_unseat_in_chinese(table: Table) -> None:
    table.default_speaker = "张三"
    await table.say("开局 张三 李四 王五 赵六")
    assert "赵六 离座" in await table.say("张三: 让座 赵六")
    assert "钱七 入座：北" in await table.say("钱七: 加入")
