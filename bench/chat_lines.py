"""How many lines does an 8-hand night put in a Telegram group? Counted as the players see the chat.

First issue #41's nights (tests/kit/night_lines.py says how a line is counted): eight hands of
four friends with the board pinned from the start (pongs, gangs, flower gangs, a fine, 比下胡 hands,
a 大杠开花 win, two winners on one discard, a 荒庄; 查分, 结算 with its chart, 确认), in Chinese
and in English, lines by part of the night: setup, hands, end. `--process` plays them against the
real `python -m bot run` instead of the front end in this process.

Then (`--kinds`) an older night, through the Telegram front end (bot/telegram/app.py, PTB's HTTP
stack) against the fake Bot API server the tests use (tests/kit/fake_telegram.py), as four friends would
play it: players with no @username, seated by name and claiming their seats by speaking; privacy mode on
for the first hand (only /commands reach the bot), then off; a 换人 after hand 5; the bot made an
administrator allowed to pin messages halfway (after hand 4). It is played three times: with no
right to pin all night, as described (the right given halfway), and pinned from the start.

Every message the bot sends to the group is counted by its non-empty lines (the pinned board once,
as sent; its edits add none), and filed under the kind of line that caused it. Then every win's
明细 button is pressed, and the bench checks that each win's full breakdown (every item, the total,
every payment) is one tap away, and that the board sums to zero after the 换人.

Run: python -m bench.chat_lines [--process] [--kinds] [--show]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.telegram.app import TelegramFrontEnd, build_application
from bot.telegram.intake import Polling
from tests.kit.fake_telegram import FakeTelegram, plain_user
from tests.kit.night_lines import EN_NIGHT, PARTS, ZH_NIGHT, Step, Tally, night_as_process, night_in_process

GROUP = -100777
ZHANG, LI, WANG, CHEN, ZHAO = (
    plain_user(i, name) for i, name in enumerate(("张伟", "李娜", "王芳", "陈静", "赵强"), start=11)
)
PRIVACY_OFF, ADMIN = "privacy off", "admin"
HANDS = 8

# (who, line, kind): the night. `PRIVACY_OFF` and `ADMIN` are what happens to the bot between hands.
NIGHT: tuple[tuple[dict[str, Any] | None, str, str], ...] = (
    (ZHANG, "/new 张伟 李娜 王芳 陈静", "open"),
    (LI, "碰 王芳 7p", "talk"),  # privacy mode: never delivered; she types it again as a command
    (LI, "/pong 王芳 7p", "event"),
    (WANG, "/gang 陈静 5s", "event"),
    (CHEN, "/flowergang", "event"),
    (ZHANG, "/hu 李娜 123m 456m 789m 234p 5p +5p flowers=2", "win"),  # hand 1
    (None, PRIVACY_OFF, ""),
    (WANG, "碰 陈静 E", "event"),
    (LI, "暗杠 9s", "event"),
    (WANG, "自摸 11p 567s 456s 23m [EEE] +4m 花4", "win"),  # hand 2
    (CHEN, "花杠", "event"),
    (ZHANG, "荒庄", "draw"),  # hand 3
    (ZHANG, "罚 跟牌 李娜", "event"),
    (CHEN, "胡 张伟 花5", "win"),  # hand 4
    (None, ADMIN, ""),
    (LI, "碰 张伟 3m", "event"),
    (WANG, "杠 李娜 6p", "event"),
    (LI, "自摸 123s 456s 78m 99p [333m] +9m 花4", "win"),  # hand 5
    (ZHANG, "换人 张伟 赵强", "chore"),
    (ZHAO, "花杠", "event"),
    (CHEN, "胡 赵强 11s 234m 567m 345p 88p +8p 花4", "win"),  # hand 6
    (WANG, "碰 赵强 N", "event"),
    (LI, "胡 王芳 花3", "win"),  # hand 7
    (WANG, "杠 陈静 2s", "event"),
    (ZHAO, "自摸 花6 门清", "win"),  # hand 8
    (CHEN, "查分", "score"),
    (ZHANG, "/summary", "summary"),
    (ZHANG, "/close", "close"),
)


@dataclass
class Count:
    lines: Counter[str] = field(default_factory=Counter)
    replies: Counter[str] = field(default_factory=Counter)
    wins: list[str] = field(default_factory=list)  # the win replies as the chat shows them
    details: list[str] = field(default_factory=list)  # each win's 明细, pressed
    board_sum: int | None = None  # the pinned (or last) board's flowers after the night
    transcript: list[str] = field(default_factory=list)  # each message, under its kind

    @property
    def total(self) -> int:
        return sum(self.lines.values())


def non_empty(text: str) -> int:
    return len([line for line in text.splitlines() if line.strip()])


def board_total(text: str) -> int:
    """The flowers of every line of a board (`  东 张伟：40 花（40 元）`, `  张伟（已离座）：…`)."""
    return sum(int(m) for m in re.findall(r"：(-?\d+) 花（", text))


async def play(pin: str) -> Count:
    """`pin`: "never", "halfway" or "start": when the bot may pin in the group."""
    fake = FakeTelegram()
    await fake.start()
    fake.privacy = True
    fake.edit_limit = 1000  # a night of hours, played here in seconds: Telegram's edit rate is not what is measured
    if pin == "start":
        fake.pinners.add(GROUP)
    count = Count()
    with tempfile.TemporaryDirectory() as folder:
        application = build_application(
            "123:TEST", str(Path(folder) / "night.sqlite3"), fake.base_url, rate_limit=False, board_interval=0.0
        )
        front: TelegramFrontEnd = application.bot_data["front"]
        intake = Polling(application.bot, front.accept_all, timeout=1)
        await application.initialize()
        await application.post_init(application)  # type: ignore[misc]
        await application.start()
        await intake.start()
        try:
            await night(fake, front, pin, count)
        finally:
            await intake.stop()
            await application.stop()
            await application.post_stop(application)  # type: ignore[misc]
            await application.post_shutdown(application)  # type: ignore[misc]
            await application.shutdown()
            await fake.stop()
    return count


async def settle(fake: FakeTelegram, front: TelegramFrontEnd, update_id: int) -> None:
    """Until the bot has fetched the update, processed it and sent everything it causes."""
    await fake.wait_for(lambda: fake._confirmed > update_id, timeout=30)
    count = -1
    while count != len(fake.calls):
        count = len(fake.calls)
        await front.idle()
        await asyncio.sleep(0.05)


async def night(fake: FakeTelegram, front: TelegramFrontEnd, pin: str, count: Count) -> None:
    win_messages: list[dict[str, Any]] = []
    for who, line, kind in NIGHT:
        if line == PRIVACY_OFF:
            fake.privacy = False
            continue
        if line == ADMIN:
            if pin == "halfway":
                fake.pinners.add(GROUP)
                await settle(fake, front, fake.member(GROUP, ZHANG, "administrator"))
            continue
        assert who is not None
        before = len(fake.calls)
        update_id = fake.message(GROUP, who, line)
        await settle(fake, front, update_id)
        for call in fake.calls[before:]:
            if call.method not in ("sendMessage", "sendPhoto") or int(call.params["chat_id"]) != GROUP:
                continue
            text = str(call.params.get("text", call.params.get("caption", "")))
            shown = "note" if text.startswith(("📌", "ℹ️")) else kind
            if text.startswith("📋") and call.params.get("disable_notification") in (True, "true"):
                shown = "pinned board"
            count.lines[shown] += non_empty(text)
            count.transcript.append(f"[{shown}] {text}")
            count.replies[shown] += 1
            if shown == "win":
                count.wins.append(text)
                win_messages.append(call.params)
    pinned = fake.pinned.get(GROUP, [])
    if pinned:
        count.board_sum = board_total(fake.shown[(GROUP, pinned[-1])][0])
    for sent in win_messages:  # every win's 明细, one tap away
        markup = sent.get("reply_markup")
        buttons = [b for row in (markup or {}).get("inline_keyboard", []) for b in row]
        details = [b for b in buttons if b["text"] in ("明细", "Details", "明細")]
        if not details:
            count.details.append("")
            continue
        call = next(c for c in fake.calls if c.params is sent)
        await settle(fake, front, fake.press(ZHANG, call, details[0]["callback_data"]))
        message_id = int(sent["_result"]["message_id"])
        count.details.append(fake.shown[(GROUP, message_id)][0])


def reachable(count: Count) -> str:
    """Whether every win's breakdown (its total and each payment) is in the chat or behind 明细."""
    found = 0
    for shown, details in zip(count.wins, count.details, strict=True):
        text = details or shown
        if "合计" in text and "→" in text:
            found += 1
    return f"{found}/{len(count.wins)} wins with their full breakdown in the chat or one 明细 tap away"


