"""A win by its declared patterns, a gang and a penalty in a few taps, end to end against the fake Bot
API: the buttons are pressed by their labels, and the flow is one message edited step by step (a
win's tiles are tapped on a pad that is not edited: tests/test_tap_tiles.py; 报番型 on the pad goes
on here). Figures by hand (nanjing)."""

from __future__ import annotations

import time
from pathlib import Path

from bot.chat.service import Referee
from bot.text.replies import render_response
from locales import Translator
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.flows import NEW, Pad, Tapping, press_label, start, tap
from tests.kit.harness import Table
from tests.kit.messages import says
from tests.kit.telegram import ALICE, BOB, CAROL, Running, balances, buttons

STALE = Translator("zh-Hans").t("button.stale")


def referee(bot: Running) -> Referee:
    return bot.front.referee


async def test_a_discard_win_in_taps(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        pad = await Pad.opened(bot, BOB, "/hu")
        await pad("bob 胡", "carol 放炮")
        assert says(str((await tap(bot, BOB, "报番型")).params["text"]), "flow.hu_flowers")  # over the pad
        preview = await tap(bot, BOB, "4")
        # nothing ponged: 20 + 2×4 + 门清 20 = 48, paid by carol — shown, not yet recorded
        assert "合计 48 花" in str(preview.params["text"]) and "carol → bob：48 花" in str(preview.params["text"])
        assert await balances(db) == [0, 0, 0, 0]
        done = await tap(bot, BOB, "确认")
        # the flow's buttons are gone; the win's 明细 (its full breakdown, issue #30) is the one left
        keyboard = done.params["reply_markup"]["inline_keyboard"]
        assert "✅" in str(done.params["text"]) and [b["text"] for row in keyboard for b in row] == ["明细"]
        steps = [c for c in fake.calls if c.method == "editMessageText"]
        assert len(steps) == 3 and {int(c.params["message_id"]) for c in steps} == {pad.message}  # one message
        assert await balances(db) == [0, 48, -48, 0]


async def test_a_self_draw_in_taps(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        pad = await Pad.opened(bot, BOB, "胡")
        await pad("bob 胡", "自摸")
        await tap(bot, BOB, "报番型")
        preview = await tap(bot, BOB, "2")
        # 20 + 2×2 + 门清 20 = 44 from each of three
        assert "合计 44 花" in str(preview.params["text"])
        await tap(bot, BOB, "确认")
        assert await balances(db) == [-44, 132, -44, -44]


async def test_a_pattern_win_with_back(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        pad = await Pad.opened(bot, CAROL, "/hu")
        await pad("bob 胡", "dave 放炮")
        await tap(bot, CAROL, "报番型")
        assert "自摸，还是胡谁的牌" in str((await tap(bot, CAROL, "← 返回")).params["text"])
        await tap(bot, CAROL, "carol")
        await tap(bot, CAROL, "3")
        await tap(bot, CAROL, "清一色")
        preview = await tap(bot, CAROL, "对对胡")
        # 20 + 2×3 + 门清 20 + 清一色 60 + 对对胡 40 = 146, paid by carol
        assert "合计 146 花" in str(preview.params["text"])
        assert "✓ 清一色" in buttons(fake) and "✓ 对对胡" in buttons(fake)
        await tap(bot, CAROL, "确认")
        assert await balances(db) == [0, 146, -146, 0]


async def test_a_stale_pad_records_nothing(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        pad = await Pad.opened(bot, BOB, "/hu")
        await pad("bob 胡")
        await bot.say(ALICE, "/draw")  # the hand is over: the pad's buttons belong to hand 1
        before = len(fake.calls)
        assert await pad("carol 放炮") == STALE
        assert not [c for c in fake.calls[before:] if c.method in ("sendMessage", "editMessageText")]
        assert await balances(db) == [0, 0, 0, 0]


async def test_an_expired_pad_records_nothing(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        pad = await Pad.opened(bot, BOB, "/hu")
        await pad("bob 胡")
        referee(bot).services.clock = lambda: time.time() + 3600
        before = len(fake.calls)
        assert "已过期" in await pad("carol 放炮")  # said to the presser; the pad is not written over
        assert not [c for c in fake.calls[before:] if c.method in ("sendMessage", "editMessageText")]
        assert await balances(db) == [0, 0, 0, 0]


async def test_gang_and_penalty_in_taps(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        await start(bot, BOB, "/gang")
        await tap(bot, BOB, "明杠")
        await tap(bot, BOB, "carol")
        await tap(bot, BOB, "记下")
        assert await balances(db) == [0, 6, -6, 0]  # exposed gang: carol → bob 6
        await start(bot, ALICE, "罚")
        await tap(bot, ALICE, "跟牌")
        await tap(bot, ALICE, "dave")
        assert await balances(db) == [10, 16, 4, -30]  # 跟牌: dave → each other 10


async def test_a_flag_toggle_in_the_command_layer(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("B: /gang self 3m")  # 3 from each
    pad = await Tapping.opened(table, "B")
    assert not pad.pad.edits and not pad.pad.recorded  # the pad: a message of its own, never written over
    step = await pad("B 胡", "自摸", "报番型")
    for label in ("4", "大杠开花"):
        step = await press_label(table, step, "B", label)
        assert not step.recorded
    # 20 + 2×(4 hard + 2 gang) + 门清 20 + 大杠开花 40 = 92 from each (after a concealed gang: no 包牌)
    assert "  合计 92 花" in render_response(step).splitlines()
    done = await press_label(table, step, "B", "确认")
    assert done.recorded and done.edits
    assert await table.balances() == {"A": -3 - 92, "B": 9 + 276, "C": -3 - 92, "D": -3 - 92}
