"""Seats: undoing a join frees the seat; /unseat (admins, the opener) frees a seat with no event in
the open hand."""

from __future__ import annotations

from tests.kit.harness import Table


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
    # Dave's flower gang (6 from each of the three others) stays his when he stands up
    assert "seats are still free" in await table.say("Alice: /flowergang")
    assert (await table.balances())["Dave"] == 18
    # whoever takes the seat starts from zero, as after a 换人
    await table.say("Eve: /join")
    assert await table.balances() == {"Alice": -6, "Bob": -6, "Carol": -6, "Dave": 18, "Eve": 0}
    # hand 2 follows a draw, so it is 比下胡: 6 × 2 = 12 from each of Alice, Bob, Carol (Dave has left)
    await table.say("Eve: /flowergang")
    assert await table.balances() == {"Alice": -18, "Bob": -18, "Carol": -18, "Dave": 18, "Eve": 36}


async def test_a_join_by_mistake_then_unseat_leaves_no_trace_in_the_balances(table: Table) -> None:
    table.language = "en"
    await table.say("Alice: /new Alice Bob Carol")
    await table.say("Mallory: /join")
    await table.say("Alice: /unseat Mallory")
    await table.say("Dave: /join")
    await table.say("Dave: /flowergang")
    assert await table.balances() == {"Alice": -6, "Bob": -6, "Carol": -6, "Dave": 18}


async def test_unseat_in_chinese(table: Table) -> None:
    table.default_speaker = "张三"
    await table.say("开局 张三 李四 王五 赵六")
    assert "赵六 离座" in await table.say("张三: 让座 赵六")
    assert "钱七 入座：北" in await table.say("钱七: 加入")
