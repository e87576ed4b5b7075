"""点牌: a winning hand entered by tapping its tiles, pressed by label like a player would.

Every figure is worked by hand from RULES.md (nanjing, stake 1; 跑 20, 砸 2, soft flowers 1 each) and
checked twice: the hand tapped, and the same hand typed in notation, which must move the same money.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest

from bot.chat.handlers.flows import NAME_LENGTH, Head, tile_label
from bot.chat.service import Referee
from bot.console import Console
from bot.telegram.app import ROW_LIMIT
from bot.telegram.callback import CALLBACK_LIMIT
from bot.text.replies import Response, render
from engine.hand import MeldKind
from engine.notation import format_hand
from engine.tiles import tile_name
from locales import Translator
from tests.fake_telegram import Call, FakeTelegram
from tests.harness import Table
from tests.kit.flows import CONCEALED, NEW, buttons_of, console_step, press_label, start, tap_through
from tests.kit.replies import text_of
from tests.kit.telegram import ALICE, BOB, Running, balances, buttons
from tests.varied_hands import varied_hands

# ---- Telegram: the taps counted --------------------------------------------------------------------


class Presses:
    """Presses buttons by label on the flow's latest keyboard, counting them and checking each
    keyboard as Telegram would take it (64-byte data, 8 buttons a row)."""

    def __init__(self, bot: Running, sender: dict[str, Any]) -> None:
        self.bot = bot
        self.sender = sender
        self.count = 0
        self.last: Call | None = None

    async def __call__(self, *labels: str) -> Call:
        server = self.bot.fake
        for label in labels:
            keyboard = [c for c in server.calls if "reply_markup" in c.params][-1]
            check_keyboard(keyboard)
            data = buttons_of(keyboard)
            assert label in data, (label, list(data))
            self.last = await self.press(keyboard, data[label])
            self.count += 1
        assert self.last is not None
        return self.last

    async def press(self, keyboard: Call, data: str) -> Call:
        server = self.bot.fake
        before = len(server.calls)
        update = server.press(self.sender, keyboard, data)
        await server.wait_for(lambda: any(c.method == "editMessageText" for c in server.calls[before:]), timeout=30)
        await server.settle(update)
        return next(c for c in server.calls[before:] if c.method == "editMessageText")


def check_keyboard(call: Call) -> None:
    for row in call.params["reply_markup"]["inline_keyboard"]:
        assert len(row) <= ROW_LIMIT
        for button in row:
            assert len(button["callback_data"].encode()) <= CALLBACK_LIMIT


async def test_a_concealed_hand_in_eighteen_taps(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        await start(bot, BOB, "胡")  # the first 胡: typed, not a tap
        press = Presses(bot, BOB)
        pad = await press("bob", "自摸")
        rows = [[b["text"] for b in row] for row in pad.params["reply_markup"]["inline_keyboard"]]
        # a suit on two rows (1-5, 6-9), the winds with ⌫ (here: back, nothing tapped yet), then 报番型
        assert rows[0] == ["1万", "2万", "3万", "4万", "5万"] and rows[1] == ["6万", "7万", "8万", "9万"]
        assert [len(row) for row in rows] == [5, 4, 5, 4, 5, 4, 5, 1] and rows[6][:4] == ["东", "南", "西", "北"]
        step = await press(*CONCEALED[:-1])
        # the latest tap stands apart: it is what ⌫ takes back, and the winning tile if it is the last
        assert "还差 1 张" in str(step.params["text"]) and "已点：123456789万 234筒 ＋5筒" in str(step.params["text"])
        await press(CONCEALED[-1])  # the last tile tapped is the winning tile
        preview = await press("2")
        text = str(preview.params["text"])
        # RULES §11 example 1: 123m 456m 789m 234p 5p +5p, self-draw, 2 hard flowers; waits 2p/5p (no wait
        # flower), 缺一 1: 20 + 2×(2+1) + 门清 20 = 46 from each
        assert "已点：123456789万 2345筒 ＋5筒" in text and "合计 46 花" in text
        assert "手打：bob: /hu self 123456789m2345p +5p flowers=2" in text
        assert await balances(db) == [0, 0, 0, 0]  # a preview records nothing
        done = await press("确认")
        assert "✅" in str(done.params["text"])
        assert press.count == 18  # bob, 自摸, 14 tiles, 2, 确认
        assert await balances(db) == [-46, 138, -46, -46]


async def test_three_logged_melds_leave_five_tiles_in_nine_taps(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "/pong alice E")
        await bot.say(BOB, "/pong dave 4p")
        await bot.say(BOB, "/pong carol 7s")
        await start(bot, BOB, "/hu")
        press = Presses(bot, BOB)
        step = await press("bob", "carol")
        text = str(step.params["text"])
        assert "已记：碰东 · 碰4筒 · 碰7条（不用再点）" in text and "还差 5 张" in text  # 14 − 3 × 3
        await press("1筒", "1筒", "7条", "9条", "8条")
        preview = await press("4")
        # 11p 79s [EEE] [444p] [777s] +8s on carol's discard, 4 hard: sole wait 8s 压档 1, 风碰 1, 缺一
        # (no 万) 1: 20 + 2×(4+3) = 34; 8s is no pong's tile, so no 压绝
        assert "合计 34 花" in str(preview.params["text"])
        await press("确认")
        assert press.count == 9  # bob, carol, 5 tiles, 4, 确认
        assert await balances(db) == [0, 34, -34, 0]


async def test_a_fifth_copy_is_not_offered(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(ALICE, "/pong carol 5p")  # three 5p at the table
        await start(bot, BOB, "/hu")
        press = Presses(bot, BOB)
        await press("bob", "自摸")
        assert "5筒" in buttons(fake) and "4筒" in buttons(fake)
        await press("5筒")  # the fourth
        assert "5筒" not in buttons(fake) and "4筒" in buttons(fake)


# ---- the command layer: tapped and typed move the same money ----------------------------------------


HANDS = [
    # (logged before, typed line, the taps after winner and discarder, flowers, B's balance)
    (
        # RULES §11 example 2: sole wait 8s 压档 1, 风碰 1, 缺一 1: 20 + 2×(4+3) = 34, paid by C
        ["B: /pong A E", "B: /pong D 4p"],
        "B: /hu C 11p 567s 79s [EEE] [444p] +8s flowers=4",
        ["1筒", "1筒", "5条", "6条", "7条", "7条", "9条", "8条"],
        "4",
        34,
    ),
    (
        # 12s waits on 3s alone: 边枝 1; all three suits, no 缺一; 门清 20: 20 + 2×(4+1) + 20 = 50
        [],
        "B: /hu C 123m 456m 789p 55p 12s +3s flowers=4",
        ["1万", "2万", "3万", "4万", "5万", "6万", "7筒", "8筒", "9筒", "5筒", "5筒", "1条", "2条", "3条"],
        "4",
        50,
    ),
    (
        # 222p 5p waits on 5p alone (the pair): 独占 1, 缺一 (no 条) 1, 门清 20, self-draw:
        # 20 + 2×(2+2) + 20 = 48 from each of three = 144
        [],
        "B: /hu self 123m 456m 789m 222p 5p +5p flowers=2",
        ["1万", "2万", "3万", "4万", "5万", "6万", "7万", "8万", "9万", "2筒", "2筒", "2筒", "5筒", "5筒"],
        "2",
        144,
    ),
    (
        # 79s waits on 8s, whose other three copies are B's own pong: 压绝 40 in place of 压档; all three
        # suits; not 门清 (a pong): 20 + 2×1 + 40 = 62
        ["B: /pong D 8s"],
        "B: /hu C 123m 456m 79s 55p [888s] +8s flowers=1",
        ["1万", "2万", "3万", "4万", "5万", "6万", "7条", "9条", "5筒", "5筒", "8条"],
        "1",
        62,
    ),
    (
        # 七对 80 (no 门清, no wait flower), all three suits, no wind triplet: 20 + 2×1 + 80 = 102
        [],
        "B: /hu C 11m 33m 55p 77p 99s EE 2s +2s flowers=1",
        ["1万", "1万", "3万", "3万", "5筒", "5筒", "7筒", "7筒", "9条", "9条", "东", "东", "2条", "2条"],
        "1",
        102,
    ),
]


@pytest.mark.parametrize(("logged", "typed", "taps", "flowers", "won"), HANDS)
async def test_tapped_and_typed_hands_move_the_same_money(
    table: Table, logged: list[str], typed: str, taps: list[str], flowers: str, won: int
) -> None:
    other = Table(table.referee, "group-typed")
    for chat in (table, other):
        await chat.play("/new A B C D\n" + "\n".join(logged))
    source = "自摸" if " self " in typed else "C"
    done = await tap_through(table, "B", ["B", source, *taps, flowers, "确认"])
    assert done.recorded
    await other.say(typed)
    assert (await table.balances())["B"] == won
    assert await table.balances() == await other.balances()


async def test_seven_pairs_show_their_pattern(table: Table) -> None:
    await table.say("/new A B C D")
    taps = HANDS[-1][2]
    step = await tap_through(table, "B", ["B", "C", *taps, "1"])
    # 七对 80: 20 + 2×1 + 80 = 102
    assert "七对：80" in text_of(step) and "合计 102 花" in text_of(step)


async def test_a_logged_meld_without_its_tile_asks_for_it_in_one_tap(table: Table) -> None:
    await table.play("/new A B C D\nB: 碰 A\nB: 碰 D")  # two pongs, no tiles
    step = await tap_through(table, "B", ["B", "C"])
    assert "记下的碰是哪张牌" in text_of(step) and "已记：碰？ · 碰？" in text_of(step)
    step = await press_label(table, step, "B", "东")
    step = await press_label(table, step, "B", "4筒")
    assert "已记：碰东 · 碰4筒" in text_of(step) and "还差 8 张" in text_of(step)
    for label in ["1筒", "1筒", "5条", "6条", "7条", "7条", "9条", "8条", "4"]:
        step = await press_label(table, step, "B", label)
    # RULES §11 example 2 again: 20 + 2×(4+3) = 34
    assert "合计 34 花" in text_of(step)
    assert (await press_label(table, step, "B", "确认")).recorded
    assert await table.balances() == {"A": 0, "B": 34, "C": -34, "D": 0}


async def test_a_pong_the_log_never_saw_is_added_on_the_pad(table: Table) -> None:
    await table.say("/new A B C D")
    step = await tap_through(table, "B", ["B", "C", "东", "东", "东"])
    step = await press_label(table, step, "B", "+碰")
    assert "已点：碰东" in text_of(step) and "还差 11 张" in text_of(step)
    for label in ["1筒", "1筒", "5条", "6条", "7条", "7条", "9条", "4筒", "4筒", "4筒", "8条", "4"]:
        step = await press_label(table, step, "B", label)
    # 11p 567s 79s 444p [EEE] +8s: the 4p triplet concealed, the east pong breaks 门清; 压档 1, 风碰 1,
    # 缺一 1: 20 + 2×(4+3) = 34
    assert "合计 34 花" in text_of(step)
    assert "[EEE]" in text_of(step)


async def test_backspace_takes_back_the_last_tile(table: Table) -> None:
    await table.say("/new A B C D")
    step = await tap_through(table, "B", ["B", "C", "1万", "9条"])
    step = await press_label(table, step, "B", "⌫")
    assert "已点：1万（" not in text_of(step) and "已点：＋1万" not in text_of(step)
    assert "还差 13 张" in text_of(step)


async def test_a_crafted_fifth_copy_is_refused_and_records_nothing(table: Table) -> None:
    await table.play("/new A B C D\nA: /pong C 5p")
    step = await tap_through(table, "B", ["B", "C", "5筒"])  # the fourth 5p
    head = step.choices[0].command.rsplit("o", 1)[0]
    answer = await table.respond(f"B: {head}otD")  # a fifth 5p (tile 13 is D in the alphabet)
    assert answer is not None and answer.refused and not answer.recorded
    assert "5筒 四张都已在桌上" in text_of(answer)
    step = await table.respond(f"B: {head}ot0")  # the pad is as it was: one tile, 5p, then 1m
    assert step is not None and "已点：5筒 ＋1万" in text_of(step)
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}


async def test_an_unreadable_tap_is_refused(table: Table) -> None:
    await table.say("/new A B C D")
    step = await tap_through(table, "B", ["B", "C"])
    head = step.choices[0].command.rsplit("o", 1)[0]
    for tap in ("oz", "ot!", "otz", "ot", "os9s", "os11", "ob1", "c" + "z" * 14):
        answer = await table.respond(f"B: {head}{tap}")
        assert answer is not None and answer.refused and "看不懂" in text_of(answer), tap


async def test_on_a_discard_win_no_self_draw_flag_is_offered(table: Table) -> None:
    await table.play("/new A B C D\nB: /gang self 3m")
    labels = set(labels_of(await tap_through(table, "B", ["B", "C", "报番型", "4"])))
    assert "大杠开花" not in labels and "海底捞月" not in labels and "抢杠" not in labels  # C holds no pong
    await table.say("C: /pong D 7p")
    robbed = set(labels_of(await tap_through(table, "B", ["B", "C", "报番型", "4"])))
    assert "抢杠" in robbed  # C's pong of 7p could have been upgraded and robbed
    drawn = set(labels_of(await tap_through(table, "B", ["B", "自摸", "报番型", "4"])))
    assert "大杠开花" in drawn and "海底捞月" in drawn and "抢杠" not in drawn


def test_every_tile_button_fits_telegrams_64_bytes() -> None:
    """The longest tap after the longest head and the button's night and hand."""
    head = Head(minute=99_999_999, night=9_999_999, hand=999, name="z" * NAME_LENGTH)
    longest = f"9999999:999:/hu {head.text}os3s"
    assert len(longest.encode()) <= CALLBACK_LIMIT


