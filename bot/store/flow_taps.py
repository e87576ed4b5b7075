"""A guided flow's taps (bot/chat/handlers/tile_flow.py), in the order they came, each press once:
a part of the ledger, on its read connection and its writer."""

from __future__ import annotations

import sqlite3

import aiosqlite

from bot.store.writer import Writer


class FlowTaps:
    """The ledger's reads and writes of the guided flows' taps (`flow_taps`)."""

    def __init__(self, connection: aiosqlite.Connection, writer: Writer) -> None:
        self._db = connection
        self._writer = writer

    async def flow_taps(self, flow_key: str) -> list[tuple[str, str | None]]:
        """A tap flow's taps in the order they came: (op, press id)."""
        rows = await self._db.execute_fetchall(
            "SELECT op, press FROM flow_taps WHERE flow_key = ? ORDER BY id", (flow_key,)
        )
        return [(str(r[0]), r[1]) for r in rows]

    async def forget_flow_taps(self, days: int) -> int:
        """Drop the taps older than `days`: a guided flow lasts minutes (bot/chat/handlers/flows.py
        `FLOW_MINUTES`), so they belong to flows long over, and kept they would grow without end.
        Returns how many were dropped."""

        def write(db: sqlite3.Connection) -> int:
            cutoff = (f"-{days} days",)
            return db.execute(
                "DELETE FROM flow_taps WHERE created_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)", cutoff
            ).rowcount

        return await self._writer.run(write)

    async def append_flow_tap(self, flow_key: str, op: str, press: str | None) -> bool:
        """One tap after the flow's others; False when this press was counted before (a repeat)."""

        def write(db: sqlite3.Connection) -> bool:
            try:
                db.execute("INSERT INTO flow_taps (flow_key, op, press) VALUES (?, ?, ?)", (flow_key, op, press))
            except sqlite3.IntegrityError as error:
                if press is not None and "press" in str(error):
                    return False
                raise
            return True

        return await self._writer.run(write)
