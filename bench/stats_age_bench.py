"""How /stats and /tab grow with a chat's age: cold, in a fresh process, beside /score.

A chat with N closed nights (500 and 5,000 by default). Building them by play would take an hour for
5,000, so a few nights are played once through the command layer (four hands each: pongs, gangs, wins
and a draw; one night with a 换人, one with a rename; six regulars in turn, the stake varying) and their
rows are copied in SQL, every table that belongs to a night (events, payments, checkpoints, the
night's tally and stored figures, its per-person summary rows), with new ids, one day later each: the
file is what that many nights of play would leave, stored figures and rows per person included.

Then each command is timed in a fresh process (nothing cached: the ledger is opened, the command
handled, the process ends), from the line's arrival to its answer, the median of several processes.
What counts is /stats and /tab less /score (the process's own start is the same for all three);
the CPU time of each (every thread of the process) is printed beside it, steadier than the wall
clock when other jobs share the cores.
`period` is the query a period's figures are read by: every night's rows per person summed by day
(here the widest period, every night), through the ledger alone. The leaderboards are timed as the
chat asks for them: a month (`/stats 上月`, about 30 nights), a year (`/stats 去年`, 365) and a season
(`/stats 赛季 S`, the last 91 nights): the nights are dated so that the newest is today's, and the
season is started in SQL at the 91st night from the end.

Run: python -m bench.stats_age_bench [--nights 500 5000] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from bot.text.replies import render_response
from locales import LANGUAGES, load_catalog

REGULARS = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank")
HAND = "123m456m789m234p5p+5p"
CHAT = "bench-chat"
TEMPLATES = 6
PERIOD = "period"  # a period's figures per person: every night's rows summed (the widest period)
MONTH, YEAR, SEASON = "/stats 上月", "/stats 去年", "/stats 赛季 S"
SEASON_NIGHTS = 91
COMMANDS = ("/score", "/stats", "/tab", PERIOD, MONTH, YEAR, SEASON)


async def say(referee: Referee, who: str, text: str) -> str:
    response = await referee.handle(Incoming(CHAT, Speaker(who, who, by_name=True), text))
    return render_response(response) if response is not None else ""


async def play_night(referee: Referee, number: int, hands: int = 4, swap_at: int = 1, draw_every: int = 4) -> None:
    """One night of `hands` hands: a pong and a gang in each, a draw every `draw_every`-th hand and a
    win otherwise; a 换人 at hand `swap_at` of night 1 and a rename in night 2."""
    seated = [REGULARS[(number + i) % len(REGULARS)] for i in range(4)]
    await say(referee, seated[0], f"/new {' '.join(seated)} stake={1 + number % 3}")
    for hand in range(hands):
        winner, feeder = seated[hand % 4], seated[(hand + 2) % 4]
        await say(referee, seated[(hand + 1) % 4], f"/pong {feeder}")
        await say(referee, seated[(hand + 3) % 4], "/gang self 9s")
        if hand == swap_at and number == 1:  # a 换人: the one who left keeps what they made
            newcomer = REGULARS[(number + 4) % len(REGULARS)]
            await say(referee, seated[0], f"/swap {seated[3]} {newcomer}")
            seated[3] = newcomer
        if hand % draw_every == draw_every - 1:
            await say(referee, winner, "/draw")
        else:
            await say(referee, winner, f"/hu self {HAND} flowers={1 + hand % 4}")
    if number == 2:  # a rename: the same person throughout
        await say(referee, seated[0], f"/rename {seated[1]} {seated[1]}2")
    await say(referee, seated[0], "/summary")
    await say(referee, seated[0], "yes")


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")]


def _tables(db: sqlite3.Connection) -> set[str]:
    return {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


# Per table: the columns that hold an event id (moved with the events) besides night_id.
EVENT_ID_COLUMNS = {
    "events": ("id", "reverses"),
    "payments": ("event_id",),
    "checkpoints": ("last_event_id",),
    "tallies": ("last_event_id",),
    "night_figures": ("last_event_id",),
    "night_people": ("last_event_id",),
    "night_exports": ("last_event_id",),
}
NIGHT_TABLES = (
    "events",
    "payments",
    "checkpoints",
    "tallies",
    "tally_nets",
    "tally_doubled",
    "night_figures",
    "night_exports",
)


def copy_nights(path: Path, total: int) -> None:
    """Copy the played nights until the chat has `total`, one day apart, in one transaction."""
    db = sqlite3.connect(path)
    tables = [t for t in (*NIGHT_TABLES, "night_people") if t in _tables(db)]
    template = [int(r[0]) for r in db.execute("SELECT id FROM nights ORDER BY id")]
    event_span = int(db.execute("SELECT MAX(id) FROM events").fetchone()[0])
    payment_span = int(db.execute("SELECT MAX(id) FROM payments").fetchone()[0])
    night_cols = [c for c in _columns(db, "nights") if c not in ("id", "created_at")]
    with db:
        for copy in range(1, -(-total // len(template))):
            for index, night_id in enumerate(template):
                if copy * len(template) + index >= total:
                    break
                new_night = copy * len(template) + night_id
                shift = copy * event_span
                days = f"+{copy * len(template) + index} days"
                db.execute(
                    f"INSERT INTO nights (id, {', '.join(night_cols)}, created_at)"
                    f" SELECT ?, {', '.join(night_cols)}, strftime('%Y-%m-%dT%H:%M:%fZ', created_at, ?)"
                    " FROM nights WHERE id = ?",
                    (new_night, days, night_id),
                )
                for table in tables:
                    columns = _columns(db, table)
                    moved = EVENT_ID_COLUMNS.get(table, ())
                    chosen = []
                    for column in columns:
                        if column == "night_id":
                            chosen.append(str(new_night))
                        elif column in moved:
                            chosen.append(f"{column} + {shift}")
                        elif table == "payments" and column == "id":
                            chosen.append(f"id + {copy * payment_span}")
                        elif column == "update_key":
                            chosen.append(f"update_key || ':{copy}'")
                        elif column == "day":
                            chosen.append(f"date(day, '{days}')")
                        elif column == "created_at":
                            chosen.append(f"strftime('%Y-%m-%dT%H:%M:%fZ', created_at, '{days}')")
                        else:
                            chosen.append(column)
                    db.execute(
                        f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(chosen)}"
                        f" FROM {table} WHERE night_id = ?",
                        (night_id,),
                    )
    db.execute("VACUUM")
    db.close()


def end_today(path: Path) -> None:
    """Date the nights back so that the newest was opened today (a month and a year before today
    are full), and start a season at the SEASON_NIGHTS-th night from the end."""
    db = sqlite3.connect(path)
    newest = str(db.execute("SELECT MAX(created_at) FROM nights WHERE chat_id = ?", (CHAT,)).fetchone()[0])
    back = db.execute("SELECT julianday('now', 'start of day') - julianday(?, 'start of day')", (newest,))
    shift = f"{int(back.fetchone()[0]):+d} days"
    ids = [int(row[0]) for row in db.execute("SELECT id FROM nights WHERE chat_id = ? ORDER BY id", (CHAT,))]
    with db:
        db.execute("UPDATE nights SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', created_at, ?)", (shift,))
        db.execute("UPDATE night_people SET day = date(day, ?)", (shift,))
        first = ids[max(0, len(ids) - SEASON_NIGHTS)]
        db.execute(
            "INSERT INTO season_events (chat_id, kind, payload, raw_text, speaker) VALUES (?, 'new', ?, ?, 'Alice')",
            (CHAT, json.dumps({"name": "S", "first_night": first}), "/season new S"),
        )
    db.close()


async def build(path: Path, nights: int, hands: int = 4, swap_at: int = 1, draw_every: int = 4) -> None:
    """`nights` closed nights: a few played (`play_night`'s shape), the rest copies of them."""
    referee = await Referee.open(path, charts_enabled=False)
    for number in range(min(TEMPLATES, nights)):
        await play_night(referee, number, hands, swap_at, draw_every)
    await referee.close()
    copy_nights(path, nights)
    end_today(path)


async def time_one(path: Path, command: str) -> None:
    """In this (fresh) process: open the ledger, answer one line, print the milliseconds and the answer.
    The catalogs of the three languages are read first, as a running bot has them (it registers its
    menus in each at start): reading them is the process's start, the same at any age, and a line
    with words in any language (`/stats 上月`) would pay it where `/score` does not."""
    for language in LANGUAGES:
        load_catalog(language)
    referee = await Referee.open(path, charts_enabled=False)
    begin, cpu = time.perf_counter(), time.process_time()
    if command == PERIOD:
        sums = await referee.nights.ledger.history.period_sums(CHAT, "0000-01-01", "9999-12-31")
        answer = " ".join(f"{person}:{row.night_id}" for person, row in sums)
    else:
        answer = await say(referee, "Alice", command)
    elapsed, used = (time.perf_counter() - begin) * 1000, (time.process_time() - cpu) * 1000
    await referee.close()
    print(json.dumps({"ms": elapsed, "cpu": used, "answer": answer}, ensure_ascii=False))


def fresh_process(path: Path, command: str) -> tuple[float, str]:
    """The milliseconds (wall) of one line in a fresh process, and its answer."""
    elapsed, _, answer = fresh_process_cpu(path, command)
    return elapsed, answer


def fresh_process_cpu(path: Path, command: str) -> tuple[float, float, str]:
    """The milliseconds of one line in a fresh process, wall and CPU (every thread of the process:
    the ledger's reads run in a worker), and its answer."""
    out = subprocess.run(
        [sys.executable, "-m", "bench.stats_age_bench", "--one", str(path), command],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return float(result["ms"]), float(result["cpu"]), str(result["answer"])


def measure(nights: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "age.sqlite3"
        begin = time.perf_counter()
        asyncio.run(build(path, nights))
        print(f"{nights} closed nights built in {time.perf_counter() - begin:.1f} s")
        fresh_process(path, "/score")  # the first open migrates and backfills what it needs: not timed
        times: dict[str, list[float]] = {command: [] for command in COMMANDS}
        cpu: dict[str, list[float]] = {command: [] for command in COMMANDS}
        answers: dict[str, str] = {}
        for _ in range(runs):
            for command in COMMANDS:
                elapsed, used, answers[command] = fresh_process_cpu(path, command)
                times[command].append(elapsed)
                cpu[command].append(used)
        assert f"{nights} " in answers["/stats"].splitlines()[0], answers["/stats"][:200]
        assert f"：{min(nights, SEASON_NIGHTS)} 局" in answers[SEASON].splitlines()[0], answers[SEASON][:200]
        for board in (MONTH, YEAR):
            assert answers[board].startswith("📊") and " 局，" in answers[board].splitlines()[0], answers[board][:200]
        score, score_cpu = statistics.median(times["/score"]), statistics.median(cpu["/score"])
        print(f"  /score cold: median {score:.0f} ms ({score_cpu:.0f} ms of CPU)")
        for command in COMMANDS[1:]:
            median, used = statistics.median(times[command]), statistics.median(cpu[command])
            print(
                f"  {command} cold: median {median:.0f} ms ({median - score:+.0f} ms beside /score);"
                f" {used:.0f} ms of CPU ({used - score_cpu:+.0f} ms)"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, nargs="+", default=[500, 5000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--one", nargs=2, metavar=("DB", "COMMAND"), help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.one:
        asyncio.run(time_one(Path(arguments.one[0]), arguments.one[1]))
    else:
        for count in arguments.nights:
            measure(count, arguments.runs)
