"""Silence is a feature: table talk that is not exactly a command records nothing and gets no reply.

The same lines through the command layer (the console's path) and end to end through the fake Bot
API (PTB's real HTTP stack). A `/command` in the wrong form, by contrast, always gets a clear error.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.telegram import ALICE, BOB, EVE, GROUP, Running, balances

CHATTER = (
    # questions and sentence particles around command words
    "荒庄了吧？",
    "流局吗",
    "花杠呢？",
    "胡了吗",
    "查分了吗？",
    "开局了吗",
    "撤销吧",
    "荒庄了?",
    "流局嗎",
    "花槓呢？",
    # words that contain a command word
    "胡说八道",
    "胡說八道",
    "杠杆原理",
    "槓桿",
    "罚款",
    "杠精",
    "碰一下",
    "碰碰运气",
    "胡同口见",
    "我的天",
    "结算一下",
    "统计一下",
    "记录一下",
    "规则是什么",
    "语言不通",
    "确认一下",
    "碰 东西",
    # names that are not at the table (Carol and Bob are; Carl, a letter off Carol, gets a hint)
    "花杠 Karl",
    "胡 Karl 花2",
    "碰 Karl",
    "碰 Caroline",
    "杠 Bobb 5s",
    "罚 他 10",
    "胡 Carol 花2 谢谢",
    # English
    "pong?",
    "hu?",
    "who won?",
    "did Bob pong?",
    "Carol pong Dave?",
    "gang of four is a band",
    "pongs are fun",
    "hello everyone",
    "yes please",
    "haha hu",
    "hu 🤣",
    "flower gang again lol",
)
OTHER_BOTS = ("/foo@other_bot", "/undo@other_bot", "/flowergang@other_bot Alice")  # the front end drops them


def test_the_chatter_list_is_long_enough() -> None:
    assert len(set(CHATTER)) == len(CHATTER) >= 30


async def test_chatter_gets_no_reply_and_records_nothing(table: Table) -> None:
    await table.play("/new Alice Bob Carol Dave\nBob: 碰 Carol 7p")
    before = await table.row_counts()
    for line in CHATTER:
        assert await table.respond(f"Bob: {line}") is None, line
    assert await table.row_counts() == before
    assert await table.balances() == {"Alice": 0, "Bob": 0, "Carol": 0, "Dave": 0}


async def test_an_unknown_name_is_never_the_speakers_own_event(table: Table) -> None:
    await table.say("/new Alice Bob Carol Dave")
    before = await table.row_counts()
    assert await table.respond("Bob: 花杠 Karl") is None
    response = await table.respond("Bob: 花杠 Carl")  # a letter off Carol: a hint, never Bob's flower gang
    assert response is not None and response.refused and not response.recorded
    assert [c.command for c in response.choices] == ["/flowergang #2"]
    out = await table.say("Bob: /flowergang Carl")
    assert "没有这个玩家：Carl。在座的有：Alice, Bob, Carol, Dave" in out
    assert "写法：花杠 [名字]" in out  # the right form, one line
    assert await table.row_counts() == before


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("zh-Hans", "没有 /chart 这个命令，发 /help 看看有哪些"),
        ("zh-Hant", "沒有 /chart 這個命令，發 /help 看看有哪些"),
        ("en", "unknown command /chart, see /help"),
    ],
)
async def test_an_unknown_command_is_answered_in_the_chats_language(table: Table, language: str, expected: str) -> None:
    await table.say(f"/lang {language}")
    assert await table.say("Bob: /chart") == expected


async def test_a_command_in_the_wrong_form_shows_the_right_form(table: Table) -> None:
    await table.say("/new Alice Bob Carol Dave")
    out = await table.say("Bob: /hu Carol 花")
    assert "请给出硬花数" in out and "写法：胡 自摸|放炮者" in out
    out = await table.say("Bob: /undo abc")  # refused while parsing: the hint all the same
    assert "写法：撤销 [记录号]" in out
    await table.say("/lang en")
    out = await table.say("Bob: /pong Zed")
    assert "no player Zed" in out and "how to write it:" in out and "/pong Bob 7p" in out
    assert "how to write it" not in await table.say("Bob: /lang xx")  # not a form error: no hint


async def test_the_same_words_spoken_exactly_are_recorded(table: Table) -> None:
    await table.say("/new 张三 李四 王五 赵六")
    await table.say("李四: 花杠")
    await table.say("王五: 乙 杠 丙 5s")  # no such seats: chatter
    await table.say("王五: 李四 杠 赵六 5s")  # the actor's name first
    # 花杠: 6 from each other to 李四; 杠: 赵六 pays 李四 6
    assert await table.balances() == {"张三": -6, "李四": 18 + 6, "王五": -6, "赵六": -6 - 6}


def event_count(db: Path) -> int:
    with sqlite3.connect(db) as connection:
        return int(connection.execute("SELECT COUNT(*) FROM events").fetchone()[0])


async def test_chatter_in_a_telegram_group_gets_no_reply(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        recorded = event_count(db)
        before = len(fake.calls)
        for line in (*CHATTER, *OTHER_BOTS):
            fake.message(GROUP, BOB, line)
        board = await bot.say(EVE, "/score")  # answered after every chatter line (one chat, in order)
        answers = [c for c in fake.calls[before:] if c.method in ("sendMessage", "sendPhoto", "editMessageText")]
        assert [c.params.get("text") for c in answers] == [board], "only /score was answered"
        assert event_count(db) == recorded
        assert "没有 /chart 这个命令，发 /help 看看有哪些" in await bot.say(BOB, "/chart@referee_bot")
        assert "没有这个玩家：Carl" in await bot.say(BOB, "/flowergang Carl")
    assert await balances(db) == [0, 0, 0, 0]


async def test_names_match_across_scripts(table: Table) -> None:
    assert "名字重复了" in await table.say("/new 张三 張三 王五 赵六")
    await table.say("/new 張三 李四 王五 錢七")
    assert "✅" in await table.say("李四: 碰 张三 7p")  # typed in Simplified, seated in Traditional
    assert "✅" in await table.say("钱七: 花杠")  # the console's speaker, by name, across scripts
    # 碰 moves no money; 花杠: 6 from each other to 錢七
    assert await table.balances() == {"張三": -6, "李四": -6, "王五": -6, "錢七": 18}
