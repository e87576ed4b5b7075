"""A name the seat had earlier tonight is answered, never dropped as talk.

Players keep typing the old name after 改名 (rename) and the name of the one who left at a 换人
(swap): `杠 王五 3s` after `改名 王五 王老五` is a command but for that one name, so it gets the
near-command's hint with the seat's name now and the mended line as a button. Nothing is recorded
until the button is pressed. The slash form says it too, instead of "no player Carol".

Money by hand (docs/rules.md §4, nanjing, the opening stake 1 a flower, hand 1 not doubled): an exposed
gang 直杠 by A on B's discard is paid B → A, 6 flowers.
"""

from __future__ import annotations

from tests.kit.harness import Table

CHINESE = "/new 张三 李四 王五 赵六"
ENGLISH = "/new Alice Bob Carol Dave"


async def test_a_renamed_players_old_name_gets_the_hint_and_the_button(table: Table) -> None:
    await table.say(CHINESE)
    assert "✅" in await table.say("王五: 改名 王五 王老五")
    before = await table.row_counts()
    response = await table.respond("李四: 杠 王五 3s")
    assert response is not None and response.refused and not response.recorded
    assert "王五 已改名为 王老五：是「杠 王老五 3s」吗？" in await table.say("李四: 杠 王五 3s")
    # 李四 (#1, the speaker) made the gang on 王老五's (#2) discard
    assert [(c.label.params["line"], c.command) for c in response.choices] == [("杠 王老五 3s", "/gang #1 #2 3s")]
    assert "王五 已改名为 王老五：是「碰 王老五」吗？" in await table.say("李四: 碰 王五")
    assert await table.row_counts() == before
    assert await table.balances() == {"张三": 0, "李四": 0, "王老五": 0, "赵六": 0}
    assert "✅" in await table.say(f"张三: {response.choices[0].command}")  # whoever presses it
    # the exposed gang: 王老五 → 李四, 6 flowers
    assert await table.balances() == {"张三": 0, "李四": 6, "王老五": -6, "赵六": 0}


async def test_a_renamed_players_old_name_in_english(table: Table) -> None:
    await table.say("/lang en")
    await table.say(ENGLISH)
    await table.say("Carol: /rename Carol Caroline")
    before = await table.row_counts()
    response = await table.respond("Bob: pong Carol")
    assert response is not None and response.refused
    assert "Carol is Caroline now: did you mean “pong Caroline”?" in await table.say("Bob: pong Carol")
    assert [(c.label.params["line"], c.command) for c in response.choices] == [("pong Caroline", "/pong #1 #2")]
    assert await table.row_counts() == before
    assert "✅" in await table.say(f"Bob: {response.choices[0].command}")
    nights, events, payments = await table.row_counts()
    assert (nights, events, payments) == (before[0], before[1] + 1, before[2])  # a pong: no money
    # and a gang by its old name, pressed: Caroline → Bob, 6 flowers
    gang = await table.respond("Bob: gang Carol 7p")
    assert gang is not None and [c.command for c in gang.choices] == ["/gang #1 #2 7p"]
    await table.say(f"Bob: {gang.choices[0].command}")
    assert await table.balances() == {"Alice": 0, "Bob": 6, "Caroline": -6, "Dave": 0}


async def test_the_one_who_left_at_a_swap_gets_the_newcomers_name(table: Table) -> None:
    await table.say(CHINESE)
    assert "✅" in await table.say("张三: 换人 赵六 钱七")
    before = await table.row_counts()
    response = await table.respond("李四: 杠 赵六 4s")
    assert response is not None and response.refused and not response.recorded
    assert "赵六 已换成 钱七：是「杠 钱七 4s」吗？" in await table.say("李四: 杠 赵六 4s")
    assert [c.command for c in response.choices] == ["/gang #1 #3 4s"]
    assert await table.row_counts() == before
    await table.say(f"李四: {response.choices[0].command}")
    # 钱七 fed the gang: 钱七 → 李四, 6; 赵六 left at 0 and keeps it
    balances = await table.balances()
    assert (balances["李四"], balances["钱七"], balances["张三"], balances["王五"]) == (6, -6, 0, 0)
    assert balances.get("赵六", 0) == 0


async def test_the_slash_form_names_the_seats_name_now(table: Table) -> None:
    await table.say("/lang en")
    await table.say(ENGLISH)
    await table.say("Carol: /rename Carol Caroline")
    before = await table.row_counts()
    response = await table.respond("Bob: /gang Carol 3m")
    assert response is not None and response.refused and not response.recorded
    out = await table.say("Bob: /gang Carol 3m")
    assert "Carol is Caroline now: did you mean “/gang Caroline 3m”?" in out
    assert [(c.label.params["line"], c.command) for c in response.choices] == [("/gang Caroline 3m", "/gang #1 #2 3m")]
    assert await table.row_counts() == before
    await table.say(f"Alice: {response.choices[0].command}")  # Bob's gang, whoever presses
    assert await table.balances() == {"Alice": 0, "Bob": 6, "Caroline": -6, "Dave": 0}
    # a name never seated tonight is still "no player"
    assert "no player Zed" in await table.say("Bob: /gang Zed 3m")


async def test_a_name_seated_again_is_no_former_name(table: Table) -> None:
    await table.say(CHINESE)
    await table.say("王五: 改名 王五 王老五")
    await table.say("王老五: 改名 王老五 王五")
    before = await table.row_counts()
    assert "✅" in await table.say("李四: 碰 王五")  # 王五 is seated again: the line records
    assert (await table.row_counts())[1] == before[1] + 1
    assert "王老五 已改名为 王五：是「碰 王五」吗？" in await table.say("李四: 碰 王老五")


async def test_an_old_name_before_the_command_word_is_answered_too(table: Table) -> None:
    await table.say(CHINESE)
    await table.say("王五: 改名 王五 王老五")
    before = await table.row_counts()
    response = await table.respond("李四: 王五 杠 张三 5s")  # 王老五 made the gang on 张三's discard
    assert response is not None and response.refused
    assert [c.command for c in response.choices] == ["/gang #2 张三 5s"]  # the actor named: no seat added
    assert await table.respond("李四: 王五 杠 张三 5s 吧") is None  # talk stays silent
    assert await table.row_counts() == before
    await table.say(f"赵六: {response.choices[0].command}")
    assert await table.balances() == {"张三": -6, "李四": 0, "王老五": 6, "赵六": 0}


async def test_a_seat_freed_and_joined_is_as_good_as_a_swap(table: Table) -> None:
    await table.say(f"张三: {CHINESE}")  # 张三 opened the night: may free a seat
    await table.say("张三: /unseat 赵六")
    assert "孙八" in await table.say("孙八: /join")
    response = await table.respond("李四: 碰 赵六")
    assert response is not None and response.refused
    assert "赵六 已换成 孙八：是「碰 孙八」吗？" in await table.say("李四: 碰 赵六")
    assert [c.command for c in response.choices] == ["/pong #1 #3"]
