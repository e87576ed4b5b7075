"""The claim prompt's neighbours fuzzed (#47 item 6): nights of one, two and four named seats, some
claimed, some free, open or closed, and accounts with and without a seat, typing the lines that reach
seat lookups (a claim, a join, a line naming a seat or none, an undo, a rename, a swap). Every line is
answered or left silent: none fails inside the referee (`error.internal`, or an exception logged)."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker

CHAT = "tg:-100"
OPENER = Speaker("300", "Opener", names=("Opener",))
SPEAKERS = (
    OPENER,
    Speaker("201", "张三", names=("张三",)),  # the account whose name a seat carries
    Speaker("205", "Mike", names=("Mike",)),  # an account of no seat's name
    Speaker("206", "Nina", username="nina", names=("Nina",)),
    Speaker("", "张三", by_name=True),  # the console's player, named in the line
    Speaker("207", "Admin", is_admin=True, names=("Admin",)),
)
OPENINGS = ("/new 张三", "/new 张三 李四", "开局 张三 李四 王五 赵六", "/new @nina 张三", "/new Opener")
LINES = (
    "碰 张三",
    "张三 碰 李四",
    "罚 跟牌 张三",
    "/pong 张三 4p",
    "/penalty 张三 10",
    "/gang self",
    "花杠",
    "胡",
    "/hu self flowers=4",
    "我是 张三",
    "我是 李四",
    "/join",
    "/join 张三",
    "/join #0",
    "/join #3",
    "/unseat 张三",
    "/unseat",
    "/undo",
    "撤销",
    "/fix 2 罚 跟牌 李四",
    "/rename 张三 小张",
    "换人 张三 钱七",
    "/swap 张三 李四",
    "/dealer 张三",
    "/score",
    "/me",
    "荒庄",
    "/summary",
    "确认",
    "/reopen",
    "hello",
)


async def play(opening: str, turns: list[tuple[int, int]]) -> list[str]:
    """The lines that failed inside the referee."""
    failed: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        referee = await Referee.open(Path(folder) / "ledger.sqlite3", charts_enabled=False)
        try:
            await referee.handle(Incoming(CHAT, OPENER, opening))
            for who, what in turns:
                line = LINES[what]
                response = await referee.handle(Incoming(CHAT, SPEAKERS[who], line))
                if response is not None and response.replies and response.replies[0].key.startswith("error.internal"):
                    failed.append(f"{SPEAKERS[who].name}: {line}")
        finally:
            await referee.close()
    return failed


class Failures(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def failures() -> Failures:
    return Failures()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    st.sampled_from(OPENINGS),
    st.lists(st.tuples(st.integers(0, len(SPEAKERS) - 1), st.integers(0, len(LINES) - 1)), min_size=1, max_size=10),
)
def test_no_seat_shape_makes_a_line_fail(failures: Failures, opening: str, turns: list[tuple[int, int]]) -> None:
    logger = logging.getLogger("bot")
    logger.addHandler(failures)
    try:
        failed = asyncio.run(play(opening, turns))
    finally:
        logger.removeHandler(failures)
    assert failed == []
    assert failures.messages == []
