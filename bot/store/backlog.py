"""The inbox's backlog as `health` reads it: how many updates wait and how long the oldest has waited.

Read-only, from a connection of its own (never the bot's lock: SQLite readers do not wait for its
writer), so `python -m bot health` and the webhook's `/healthz` can ask while the bot runs.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Backlog:
    waiting: int
    oldest_seconds: float  # 0 when nothing waits


def read_backlog(database: str | Path) -> Backlog:
    """The inbox's updates not yet done and the oldest one's wait. Raises sqlite3.Error when the file
    cannot be read."""
    if not Path(database).is_file():
        raise sqlite3.OperationalError(f"no database at {database}")
    connection = sqlite3.connect(f"{Path(database).resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        known = connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'inbox'").fetchone()
        if known is None:  # a ledger the bot never ran on
            return Backlog(0, 0.0)
        waiting, oldest = connection.execute(
            "SELECT count(*), (julianday('now') - julianday(min(received_at))) * 86400 FROM inbox WHERE done = 0"
        ).fetchone()
    finally:
        connection.close()
    return Backlog(int(waiting), max(0.0, float(oldest or 0.0)))