def labels_of(response: Response) -> list[str]:
    return [render(c.label, Translator(response.language)) for c in response.choices]


async def test_the_console_and_english_read_the_same_steps(table: Table) -> None:
    await table.play("/new A B C D\n/lang en\nB: /pong A E")
    step = await tap_through(table, "B", ["B", "C"])
    text = text_of(step)
    assert "Logged: pong E (not tapped again)" in text and "11 to go" in text
    assert labels_of(step)[:3] == ["1m", "2m", "3m"] and "Declare patterns" in labels_of(step)
    assert re.search(r"/hu ~t\d+g\d+d\d+n[0-9a-z]{5}ot0$", step.choices[0].command)  # the flow and one tap


async def test_a_gang_by_its_tile_then_a_hand_after_it(table: Table) -> None:
    await table.say("/new A B C D")
    step = await table.respond("B: /gang")
    assert step is not None
    step = await press_label(table, step, "B", "暗杠")
    assert "B 杠的是哪张" in text_of(step) and "3万" in labels_of(step) and "记下" in labels_of(step)
    done = await press_label(table, step, "B", "3万")
    assert done.recorded
    assert await table.balances() == {"A": -3, "B": 9, "C": -3, "D": -3}  # 暗杠: 3 from each other
    taps = ["B", "自摸", "4万", "5万", "6万", "7万", "8万", "9万", "2筒", "3筒", "4筒", "5筒"]
    step = await tap_through(table, "B", taps)
    assert "已记：暗杠3万" in text_of(step) and "3万" not in labels_of(step)  # all four are in the gang
    step = await press_label(table, step, "B", "5筒")
    step = await press_label(table, step, "B", "2")
    step = await press_label(table, step, "B", "大杠开花")  # right after his gang: offered, and toggled
    # (3333m) 456m 789m 234p 5p +5p self-drawn after the gang, 2 hard: waits 2p/5p (no wait flower);
    # soft: the gang 2, 缺一 (no 条) 1; 门清 (a concealed gang keeps it) 20, 大杠开花 40:
    # 20 + 2×(2+2+1) + 20 + 40 = 90 from each (after a concealed gang nobody is liable)
    assert "合计 90 花" in text_of(step)
    assert (await press_label(table, step, "B", "确认")).recorded
    assert await table.balances() == {"A": -93, "B": 279, "C": -93, "D": -93}


