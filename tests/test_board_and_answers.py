"""Both promises at once (#41 item 1, #48 item 5): at a table whose answers would take every turn,
every answer still comes within 5 s of its line and the live board shows every change within 30 s.
The pacer, the outbox and the live board alone, on a simulated clock (tests/kit/virtual_time.py);
the whole front end against a Telegram that enforces its limits is bench/table_speed_bench.py."""

from __future__ import annotations

import asyncio
import random

from bot.telegram.delivery import LiveBoards, Note, Outbox, Outgoing
from bot.telegram.pace import Pacer
from bot.text.replies import Reply, Response
from tests.kit.virtual_time import run

CHAT = -100_888
ANSWER_WITHIN = 5.0  # seconds from a line to its answer (#41)
BOARD_WITHIN = 30.0  # seconds from a change to the board showing it (#48 item 5)


def most_in(times: list[float], window: float) -> int:
    return max(sum(1 for t in times if start <= t < start + window) for start in times)


def now() -> float:
    return asyncio.get_running_loop().time()


def answer(text: str) -> Outgoing:
    return Outgoing(CHAT, None, "tg", Response((Reply(text),), "en", night_id=1, hand_no=1, recorded=True))


async def table(lines_a_minute: int, minutes: float, seed: int) -> tuple[list[float], list[float], list[float]]:
    """Each line is answered and changes the board. Returns each answer's delay, each change's wait
    for the board that shows it, and when each message went."""
    pacer = Pacer()
    came: dict[str, float] = {}
    delays: list[float] = []
    lags: list[float] = []
    changes: list[float] = []  # changes not shown yet
    sent: list[float] = []

    async def send(chat: int, batch: list[Outgoing], text: str, notes: tuple[Note, ...]) -> None:
        await pacer.turn(chat)
        sent.append(now())
        delays.extend(now() - came[item.response.replies[0].key] for item in batch)

    async def publish(item: Outgoing) -> bool:
        chosen = now()
        await pacer.turn(item.chat, urgent=False)
        sent.append(now())
        lags.extend(now() - at for at in changes if at <= chosen)
        changes[:] = [at for at in changes if at > chosen]
        return True

    outbox = Outbox(send, pacer=pacer)
    boards = LiveBoards(publish, pacer=pacer)
    rng = random.Random(seed)
    end = now() + minutes * 60
    number = 0
    while now() < end:
        await asyncio.sleep(rng.expovariate(lines_a_minute / 60))
        number += 1
        came[str(number)] = now()
        outbox.push(answer(str(number)))
        changes.append(now())
        boards.push(answer(f"board {number}"))
    await outbox.idle()
    await boards.idle()
    return delays, lags, sent


def test_at_forty_lines_a_minute_every_answer_is_in_time_and_the_board_keeps_up() -> None:
    for seed in (41, 42):
        delays, lags, sent = run(table(40, 10.0, seed))
        assert len(delays) > 300 and max(delays) <= ANSWER_WITHIN, sorted(delays)[-5:]
        assert lags and max(lags) <= BOARD_WITHIN, sorted(lags)[-5:]
        assert most_in(sent, 60.0) <= 19


def test_at_twenty_lines_a_minute_too() -> None:
    delays, lags, sent = run(table(20, 10.0, 43))
    assert max(delays) <= ANSWER_WITHIN and max(lags) <= BOARD_WITHIN and most_in(sent, 60.0) <= 19


def test_buttons_are_taken_off_only_when_no_board_waits() -> None:
    """Tidying is nothing the table waits for: a board waiting for its turn goes first."""

    async def play() -> list[str]:
        pacer, order = Pacer(), []
        pacer.due(CHAT, (now(), now() + 18.0))  # the board waits from now

        async def tidy() -> None:
            await pacer.free(CHAT)
            order.append("buttons taken off")

        task = asyncio.create_task(tidy())
        await asyncio.sleep(2.0)  # tokens to spare all along: only the board keeps the buttons waiting
        order.append("board")
        pacer.due(CHAT, None)
        await task
        return order

    assert run(play()) == ["board", "buttons taken off"]
