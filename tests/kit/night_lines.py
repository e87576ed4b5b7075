"""A night as a table plays it in a Telegram group, and the lines it puts there (issue #41 item 2).

Eight hands of four friends, through the Telegram front end (PTB's real HTTP stack) against the fake
Bot API, in-process (`InProcess`) or as the real `python -m bot run` (`AsProcess`). It is the group's
first night: the bot is added with privacy mode on at BotFather (it says once what that keeps from
it), then made an administrator allowed to pin (it says once that it reads every line now and pins
the board: an administrator receives every message, as Telegram does), so the board is pinned from
the first event; privacy mode is turned off at BotFather halfway, which changes nothing the chat
sees. Every message the bot sends into the group is counted by its lines, under the part of the
night it answered: setup (the bot added, /new, the seats claimed), the hands, the end (查分, 结算 and
its chart's caption, 确认). How a line is counted: each text line of a message (its caption for a
photo), empty ones too, once per message; a message edited later counts as the longest it was; the
pinned board counts once, as first sent (its edits replace it where it stands: they add no line);
what goes to a private chat, a toast (answerCallbackQuery) and the players' own lines are not counted.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tests.kit.bot_process import bot_against_fake
from tests.kit.fake_telegram import FakeTelegram, plain_user
from tests.kit.telegram import Running

GROUP = -100414
PARTS = ("setup", "hands", "end")
PRIVACY_OFF = "(privacy off)"  # not a line: privacy mode turned off at BotFather
ADDED = "(bot added)"  # not a line: the speaker adds the bot to the group (privacy mode on)
PROMOTED = "(bot promoted)"  # not a line: the speaker makes the bot an administrator allowed to pin
TAP = "tap:"  # not a line: the speaker taps the newest button whose label starts with what follows


def english(user: dict[str, Any]) -> dict[str, Any]:
    return {**user, "language_code": "en"}


ZHANG, LI, WANG, CHEN = (plain_user(i, n) for i, n in enumerate(("张伟", "李娜", "王芳", "陈静"), start=41))
BEN, AMY, CARL, DORA = (english(plain_user(i, n)) for i, n in enumerate(("Ben", "Amy", "Carl", "Dora"), start=51))


WIN_WORDS = ("胡", "自摸", "杠开", "hu")


@dataclass(frozen=True)
class Step:
    who: dict[str, Any] | None
    line: str
    part: str

    @property
    def wins(self) -> bool:
        return self.line.split(" ")[0] in WIN_WORDS


def steps(part: str, *lines: tuple[dict[str, Any] | None, str]) -> tuple[Step, ...]:
    return tuple(Step(who, line, part) for who, line in lines)


# The Chinese night, hand by hand (what moves money, and what the chat must say about it).
ZH_NIGHT: tuple[Step, ...] = (
    *steps(
        "setup",
        (ZHANG, ADDED),  # a new group: the bot says once what privacy mode keeps from it …
        (ZHANG, PROMOTED),  # … and, made an administrator, that it reads every line and pins the board
        (ZHANG, "/new 张伟 李娜 王芳 陈静"),  # 张伟 opens: his own seat is his account from the start
        (LI, TAP + "我是 李娜"),  # two claim their seats by a tap, 陈静 by her first line
        (WANG, TAP + "我是 王芳"),
    ),
    *steps(
        "hands",
        # hand 1, 张伟 deals
        (LI, "碰 王芳 7p"),
        (WANG, "杠 陈静 5s"),
        (CHEN, "花杠"),  # a flower gang: the next hand is 比下胡
        (WANG, "碰 李娜 1s"),
        (ZHANG, "胡 李娜 123m 456m 789m 234p 5p +5p 花2"),  # the dealer wins on 李娜's discard
        # hand 2, doubled (比下胡)
        (WANG, "碰 陈静 E"),
        (LI, "暗杠 9s"),
        (CHEN, "碰 张伟 2p"),
        (WANG, "自摸 11p 567s 456s 23m [EEE] +4m 花4"),
        # hand 3: a flower gang, then nobody wins
        (ZHANG, "碰 李娜 6s"),
        (CHEN, "花杠"),
        (LI, "碰 陈静 W"),
        (ZHANG, "荒庄"),
        (None, PRIVACY_OFF),
        # hand 4, doubled (the draw and the flower gang): a fine, then a win
        (ZHANG, "罚 跟牌 李娜"),
        (LI, "碰 张伟 8m"),
        (CHEN, "胡 张伟 花5"),
        # hand 5: an exposed gang, and the win on the tile drawn after it (大杠开花)
        (WANG, "碰 张伟 3m"),
        (LI, "杠 王芳 6p"),
        (LI, "杠开 123s 456s 78m 99p [6666p] +9m 花4"),
        # hand 6, doubled (大杠开花): two win on 张伟's discard (一炮多响)
        (ZHANG, "碰 李娜 5m"),
        (WANG, "胡 张伟 11s 234m 567m 345p 88p +8p 花4"),
        (CHEN, "胡 张伟 123m 456m 789s 99s 67p +8p 花2 一炮多响"),
        # hand 7, doubled (一炮多响)
        (ZHANG, "碰 陈静 N"),
        (CHEN, "碰 王芳 4s"),
        (LI, "胡 王芳 花3"),
        # hand 8
        (WANG, "杠 陈静 2s"),
        (ZHANG, "碰 李娜 9m"),
        (CHEN, "自摸 花6 门清"),
    ),
    *steps("end", (CHEN, "查分"), (ZHANG, "结算"), (ZHANG, TAP + "确认")),
)

# The same night at an English-speaking table.
EN_NIGHT: tuple[Step, ...] = (
    *steps(
        "setup",
        (BEN, ADDED),
        (BEN, PROMOTED),
        (BEN, "/new Ben Amy Carl Dora"),
        (AMY, TAP + "I'm Amy"),
        (CARL, TAP + "I'm Carl"),
    ),
    *steps(
        "hands",
        (AMY, "pong Carl 7p"),
        (CARL, "gang Dora 5s"),
        (DORA, "flower gang"),
        (CARL, "pong Amy 1s"),
        (BEN, "hu Amy 123m 456m 789m 234p 5p +5p flowers=2"),
        (CARL, "pong Dora E"),
        (AMY, "concealed gang 9s"),
        (DORA, "pong Ben 2p"),
        (CARL, "hu self 11p 567s 456s 23m [EEE] +4m flowers=4"),
        (BEN, "pong Amy 6s"),
        (DORA, "flower gang"),
        (AMY, "pong Dora W"),
        (BEN, "draw"),
        (None, PRIVACY_OFF),
        (BEN, "penalty follow Amy"),
        (AMY, "pong Ben 8m"),
        (DORA, "hu Ben flowers=5"),
        (CARL, "pong Ben 3m"),
        (AMY, "gang Carl 6p"),
        (AMY, "hu after-gang 123s 456s 78m 99p [6666p] +9m flowers=4"),
        (BEN, "pong Amy 5m"),
        (CARL, "hu Ben 11s 234m 567m 345p 88p +8p flowers=4"),
        (DORA, "hu Ben 123m 456m 789s 99s 67p +8p flowers=2 also"),
        (BEN, "pong Dora N"),
        (DORA, "pong Carl 4s"),
        (AMY, "hu Carl flowers=3"),
        (CARL, "gang Dora 2s"),
        (BEN, "pong Amy 9m"),
        (DORA, "hu self flowers=6"),
    ),
    *steps("end", (DORA, "score"), (BEN, "summary"), (BEN, TAP + "Close the night")),
)


@dataclass
class Tally:
    """What the night put in the group: lines by part, each message as the chat shows it."""

    lines: Counter[str] = field(default_factory=Counter)
    messages: list[tuple[str, str, str]] = field(default_factory=list)  # (part, line typed, text)
    refused: list[str] = field(default_factory=list)  # taps that found no button
    board: str = ""  # the pinned board as it stands after the night

    @property
    def total(self) -> int:
        return sum(self.lines.values())

    def answers(self, line: str) -> list[str]:
        """The messages that answered `line`, in order."""
        return [text for _, typed, text in self.messages if typed == line]

    def wins(self, night: tuple[Step, ...]) -> list[str]:
        """Each win's reply (all the messages that answered the line), as the chat shows it."""
        return ["\n".join(self.answers(step.line)) for step in night if step.wins]


