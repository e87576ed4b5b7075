"""Taps are never lost: the tile pad lives with its flow, so every tap counts in the order Telegram
delivered it (issue #30, item 2), on the one keyboard the pad keeps from 胡 to 确认 (#41).

Players tap faster than anything comes back: each press is answered at once to the presser alone,
and nothing is written over the pad, so no answer trails the taps. Figures by hand from docs/rules.md
(nanjing, stake 1).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from bot.chat.handlers.flows import HEAD_PATTERN
from bot.chat.service import Referee
from bot.store.ledger import Ledger
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.flows import CONCEALED, NEW, Pad, Tapping
from tests.kit.harness import Table
from tests.kit.replies import text_of
from tests.kit.telegram import ALICE, BOB, GROUP, Running, balances


def toasts(fake: FakeTelegram) -> list[str]:
    return [str(c.params.get("text", "")) for c in fake.sent("answerCallbackQuery") if c.params.get("text")]


async def test_sixteen_taps_pressed_at_once_read_in_the_order_pressed(fake: FakeTelegram, tmp_path: Path) -> None:
    """Every tap of a hand pressed before any is answered (Telegram delivers them in order): each is
    answered, in order, with the tiles so far; the pad is never edited."""
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        pad = await Pad.opened(bot, BOB)
        last = 0
        for label in ["bob 胡", "自摸", *CONCEALED]:
            last = fake.press(BOB, pad.keyboard, pad.data(label))
        await fake.settle(last, timeout=60)
        await bot.front.idle()
        said = toasts(fake)
        assert len(said) == 16 and said[2] == "bob 自摸 · 已点：＋1万（还差 13 张）"
        # the tiles as tapped: 1-9万 2345筒 and the second 5筒 last (the winning tile), none lost
        assert said[-1] == "bob 自摸 · 已点：123456789万 2345筒 ＋5筒（齐了） · 再点硬花数 🌸"
        assert not fake.sent("editMessageText")
        await pad("🌸2", "确认")
        # RULES §11 example 1: 123m 456m 789m 234p 5p +5p self-drawn, 2 hard flowers; waits 2p/5p
        # (no wait flower), 缺一 1: 20 + 2×(2+1) + 门清 20 = 46 from each of three, 138 to bob
        assert await balances(db) == [-46, 138, -46, -46]


async def test_four_quick_taps_read_as_four_tiles(fake: FakeTelegram, tmp_path: Path) -> None:
    """`1万 2万 3万 4万` tapped at once is 1234万, never `12万 ＋4万`."""
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        pad = await Pad.opened(bot, BOB)
        await pad("bob 胡", "自摸")
        last = 0
        for label in ("1万", "2万", "3万", "4万"):
            last = fake.press(BOB, pad.keyboard, pad.data(label))
        await fake.settle(last, timeout=60)
        assert toasts(fake)[-1] == "bob 自摸 · 已点：123万 ＋4万（还差 10 张）"


async def test_a_tap_that_cannot_apply_is_answered_with_why(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        pad = await Pad.opened(bot, BOB)
        await pad("bob 胡", "自摸", *CONCEALED)
        # a fifteenth tile: an alert to dismiss, nothing changed
        assert await pad("9条") == "手牌已经点满了：这一下 9条 没有算上（要换牌先按 ⌫）"
        alert = fake.sent("answerCallbackQuery")[-1]
        assert alert.params["show_alert"] in (True, "true")
        # the same winner again changes nothing: the fourteen as tapped
        assert await pad("bob 胡") == "bob 自摸 · 已点：123456789万 2345筒 ＋5筒（齐了） · 再点硬花数 🌸"
        assert await balances(db) == [0, 0, 0, 0]


async def test_a_repeated_press_counts_once(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        pad = await Pad.opened(bot, BOB)
        await pad("bob 胡", "自摸")
        update = fake.press(BOB, pad.keyboard, pad.data("1万"))
        await fake.settle(update)
        fake.raw(next(u for u in fake.updates if u["update_id"] == update))  # Telegram sends it again
        await fake.settle(update)
        assert toasts(fake)[-1] == "bob 自摸 · 已点：＋1万（还差 13 张）"
        assert await pad("2万") == "bob 自摸 · 已点：1万 ＋2万（还差 12 张）"  # the 1万 counted once


async def test_the_pad_survives_a_restart(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        pad = await Pad.opened(bot, BOB, "/hu")
        await pad("bob 胡", "自摸", *CONCEALED[:7])
    async with Running(fake, db) as bot:
        pad.bot = bot
        assert await pad(*CONCEALED[7:]) == "bob 自摸 · 已点：123456789万 2345筒 ＋5筒（齐了） · 再点硬花数 🌸"
        await pad("🌸2", "确认")
        # RULES §11 example 1 again: 20 + 2×(2+1) + 20 = 46 from each of three
        assert await balances(db) == [-46, 138, -46, -46]
        assert fake.shown[(GROUP, pad.message)][0].startswith("🀄 点牌记胡")  # never written over


# ---- the command layer -------------------------------------------------------------------------------


async def test_taps_count_in_the_order_pressed(table: Table) -> None:
    """Every button pressed in turn: the pad is the taps in order."""
    await table.say("/new A B C D")
    tap = await Tapping.opened(table, "B")
    labels = ["B 胡", "C 放炮", "1筒", "1筒", "5条", "6条", "7条", "7条", "9条", "8条", "东", "东", "东", "4筒"]
    said = await tap(*labels, "4筒", "4筒")
    # 11p 444p 567s 789s EEE: the last pressed, 4筒, is the winning tile
    assert text_of(said) == "B 胡 C 的牌 · 已点：1144筒 567789条 东东东 ＋4筒（齐了） · 再点硬花数 🌸"


async def test_a_stored_pad_is_its_taps(ledger: Ledger, referee: Referee) -> None:
    table = Table(referee, "group-2")
    await table.say("/new A B C D")
    tap = await Tapping.opened(table, "B")
    await tap("B 胡", "自摸", "1万", "2万", "⌫", "🌸3", "海底捞月")
    head = re.match(HEAD_PATTERN, tap.head.split(" ", 1)[1])
    assert head is not None
    minute, night, _, name = head.groups()
    rows = await ledger.flows.flow_taps(f"flow:{night}:{minute}:{name}")
    # the winner (seat 1), the self-draw, the two tiles (1万 0, 2万 1 in the alphabet), ⌫, 3 hard
    # flowers, and 海底 (the third flag, 2)
    assert [op for op, _ in rows] == ["v1", "ds", "t0", "t1", "b", "h3", "f2"]


async def test_the_taps_of_flows_over_for_a_week_are_dropped_at_start(tmp_path: Path) -> None:
    path = tmp_path / "taps.sqlite3"
    ledger = await Ledger.open(path)
    try:
        assert await ledger.flows.append_flow_tap("flow:old", "m1", "press-1")
        assert await ledger.flows.append_flow_tap("flow:new", "m2", "press-2")
        with sqlite3.connect(path) as db:  # the old flow's tap was made eight days ago
            db.execute(
                "UPDATE flow_taps SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-8 days')"
                " WHERE flow_key = 'flow:old'"
            )
        await Referee(ledger).tidy()
        assert await ledger.flows.flow_taps("flow:old") == [] and await ledger.flows.flow_taps("flow:new") == [
            ("m2", "press-2")
        ]
    finally:
        await ledger.close()
