"""Group commit: commands arriving together share one transaction, each alone in its savepoint, and
each caller returns only once the transaction holding its rows has committed."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from bot.store.ledger import Ledger
from bot.store.rows import DuplicateUpdate, NewEvent, Seat
from engine.settlement import Payment

SEATS = [Seat(name) for name in ("Alice", "Bob", "Carol", "Dave")]


def _flower_gang(actor: int) -> NewEvent:
    # 花杠: each of the three others pays the actor (the payments sum to zero)
    return NewEvent(
        1,
        "flower_gang",
        actor,
        f'{{"actor": {actor}}}',
        tuple(Payment(p, actor, 2, "flower_gang") for p in range(4) if p != actor),
    )


async def _concurrent_appends(path: Path) -> None:
    ledger = await Ledger.open(path)
    try:
        night = await ledger.open_night("chat", SEATS, "nanjing", "{}", 100, 0, "Alice", "/new", "open")
        before = ledger._writer.commits
        keys = [f"u{n}" for n in range(40)] + ["u7"]  # the last repeats an update already in the batch
        results = await asyncio.gather(
            *(
                ledger.append("chat", night, "Alice", "/flowergang", key, 100, [_flower_gang(n % 4)])
                for n, key in enumerate(keys)
            ),
            return_exceptions=True,
        )
        commits = ledger._writer.commits - before
        recorded = [r for r in results if isinstance(r, list)]
        assert len(recorded) == 40 and isinstance(results[-1], DuplicateUpdate)
        assert commits < 41  # they shared transactions (usually one or two)
        # acknowledged ⇒ durable: another connection, reading the file, sees every acknowledged row
        with sqlite3.connect(path) as other:
            events = other.execute("SELECT COUNT(*) FROM events WHERE kind = 'flower_gang'").fetchone()[0]
            payments = other.execute("SELECT COUNT(*) FROM payments").fetchone()[0]
        assert events == 40 and payments == 40 * 3  # the duplicate left nothing behind, not even payments
    finally:
        await ledger.close()


def test_commands_arriving_together_share_a_commit_and_a_failing_one_is_rolled_back_alone(tmp_path: Path) -> None:
    asyncio.run(_concurrent_appends(tmp_path / "l.sqlite3"))