async def test_the_pattern_list_offers_only_what_the_log_allows(table: Table) -> None:
    await table.play("/new A B C D\nB: /pong A E")
    ponged = set(labels_of(await tap_through(table, "B", ["B", "C", "报番型", "4"])))
    # a wind pong rules out 清一色 and every seven-pairs hand; 混一色 and 对对胡 still can be
    assert "清一色" not in ponged and "七对" not in ponged and "豪华七对" not in ponged
    assert "混一色" in ponged and "对对胡" in ponged
    concealed = set(labels_of(await tap_through(table, "C", ["C", "D", "报番型", "4"])))
    assert "清一色" in concealed and "七对" in concealed


async def test_a_gang_the_log_never_saw_is_added_on_the_pad(table: Table) -> None:
    await table.say("/new A B C D")
    step = await tap_through(table, "B", ["B", "C", "9条", "9条", "9条"])
    assert "+碰" in labels_of(step) and "+杠" not in labels_of(step)
    step = await press_label(table, step, "B", "9条")
    step = await press_label(table, step, "B", "+杠")
    assert "已点：明杠9条" in text_of(step) and "还差 11 张" in text_of(step)
    for label in ["1万", "2万", "3万", "4万", "5万", "6万", "7万", "8万", "9万", "东", "东", "4"]:
        step = await press_label(table, step, "B", label)
    # 123456789m EE [9999s] +E on C's discard, 4 hard: the gang keeps 门清 20 (an exposed gang, RULES
    # §5); soft: the gang 2, the pair wait on E alone 独占 1, 缺一 (no 筒) 1: 20 + 2×(4+4) + 20 = 56
    assert "[9999s]" in text_of(step) and "合计 56 花" in text_of(step)