KINDS = ("open", "event", "win", "draw", "chore", "score", "summary", "close", "note", "pinned board")


async def by_kind(show: bool) -> None:
    """The first night (a 换人, privacy on for hand 1), three ways of pinning, lines by kind of reply."""
    for pin, label in (
        ("never", "no right to pin all night"),
        ("halfway", "right to pin given halfway"),
        ("start", "pinned from the first event"),
    ):
        count = await play(pin)
        if show:
            print("\n".join(count.transcript))
        per_kind = ", ".join(
            f"{kind} {count.lines[kind]} ({count.replies[kind]})" for kind in KINDS if count.replies[kind]
        )
        print(f"{label}:")
        print(f"  {count.total} lines in the chat, {count.total / HANDS:.1f} a hand over {HANDS} hands")
        wins = count.lines["win"] / max(1, count.replies["win"])
        print(f"  a win: {wins:.1f} lines on average, longest {max(map(non_empty, count.wins), default=0)}")
        print(f"  lines (replies) by kind: {per_kind}")
        print(f"  {reachable(count)}")
        if count.board_sum is not None:
            print(f"  the pinned board after the 换人 sums to {count.board_sum}")


def win_lines(tally: Tally, script: tuple[Step, ...]) -> str:
    """The lines each win's reply took, in order."""
    return " ".join(str(len(text.split("\n"))) for text in tally.wins(script))


async def by_part(show: bool, process: bool) -> None:
    """Issue #41's nights (tests/kit/night_lines.py), Chinese and English, pinned from the start:
    lines by part of the night."""
    for label, script in (("zh-Hans", ZH_NIGHT), ("en", EN_NIGHT)):
        with tempfile.TemporaryDirectory() as folder:
            db, log = Path(folder) / "night.sqlite3", Path(folder) / "bot.log"
            tally = await (night_as_process(script, db, log) if process else night_in_process(script, db))
        if show:
            print("\n".join(f"[{part}] {typed}\n{text}" for part, typed, text in tally.messages))
        parts = ", ".join(f"{part} {tally.lines[part]}" for part in PARTS)
        where = "the real process" if process else "in-process"
        print(f"{label} night, board pinned ({where}): {tally.total} lines ({parts}); wins {win_lines(tally, script)}")
        if tally.refused:
            print(f"  buttons not found: {tally.refused}")


async def main(show: bool, kinds: bool, process: bool) -> None:
    await by_part(show, process)
    if kinds:
        await by_kind(show)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print the chat as the players see it")
    parser.add_argument("--process", action="store_true", help="play against `python -m bot run`, not in-process")
    parser.add_argument("--kinds", action="store_true", help="also the first night, three ways of pinning")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.show, arguments.kinds, arguments.process))
