"""Per-night figures: stored when a night closes, read by /stats and /tab instead of folding the night,
rebuilt when the night is reopened or corrected, when the code's version changes, or when missing.
Persons across nights: an account where a seat was bound, every name a player had otherwise.

Figures by hand (preset nanjing): a flower gang (花杠) is 6 flowers from each of the three others."""

from __future__ import annotations

import sqlite3

import pytest

from bot.chat.service import Incoming, Referee
from bot.night.night import Night
from bot.night.nights import Nights
from bot.night.seating import Speaker
from bot.store.rows import NightRow
from bot.text.replies import render_response
from bot.views import stats
from tests.kit.harness import Table


async def figures_rows(table: Table) -> list[tuple[int, str, int]]:
    db = table.referee.nights.ledger._db
    rows = await db.execute_fetchall("SELECT night_id, version, last_event_id FROM night_figures ORDER BY night_id")
    return [(int(r[0]), str(r[1]), int(r[2])) for r in rows]


async def newest_event(table: Table, night_id: int) -> int:
    db = table.referee.nights.ledger._db
    rows = list(await db.execute_fetchall("SELECT MAX(id) FROM events WHERE night_id = ?", (night_id,)))
    return int(rows[0][0])


async def test_a_night_stores_its_figures_when_it_closes(table: Table) -> None:
    await table.play("张三: 开局 张三 李四 王五 赵六\n王五: 花杠\n张三: 结算")
    assert await figures_rows(table) == []  # open: nothing stored
    await table.say("张三: 确认")
    ((night_id, version, after),) = await figures_rows(table)
    assert version == stats.FIGURES_VERSION and after == await newest_event(table, night_id)


