"""Does recording cost stay flat along a night? Time table events at 1k, 10k and 50k events.

One night on a file database is played through the command layer (hands of a pong, a concealed
gang and a self-drawn win); at each mark the next 200 events are timed one by one and their median
and p99 printed. A flat night prints the same figures at every mark. At each mark a `/undo` of the
newest event (re-recorded after), a `/fix` of hand 1's win (every later hand re-derived), its `/undo`,
a restart's first `/score` (the cached night dropped), `/summary` (with its chart) and `/export` are
timed too, each with the longest stall of the event loop meanwhile (a task waking every 5 ms): what
another chat would wait while this one works out its night.

Run: python -m bench.night_growth_bench [--marks 1000,10000,50000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bot.chat.service import Incoming, Referee
from bot.heap import keep_collections_short
from bot.night import night as night_module
from bot.night.seating import Speaker
from bot.store.ledger import Ledger

PLAYERS = ("Alice", "Bob", "Carol", "Dave")
HAND = "123m456m789m234p5p+5p"
WINDOW = 200
QUESTIONS = ("/score", "/summary", "/export")  # answered, nothing recorded


def speaker(name: str) -> Speaker:
    return Speaker(name, name, by_name=True)


def lines() -> Iterator[tuple[str, str]]:
    """An endless night: (speaker, line), three events a hand."""
    hand = 0
    while True:
        yield PLAYERS[(hand + 1) % 4], f"/pong {PLAYERS[(hand + 2) % 4]}"
        yield PLAYERS[(hand + 3) % 4], "/gang self 9s"
        yield PLAYERS[hand % 4], f"/hu self {HAND} flowers={1 + hand % 4}"
        hand += 1


async def stalled(referee: Referee, chat: str, who: str, text: str) -> tuple[float, float, float]:
    """(ms the line took, longest ms the event loop stalled meanwhile: what another chat waited, ms
    of CPU the process spent meanwhile: what the line costs on a machine others share)."""
    stalls: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        before = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            stalls.append((now - before - 0.005) * 1000)
            before = now

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(0.02)
    begin, cpu = time.perf_counter(), time.process_time()
    response = await referee.handle(Incoming(chat, speaker(who), text))
    took, spent = (time.perf_counter() - begin) * 1000, (time.process_time() - cpu) * 1000
    done.set()
    await ticking
    assert response is not None and (response.recorded or text in QUESTIONS), (text, response)
    return took, max(stalls), spent


async def idle_stall(seconds: float) -> float:
    """The longest ms the event loop stalled over a window where this chat asks nothing."""
    stalls: list[float] = []
    before = end = time.perf_counter()
    end += seconds
    while before < end:
        await asyncio.sleep(0.005)
        now = time.perf_counter()
        stalls.append((now - before - 0.005) * 1000)
        before = now
    return max(stalls)


def shown(figures: tuple[float, float, float]) -> str:
    return f"{figures[0]:.0f} ms (CPU {figures[2]:.0f} ms, loop stalled {figures[1]:.0f} ms)"


async def newest_id(referee: Referee, chat: str) -> int:
    night = await referee.nights.latest(chat)
    assert night is not None
    return night.events[-1].id


async def main(marks: list[int]) -> None:
    night_module.MAX_NIGHT_EVENTS = 10**9  # what a night past the bound (5,000 rows) would cost
    keep_collections_short()  # as `python -m bot` runs
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "growth.sqlite3"
        ledger = await Ledger.open(path)
        referee = Referee(ledger, charts_enabled=True)
        chat = "growth"
        await referee.handle(Incoming(chat, speaker("Alice"), "/new " + " ".join(PLAYERS)))
        script = lines()
        recorded, first_win = 0, 0
        for mark in marks:
            while recorded < mark:
                who, text = next(script)
                await referee.handle(Incoming(chat, speaker(who), text))
                recorded += 1
                if recorded == 3:
                    first_win = await newest_id(referee, chat)
            times: list[float] = []
            for _ in range(WINDOW):
                who, text = next(script)
                begin = time.perf_counter()
                await referee.handle(Incoming(chat, speaker(who), text))
                times.append((time.perf_counter() - begin) * 1000)
                recorded += 1
            times.sort()
            p99 = times[int(len(times) * 0.99) - 1]
            undo = await stalled(referee, chat, "Alice", "/undo")
            await referee.handle(Incoming(chat, speaker(who), text))  # the night goes on as scripted
            fix = await stalled(referee, chat, "Alice", f"/fix {first_win} /hu Alice self {HAND} flowers=5")
            unfix = await stalled(referee, chat, "Alice", f"/undo {await newest_id(referee, chat)}")
            referee.nights.forget(chat)  # as after a restart: the night is read from the ledger again
            dropped = await idle_stall(1.0)  # the night let go of, in a worker (a restart has none)
            restarted = await stalled(referee, chat, "Alice", "/score")
            summary = await stalled(referee, chat, "Alice", "/summary")
            exported = await stalled(referee, chat, "Alice", "/export")
            print(
                f"at {mark:>6,} events: recording median {statistics.median(times):.2f} ms, p99 {p99:.2f} ms an event;"
                f" /undo of the newest {shown(undo)}; /fix of hand 1 {shown(fix)}, its /undo {shown(unfix)};"
                f" the cached night dropped (loop stalled {dropped:.0f} ms), a restart's first /score"
                f" {shown(restarted)}; /summary {shown(summary)}, /export {shown(exported)}",
                flush=True,
            )
        await ledger.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--marks", default="1000,10000,50000")
    arguments = parser.parse_args()
    asyncio.run(main([int(m) for m in arguments.marks.split(",")]))
