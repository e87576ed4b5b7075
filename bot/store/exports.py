"""Each closed night's rows of `/export all`, as stored (schema 13, `night_exports`): written with the
night's figures when it closes, read back a slice of nights at a time, so that a chat of thousands of
nights is written out as it is read, never folded whole again nor held whole in memory.

A cache, never the truth: a night's rows count only while its newest event is the one they were
built after (a reopen or a correction adds an event) and their version is the code's
(bot/views/export.py `EXPORT_VERSION`); otherwise the night is read again and its rows stored anew.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import aiosqlite

from bot.store.rows import StoredExport
from bot.store.writer import Writer

BOUND_VALUES = 500  # SQLite's limit on bound values, kept well under


class NightExports:
    """The ledger's reads and writes of the nights' stored export rows (a part of the ledger: its
    read connection and its writer)."""

    def __init__(self, connection: aiosqlite.Connection, writer: Writer) -> None:
        self._db = connection
        self._writer = writer

    async def stored(self, night_ids: Sequence[int]) -> dict[int, StoredExport]:
        """The stored rows of these nights (those that have any), by night id."""
        found: dict[int, StoredExport] = {}
        for start in range(0, len(night_ids), BOUND_VALUES):
            chunk = list(night_ids[start : start + BOUND_VALUES])
            rows = await self._db.execute_fetchall(
                "SELECT night_id, version, last_event_id, rows FROM night_exports"
                f" WHERE night_id IN ({', '.join('?' for _ in chunk)})",
                chunk,
            )
            for night_id, version, last_event_id, text in rows:
                found[int(night_id)] = StoredExport(int(night_id), str(version), int(last_event_id), str(text))
        return found

    async def opened(self, chat_id: str) -> dict[int, str]:
        """When each of the chat's nights was opened (as stored, UTC), by night id: what its rows are
        dated by, without the rest of each night's row (its rules' text: some 13 KB a night)."""
        rows = await self._db.execute_fetchall("SELECT id, created_at FROM nights WHERE chat_id = ?", (chat_id,))
        return {int(r[0]): str(r[1]) for r in rows}

    async def store(self, exports: Sequence[StoredExport]) -> None:
        """Each night's rows (replacing those stored for it): one transaction for them all."""

        def write(db: sqlite3.Connection) -> None:
            db.executemany(
                "INSERT OR REPLACE INTO night_exports (night_id, version, last_event_id, rows) VALUES (?, ?, ?, ?)",
                [(e.night_id, e.version, e.last_event_id, e.rows) for e in exports],
            )

        if exports:
            await self._writer.run(write)
