"""A group playing with the Mini App open: the real bot against the fake Bot API, its Mini App served on a
local port, all on an event loop of its own thread, so that a browser driven synchronously from the
test reaches the page while the players type in the chat (docs/miniapp.md)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web

from bot.web import tokens
from bot.web.tokens import StartToken, token_key
from tests.kit.fake_telegram import FakeTelegram, user
from tests.kit.init_data import TEST_TOKEN, sign_init_data
from tests.kit.mini_app import app_site
from tests.kit.telegram import ALICE, BOB, CAROL, DAVE, GROUP, NEW, Running, balances

T = TypeVar("T")
MALLORY = user(66, "Mallory")  # not in the group
SEATED = (ALICE, BOB, CAROL, DAVE)


@dataclass
class AppTable:
    """The running table: `call` runs a coroutine on the bot's loop and waits for it."""

    running: Running
    loop: asyncio.AbstractEventLoop
    url: str  # the page, /app/
    db: Path

    def call(self, work: Coroutine[Any, Any, T], timeout: float = 20) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout)

    def say(self, who: dict[str, Any], text: str) -> str:
        """A line typed in the group, and the bot's reply to it."""
        return self.call(self.running.say(who, text))

    def idle(self) -> None:
        self.call(self.running.front.idle())

    def group_messages(self) -> list[str]:
        return [str(call.params.get("text", "")) for call in self.running.fake.sent(chat_id=GROUP)]

    def balances(self) -> list[int]:
        return self.call(balances(self.db))

    def init_data(self, who: dict[str, Any], night: int = 1, **kwargs: Any) -> str:
        """What Telegram hands the page `who` opened from the group's link to `night`."""
        start = tokens.sign(token_key(None, TEST_TOKEN), StartToken(GROUP, 0, night))
        return sign_init_data(who, start, **kwargs)

    def open_night(self) -> None:
        """`/new` with the four seated, each account bound to its seat by speaking once."""
        self.say(ALICE, NEW)
        for who in SEATED:
            self.say(who, "/score")


@contextmanager
def app_table(folder: Path) -> Iterator[AppTable]:
    """The bot and its Mini App running until the block ends."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    stop = asyncio.Event()
    started: asyncio.Future[AppTable] = loop.create_future()

    async def run() -> None:
        fake = FakeTelegram()
        fake.strangers.add(MALLORY["id"])
        await fake.start()
        try:
            async with Running(fake, folder / "referee.sqlite3") as running:
                front = running.front
                app = app_site(front, TEST_TOKEN)
                runner = web.AppRunner(app, shutdown_timeout=0.5)
                await runner.setup()
                site = web.TCPSite(runner, "127.0.0.1", 0)
                await site.start()
                port = runner.addresses[0][1]
                url = f"http://127.0.0.1:{port}/app/"
                started.set_result(AppTable(running, loop, url, Path(front.db_path)))
                try:
                    await stop.wait()
                finally:
                    await runner.cleanup()
        finally:
            await fake.stop()

    done = asyncio.run_coroutine_threadsafe(run(), loop)
    try:
        table = asyncio.run_coroutine_threadsafe(asyncio.wait_for(asyncio.shield(started), 30), loop).result(35)
        yield table
    finally:
        loop.call_soon_threadsafe(stop.set)
        done.result(30)
        asyncio.run_coroutine_threadsafe(_cancel_the_rest(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()


async def _cancel_the_rest() -> None:
    """Requests still waiting (a long poll) end with the server."""
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
