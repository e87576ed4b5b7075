"""A guided flow is used once, end to end: its recorded event is keyed by the flow, not by the button,
so a double tap on the last step, another button of the same step, or the console line typed again
records once; a flow of another hand, from the future, or with an oversized number records nothing.
Figures by hand (nanjing, stake 1)."""

from __future__ import annotations

import io
import re
import sqlite3
import time
from pathlib import Path

from bot.chat.handlers.flows import NAME_LENGTH, Head, flow_toggles
from bot.chat.service import Referee
from bot.console import Console
from bot.telegram.callback import CALLBACK_LIMIT
from bot.text.replies import Response, render_response
from engine.preset import PRESET_NAMES, preset_from_dict, resolved_builtin
from locales import Translator
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.flows import (
    NEW,
    buttons_of,
    command_of,
    console_step,
    penalty_who_step,
    press_label,
    start,
    tap,
)
from tests.kit.harness import Table
from tests.kit.telegram import ALICE, BOB, Running, balances

ALREADY = re.compile(r"已记录 #(\d+)")
RECORDED = re.compile(r"✅ #(\d+)")


def text_of(response: Response | None) -> str:
    assert response is not None
    return render_response(response, Translator(response.language))


async def test_two_buttons_of_the_last_step_record_once(table: Table) -> None:
    await table.say("/new A B C D")
    who = await penalty_who_step(table)
    first = await table.respond(f"A: {command_of(who, 'C')}")
    event = RECORDED.search(text_of(first))
    assert event is not None
    # the same keyboard, pressed again on another name: the flow is used up
    second = await table.respond(f"A: {command_of(who, 'D')}")
    assert second is not None and not second.recorded and not second.edits
    assert ALREADY.findall(text_of(second)) == [event.group(1)]
    # 跟牌 once: C pays 10 to each of the three others
    assert await table.balances() == {"A": 10, "B": 10, "C": -30, "D": 10}


async def test_every_step_of_a_used_flow_says_already_recorded(table: Table) -> None:
    await table.say("/new A B C D")
    who = await penalty_who_step(table)
    back = command_of(who, "← 返回")
    await table.respond(f"A: {command_of(who, 'C')}")
    again = await table.respond(f"A: {back}")  # an earlier step of the same flow
    assert again is not None and ALREADY.search(text_of(again)) and not again.choices
    assert await table.balances() == {"A": 10, "B": 10, "C": -30, "D": 10}


async def test_a_gang_flow_records_once(table: Table) -> None:
    await table.say("/new A B C D")
    step = await table.respond("B: /gang")
    assert step is not None
    for label in ("明杠", "C"):
        step = await press_label(table, step, "B", label)
    record = command_of(step, "记下")
    assert (await table.respond(f"B: {record}")).recorded  # type: ignore[union-attr]
    assert not (await table.respond(f"B: {record}")).recorded  # type: ignore[union-attr]
    assert await table.balances() == {"A": 0, "B": 6, "C": -6, "D": 0}  # one exposed gang: C → B 6


async def test_two_flows_of_the_same_minute_are_two_flows(table: Table) -> None:
    """Flows are named, not only timed: two penalties opened in one minute both record."""
    await table.say("/new A B C D")
    table.referee.services.clock = lambda: 1_800_000_000.0
    first = await penalty_who_step(table)
    second = await penalty_who_step(table)
    assert command_of(first, "C") != command_of(second, "C")
    assert (await table.respond(f"A: {command_of(first, 'C')}")).recorded  # type: ignore[union-attr]
    assert (await table.respond(f"A: {command_of(second, 'C')}")).recorded  # type: ignore[union-attr]
    # 跟牌 twice by C: 2 × 10 to each of the three others
    assert await table.balances() == {"A": 20, "B": 20, "C": -60, "D": 20}


async def test_a_future_flow_is_stale(table: Table) -> None:
    await table.say("/new A B C D")
    who = await penalty_who_step(table)
    line = command_of(who, "C")
    minute = int(re.search(r"~t(\d+)", line).group(1))  # type: ignore[union-attr]
    future = line.replace(f"~t{minute}", f"~t{minute + 60 * 24 * 365}", 1)  # a year ahead
    answer = await table.respond(f"A: {future}")
    assert answer is not None and not answer.recorded and "失效" in text_of(answer)
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}


async def test_oversized_numbers_in_a_token_are_refused(table: Table) -> None:
    await table.say("/new A B C D")
    name = "a" * NAME_LENGTH
    for line in (
        f"/penalty ~t{'9' * 400}kfo1",  # the old form, with a 400-digit minute
        f"/penalty ~t{'9' * 400}g1d1n{name}kfo1",
        f"/penalty ~t29936118g{'9' * 400}d1n{name}kfo1",
        f"/penalty ~t29936118g1d{'9' * 400}n{name}kfo1",
        f"/hu ~t29936118g1d1n{name}w1fsh2p{'f' * 400}x",
    ):
        answer = await table.respond(f"A: {line}")
        assert answer is not None and answer.refused, line
        assert "看不懂" in text_of(answer), line  # flow.bad, never "出错了" (an internal error)
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}