def count_lines(text: str) -> int:
    return len(text.split("\n")) if text else 0


class Bot(Protocol):
    fake: FakeTelegram

    async def settle(self, update_id: int, before: int) -> None:
        """Until the bot has handled the update and sent what it causes (`before`: the calls made
        before the update was sent)."""


class InProcess(Running):
    """The Telegram front end in this process (`Running` with its defaults), waited on until it is idle."""

    async def settle(self, update_id: int, before: int) -> None:
        await self.fake.wait_for(lambda: self.fake._confirmed > update_id, timeout=30)
        count = -1
        while count != len(self.fake.calls):
            count = len(self.fake.calls)
            await self.front.idle()
            await asyncio.sleep(0.05)


class AsProcess:
    """`python -m bot run`: settled once it answered the update and then stayed quiet a while. Every
    line of the nights is answered; the answer may wait seconds (a chart is drawn in a process of its
    own; Telegram's limit of 20 messages a minute in a group is kept), and the next line is sent only
    after it, as a table waits to see its line taken."""

    QUIET = 0.6
    ANSWER_SECONDS = 120

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake

    async def settle(self, update_id: int, before: int) -> None:
        fake = self.fake
        await fake.wait_for(lambda: fake._confirmed > update_id, timeout=60)
        sends = ("sendMessage", "sendPhoto")
        await fake.wait_for(lambda: any(c.method in sends for c in fake.calls[before:]), self.ANSWER_SECONDS)
        count, quiet = len(fake.calls), 0.0
        while quiet < self.QUIET:
            await asyncio.sleep(0.05)
            quiet = quiet + 0.05 if count == len(self.fake.calls) else 0.0
            count = len(self.fake.calls)