async def test_the_line_the_preview_shows_moves_the_same_money_when_typed(table: Table) -> None:
    other = Table(table.referee, "group-shown")
    for chat in (table, other):
        await chat.play("/new A B C D\nB: /pong A E\nB: /pong D 4p")
    step = await tap_through(table, "B", ["B", "C", "1筒", "1筒", "5条", "6条", "7条", "7条", "9条", "8条", "4"])
    shown = re.search(r"手打：(B: /hu .+)$", text_of(step), re.M)
    assert shown is not None
    assert (await press_label(table, step, "B", "确认")).recorded
    await other.say(shown.group(1))
    # RULES §11 example 2: 20 + 2×(4+3) = 34, paid by C
    assert await table.balances() == await other.balances() == {"A": 0, "B": 34, "C": -34, "D": 0}


async def test_the_console_prints_the_pad_as_lines_to_type(referee: Referee) -> None:
    out = io.StringIO()
    console = Console(referee, "console-pad", None, out, Path("."))
    await console.run_line("/new A B C D")
    steps = await console_step(console, out, "B: /hu")
    for label in ["B", "自摸", *CONCEALED]:
        steps = await console_step(console, out, f"B: {steps[label]}")
    steps = await console_step(console, out, f"B: {steps['2']}")
    await console.run_line(f"B: {steps['确认']}")
    assert "✅" in out.getvalue()
    # RULES §11 example 1: 20 + 2×(2+1) + 门清 20 = 46 from each
    assert await Table(referee, "console-pad").balances() == {"A": -46, "B": 138, "C": -46, "D": -46}