async def test_a_flow_expires_after_ten_minutes(table: Table) -> None:
    await table.say("/new A B C D")
    who = await penalty_who_step(table)
    now = time.time()
    table.referee.services.clock = lambda: now + 11 * 60
    answer = await table.respond(f"A: {command_of(who, 'C')}")
    assert answer is not None and not answer.recorded and "已过期" in text_of(answer)


# ---- the console: the lines it prints are typed back -------------------------------------------------


async def test_the_console_records_a_flow_line_once(referee: Referee) -> None:
    out = io.StringIO()
    console = Console(referee, "console-1", None, out, Path("."))
    await console.run_line("/new A B C D")
    await console_step(console, out, "B: /hu")
    for label in ("B 胡", "C 放炮"):  # the pad's buttons: pressed by their labels
        await console_step(console, out, f"B: {label}")
    steps = await console_step(console, out, "B: 报番型")
    steps = await console_step(console, out, f"B: {steps['4']}")
    confirm = steps["确认"]
    await console.run_line(f"B: {confirm}")
    assert "✅" in out.getvalue()
    out.seek(0)
    out.truncate()
    await console.run_line(f"B: {confirm}")  # typed again
    assert ALREADY.search(out.getvalue()) and "✅" not in out.getvalue()
    table = Table(referee, "console-1")
    # one win, nothing ponged: 20 + 2×4 hard flowers + 门清 20 = 48, paid by C
    assert await table.balances() == {"A": 0, "B": 48, "C": -48, "D": 0}


async def test_an_old_flow_line_records_nothing_in_a_later_hand(referee: Referee) -> None:
    out = io.StringIO()
    console = Console(referee, "console-2", None, out, Path("."))
    await console.run_line("/new A B C D")
    steps = await console_step(console, out, "A: /penalty")
    steps = await console_step(console, out, f"A: {steps['跟牌']}")
    old = steps["C"]
    await console.run_line("A: /draw")  # hand 1 is over
    out.seek(0)
    out.truncate()
    await console.run_line(f"A: {old}")
    assert "失效" in out.getvalue() and "✅" not in out.getvalue()
    assert await Table(referee, "console-2").balances() == {"A": 0, "B": 0, "C": 0, "D": 0}


# ---- Telegram: a double tap on the penalty's who-step ------------------------------------------------


async def test_a_double_tap_on_the_last_step_records_once_in_telegram(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        await start(bot, ALICE, "罚")
        await tap(bot, ALICE, "跟牌")
        keyboard = [c for c in fake.calls if c.method == "editMessageText" and "reply_markup" in c.params][-1]
        data = buttons_of(keyboard)
        before = len(fake.calls)
        fake.press(ALICE, keyboard, data["carol"])  # two fingers, before the edit lands
        await fake.settle(fake.press(BOB, keyboard, data["dave"]))
        edits = [str(c.params["text"]) for c in fake.calls[before:] if c.method == "editMessageText"]
        answers = [str(c.params.get("text", "")) for c in fake.calls[before:] if c.method == "answerCallbackQuery"]
        recorded = [RECORDED.search(text) for text in edits]
        assert len(edits) == 1 and recorded[0] is not None
        assert [ALREADY.findall(a) for a in answers if a] == [[recorded[0].group(1)]]
        # 跟牌 once: carol pays 10 to each of the three others
        assert await balances(db) == [10, 10, -30, 10]
    with sqlite3.connect(db) as connection:  # both presses are done in the inbox: a restart replays neither
        assert connection.execute("SELECT COUNT(*) FROM inbox WHERE done = 0").fetchone() == (0,)


async def test_one_question_keyboard_records_once_whichever_buttons_are_pressed(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """`/pong` asks whose discard: two names pressed before the keyboard is gone record one pong."""
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "/pong")
        keyboard = [c for c in fake.calls if "reply_markup" in c.params][-1]
        data = buttons_of(keyboard)
        before = len(fake.calls)
        fake.press(BOB, keyboard, data["carol"])
        await fake.settle(fake.press(BOB, keyboard, data["dave"]))
        answers = [str(c.params.get("text", "")) for c in fake.calls[before:] if c.method == "answerCallbackQuery"]
        assert any(ALREADY.search(a) for a in answers)
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM events WHERE kind = 'pong'").fetchone() == (1,)


def test_the_longest_flow_button_fits_telegrams_64_bytes() -> None:
    """A button over 64 bytes would be left off the keyboard: the head's names must leave room."""
    most = max(len(flow_toggles(preset_from_dict(resolved_builtin(name)), True)) for name in PRESET_NAMES)
    head = Head(minute=99_999_999, night=9_999_999, hand=999, name="z" * NAME_LENGTH)
    longest = f"9999999:999:/hu {head.text}w3f2h20p{(1 << most) - 1:x}x"
    assert len(longest.encode()) <= CALLBACK_LIMIT
