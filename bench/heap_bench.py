"""What freezing the collector's survivors keeps for good (bot/heap.py).

`keep_collections_short` freezes what a slow full collection kept, so that later collections skip
it; a frozen object that later dies inside a reference cycle is never collected. This plays many
ordinary nights in one process, as a bot does over weeks (300 lines a night with fixes and undos,
then a new night, in several chats at once), with the pacing on and every full collection counted
as slow (the most freezing there can be). At the end the frozen objects are handed back to the
collector: what it then finds unreachable is what freezing had kept alive, the leak.

Run: python -m bench.heap_bench [--nights 60] [--chats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import tempfile
from pathlib import Path

from bench.night_growth_bench import lines, newest_id, speaker
from bot.chat.service import Incoming, Referee
from bot.heap import keep_collections_short
from bot.store.ledger import Ledger

PLAYERS = ("Alice", "Bob", "Carol", "Dave")
LINES = 300


async def night(referee: Referee, chat: str) -> None:
    await referee.handle(Incoming(chat, speaker("Alice"), "/new " + " ".join(PLAYERS)))
    script = lines()
    for count in range(LINES):
        who, text = next(script)
        await referee.handle(Incoming(chat, speaker(who), text))
        if count % 50 == 49:  # an undo of the event before the newest, then of the newest
            target = await newest_id(referee, chat) - 1
            await referee.handle(Incoming(chat, speaker("Alice"), f"/undo {target}"))
            await referee.handle(Incoming(chat, speaker("Alice"), "/undo"))
    await referee.handle(Incoming(chat, speaker("Alice"), "/summary"))
    await referee.handle(Incoming(chat, speaker("Alice"), "yes"))


async def main(nights: int, chats: int) -> None:
    remove = keep_collections_short(slow_ms=0.0)  # every full collection freezes what it kept
    collections_before = gc.get_stats()[2]["collections"]
    with tempfile.TemporaryDirectory() as folder:
        ledger = await Ledger.open(Path(folder) / "heap.sqlite3")
        referee = Referee(ledger, charts_enabled=False)
        for round_ in range(nights // chats):
            await asyncio.gather(*(night(referee, f"chat-{c}") for c in range(chats)))
            if round_ % 5 == 4:
                print(f"{(round_ + 1) * chats:>4} nights: {gc.get_freeze_count():,} objects frozen", flush=True)
        await ledger.close()
    remove()
    full = gc.get_stats()[2]["collections"] - collections_before
    gc.collect()  # what was not frozen is the collector's as ever
    frozen = gc.get_freeze_count()
    gc.unfreeze()
    leaked = gc.collect()
    print(
        f"{nights} nights of {LINES} lines in {chats} chats: {full} full collections, each one freezing;"
        f" {frozen:,} objects frozen at the end, of which {leaked:,} were garbage only the collector"
        f" could free (kept by freezing: {leaked / max(frozen, 1):.1%})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nights", type=int, default=60)
    parser.add_argument("--chats", type=int, default=3)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.nights, arguments.chats))
