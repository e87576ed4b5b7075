"""What does a night cost while the bot holds it? Bytes held per event of a 300-event night.

A 300-event night (100 hands of a pong, a concealed gang and a win, played through the command
layer: bench/memory_bench.py `templates`) is copied to a few chats, with and without its
checkpoints. Two nights: memory_bench's own, where every hand is the same (the same players, the
same self-drawn hand, 1 to 4 flowers), and a varied one (seeded: who pongs whom, who gangs which
tile, a different winning hand each time, self-drawn or off any seat's discard, 0 to 8 flowers,
one hand in ten a draw), since a night holds what repeats once and the varied night repeats less.
Each chat then asks `/score` through the command layer, as a chat does after a restart, and the
night stays cached; tracemalloc measures what the process holds more once it is answered (garbage
collected before and after): the `Night` with its rows, payments, fold, index and players, and
the chat's small entries. The first chat of each database warms the process up
(codec readers, interned names) and is not counted. Four ways a night is held:

- from its checkpoint, as a restart's first `/score` reads it (only the events after the newest
  checkpoint; here every hand closed with one, so nearly nothing);
- from its checkpoint, history loaded (any other line of the chat reads the whole log; the fold
  still starts at the checkpoint);
- the same once its whole fold is asked for (a correction, /summary, the stats fold it from the start);
- read whole (no checkpoint, as after a code change): rows and the fold from the start;
- and the night as it is held while it is played: recorded line by line in this process (measured
  around the whole night; the first night played warms up).

The biggest holders of the varied night read whole are listed by line (tracemalloc statistics),
to show where the bytes go.

Run: python -m bench.held_bench [--top 15]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import sqlite3
import sys
import tempfile
import tracemalloc
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from bench.memory_bench import EVENTS, chat_of, copied, play, templates
from bench.night_growth_bench import PLAYERS, lines, speaker
from bot.chat.service import Incoming, Referee
from bot.night.night import Night
from bot.store.ledger import Ledger
from engine.tiles import NUM_KINDS, format_tiles, tile_name
from tests.kit.random_hands import random_closed_hand

COPIES = 4  # the first warms up; the others are measured and averaged
SEED = 31


def varied_lines(seed: int = SEED) -> Iterator[tuple[str, str]]:
    """An endless night whose hands differ: (speaker, line), three events a hand."""
    rng = random.Random(seed)
    while True:
        winner, ponger, ganger = rng.sample(range(4), 3)
        fed = rng.choice([seat for seat in range(4) if seat != ponger])
        yield PLAYERS[ponger], f"/pong {PLAYERS[fed]}"
        tiles, winning = random_closed_hand(rng)
        held = Counter(tiles)
        gang = rng.choice([tile for tile in range(NUM_KINDS) if not held[tile]])  # all four copies free
        yield PLAYERS[ganger], f"/gang self {tile_name(gang)}"
        if rng.random() < 0.1:
            yield PLAYERS[winner], "/draw"
            continue
        concealed = list(tiles)
        concealed.remove(winning)
        whom = rng.choice(["self", *(PLAYERS[seat] for seat in range(4) if seat != winner)])
        hand = f"{format_tiles(concealed)}+{tile_name(winning)}"
        yield PLAYERS[winner], f"/hu {whom} {hand} flowers={rng.randrange(9)}"


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


async def played_here(path: Path, script: Callable[[], Iterator[tuple[str, str]]]) -> float:
    """Bytes an event the process holds more once a night of EVENTS events is played line by line
    (the second of two played: the first warms up)."""
    ledger = await Ledger.open(path)
    referee = Referee(ledger, charts_enabled=False)
    try:
        held = 0
        for chat in ("warm", "live"):
            gc.collect()
            before = tracemalloc.get_traced_memory()[0]
            await play(referee, chat, script())
            gc.collect()
            await asyncio.sleep(0.05)
            gc.collect()
            held = tracemalloc.get_traced_memory()[0] - before
        return held / (EVENTS + 1)
    finally:
        await ledger.close()


async def main(top: int) -> None:
    tracemalloc.start(1)
    nights = [("every hand the same (memory_bench's)", lines), ("varied hands", varied_lines)]
    with tempfile.TemporaryDirectory() as folder:
        for title, script in nights:
            template = Path(folder) / "template.sqlite3"
            template.unlink(missing_ok=True)
            await templates(template, script)
            dbs = {}
            for checkpointed in (True, False):
                path = Path(folder) / f"held{checkpointed}.sqlite3"
                path.unlink(missing_ok=True)
                _clone(template, path)
                copied(path, COPIES, checkpointed, open_every=1)
                dbs[checkpointed] = path
            shapes: list[tuple[str, Path, Load]] = [
                ("from its checkpoint, a restart's first /score", dbs[True], _score),
                ("from its checkpoint, history loaded (any other line)", dbs[True], _with_history),
                ("from its checkpoint, history and whole fold (a correction, /summary)", dbs[True], _whole_fold),
                ("read whole (no checkpoint: after a code change), /score", dbs[False], _score),
            ]
            print(f"a {EVENTS}-event night, {title}, held:")
            for name, path, load in shapes:
                per_event, rows, holders = await measure(path, load, top)
                print(f"  {name}: {per_event / 1024:.2f} KB an event ({rows} rows)", flush=True)
            live = await played_here(Path(folder) / f"live{len(title)}.sqlite3", script)
            print(
                f"  recorded here line by line, as it is held while played: {live / 1024:.3f} KB an event", flush=True
            )
        print(f"  the biggest holders of the last (the newest copy; per row of {rows}):")
        print("\n".join(holders))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top", type=int, default=15)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.top))