def newest_button(fake: FakeTelegram, label: str) -> tuple[Any, str] | None:
    """The newest message in the group with a button whose label starts with `label`, and its data."""
    sent = [c for c in fake.calls if c.method in ("sendMessage", "sendPhoto")]
    for call in reversed([c for c in sent if int(c.params["chat_id"]) == GROUP]):
        markup = call.params.get("reply_markup") or {}
        for row in markup.get("inline_keyboard", []):
            for button in row:
                if str(button["text"]).startswith(label):
                    return call, str(button["callback_data"])
    return None


async def play(bot: Bot, night: tuple[Step, ...], tally: Tally) -> None:
    """Each step sent as its player sends it; the bot's messages into the group counted."""
    fake = bot.fake
    longest: dict[int, tuple[str, int]] = {}  # message id -> (part, lines at its longest)
    for step in night:
        if step.line == PRIVACY_OFF:
            fake.turn_privacy_off()
            continue
        assert step.who is not None
        before = len(fake.calls)
        if step.line == ADDED:
            update_id = fake.member(GROUP, step.who)
        elif step.line == PROMOTED:
            update_id = fake.promote(GROUP, step.who)
        elif step.line.startswith(TAP):
            found = newest_button(fake, step.line.removeprefix(TAP))
            if found is None:
                tally.refused.append(step.line)
                continue
            update_id = fake.press(step.who, *found)
        else:
            update_id = fake.message(GROUP, step.who, step.line)
        await bot.settle(update_id, before)
        for call in fake.calls[before:]:
            if call.method not in ("sendMessage", "sendPhoto", "editMessageText"):
                continue
            if int(call.params.get("chat_id", 0)) != GROUP or not isinstance(call.params["_result"], dict):
                continue
            message_id = int(call.params["_result"]["message_id"])
            text = str(call.params.get("text", call.params.get("caption", "")))
            if call.method != "editMessageText":
                tally.messages.append((step.part, step.line, text))
                longest[message_id] = (step.part, count_lines(text))
            elif message_id in longest and message_id not in fake.pinned.get(GROUP, []):
                part, lines = longest[message_id]
                longest[message_id] = (part, max(lines, count_lines(text)))
    for part, lines in longest.values():
        tally.lines[part] += lines
    pinned = fake.pinned.get(GROUP, [])
    tally.board = fake.shown[(GROUP, pinned[-1])][0] if pinned else ""


async def night_in_process(night: tuple[Step, ...], db: Path) -> Tally:
    fake = FakeTelegram()
    await fake.start()
    fake.privacy = True
    fake.edit_limit = 1000  # a night of hours played in seconds: Telegram's edit rate is not what is measured
    tally = Tally()
    try:
        async with InProcess(fake, db) as bot:
            await play(bot, night, tally)
    finally:
        await fake.stop()
    return tally


async def night_as_process(night: tuple[Step, ...], db: Path, log: Path) -> Tally:
    tally = Tally()
    async with bot_against_fake(db, log, BOARD_EDIT_SECONDS="0") as (fake, _):
        fake.privacy = True
        fake.edit_limit = 1000
        await play(AsProcess(fake), night, tally)
    return tally
