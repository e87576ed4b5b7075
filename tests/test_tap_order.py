"""Taps are never lost: the tile pad lives with its flow, so every tap counts in the order Telegram
delivered it, whatever keyboard it was pressed on (issue #30, item 2).

In a busy minute an edit of the flow's message lands seconds after the tap that caused it (the fake
Telegram holds each edit 3 s), while the press itself is acknowledged at once: players tap on the
keyboard they see. Figures by hand from RULES.md (nanjing, stake 1).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from bot.chat.handlers.flows import HEAD_PATTERN
from bot.chat.service import Referee
from bot.store.ledger import Ledger
from bot.text.replies import render
from locales import Translator
from tests.fake_telegram import Call, FakeTelegram
from tests.harness import Table
from tests.kit.flows import CONCEALED, NEW, buttons_of, start, tap_through
from tests.kit.replies import text_of
from tests.kit.telegram import ALICE, BOB, GROUP, Running, balances

EDIT_DELAY = 3.0


def keyboard_of(fake: FakeTelegram) -> Call:
    return [c for c in fake.calls if "reply_markup" in c.params][-1]


def shown(fake: FakeTelegram, message_id: int) -> str:
    return fake.shown[(GROUP, message_id)][0]


def toasts(fake: FakeTelegram) -> list[str]:
    return [str(c.params.get("text", "")) for c in fake.sent("answerCallbackQuery") if c.params.get("text")]


async def test_fourteen_taps_on_one_keyboard_faster_than_the_edits_land(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        message = await start(bot, BOB, "/hu")
        await bot.press(BOB, buttons_of(keyboard_of(fake))["bob"])
        await bot.press(BOB, buttons_of(keyboard_of(fake))["自摸"])
        pad = keyboard_of(fake)  # the empty pad: every tile is on it
        fake.edit_delay = EDIT_DELAY
        edits_before = len(fake.sent("editMessageText"))
        data = buttons_of(pad)
        last = 0
        for label in CONCEALED:  # all fourteen on the first keyboard, none waiting for an edit
            last = fake.press(BOB, pad, data[label])
        # every press is acknowledged at once, long before the first edit has landed
        await fake.wait_for(lambda: len(fake.sent("answerCallbackQuery")) >= 16, timeout=EDIT_DELAY)
        await fake.settle(last, timeout=60)
        await bot.front.idle()
        # the edits queued behind a held one collapse to the latest: 14 taps, at most a few edits
        assert len(fake.sent("editMessageText")) - edits_before <= 3
        text = shown(fake, message)
        # the tiles as tapped: 1-9万 2345筒 and the second 5筒 last (the winning tile), none lost
        assert "已点：123456789万 2345筒 ＋5筒" in text and "有几个硬花" in text, text
        assert not toasts(fake)  # nothing refused
        fake.edit_delay = 0.0
        await bot.press(BOB, buttons_of(keyboard_of(fake))["2"])
        await bot.press(BOB, buttons_of(keyboard_of(fake))["确认"])
        assert "✅" in shown(fake, message)
        # RULES §11 example 1: 123m 456m 789m 234p 5p +5p self-drawn, 2 hard flowers; waits 2p/5p
        # (no wait flower), 缺一 1: 20 + 2×(2+1) + 门清 20 = 46 from each of three, 138 to bob
        assert await balances(db) == [-46, 138, -46, -46]


async def test_four_quick_taps_read_as_four_tiles(fake: FakeTelegram, tmp_path: Path) -> None:
    """`1万 2万 3万 4万` tapped before the keyboard changes is 1234万, never `12万 ＋4万`."""
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        message = await start(bot, BOB, "/hu")
        await bot.press(BOB, buttons_of(keyboard_of(fake))["bob"])
        await bot.press(BOB, buttons_of(keyboard_of(fake))["自摸"])
        fake.edit_delay = EDIT_DELAY
        pad = keyboard_of(fake)
        last = 0
        for label in ("1万", "2万", "3万", "4万"):
            last = fake.press(BOB, pad, buttons_of(pad)[label])
        await fake.settle(last, timeout=60)
        await bot.front.idle()
        assert "已点：123万 ＋4万" in shown(fake, message) and "还差 10 张" in shown(fake, message)


async def test_a_tap_that_cannot_apply_is_answered_with_why(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        message = await start(bot, BOB, "/hu")
        await bot.press(BOB, buttons_of(keyboard_of(fake))["bob"])
        await bot.press(BOB, buttons_of(keyboard_of(fake))["自摸"])
        fake.edit_delay = EDIT_DELAY
        pad = keyboard_of(fake)
        data = buttons_of(pad)
        last = 0
        for label in [*CONCEALED, "9条"]:  # a fifteenth tile, on the same old keyboard
            last = fake.press(BOB, pad, data[label])
        await fake.settle(last, timeout=60)
        await bot.front.idle()
        assert toasts(fake) == ["手牌已经点满了：这一下 9条 没有算上（要换牌先按 ⌫）"]
        assert "已点：123456789万 2345筒 ＋5筒" in shown(fake, message)  # the fourteen as tapped
        assert await balances(db) == [0, 0, 0, 0]


async def test_a_repeated_press_counts_once(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        message = await start(bot, BOB, "/hu")
        await bot.press(BOB, buttons_of(keyboard_of(fake))["bob"])
        await bot.press(BOB, buttons_of(keyboard_of(fake))["自摸"])
        pad = keyboard_of(fake)
        update = fake.press(BOB, pad, buttons_of(pad)["1万"])
        await fake.settle(update)
        fake.raw(next(u for u in fake.updates if u["update_id"] == update))  # Telegram sends it again
        await fake.settle(update)
        await bot.front.idle()
        assert "已点：＋1万" in shown(fake, message) and "还差 13 张" in shown(fake, message)


async def test_the_pad_survives_a_restart(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        message = await start(bot, BOB, "/hu")
        await bot.press(BOB, buttons_of(keyboard_of(fake))["bob"])
        await bot.press(BOB, buttons_of(keyboard_of(fake))["自摸"])
        for label in CONCEALED[:7]:
            await bot.press(BOB, buttons_of(keyboard_of(fake))[label])
    async with Running(fake, db) as bot:
        for label in CONCEALED[7:]:
            await bot.press(BOB, buttons_of(keyboard_of(fake))[label])
        assert "已点：123456789万 2345筒 ＋5筒" in shown(fake, message)
        await bot.press(BOB, buttons_of(keyboard_of(fake))["2"])
        await bot.press(BOB, buttons_of(keyboard_of(fake))["确认"])
        # RULES §11 example 1 again: 20 + 2×(2+1) + 20 = 46 from each of three
        assert await balances(db) == [-46, 138, -46, -46]


# ---- the command layer -------------------------------------------------------------------------------


async def test_old_keyboards_count_in_the_order_pressed(table: Table) -> None:
    """Every button of the first keyboard, pressed in turn: the pad is the taps in order."""
    await table.say("/new A B C D")
    first = await tap_through(table, "B", ["B", "C"])
    translator = Translator("zh-Hans")
    lines = {render(c.label, translator): c.command for c in first.choices}
    step = None
    for label in ["1筒", "1筒", "5条", "6条", "7条", "7条", "9条", "8条", "东", "东", "东", "4筒", "4筒", "4筒"]:
        step = await table.respond(f"B: {lines[label]}")
    # 11p 444p 567s 789s EEE: the last pressed, 4筒, is the winning tile
    assert step is not None and "有几个硬花" in text_of(step)
    assert "已点：1144筒 567789条 东东东 ＋4筒" in text_of(step)


async def test_a_stored_pad_is_its_taps(ledger: Ledger, referee: Referee) -> None:
    table = Table(referee, "group-2")
    await table.say("/new A B C D")
    step = await tap_through(table, "B", ["B", "自摸", "1万", "2万", "⌫"])
    head = re.match(HEAD_PATTERN, step.choices[0].command.split(" ", 1)[1])
    assert head is not None
    minute, night, _, name = head.groups()
    rows = await ledger.flow_taps(f"flow:{night}:{minute}:{name}")
    # the start, the two tiles (1万 0, 2万 1 in the alphabet) and ⌫, in the order they came
    assert [op for op, _ in rows] == ["s1s", "t0", "t1", "b"]


async def test_the_taps_of_flows_over_for_a_week_are_dropped_at_start(tmp_path: Path) -> None:
    path = tmp_path / "taps.sqlite3"
    ledger = await Ledger.open(path)
    try:
        assert await ledger.append_flow_tap("flow:old", "m1", "press-1")
        assert await ledger.append_flow_tap("flow:new", "m2", "press-2")
        with sqlite3.connect(path) as db:  # the old flow's tap was made eight days ago
            db.execute(
                "UPDATE flow_taps SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-8 days')"
                " WHERE flow_key = 'flow:old'"
            )
        await Referee(ledger).tidy()
        assert await ledger.flow_taps("flow:old") == [] and await ledger.flow_taps("flow:new") == [("m2", "press-2")]
    finally:
        await ledger.close()
