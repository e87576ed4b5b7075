"""`python -m bot backup` on a big ledger while another connection commits (#47 item 2): the copy is
read from one snapshot (bot/store/backup.py), so it ends in a time bounded by the ledger's size
however often the bot writes. For comparison it also tries the copy in steps of 1,024 pages (what the
bot did before), which SQLite starts over whenever the source changed between two steps, with a
time limit.

Run: python -m bench.backup_bench [--mb 300] [--every 0.02] [--limit 60]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sqlite3
import tempfile
import threading
import time
from pathlib import Path

from bot.chat.service import Referee
from bot.store.backup import backup

ROW_BYTES = 4_000
UPDATE_IDS = itertools.count(10**9)  # the writer's rows, new in every run


def big_ledger(db: Path, megabytes: int) -> None:
    async def make() -> None:
        referee = await Referee.open(str(db), charts_enabled=False)
        await referee.close()

    asyncio.run(make())
    rows = megabytes * 1_000_000 // ROW_BYTES
    with sqlite3.connect(db) as connection:
        connection.executemany(
            "INSERT INTO inbox (update_id, chat, body, done) VALUES (?, 1, ?, 1)",
            ((n, "x" * ROW_BYTES) for n in range(1, rows + 1)),
        )


def write_every(db: Path, every: float, stopping: threading.Event, commits: list[int]) -> None:
    connection = sqlite3.connect(db, timeout=10, isolation_level=None)
    while not stopping.is_set():
        update_id = next(UPDATE_IDS)
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("INSERT INTO inbox (update_id, chat, body) VALUES (?, 2, ?)", (update_id, "y" * 300))
        connection.execute("COMMIT")
        commits[0] += 1
        time.sleep(every)
    connection.close()


def in_steps(db: Path, target: Path, limit: float) -> float | None:
    """The old way: 1,024 pages a step; None when it did not finish within `limit` seconds."""
    started = time.perf_counter()
    source, copy = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True), sqlite3.connect(target)

    def progress(status: int, remaining: int, total: int) -> None:
        if time.perf_counter() - started > limit:
            raise TimeoutError

    try:
        source.backup(copy, pages=1024, progress=progress)
    except TimeoutError:
        return None
    finally:
        source.close()
        copy.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=300, help="the ledger's size in MB")
    parser.add_argument("--every", type=float, default=0.02, help="seconds between two commits of the writer")
    parser.add_argument("--limit", type=float, default=60, help="how long the copy in steps is given")
    chosen = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "big.sqlite3"
        big_ledger(db, chosen.mb)
        size = db.stat().st_size / 1e6
        for label, run in (
            ("one snapshot (bot/store/backup.py)", lambda n: backup(db, Path(folder) / f"copy{n}.sqlite3")),
            ("in steps of 1,024 pages (before)", lambda n: in_steps(db, Path(folder) / f"steps{n}", chosen.limit)),
        ):
            for writing in (False, True):
                stopping, commits = threading.Event(), [0]
                writer = threading.Thread(target=write_every, args=(db, chosen.every, stopping, commits))
                if writing:
                    writer.start()
                started = time.perf_counter()
                result = run(int(writing))
                seconds = time.perf_counter() - started
                stopping.set()
                if writing:
                    writer.join()
                under = f"a commit every {chosen.every} s ({commits[0]} commits meanwhile)" if writing else "no writes"
                finished = f"{seconds:.1f} s ({size / seconds:.0f} MB/s)"
                said = finished if result is not None else f"> {chosen.limit:.0f} s"
                print(f"{size:.0f} MB ledger, {under}: {label}: {said}")


if __name__ == "__main__":
    main()
