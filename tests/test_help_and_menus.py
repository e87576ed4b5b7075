"""Menus and help per scope (#42 item 6), from the one command table (bot/chat/commands.py `COMMANDS`).

A group's menu lists the dozen commands a table uses during a night; a private chat's the ones that
answer there (/me, /stats, /lang, /help); a group's admins see the group's dozen and the chat's
settings (/unseat, /reopen, /lang, /board): Telegram shows admins their scope's list instead of the
group's. /help opens with a six-line first night and groups the rest; /help WORD explains one command.
Through the command layer, as the console runs it, and through the fake Bot API."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.chat.commands import COMMANDS, Menu, menu
from bot.chat.handlers.help import Section
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.telegram import Running

# the brief's lists, in the table's order (the grammar's), by /name
GROUP_MENU = ["new", "pong", "gang", "flowergang", "penalty", "hu", "draw", "undo", "fix", "score", "summary", "help"]
PRIVATE_MENU = ["stats", "me", "lang", "help"]
SETTINGS = ["unseat", "reopen", "lang", "board"]
ADMINS_MENU = [
    "new",
    "pong",
    "gang",
    "flowergang",
    "penalty",
    "hu",
    "draw",
    "undo",
    "fix",
    "unseat",
    "score",
    "summary",
    "reopen",
    "lang",
    "board",
    "help",
]


def slashes(which: Menu) -> list[str]:
    return [spec.slash[0] for spec in menu(which)]


def test_each_scope_lists_its_commands_from_the_table() -> None:
    assert slashes(Menu.GROUP) == GROUP_MENU
    assert slashes(Menu.PRIVATE) == PRIVATE_MENU
    assert slashes(Menu.ADMINS) == ADMINS_MENU
    # the admins' list replaces the group's for them: it holds every group command, and the settings
    assert set(ADMINS_MENU) == set(GROUP_MENU) | set(SETTINGS)
    # nothing that only answers "nothing is recorded in a private chat" is in the private menu, and
    # /me (private only) is in no group menu
    assert "me" not in GROUP_MENU + ADMINS_MENU


HEADS = ("—— 一盘之中 ——", "—— 更正 ——", "—— 散场 ——", "—— 跨局 ——", "—— 设置 ——")


async def test_help_opens_with_a_six_line_first_night_then_the_groups(table: Table) -> None:
    lines = (await table.say("/help")).splitlines()
    assert lines[0] == "🀄 南京麻将记分 —— 第一局这样记（也可直接说中文）："
    assert [line[:2] for line in lines[1:7]] == ["1.", "2.", "3.", "4.", "5.", "6."]
    assert lines[1].startswith("1. 开局 张三 李四 王五 赵六") and "结算" in lines[6]
    assert lines[7] == HEADS[0]  # the groups follow the first night at once
    at = [lines.index(head) for head in HEADS]
    assert at == sorted(at)

    def group_of(example: str) -> str:
        where = next(index for index, line in enumerate(lines) if line.endswith(example))
        return [head for head, start in zip(HEADS, at, strict=True) if start < where][-1]

    assert group_of("/pong Bob 7p") == group_of("/draw") == group_of("/score") == "—— 一盘之中 ——"
    assert group_of("/undo 17") == group_of("/rename Dave David") == "—— 更正 ——"
    assert group_of("/summary") == group_of("/export") == "—— 散场 ——"
    assert group_of("/stats 本月") == group_of("/tab") == group_of("/me") == "—— 跨局 ——"
    assert group_of("/season new 2026秋") == "—— 跨局 ——"
    assert group_of("/unseat Dave") == group_of("/reopen") == group_of("/lang en") == "—— 设置 ——"
    assert group_of("/board each") == "—— 设置 ——"
    assert lines[-2] == "/help 命令：单个命令的详细说明（例如 /help 胡、/help undo）"


def test_every_command_is_in_a_group_but_the_first_nights_and_help() -> None:
    grouped = {row.name for row in COMMANDS if row.section is not None}
    assert {row.name for row in COMMANDS} - grouped == {"new", "join", "help"}
    assert {row.section for row in COMMANDS if row.section is not None} == set(Section)


async def test_help_groups_in_english_and_traditional(table: Table) -> None:
    await table.say("/lang en")
    lines = (await table.say("/help")).splitlines()
    assert lines[0] == "🀄 Nanjing Mahjong referee — a first night (Chinese words work too):"
    assert lines[1].startswith("1. /new Alice Bob Carol Dave") and lines[7] == "— during a hand —"
    heads = ["— during a hand —", "— corrections —", "— end of night —", "— across nights —", "— settings —"]
    assert [line for line in lines if line.startswith("— ")] == heads
    await table.say("/lang zh-Hant")
    lines = (await table.say("/help")).splitlines()
    assert lines[1].startswith("1. 開局 張三 李四 王五 趙六") and lines[7] == "—— 一盤之中 ——"


@pytest.mark.parametrize(
    ("line", "first"),
    [
        ("/help pong", "/pong —— 碰：谁喂的牌"),
        ("/help /pong", "/pong —— 碰：谁喂的牌"),
        ("/help 碰", "/pong —— 碰：谁喂的牌"),
        ("/help 胡", "/hu、/win —— 胡：自摸或点炮，手牌或牌型，硬花数"),
        ("/help /undo@referee_bot", "/undo —— 撤销最后一条或指定记录"),
        ("/help flower gang", "/flowergang —— 花杠"),
        ("/help 花槓", "/flowergang —— 花杠"),
    ],
)
async def test_help_word_explains_one_command(table: Table, line: str, first: str) -> None:
    lines = (await table.say(line)).splitlines()
    assert lines[0] == first
    assert len(lines) == 3 and lines[2].startswith("不带斜杠也可以说：")


async def test_help_word_shows_the_help_line_and_its_plain_words(table: Table) -> None:
    assert await table.say("/help pong") == (
        "/pong —— 碰：谁喂的牌\n"
        "碰 李四 [牌] —— 你碰了李四的牌（名字在前可替别人记）　/pong Bob 7p\n"
        "不带斜杠也可以说：碰、pong"
    )
    await table.say("/lang en")
    assert await table.say("/help lang") == (
        "/lang, /language — language: zh-Hans, zh-Hant, en\n"
        "language zh-Hans | zh-Hant | en  /lang en\n"
        "also typed without a slash: 语言, 語言, language"
    )


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("zh-Hans", "没有 chart 这个命令，发 /help 看看有哪些"),
        ("zh-Hant", "沒有 chart 這個命令，發 /help 看看有哪些"),
        ("en", "no command chart: see /help for them all"),
    ],
)
async def test_help_of_an_unknown_word_says_so_in_the_chats_language(
    table: Table, language: str, expected: str
) -> None:
    await table.say("/new Alice Bob Carol Dave")
    await table.say(f"/lang {language}")
    before = await table.row_counts()
    response = await table.respond("Bob: /help chart")
    assert response is not None and response.refused and not response.recorded
    assert await table.say("Bob: /help chart") == expected
    assert await table.row_counts() == before


def scope_menus(fake: FakeTelegram) -> dict[tuple[str, str], list[str]]:
    """The menus the bot registered: (scope type, language code) -> the /names, as sent."""
    menus: dict[tuple[str, str], list[str]] = {}
    for call in fake.sent("setMyCommands"):
        key = (call.params["scope"]["type"], call.params.get("language_code", ""))
        assert key not in menus, key  # each scope and language set once
        menus[key] = [entry["command"] for entry in call.params["commands"]]
    return menus


async def test_telegram_gets_a_menu_per_scope_and_language(fake: FakeTelegram, tmp_path: Path) -> None:
    async with Running(fake, tmp_path / "tg.sqlite3"):
        menus = scope_menus(fake)
    expected = {"all_group_chats": GROUP_MENU, "all_private_chats": PRIVATE_MENU}
    expected["all_chat_administrators"] = ADMINS_MENU
    assert menus == {(scope, code): names for scope, names in expected.items() for code in ("", "zh", "en")}
    descriptions = {
        (call.params["scope"]["type"], call.params.get("language_code", "")): call.params["commands"]
        for call in fake.sent("setMyCommands")
    }
    assert descriptions[("all_private_chats", "zh")][1] == {"command": "me", "description": "我的战绩（私聊）"}
