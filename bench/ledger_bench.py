"""Ledger throughput and latency through the command layer, on a file database, synchronous=FULL.

1. Commands per second and p50/p99 latency for a mixed night (pongs, gangs, penalties, wins, draws),
   one command at a time.
2. Group commit: recorded commands per second and p50/p99 per command with 1, 20 and 200 chats in
   flight at once (each chat's lines in order), and resident memory with 1,000 active chats.
3. A night with 100,000 events (25,000 closed hands, checkpointed): the first /score after each of
   three restarts (the newest checkpoint, then the events after it), later /score calls, the first
   /summary (the night is written here without its running tally: it folds the whole night once and
   stores the tally) and a /summary after the next restart (reads the stored tally).

Run: python -m bench.ledger_bench
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from bot.chat.service import Incoming, Referee
from bot.night import checkpoint as checkpoints
from bot.night import night as night_module
from bot.night.codec import encode_event, event_kind
from bot.night.seating import Speaker
from bot.store.ledger import Ledger
from bot.store.rows import NewEvent
from engine.events import Draw, Event, FlowerGang, Penalty, Pong
from engine.preset import preset_from_dict
from engine.table import apply, new_table

PLAYERS = ("Alice", "Bob", "Carol", "Dave")
COMMANDS = 2_000
BIG_NIGHT = 100_000
BATCH = 1_000
ALICE = Speaker("Alice", "Alice", by_name=True)
night_module.MAX_NIGHT_EVENTS = 10 * BIG_NIGHT  # what a night past the bound (5,000 rows) would cost


def mixed_line(i: int) -> tuple[str, str]:
    actor, other, across = PLAYERS[i % 4], PLAYERS[(i + 1) % 4], PLAYERS[(i + 2) % 4]
    lines = [
        f"/pong {other}",
        f"/gang {other}",
        f"/penalty {other} {1 + i % 9}",
        f"/penalty {across} {1 + i % 7}",
        "/flowergang",
        "/score",
        f"/hu {across} flowers={4 + i % 5}",
        "/draw",
    ]
    return actor, lines[i % len(lines)]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def command_rate(folder: Path) -> None:
    ledger = await Ledger.open(folder / "rate.sqlite3")
    referee = Referee(ledger, charts_enabled=False)
    await referee.handle(Incoming("chat", ALICE, "/new " + " ".join(PLAYERS), "open"))
    latencies: list[float] = []
    started = time.perf_counter()
    for i in range(COMMANDS):
        name, text = mixed_line(i)
        begin = time.perf_counter()
        await referee.handle(Incoming("chat", Speaker(name, name, by_name=True), text, f"u{i}"))
        latencies.append((time.perf_counter() - begin) * 1000)
    elapsed = time.perf_counter() - started
    await ledger.close()
    print(f"command layer: {COMMANDS / elapsed:,.0f} commands/s over {COMMANDS:,} mixed commands")
    print("  (file database, WAL, synchronous=FULL, one transaction per recording command)")
    print(f"  latency p50 {statistics.median(latencies):.2f} ms, p99 {percentile(latencies, 0.99):.2f} ms")


def hand_events(hand: int) -> list[Event]:
    """One short hand: a flower gang, a pong, a penalty, then a draw (荒庄) that closes it."""
    actor = hand % 4
    return [FlowerGang(actor), Pong((actor + 1) % 4, actor), Penalty("penalty_custom", (actor + 2) % 4, 2), Draw()]


async def write_big_night(ledger: Ledger, chat: str, events: int) -> None:
    """`events` real rows folded through the engine (payments as the table derives them), written in
    batches that each end at a closed hand with its checkpoint, as recording them one by one would."""
    await Referee(ledger).handle(Incoming(chat, ALICE, "/new " + " ".join(PLAYERS), f"{chat}:open"))
    night = await ledger.latest_night(chat)
    assert night is not None
    state, hand, written = new_table(preset_from_dict(json.loads(night.preset_json))), 1, 1
    version = checkpoints.version(night.preset_json)
    amounts = [0] * len(night.seats)  # each player's net so far: the checkpoint's head carries it
    while written < events:
        batch: list[NewEvent] = []
        closed_at, closed_state, closed_amounts = 0, state, tuple(amounts)  # the batch's last closed hand
        while len(batch) < BATCH and written + len(batch) < events:
            for event in hand_events(hand)[: events - written - len(batch)]:
                outcome = apply(state, event)
                batch.append(NewEvent(state.hand_no, event_kind(event), None, encode_event(event), outcome.payments))
                for p in outcome.payments:
                    amounts[p.payer] -= p.amount
                    amounts[p.payee] += p.amount
                state = outcome.state
            if state.hand_no > hand:
                closed_at, closed_state, closed_amounts = len(batch), state, tuple(amounts)
            hand += 1
        head = checkpoints.Head(
            night.seats,
            tuple(seat.name for seat in night.seats),
            tuple(range(len(night.seats))),
            closed_amounts,
            tuple(amount * night.stake_cents for amount in closed_amounts),
            ((1, night.stake_cents),),
            False,
        )
        for part, saved in ((batch[:closed_at], closed_state), (batch[closed_at:], None)):
            if part:
                checkpoint = (version, checkpoints.encode(saved, head)) if saved is not None else None
                await ledger.append_rows(chat, night.id, "bench", "(bench)", None, night.stake_cents, part, checkpoint)
        written += len(batch)


async def timed(referee: Referee, command: str, runs: int) -> list[float]:
    timings = []
    for _ in range(runs):
        begin = time.perf_counter()
        await referee.handle(Incoming("chat", ALICE, command, None))
        timings.append((time.perf_counter() - begin) * 1000)
    return timings


async def big_night(folder: Path) -> None:
    path = folder / "big.sqlite3"
    ledger = await Ledger.open(path)
    await write_big_night(ledger, "chat", BIG_NIGHT)
    await ledger.close()
    size = sum(f.stat().st_size for f in folder.glob("big.sqlite3*"))
    print(
        f"database after {BIG_NIGHT:,} events (25,000 hands, a checkpoint at each batch's last closed hand):"
        f" {size / 1e6:.1f} MB"
    )
    for run in range(3):  # a restart each time: a new process's view of the same file
        ledger = await Ledger.open(path)
        referee = Referee(ledger, charts_enabled=False)
        first = (await timed(referee, "/score", 1))[0]
        warm = await timed(referee, "/score", 20)
        print(
            f"  restart {run + 1}: first /score {first:.0f} ms (the newest checkpoint's head and the events after it),"
            f" then p50 {statistics.median(warm):.2f} ms"
        )
        await ledger.close()
    ledger = await Ledger.open(path)
    head_only = await Referee(ledger, charts_enabled=False).nights.latest("chat", history=False)
    replay = await Referee(ledger, charts_enabled=False).nights.latest("chat")
    assert head_only is not None and replay is not None
    same = head_only.partial and (head_only.state, head_only.seat_totals()) == (replay.state, replay.seat_totals())
    print(f"  the restart's /score read only the events after the checkpoint and equals a full replay: {same}")
    await ledger.close()
    ledger = await Ledger.open(path)
    recorded = (await timed(Referee(ledger, charts_enabled=False), "/flowergang", 1))[0]
    print(f"  first table event (/flowergang) after a restart, recorded from the head: {recorded:.0f} ms")
    await ledger.close()
    ledger = await Ledger.open(path)
    referee = Referee(ledger, charts_enabled=False)
    await timed(referee, "/score", 1)
    summary = (await timed(referee, "/summary", 1))[0]
    print(
        f"  first /summary after a restart (folds the whole night once, written here without its tally):"
        f" {summary:.0f} ms"
    )
    await ledger.close()
    ledger = await Ledger.open(path)
    referee = Referee(ledger, charts_enabled=False)
    summary = (await timed(referee, "/summary", 1))[0]
    print(
        f"  /summary after the next restart (the running tally that one stored, and the checkpoint's head):"
        f" {summary:.0f} ms"
    )
    await ledger.close()


RECORDING = ("/pong {other}", "/gang {other}", "/penalty {across} 2", "/flowergang", "/draw")


async def chat_stream(referee: Referee, chat: str, commands: int, latencies: list[float]) -> None:
    """One chat's players typing recording commands one after another (a chat's lines are in order)."""
    for i in range(commands):
        actor, other, across = PLAYERS[i % 4], PLAYERS[(i + 1) % 4], PLAYERS[(i + 2) % 4]
        text = RECORDING[i % len(RECORDING)].format(other=other, across=across)
        begin = time.perf_counter()
        response = await referee.handle(Incoming(chat, Speaker(actor, actor, by_name=True), text, f"{chat}:{i}"))
        latencies.append((time.perf_counter() - begin) * 1000)
        assert response is not None and response.recorded, (text, response)


async def group_commit(folder: Path, chats: int, per_chat: int) -> None:
    """`chats` chats in flight at once, each recording `per_chat` commands: commands that arrive
    together share one transaction and one fsync, and each returns only after its commit."""
    ledger = await Ledger.open(folder / f"group{chats}.sqlite3")
    referee = Referee(ledger, charts_enabled=False)
    names = [f"chat{c}" for c in range(chats)]
    await asyncio.gather(*(referee.handle(Incoming(n, ALICE, "/new " + " ".join(PLAYERS), f"{n}:new")) for n in names))
    latencies: list[float] = []
    started = time.perf_counter()
    await asyncio.gather(*(chat_stream(referee, n, per_chat, latencies) for n in names))
    elapsed = time.perf_counter() - started
    async with ledger._db.execute("SELECT COUNT(*) FROM events WHERE kind <> 'open'") as cursor:
        row = await cursor.fetchone()
    await ledger.close()
    assert row is not None and row[0] >= len(latencies)  # every acknowledged command is in the file
    print(
        f"  {chats:>3} chats in flight: {len(latencies) / elapsed:,.0f} recorded commands/s,"
        f" p50 {statistics.median(latencies):.1f} ms, p99 {percentile(latencies, 0.99):.1f} ms per command"
    )


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def active_chats(folder: Path, chats: int) -> None:
    """Resident memory with `chats` nights open and cached (each a few hands in)."""
    ledger = await Ledger.open(folder / "active.sqlite3")
    referee = Referee(ledger, charts_enabled=False)
    names = [f"chat{c}" for c in range(chats)]
    await asyncio.gather(*(referee.handle(Incoming(n, ALICE, "/new " + " ".join(PLAYERS), f"{n}:new")) for n in names))
    await asyncio.gather(*(chat_stream(referee, n, 20, []) for n in names))
    print(f"RSS with {chats:,} active chats (each night 20 commands in, cached): {rss_mb():.0f} MB")
    await ledger.close()


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        await command_rate(Path(folder))
        print("group commit (file database, WAL, synchronous=FULL):")
        for chats, per_chat in ((1, 1_000), (20, 100), (200, 20)):
            await group_commit(Path(folder), chats, per_chat)
        await active_chats(Path(folder), 1_000)
        await big_night(Path(folder))


if __name__ == "__main__":
    asyncio.run(main())
