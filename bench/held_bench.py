"""What does a night cost while the bot holds it? Bytes held per event of a 300-event night.

A 300-event night (100 hands of a pong, a concealed gang and a self-drawn win, played through the
command layer: bench/memory_bench.py `templates`) is copied to a few chats, with and without its
checkpoints. Each chat then asks `/score` through the command layer, as a chat does after a
restart, and the night stays cached; tracemalloc measures what the process holds more once it is
answered (garbage collected before and after): the `Night` with its rows, payments, fold, index
and players, and the chat's small entries. The first chat of each database warms the process up
(codec readers, interned names) and is not counted. Four ways a night is held:

- from its checkpoint, as a restart's first `/score` reads it (only the events after the newest
  checkpoint; here every hand closed with one, so nearly nothing);
- from its checkpoint, history loaded (any other line of the chat reads the whole log; the fold
  still starts at the checkpoint);
- the same once its whole fold is asked for (a correction, /summary, the stats fold it from the start);
- read whole (no checkpoint, as after a code change): rows and the fold from the start.

The biggest holders of the last are listed by line (tracemalloc statistics), to show where the
bytes go.

Run: python -m bench.held_bench [--top 15]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sqlite3
import sys
import tempfile
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path

from bench.memory_bench import EVENTS, chat_of, copied, templates
from bench.night_growth_bench import speaker
from bot.chat.service import Incoming, Referee
from bot.night.night import Night
from bot.store.ledger import Ledger

COPIES = 4  # the first warms up; the others are measured and averaged


def _clone(source: Path, target: Path) -> None:
    with sqlite3.connect(source) as a, sqlite3.connect(target) as b:
        a.backup(b)


async def _score(referee: Referee, chat: str) -> Night:
    response = await referee.handle(Incoming(chat, speaker("Alice"), "/score"))
    assert response is not None and not response.refused, response
    night = await referee.nights.latest(chat, history=False)
    assert night is not None
    return night


async def _with_history(referee: Referee, chat: str) -> Night:
    await _score(referee, chat)
    night = await referee.nights.latest(chat)  # what any other line of the chat does first
    assert night is not None and not night.partial
    return night


async def _whole_fold(referee: Referee, chat: str) -> Night:
    night = await _with_history(referee, chat)
    await night.folded()  # a correction, /summary or the stats fold the night from its start
    return night


Load = Callable[[Referee, str], Awaitable[Night]]


def _short(filename: str) -> str:
    """A source file as the breakdown names it: within the repository, or a library's own path."""
    path = Path(filename)
    for root in (Path.cwd(), *map(Path, sys.path)):
        if root != Path() and path.is_relative_to(root):
            return str(path.relative_to(root))
    return filename


async def _held(referee: Referee, chat: str, load: Load) -> tuple[int, int, tracemalloc.Snapshot, tracemalloc.Snapshot]:
    """(bytes held more once the chat's night is loaded, its ledger rows, snapshots before and after)."""
    gc.collect()
    await asyncio.sleep(0.05)  # what a worker frees settles first
    gc.collect()
    before_bytes = tracemalloc.get_traced_memory()[0]
    before = tracemalloc.take_snapshot()
    night = await load(referee, chat)
    rows = await referee.nights.ledger.event_count(night.id)
    del night
    gc.collect()
    await asyncio.sleep(0.05)
    gc.collect()
    after = tracemalloc.take_snapshot()
    return tracemalloc.get_traced_memory()[0] - before_bytes, rows, before, after


async def measure(path: Path, load: Load, top: int) -> tuple[float, int, list[str]]:
    """(bytes an event held, rows a night, the top holders) over the measured copies."""
    ledger = await Ledger.open(path)
    referee = Referee(ledger, charts_enabled=False)
    try:
        await load(referee, f"tg:{chat_of(0)}")  # warm-up: codec readers, interned names, statements
        totals, rows, lines = 0, 0, []
        for index in range(1, COPIES):
            held, count, before, after = await _held(referee, f"tg:{chat_of(index)}", load)
            totals += held
            rows = count
            if index == COPIES - 1:
                skip = [tracemalloc.Filter(False, tracemalloc.__file__)]
                stats = after.filter_traces(skip).compare_to(before.filter_traces(skip), "lineno")
                for stat in stats[:top]:
                    frame = stat.traceback[0]
                    where = f"{_short(frame.filename)}:{frame.lineno}"
                    size, blocks = stat.size_diff / count, stat.count_diff
                    lines.append(f"    {size:>7,.0f} B an event {blocks:>+8,} blocks  {where}")
        return totals / (COPIES - 1) / rows, rows, lines
    finally:
        await ledger.close()


async def main(top: int) -> None:
    tracemalloc.start(1)
    with tempfile.TemporaryDirectory() as folder:
        template = Path(folder) / "template.sqlite3"
        await templates(template)
        dbs = {}
        for checkpointed in (True, False):
            path = Path(folder) / f"held{checkpointed}.sqlite3"
            _clone(template, path)
            copied(path, COPIES, checkpointed, open_every=1)
            dbs[checkpointed] = path
        shapes: list[tuple[str, Path, Load]] = [
            ("from its checkpoint, a restart's first /score", dbs[True], _score),
            ("from its checkpoint, history loaded (any other line)", dbs[True], _with_history),
            ("from its checkpoint, history and whole fold (a correction, /summary)", dbs[True], _whole_fold),
            ("read whole (no checkpoint: after a code change), /score", dbs[False], _score),
        ]
        for name, path, load in shapes:
            per_event, rows, lines = await measure(path, load, top)
            print(f"a {EVENTS}-event night ({rows} rows) held, {name}: {per_event / 1024:.2f} KB an event", flush=True)
        print(f"  the biggest holders of the last (the newest copy; per row of {rows}):")
        print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top", type=int, default=15)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.top))