async def test_stats_read_closed_nights_without_folding_them(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    for _ in range(3):
        await table.play("张三: 开局 张三 李四 王五 赵六\n王五: 花杠\n张三: 结算\n张三: 确认")

    loaded = Nights.load

    async def no_folding(self: Nights, row: NightRow, history: bool = True) -> Night:
        # a closed night leaves the night cache: the chat's latest is read again from its checkpoint
        # for the line itself, never folded whole for the stats
        if history:
            raise AssertionError("a closed night with stored figures was folded again")
        return await loaded(self, row, history)

    monkeypatch.setattr(Nights, "load", no_folding)
    text = await table.say("张三: 统计 王五")
    # three nights of +18 flowers at 底 1: net 54, money 54
    assert "3 局，净 54 元" in text
    assert "王五：+54 元" in await table.say("张三: 账本")


async def test_a_reopened_and_corrected_night_is_read_again(table: Table) -> None:
    await table.play("张三: 开局 张三 李四 王五 赵六\n王五: 花杠\n李四: 花杠\n张三: 结算\n张三: 确认")
    # 王五 +18 − 6 = +12, 李四 −6 + 18 = +12
    assert "王五：+12 元" in await table.say("张三: 账本")
    await table.play("张三: 重开\n张三: 撤销")  # undoes 李四's flower gang: 王五 +18, 李四 −6
    tab = await table.say("张三: 账本")
    assert "还在打" in tab and "没有待结清的局" in tab  # reopened: off the tab until it closes again
    assert "1 局，净 18 元" in await table.say("张三: 统计 王五")  # the open night is read live
    await table.play("张三: 结算\n张三: 确认")
    ((night_id, _, after),) = await figures_rows(table)
    assert after == await newest_event(table, night_id)
    assert "王五：+18 元" in await table.say("张三: 账本") and "李四：−6 元" in await table.say("张三: 账本")


async def test_figures_of_another_version_or_missing_are_rebuilt(table: Table) -> None:
    await table.play("张三: 开局 张三 李四 王五 赵六\n王五: 花杠\n张三: 结算\n张三: 确认")
    db = table.referee.nights.ledger._writer._connection  # the writer's own connection, in the test only
    db.execute("UPDATE night_figures SET version = 'old', figures = '{}'")
    assert "1 局，净 18 元" in await table.say("张三: 统计 王五")
    assert [version for _, version, _ in await figures_rows(table)] == [stats.FIGURES_VERSION]
    db.execute("DELETE FROM night_figures")  # an older database: figures are built on first read
    assert "王五：+18 元" in await table.say("张三: 账本")
    assert len(await figures_rows(table)) == 1


async def test_a_rename_inside_a_night_keeps_the_career(table: Table) -> None:
    await table.play("张三: 开局 张三 李四 王五 赵六\n赵六: 花杠\n张三: 改名 赵六 赵老六\n张三: 结算\n张三: 确认")
    await table.play("张三: 开局 张三 李四 王五 赵老六\n赵老六: 花杠\n张三: 结算\n张三: 确认")
    await table.play("张三: 开局 张三 李四 王五 赵六\n赵六: 花杠\n张三: 结算\n张三: 确认")
    text = await table.say("张三: 统计")
    # one person over three nights, shown by the latest name: +18 three times = 54
    assert "赵六：3 局，净 54 元" in text and "赵老六" not in text
    assert "赵六：+54 元" in await table.say("张三: 账本")
    assert "3 局，净 54 元" in await table.say("张三: /stats 赵老六")  # the old name finds them too


def account(name: str) -> Speaker:
    return Speaker(id="42", name=name, by_name=False, names=(name,))


async def test_a_bound_account_is_one_person_under_two_names(referee: Referee) -> None:
    chat = "tg-chat"

    async def say(speaker: Speaker, text: str, key: list[int] = [0]) -> None:  # noqa: B006 - a counter
        key[0] += 1
        await referee.handle(Incoming(chat, speaker, text, f"u{key[0]}"))

    carol = Speaker(id="Carol", name="Carol", by_name=True)
    await say(account("Bob"), "/new Bob Carol Dave Erin")
    await say(account("Bob"), "/flowergang")  # claims the seat named Bob for account 42
    await say(carol, "/summary")
    await say(carol, "yes")
    await say(account("Robert"), "/new Robert Carol Dave Erin")
    await say(account("Robert"), "/flowergang")
    await say(carol, "/summary")
    await say(carol, "yes")
    await say(carol, "/new Bob Carol Dave Erin")  # Bob by plain name, his seat never claimed
    await say(carol, "/flowergang Bob")
    await say(carol, "/summary")
    await say(carol, "yes")
    table = Table(referee, chat)
    text = await table.say("Carol: /stats")
    # account 42 made a flower gang each night, as Bob, as Robert, then as the unbound name Bob the
    # account used before: +18 three times = 54; Carol −6 three times = −18. One person, shown by the
    # name of their latest night.
    assert "Bob：3 局，净 54 元" in text and "Robert" not in text and "Carol：3 局，净 -18 元" in text
    assert "Bob：+54 元" in await table.say("Carol: /tab")
    assert "3 局，净 54 元" in await table.say("Carol: /stats Robert")


async def test_a_close_stands_when_its_figures_cannot_be_written(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = table.referee.nights.history  # the ledger's part that stores the figures
    store = ledger.store_figures

    async def failing(rows: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(ledger, "store_figures", failing)
    await table.play("张三: 开局 张三 李四 王五 赵六\n王五: 花杠\n张三: 结算")
    assert "第 1 局已结束" in await table.say("张三: 确认")
    assert await figures_rows(table) == []
    monkeypatch.setattr(ledger, "store_figures", store)
    assert "王五：+18 元" in await table.say("张三: 账本")  # built and stored by the first reader
    assert len(await figures_rows(table)) == 1


async def test_two_accounts_of_the_same_name_stay_two_people(referee: Referee) -> None:
    chat = "two-alexes"
    carol = Speaker(id="Carol", name="Carol", by_name=True)
    for number, user in enumerate(("1", "2"), 1):
        alex = Speaker(id=user, name="Alex", username=f"alex{user}", by_name=False, names=("Alex",))
        for text in ("/new Alex Carol Dave Erin", "/flowergang"):
            await referee.handle(Incoming(chat, alex, text, f"a{number}{text}"))
        for text in ("/summary", "yes"):
            await referee.handle(Incoming(chat, carol, text, f"c{number}{text}"))
    table = Table(referee, chat)
    tab = await table.say("Carol: /tab")
    # each Alex made one flower gang at 底 1: +18 each; Carol, Dave, Erin −6 twice = −12
    assert "Alex @alex1：+18 元" in tab and "Alex @alex2：+18 元" in tab and "Carol：−12 元" in tab
    paid = await table.say("Carol: /paid @alex2 6")  # Carol −12 + 6 = −6, the second Alex +18 − 6 = +12
    assert "Carol → Alex @alex2 6 元" in paid and "Alex @alex2：+12 元" in paid
    assert "Carol → Alex @alex1 1 元" in await table.say("Carol: /paid alex1 1")  # the @ may be left out


async def test_me_counts_the_person_after_they_left_their_seat(referee: Referee) -> None:
    chat = "swap-chat"
    carol = Speaker(id="Carol", name="Carol", by_name=True)
    lines = [(account("Bob"), "/new Bob Carol Dave Erin"), (account("Bob"), "/flowergang")]
    lines += [(carol, "/swap Bob Eve"), (carol, "/flowergang Eve"), (carol, "/summary"), (carol, "yes")]
    for number, (speaker, text) in enumerate(lines):
        await referee.handle(Incoming(chat, speaker, text, f"s{number}"))
    response = await referee.handle(Incoming("private-42", account("Bob"), "/me", "me-1", private=True))
    assert response is not None
    text = render_response(response)
    # Bob's flower gang +18, then he stood up (换人) and Eve's flower gang took 6 from the seat she now
    # holds, not from Bob: Bob keeps +18 (the account's figures, though its seat is Eve's now)
    assert "Bob：1 局，净 18 元" in text


async def test_stats_for_someone_who_never_played_names_who_did(table: Table) -> None:
    await table.play("张三: 开局 张三 李四 王五 赵六\n王五: 花杠\n张三: 结算\n张三: 确认")
    assert "本群没有叫 钱七 的人打过牌（打过的：张三、李四、王五、赵六）" in await table.say("张三: /stats 钱七")
