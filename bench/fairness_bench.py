"""Does one chat's long night delay another chat? The first /score after a restart of a night whose
checkpoints a correction invalidated folds the whole night; meanwhile another chat asks /score
every 5 ms, and the longest wait for an answer (from when the question was due) is printed.

Run: python -m bench.fairness_bench [--events 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from bench.night_growth_bench import PLAYERS, lines, speaker
from bot.chat.service import Incoming, Referee
from bot.night import night as night_module
from bot.store.ledger import Ledger


async def build(path: Path, events: int) -> None:
    night_module.MAX_NIGHT_EVENTS = 10**9  # what a night past the bound (5,000 rows) would cost
    ledger = await Ledger.open(path)
    referee = Referee(ledger, charts_enabled=False)
    await referee.handle(Incoming("big", speaker("Alice"), "/new " + " ".join(PLAYERS)))
    script = lines()
    for _ in range(events):
        who, text = next(script)
        await referee.handle(Incoming("big", speaker(who), text))
    response = await referee.handle(Incoming("big", speaker("Alice"), "/undo 2"))  # the night's first pong:
    assert response is not None and response.recorded  # it reaches into every checkpoint
    await referee.handle(Incoming("small", speaker("Alice"), "/new " + " ".join(PLAYERS)))
    await ledger.close()


async def measure(path: Path) -> tuple[float, float, int]:
    ledger = await Ledger.open(path)
    referee = Referee(ledger, charts_enabled=False)
    await referee.handle(Incoming("small", speaker("Bob"), "/score"))
    done = asyncio.Event()
    waits: list[float] = []

    async def other_chat() -> None:
        due = time.perf_counter()
        while not done.is_set():  # a question is due every 5 ms: its wait counts from when it was due
            await referee.handle(Incoming("small", speaker("Bob"), "/score"))
            waits.append((time.perf_counter() - due) * 1000)
            due = max(due + 0.005, time.perf_counter())
            await asyncio.sleep(max(0.0, due - time.perf_counter()))

    async def big_chat() -> float:
        await asyncio.sleep(0.02)
        begin = time.perf_counter()
        await referee.handle(Incoming("big", speaker("Alice"), "/score"))
        done.set()
        return (time.perf_counter() - begin) * 1000

    big, _ = await asyncio.gather(big_chat(), other_chat())
    await ledger.close()
    return big, max(waits), len(waits)


async def main(events: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fair.sqlite3"
        await build(path, events)
        big, slowest, asked = await measure(path)
        print(
            f"{events:,} events, checkpoints invalidated: the big chat's first /score took {big:.0f} ms;"
            f" the other chat asked {asked} times meanwhile, slowest answer {slowest:.1f} ms"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=20000)
    asyncio.run(main(parser.parse_args().events))
