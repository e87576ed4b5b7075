"""Is what the process holds bounded by what is live? RSS of the real `python -m bot` over N chats.

A database of N chats is built, each holding one 300-event night (100 hands of a pong, a concealed
gang and a self-drawn win), open in a fifth of the chats and closed in the rest: one night is played
through the command layer for each of the two shapes, then its rows are copied to every chat (new
ids; the payments and checkpoints follow their events). The real process is started against the
fake Bot API, every chat asks `/score` once (in batches of 100), and once all N are answered the
process's resident set (VmRSS, /proc) is read. A process whose cache is bounded prints the same
figure for every N beyond the bound.

Run: python -m bench.memory_bench [--chats 50,200,1000]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bench.night_growth_bench import PLAYERS, lines, speaker
from bot.chat.service import Incoming, Referee
from bot.store.ledger import Ledger
from tests.kit.bot_process import start_bot, stop
from tests.kit.fake_telegram import FakeTelegram

EVENTS = 300
OPEN_SHARE = 5  # one chat in five has its night open
TALLY_TABLES = ("tallies", "tally_nets", "tally_doubled")
BATCH = 100
ALICE = {"id": 7, "is_bot": False, "first_name": "Alice"}


def chat_of(index: int) -> int:
    return -1009000000 - index


async def templates(path: Path, script_of: Callable[[], Iterator[tuple[str, str]]] = lines) -> None:
    """Two nights of EVENTS events in chats `open` and `closed` (the second one /close'd), each
    played from `script_of()` (speaker, line)."""
    ledger = await Ledger.open(path)
    referee = Referee(ledger, charts_enabled=False)
    for chat in ("open", "closed"):
        await play(referee, chat, script_of())
    await referee.handle(Incoming("closed", speaker("Alice"), "/close"))
    await ledger.close()


async def play(referee: Referee, chat: str, script: Iterator[tuple[str, str]]) -> None:
    """A night opened in `chat` and EVENTS lines of `script` (speaker, line) recorded in it."""
    await referee.handle(Incoming(chat, speaker("Alice"), "/new " + " ".join(PLAYERS)))
    for _ in range(EVENTS):
        who, text = next(script)
        response = await referee.handle(Incoming(chat, speaker(who), text))
        assert response is not None and response.recorded, text


def copied(path: Path, chats: int, checkpointed: bool, open_every: int = OPEN_SHARE) -> None:
    """Every chat a copy of a template's night (its rows with new ids, its running tally); without
    its checkpoints when not `checkpointed` (as after a code change: every night is read whole)."""
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row

    def rows(sql: str, *params: object) -> list[sqlite3.Row]:
        return list(db.execute(sql, params))

    def insert(table: str, items: list[dict[str, object]]) -> None:
        if items:
            names = list(items[0])
            sql = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})"
            db.executemany(sql, [tuple(item[n] for n in names) for item in items])

    shapes = {}
    for chat in ("open", "closed"):
        (night,) = rows("SELECT * FROM nights WHERE chat_id = ?", chat)
        events = rows("SELECT * FROM events WHERE night_id = ? ORDER BY id", night["id"])
        payments = rows("SELECT * FROM payments WHERE night_id = ?", night["id"])
        saved = rows("SELECT * FROM checkpoints WHERE night_id = ?", night["id"])
        tallies = {table: rows(f"SELECT * FROM {table} WHERE night_id = ?", night["id"]) for table in TALLY_TABLES}
        shapes[chat] = (night, events, payments, saved, tallies)
    night_id = int(db.execute("SELECT MAX(id) FROM nights").fetchone()[0])
    event_id = int(db.execute("SELECT MAX(id) FROM events").fetchone()[0])
    db.execute("BEGIN")
    for index in range(chats):
        night, events, payments, saved, tallies = shapes["open" if index % open_every == 0 else "closed"]
        night_id += 1
        key = f"tg:{chat_of(index)}"
        first = events[0]["id"]
        offset = event_id + 1 - first
        insert("nights", [{**dict(night), "id": night_id, "chat_id": key}])
        insert(
            "events",
            [
                {
                    **dict(e),
                    "id": e["id"] + offset,
                    "chat_id": key,
                    "night_id": night_id,
                    "update_key": None,
                    "reverses": e["reverses"] + offset if e["reverses"] is not None else None,
                }
                for e in events
            ],
        )
        insert(
            "payments",
            [{**without_id(p), "event_id": p["event_id"] + offset, "night_id": night_id} for p in payments],
        )
        insert(
            "checkpoints",
            [{**dict(c), "night_id": night_id, "last_event_id": c["last_event_id"] + offset} for c in saved]
            if checkpointed
            else [],
        )
        for table, stored in tallies.items():  # the running tally: its event ids move with the events
            moved = [{**dict(t), "night_id": night_id} for t in stored]
            insert(
                table,
                [{**t, "last_event_id": t["last_event_id"] + offset} if "last_event_id" in t else t for t in moved],
            )
        event_id = events[-1]["id"] + offset
    db.execute("COMMIT")
    db.close()


def without_id(row: sqlite3.Row) -> dict[str, object]:
    return {key: value for key, value in dict(row).items() if key != "id"}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def measure(folder: Path, chats: int, checkpointed: bool) -> tuple[float, float, float]:
    """(RSS after start, RSS after every chat's /score, seconds for them) of the real process."""
    path = folder / f"memory{chats}{checkpointed}.sqlite3"
    await templates(path)
    copied(path, chats, checkpointed)
    fake = FakeTelegram()
    await fake.start()
    process = start_bot(path, fake.base_url, folder / "bot.log")
    try:
        await fake.wait_for(lambda: fake.calls != [], timeout=60)
        await asyncio.sleep(2)
        at_start = rss_mb(process.pid)
        begin = time.perf_counter()
        for first in range(0, chats, BATCH):
            batch = range(first, min(first + BATCH, chats))
            for index in batch:
                fake.message(chat_of(index), ALICE, "/score")
            await fake.wait_for(lambda n=batch[-1] + 1: len({c.params.get("chat_id") for c in fake.sent()}) >= n, 600)
        took = time.perf_counter() - begin
        await asyncio.sleep(1)
        return at_start, rss_mb(process.pid), took
    finally:
        await stop(process)
        await fake.stop()


async def main(counts: list[int]) -> None:
    for checkpointed in (True, False):
        how = "from their checkpoints" if checkpointed else "read whole (no checkpoint: after a code change)"
        print(f"nights {how}:")
        for chats in counts:
            with tempfile.TemporaryDirectory() as folder:
                at_start, after, took = await measure(Path(folder), chats, checkpointed)
            print(
                f"  {chats:>5,} chats of a {EVENTS}-event night ({100 // OPEN_SHARE}% open), each asked /score once:"
                f" RSS {after:.0f} MB (at start {at_start:.0f} MB; the {chats:,} answered in {took:.1f} s)",
                flush=True,
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chats", default="50,200,1000")
    arguments = parser.parse_args()
    asyncio.run(main([int(c) for c in arguments.chats.split(",")]))
