"""Answers within Telegram's limits and within seconds (#41): the pacer's turns, the outbox's
coalescing, and the fake Telegram that enforces the limits. On a simulated clock
(tests/kit/virtual_time.py): every figure below is exact, whatever the machine."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import RetryAfter

from bot.telegram.delivery import Note, Outbox, Outgoing, Tidy
from bot.telegram.pace import ANSWER_WITHIN, BOARD_TURN, GROUP_BUDGET, OVERALL_BUDGET, PRIVATE_BUDGET, Budget, Pacer
from bot.telegram.shared import shared
from bot.text.replies import Choice, Reply, Response
from tests.kit.busy_table import busy_table
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.telegram import GROUP, Running
from tests.kit.virtual_time import run

CHAT = -100_777


def most_in(times: list[float], window: float) -> int:
    """The most of `times` in any `window` seconds."""
    return max(sum(1 for t in times if start <= t < start + window) for start in times)


def now() -> float:
    return asyncio.get_running_loop().time()


# ---- the budgets -------------------------------------------------------------------------------------


def test_the_budgets_stay_under_telegrams_limits() -> None:
    # a bucket of 3 refilled every 60/16 = 3.75 s: at most 3 + 16 = 19 messages in any minute (20 allowed);
    # overall 10 + 19 = 29 in any second (30 allowed); a private chat 3 + 1 a second
    assert GROUP_BUDGET.most_in(60) == 19 and GROUP_BUDGET.every == 3.75
    assert OVERALL_BUDGET.most_in(1) == 29
    assert PRIVATE_BUDGET.most_in(1) == 4


def test_a_chat_asking_without_pause_gets_19_turns_a_minute_evenly() -> None:
    async def play() -> list[float]:
        pacer, times = Pacer(), []
        for _ in range(60):
            await pacer.turn(CHAT)
            times.append(now())
        return times

    times = run(play())
    start = times[0]
    # three at once, then one every 3.75 s: 3 + 15 in any minute (the 16th is the next minute's first)
    assert [round(t - start, 2) for t in times[:5]] == [0.0, 0.0, 0.0, 3.75, 7.5]
    assert most_in(times, 60.0) == 18


def test_forty_chats_at_once_stay_under_thirty_a_second() -> None:
    async def play() -> list[float]:
        pacer, times = Pacer(), []

        async def chat(number: int) -> None:
            for _ in range(3):
                await pacer.turn(-1000 - number)
                times.append(now())

        await asyncio.gather(*(chat(n) for n in range(40)))
        return times

    times = run(play())
    # 120 messages, each chat's 3 at once: 10 go at once and then one every 1/19 s, 28 in any second
    assert len(times) == 120 and most_in(times, 1.0) == 28


def test_a_429_stops_the_chat_for_as_long_as_telegram_asked() -> None:
    async def play() -> float:
        pacer = Pacer()
        await pacer.turn(CHAT)
        pacer.hold(CHAT, 30)  # Telegram: retry after 30
        asked = now()
        await pacer.turn(CHAT)
        return now() - asked

    # nothing for 30 s, then a token has to grow again: 30 + 3.75
    assert run(play()) == 30 + 3.75


def test_the_board_goes_before_an_answer_only_when_the_answer_can_still_be_in_time() -> None:
    """Turns every 3.75 s, all taken: an answer that came 0.2 s ago lets the board have this turn (it
    is then 0.2 + 3.75 s old at the next, within 4.5 s); one that came 1 s ago does not."""

    async def play(age: float) -> list[str]:
        pacer, order = Pacer(), []
        for _ in range(3):
            await pacer.turn(CHAT)  # the bucket spent: the next turn is 3.75 s away
        came = now() + 3.75 - age

        async def answer() -> None:
            await asyncio.sleep(3.75 - age)
            async with pacer.ready(CHAT, lambda: came):
                await pacer.turn(CHAT)
                order.append("answer")

        async def board() -> None:
            await pacer.free(CHAT)
            await pacer.turn(CHAT, urgent=False)
            order.append("board")

        await asyncio.gather(answer(), board())
        return order

    assert 0.2 + GROUP_BUDGET.every <= ANSWER_WITHIN < 1.0 + GROUP_BUDGET.every
    assert run(play(0.2)) == ["board", "answer"]
    assert run(play(1.0)) == ["answer", "board"]


def test_on_the_real_clock_an_answer_too_old_to_leave_its_turn_to_the_board_goes_at_once() -> None:
    """The board waits (its change 1 s old) behind an answer that came 10 s ago, past DUE_ANSWER_WITHIN:
    the answer has the chat's token (three are there) at once, then the board. On the event loop's own
    clock, which moves between two readings (the simulated one does not): a token counted on a later
    reading than the one the wait is measured from is no wait, or the answer waits a microsecond at a
    time while the board waits for it — for ever (the process test of issue #39 saw no /summary)."""

    async def play() -> list[str]:
        pacer, order = Pacer(), []
        start = now()
        pacer.due(CHAT, (start - 1, start + 17))
        board_turn = BOARD_TURN.set(True)
        try:
            board = asyncio.create_task(pacer.free(CHAT))  # the board's task: its turns are the board's
        finally:
            BOARD_TURN.reset(board_turn)

        async def answer() -> None:
            async with pacer.ready(CHAT, lambda: start - 10):
                await pacer.turn(CHAT)
                order.append("answer")

        await asyncio.wait_for(answer(), 2.0)
        await asyncio.wait_for(board, 2.0)
        order.append("board")
        return order

    assert asyncio.run(play()) == ["answer", "board"]


# ---- the outbox ------------------------------------------------------------------------------------


def item(text: str, buttons: int = 0, edit: int | None = None, recorded: bool = False) -> Outgoing:
    choices = tuple(Choice(Reply(f"{text}-{n}"), f"/x{n}") for n in range(buttons))
    response = Response((Reply(text),), "en", choices=choices, night_id=1, hand_no=1, recorded=recorded)
    return Outgoing(CHAT, None, "tg", response, edit=edit)


Sent = list[tuple[float, list[str], int | None]]


def outbox(sent: Sent, pacer: Pacer) -> Outbox:
    async def send(chat: int, batch: list[Outgoing], text: str, notes: tuple[Note, ...]) -> None:
        sent.append((now(), [i.response.replies[0].key for i in batch], batch[0].edit if batch else None))

    return Outbox(send, pacer=pacer)


def test_a_backlog_goes_in_order_past_edits_and_an_older_edit_of_the_same_message_is_dropped() -> None:
    async def play() -> Sent:
        sent: Sent = []
        box = outbox(sent, Pacer.unlimited())
        for queued in (
            item("a"),
            item("step 1", edit=7),
            item("b"),
            item("question", buttons=2),
            item("step 2", edit=7),
            item("c", buttons=1),
            item("result", edit=8, recorded=True),
            item("result again", edit=8),
        ):
            box.push(queued)
        await box.idle()
        return sent

    sent = run(play())
    # the answers that can share a message share one, in the order they came, with their buttons;
    # the edits go after it (an edit puts no message before another); of message 7's two steps only
    # the latest; a recorded result is never dropped
    assert [(keys, edit) for _, keys, edit in sent] == [
        (["a", "b", "question", "c"], None),
        (["step 2"], 7),
        (["result"], 8),
        (["result again"], 8),
    ]


def test_answers_at_forty_a_minute_each_come_within_one_turn() -> None:
    """A line every 1.5 s on average (seeded), every one answered, all of them joinable: each answer
    goes in the next turn, so none waits more than 3.75 s, and 19 messages a minute at most."""

    async def play() -> tuple[list[float], list[float]]:
        sent: Sent = []
        delays: list[float] = []
        pushed: dict[str, float] = {}

        async def send(chat: int, batch: list[Outgoing], text: str, notes: tuple[Note, ...]) -> None:
            await pacer.turn(chat)
            sent.append((now(), [], None))
            delays.extend(now() - pushed[i.response.replies[0].key] for i in batch)

        pacer = Pacer()
        box = Outbox(send, pacer=pacer)
        rng = random.Random(41)
        for n in range(400):
            await asyncio.sleep(rng.expovariate(40 / 60))
            pushed[str(n)] = now()
            box.push(item(str(n), buttons=n % 7 == 0))
        await box.idle()
        return delays, [t for t, _, _ in sent]

    delays, times = run(play())
    assert len(delays) == 400 and max(delays) <= GROUP_BUDGET.every and most_in(times, 60.0) <= 19


def test_buttons_are_taken_off_later_and_only_when_no_answer_is_due() -> None:
    async def play() -> list[tuple[str, float]]:
        events: list[tuple[str, float]] = []
        pacer = Pacer(group=Budget(1, 3.75))

        async def take_off(chat: int, message: int, pressed: frozenset[str | None]) -> None:
            await pacer.turn(chat, urgent=False)
            events.append((f"tidy {message} {sorted(map(str, pressed))}", now()))

        tidy = Tidy(take_off, pacer)
        start = now()
        await pacer.turn(CHAT)  # the bucket of one spent
        tidy.push(CHAT, 5, "a")
        tidy.push(CHAT, 5, "b")  # two answers of one message: one edit
        async with pacer.ready(CHAT, lambda: start):  # an answer due since the start
            await pacer.turn(CHAT)
            events.append(("answer", now()))
        await tidy.idle()
        return [(what, round(at - start, 2)) for what, at in events]

    # the answer has the turn at 3.75 (it could not wait another); the buttons at 7.5, in one edit
    assert run(play()) == [("answer", 3.75), ("tidy 5 ['a', 'b']", 7.5)]


# ---- a message that carries several answers --------------------------------------------------------


def buttons(*data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(d, callback_data=d) for d in data]])