async def test_a_meld_made_last_asks_which_tile_won(table: Table) -> None:
    await table.say("/new A B C D")
    taps = ["1筒", "1筒", "5条", "6条", "7条", "7条", "8条", "9条", "4筒", "4筒", "4筒", "东", "东", "东"]
    step = await tap_through(table, "B", ["B", "C", *taps])
    assert "有几个硬花" in text_of(step) and "+碰" in labels_of(step)  # full, but the east can still be a pong
    step = await press_label(table, step, "B", "+碰")
    assert "胡的是哪一张" in text_of(step) and "东" not in labels_of(step)
    step = await press_label(table, step, "B", "8条")
    step = await press_label(table, step, "B", "4")
    # 11p 444p 567s 79s [EEE] +8s on C's discard: 压档 1, 风碰 1, 缺一 1: 20 + 2×(4+3) = 34 (the pong
    # breaks 门清)
    assert "合计 34 花" in text_of(step) and "[EEE] +8s" in text_of(step)


async def test_a_confirm_of_an_unfinished_pad_is_refused(table: Table) -> None:
    await table.say("/new A B C D")
    step = await tap_through(table, "B", ["B", "C"])
    head = step.choices[0].command.rsplit("o", 1)[0]
    answer = await table.respond(f"B: {head}ox")  # nothing tapped
    assert answer is not None and answer.refused and not answer.recorded and "还差 14 张" in text_of(answer)
    step = await tap_through(table, "B", ["B", "C", *CONCEALED])
    head = step.choices[0].command.rsplit("o", 1)[0]
    answer = await table.respond(f"B: {head}ox")  # full, but no hard-flower count
    assert answer is not None and answer.refused and not answer.recorded and "过去的一步" in text_of(answer)
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}


