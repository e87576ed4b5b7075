"""A big ledger: a chat of 1,000 and 5,000 closed nights of some 60 events each (#47 item 8's ledger
was 1,000 nights, 59,000 events, 45 MB), each line answered in a fresh process beside `/score`.

The nights are built as bench/stats_age_bench.py builds them: a few played through the command layer
(here fourteen hands a night: a pong, a gang and a win or a draw in each, a 换人 in one and a rename in
another), their rows copied in SQL, every table that belongs to a night, stored figures and export rows
included, one day apart. Then `/score`, `/stats` and `/export all` are each answered in a fresh process
(the ledger opened, the line handled, the process ends): the wall and CPU milliseconds of the line,
the process's peak resident memory (VmHWM: the whole process, what an operator sees) and, for
`/export all`, the bytes of the file it wrote (checked: a row per person a payment moved money for,
every night's rows summing to zero).

Last, once: the same lines after the stored figures and export rows are dropped (a ledger written by
code before them, or a version change of what they hold): the first `/stats` and `/export all` read
every night again and store what they read, so the next ones are as fast as above.

Run: python -m bench.big_ledger_bench [--nights 1000 5000] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import json
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.stats_age_bench import CHAT
from bench.stats_age_bench import build as build_nights
from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from engine.suit_shapes import reading_table
from locales import LANGUAGES, load_catalog

HANDS = 14
COMMANDS = ("/score", "/stats", "/export all")


async def build(path: Path, nights: int) -> None:
    await build_nights(path, nights, hands=HANDS, swap_at=5, draw_every=5)


def check_export(data: bytes, nights: int) -> None:
    """Every closed night is in the file, and every night's money sums to zero."""
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    by_night: dict[str, int] = {}
    for row in rows:
        by_night[row["night"]] = by_night.get(row["night"], 0) + round(float(row["money"]) * 100)
    assert len(by_night) == nights and not any(by_night.values()), (len(by_night), nights)


async def time_one(path: Path, command: str, keep: Path) -> None:
    """In this (fresh) process: open the ledger, answer one line, print its figures (JSON)."""
    for language in LANGUAGES:  # as a running bot has them from its start (bench/stats_age_bench.py)
        load_catalog(language)
    reading_table()  # and the hand readings, built once by a process's first fold (some 0.3 s)
    referee = await Referee.open(path, charts_enabled=False)
    begin, cpu = time.perf_counter(), time.process_time()
    response = await referee.handle(Incoming(CHAT, Speaker("Alice", "Alice", by_name=True), command))
    elapsed, used = (time.perf_counter() - begin) * 1000, (time.process_time() - cpu) * 1000
    size = 0
    if response is not None and response.attachments:
        content = response.attachments[0].content()
        with keep.open("wb") as out:
            if isinstance(content, bytes):
                out.write(content)
            else:
                shutil.copyfileobj(content, out)
        size = keep.stat().st_size
    await referee.close()
    peak = peak_megabytes()
    print(json.dumps({"ms": elapsed, "cpu": used, "peak_mb": peak, "bytes": size}))


def peak_megabytes() -> float:
    """This process's peak resident memory (VmHWM: ru_maxrss on Linux keeps the parent's across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def fresh_process(path: Path, command: str, keep: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-m", "bench.big_ledger_bench", "--one", str(path), command, str(keep)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def drop_stored(path: Path) -> None:
    """As a ledger written before the stored figures and export rows (or after a version change)."""
    db = sqlite3.connect(path)
    with db:
        for table in ("night_figures", "night_people", "night_exports"):
            db.execute(f"DELETE FROM {table}")
    db.close()


def report(label: str, runs: list[dict[str, float]], score: dict[str, float] | None) -> None:
    ms, cpu = statistics.median(r["ms"] for r in runs), statistics.median(r["cpu"] for r in runs)
    peak = max(r["peak_mb"] for r in runs)
    beside = f" ({ms - score['ms']:+.0f} ms beside /score)" if score is not None else ""
    size = f", file {runs[0]['bytes'] / 1e6:.1f} MB" if runs[0]["bytes"] else ""
    print(f"  {label}: median {ms:.0f} ms{beside}, {cpu:.0f} ms of CPU, peak RSS {peak:.0f} MB{size}")


def measure(nights: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path, keep = Path(folder) / "big.sqlite3", Path(folder) / "export.csv"
        begin = time.perf_counter()
        asyncio.run(build(path, nights))
        events = sqlite3.connect(path).execute("SELECT COUNT(*) FROM events").fetchone()[0]
        megabytes = path.stat().st_size / 1e6
        print(
            f"{nights} closed nights, {events} events, {megabytes:.0f} MB, built in {time.perf_counter() - begin:.0f} s"
        )
        fresh_process(path, "/score", keep)  # the first open migrates what it needs: not timed
        figures: dict[str, list[dict[str, float]]] = {command: [] for command in COMMANDS}
        for _ in range(runs):
            for command in COMMANDS:
                figures[command].append(fresh_process(path, command, keep))
        check_export(keep.read_bytes(), nights)
        score = {"ms": statistics.median(r["ms"] for r in figures["/score"])}
        for command in COMMANDS:
            report(f"{command} cold", figures[command], None if command == "/score" else score)
        drop_stored(path)
        print("  with nothing stored (older code's ledger), once each, in this order:")
        for command in ("/stats", "/export all", "/stats", "/export all"):
            report(command, [fresh_process(path, command, keep)], score)
        check_export(keep.read_bytes(), nights)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--one", nargs=3, metavar=("DB", "COMMAND", "KEEP"), help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.one:
        asyncio.run(time_one(Path(arguments.one[0]), arguments.one[1], Path(arguments.one[2])))
    else:
        for count in arguments.nights:
            measure(count, arguments.runs)