def test_a_press_writes_over_its_own_answer_and_keeps_the_others() -> None:
    text = "✅ #4 pong\n✅ #5 win\nsame discard?\n✅ #6 gang"
    parts = shared(text, [(("✅ #5 win",), buttons("d5")), (("same discard?",), buttons("yes", "no"))])
    assert parts is not None and parts.text == text
    written = parts.replaced(parts.holding("d5") or 0, "#5 in full: 跑20 … = 34", None)
    assert written.text == "✅ #4 pong\n#5 in full: 跑20 … = 34\nsame discard?\n✅ #6 gang"
    markup = written.markup()
    assert markup is not None and [b.callback_data for row in markup.inline_keyboard for b in row] == ["yes", "no"]
    asked = parts.holding("no")
    assert asked is not None
    left = parts.without_buttons(asked).markup()
    assert left is not None and [b.callback_data for row in left.inline_keyboard for b in row] == ["d5"]
    assert shared("a text split in two", [(("not in it",), buttons("x"))]) is None


# ---- the fake Telegram, told to enforce the limits -------------------------------------------------


async def test_the_fake_refuses_a_21st_message_a_minute_in_a_group_and_not_a_press_answer(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    clock = [0.0]
    fake.group_limit, fake.overall_limit, fake.clock = 20, 30, lambda: clock[0]
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        application_bot = bot.front.bot
        for n in range(19):
            await application_bot.send_message(GROUP, f"m{n}")
        sent = await application_bot.send_message(GROUP, "the 20th")
        with pytest.raises(RetryAfter):
            await application_bot.edit_message_text("an edit counts", chat_id=GROUP, message_id=sent.message_id)
        assert fake.refused[-1][1] == "Too Many Requests: retry after 60"
        assert fake.refused[-1][0].method == "editMessageText"
        await application_bot.answer_callback_query("cb1", "a press's answer is no message")
        assert fake.sent("answerCallbackQuery")  # answered: it counts against nothing
        clock[0] = 60.0  # a minute later the group may send again
        await application_bot.send_message(GROUP, "later")
        assert fake.texts(GROUP)[-1] == "later"


async def test_the_fake_refuses_a_31st_message_a_second_in_all(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.overall_limit, fake.clock = 30, lambda: 0.0
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        for chat in range(30):
            await bot.front.bot.send_message(-200 - chat, "one")
        with pytest.raises(RetryAfter):
            await bot.front.bot.send_message(-300, "the 31st")
        assert fake.refused[-1][1] == "Too Many Requests: retry after 1"


# ---- a busy table, end to end ----------------------------------------------------------------------


def test_a_busy_table_is_answered_within_five_seconds_and_a_tapped_win_is_two_messages() -> None:
    """Four players typing 40 lines a minute for three minutes (seeded), tapped wins among them, against
    a Telegram that enforces its limits (tests/kit/limited_bot.py), on a simulated clock: no 429, no
    answer lost, none later than 5 s after its line or tap, each tapped win two group messages."""
    figures = run(busy_table(40, 3.0, seed=7))
    assert figures.refused == 0 and figures.lost == 0
    assert figures.per_tapped_win and set(figures.per_tapped_win) == {2}
    assert max(figures.delays()) <= 5.0
    assert figures.lines >= 100