async def test_robbing_an_added_gang_taps_its_tile(table: Table) -> None:
    await table.play("/new A B C D\nC: /pong D 5p\nC: /gang add 5p")  # D fed the pong: D → C 6 (补杠)
    taps = ["1万", "2万", "3万", "4万", "5万", "6万", "7万", "8万", "9万", "3筒", "4筒", "东", "东", "5筒"]
    step = await tap_through(table, "B", ["B", "C", *taps, "4"])
    assert "⚠️" in text_of(step)  # the fourth 5p is C's gang's: only as 抢杠
    step = await press_label(table, step, "B", "抢杠")
    # 123456789m 34p EE +5p robbing C's gang, 4 hard: waits 2p/5p (no wait flower), 缺一 (no 条) 1,
    # 门清 20: 20 + 2×(4+1) + 20 = 50, counted as a self-draw (50 from each of three) that C pays alone
    # (RULES §8: 150), and C's gang money is returned (D → C 6 undone)
    assert "合计 50 花" in text_of(step)
    assert (await press_label(table, step, "B", "确认")).recorded
    assert await table.balances() == {"A": 0, "B": 150, "C": -150, "D": 0}


async def test_a_tapped_win_records_once(table: Table) -> None:
    await table.say("/new A B C D")
    step = await tap_through(table, "B", ["B", "自摸", *CONCEALED, "2"])
    confirm = next(c.command for c in step.choices if render(c.label, Translator("zh-Hans")) == "确认")
    assert (await table.respond(f"B: {confirm}")).recorded  # type: ignore[union-attr]
    again = await table.respond(f"B: {confirm}")  # a double tap, or the line typed again
    assert again is not None and not again.recorded and "已记录 #" in text_of(again)
    # RULES §11 example 1 once: 46 from each of three
    assert await table.balances() == {"A": -46, "B": 138, "C": -46, "D": -46}


MELD_LINES = {
    MeldKind.PONG: ["B: /pong D {tile}"],
    MeldKind.EXPOSED_GANG: ["B: /gang D {tile}"],
    MeldKind.CONCEALED_GANG: ["B: /gang self {tile}"],
    MeldKind.ADDED_GANG: ["B: /pong D {tile}", "B: /gang add {tile}"],
}


def label_of(tile: int) -> str:
    return render(tile_label(tile), Translator("zh-Hans"))


async def test_seeded_hands_move_the_same_money_tapped_or_typed(referee: Referee) -> None:
    """Every kind of hand (melds logged first, seven pairs, one suit, 压绝), on a discard and drawn: no
    money figure is asserted here (the hand-worked ones are above), only that the two ways of
    entering a hand are one."""
    for number, hand in enumerate(varied_hands(seed=24, per_kind=3)):
        tapped, typed = Table(referee, f"tap-{number}"), Table(referee, f"type-{number}")
        logged = [line.format(tile=tile_name(m.tile)) for m in hand.melds for line in MELD_LINES[m.kind]]
        for chat in (tapped, typed):
            await chat.play("/new A B C D\n" + "\n".join(logged))
        self_draw = number % 2 == 1
        labels = [label_of(t) for t in hand.concealed] + [label_of(hand.winning), "4"]
        step = await tap_through(tapped, "B", ["B", "自摸" if self_draw else "C", *labels])
        confirm = [c.command for c in step.choices if render(c.label, Translator("zh-Hans")) == "确认"]
        line = f"B: /hu {'self' if self_draw else 'C'} {format_hand(hand)} flowers=4"
        answer = await typed.respond(line)
        assert answer is not None
        # every seeded hand is a winning shape and 4 hard flowers meet the 小胡 limit: both record it
        assert confirm and answer.recorded, (line, text_of(step))
        assert (await tapped.respond(f"B: {confirm[0]}")).recorded  # type: ignore[union-attr]
        assert await tapped.balances() == await typed.balances(), line
