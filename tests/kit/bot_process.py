"""The real `python -m bot` process against the fake Bot API, for the tests that run it.

`bot_against_fake` starts the fake server and the bot and, whatever the test does (a restart, a
kill, a failed assertion), leaves neither running: the teardown every real-process test needs.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from tests.kit.fake_telegram import FakeTelegram

ROOT = Path(__file__).resolve().parents[2]


def bot_environment(db: Path, base_url: str, without: Iterable[str] = (), **extra: str) -> dict[str, str]:
    """The bot's environment: this one, a test token, the fake server, the database; `without`
    drops variables the test must not inherit (a WEBHOOK_SECRET set in the shell)."""
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": "123:TEST",
        "TELEGRAM_BASE_URL": base_url,
        "REFEREE_DB": str(db),
        "PYTHONPATH": str(ROOT),
        **extra,
    }
    for name in without:
        env.pop(name, None)
    return env


def start_bot(db: Path, base_url: str, log: Path, without: Iterable[str] = (), **extra: str) -> subprocess.Popen[str]:
    """`python -m bot run` with its stderr appended to `log`."""
    with open(log, "a", encoding="utf-8") as stderr:
        return subprocess.Popen(
            [sys.executable, "-m", "bot", "run"],
            cwd=ROOT,
            env=bot_environment(db, base_url, without, **extra),
            stderr=stderr,
            text=True,
        )


async def stop(process: subprocess.Popen[str], sig: int = signal.SIGINT, timeout: float = 20) -> int:
    """Ask the process to stop (SIGINT), kill it if it has not after `timeout`; its exit status."""
    process.send_signal(sig)
    started = time.monotonic()
    while process.poll() is None and time.monotonic() - started < timeout:
        await asyncio.sleep(0.05)
    if process.poll() is None:
        process.kill()
        process.wait()
    return process.returncode


def count(db: Path, sql: str, *params: Any) -> int:
    with sqlite3.connect(db) as connection:
        return int(connection.execute(sql, params).fetchone()[0])


async def wait_until(condition: Callable[[], bool], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.05)


class BotProcess:
    """The running bot; `restart` starts it again on the same database, log and settings."""

    def __init__(self, db: Path, base_url: str, log: Path, without: Iterable[str], extra: dict[str, str]) -> None:
        self._start = lambda: start_bot(db, base_url, log, without, **extra)
        self.process = self._start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def poll(self) -> int | None:
        return self.process.poll()

    def restart(self) -> None:
        self.process = self._start()

    async def stop(self, sig: int = signal.SIGINT) -> int:
        return await stop(self.process, sig)

    def kill(self) -> None:
        """Kill it now (SIGKILL) if it is still running, and reap it."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@asynccontextmanager
async def bot_against_fake(
    db: Path, log: Path, url_suffix: str = "", without: Iterable[str] = (), **extra: str
) -> AsyncIterator[tuple[FakeTelegram, BotProcess]]:
    """The fake Bot API and `python -m bot` talking to it (at the fake's URL + `url_suffix`); on the
    way out the bot is killed if still running and the fake server stopped."""
    fake = FakeTelegram()
    await fake.start()
    try:
        bot = BotProcess(db, fake.base_url + url_suffix, log, tuple(without), extra)
        try:
            yield fake, bot
        finally:
            bot.kill()
    finally:
        await fake.stop()
