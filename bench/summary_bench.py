"""20 tables asking `/summary` at once, end to end through the Telegram front end: the real
`python -m bot` against the fake Bot API, 20 chats each with an open 300-event night (bench/
memory_bench.py builds them); the 20 `/summary` are queued together and each chat's time is from
then until its chart (sendPhoto) reaches the fake server. Three rounds: the first of the process
(nothing drawn yet, every night read from the database), the same 20 asked again (no event since),
and again after each chat recorded one more event (a new version of every night: each chart drawn
anew), once that event's answers are out.

Run: python -m bench.summary_bench
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bench.memory_bench import ALICE, chat_of, copied, templates
from tests.kit.bot_process import start_bot, stop
from tests.kit.fake_telegram import FakeTelegram

TABLES = 20


async def round_of(fake: FakeTelegram, text: str) -> list[float]:
    """ms until each chat's photo arrived, for `text` typed in every chat at once."""
    seen = len(fake.calls)
    asked = time.perf_counter()
    for index in range(TABLES):
        fake.message(chat_of(index), ALICE, text)
    arrived: dict[int, float] = {}
    while len(arrived) < TABLES:
        for call in fake.calls[seen:]:
            chat = int(call.params.get("chat_id", 0))
            if call.method == "sendPhoto" and chat not in arrived:
                arrived[chat] = (time.perf_counter() - asked) * 1000
        seen = max(seen, 0)
        await asyncio.sleep(0.002)
        if time.perf_counter() - asked > 120:
            raise TimeoutError("the charts did not come")
    return sorted(arrived.values())


async def answered(fake: FakeTelegram, text: str) -> None:
    """`text` typed in every chat, and every answer out: nothing more reaches the fake server for
    half a second, then a second more, so that the next round starts with Telegram's limit of 30
    messages a second (which the bot keeps, bot/telegram/pace.py) as free as at a table that typed its
    last line a moment before asking; without it the 40 answers of this round would pace the photos
    of the next at 30 a second, which no drawing can beat."""
    seen = len(fake.sent())
    for index in range(TABLES):
        fake.message(chat_of(index), ALICE, text)
    await fake.wait_for(lambda: len(fake.sent()) >= seen + TABLES, timeout=120)
    calls = -1
    while calls != len(fake.calls):
        calls = len(fake.calls)
        await asyncio.sleep(0.5)
    await asyncio.sleep(1.0)


def shown(times: list[float]) -> str:
    return f"p50 {statistics.median(times):.0f} ms, p99 {times[int(0.99 * (len(times) - 1))]:.0f} ms"


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "summary.sqlite3"
        await templates(path)
        copied(path, TABLES, True, open_every=1)
        fake = FakeTelegram()
        await fake.start()
        process = start_bot(path, fake.base_url, Path(folder) / "bot.log")
        try:
            await fake.wait_for(lambda: fake.calls != [], timeout=60)
            await asyncio.sleep(2)
            first = await round_of(fake, "/summary")
            again = await round_of(fake, "/summary")
            await answered(fake, "/pong Bob")
            changed = await round_of(fake, "/summary")
        finally:
            await stop(process)
            await fake.stop()
    print(f"{TABLES} tables asking /summary at once (end to end, until each chart reached Telegram):")
    print(f"  the process's first: {shown(first)}; asked again: {shown(again)}; after one more event: {shown(changed)}")


if __name__ == "__main__":
    asyncio.run(main())
