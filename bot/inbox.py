"""The Telegram inbox: every update is stored before Telegram is allowed to forget it.

An update is written here (one committed row) before the next `getUpdates` offset passes it, or
before a webhook call is answered. Rows are processed per chat in arrival order. A row whose command
records events is marked done by the very transaction that records them (a trigger on `events`,
keyed by the command's update key), so after a crash every acknowledged update is either recorded
exactly once or still pending here, and pending rows are drained first at start. A row that records
nothing (a question, a refused command) is marked done after its answer is decided; repeating such a
row after a crash changes nothing.

The inbox shares the ledger's connection and write turn (one process owns a database file).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

import aiosqlite

KEEP_DONE_DAYS = 7  # done rows answer "already recorded #N" for a repeated button press


@dataclass(frozen=True)
class Row:
    update_id: int
    chat: int | None  # the Telegram chat whose queue the update joins; None for chat-less updates
    key: str | None  # the command's update key (message or button), as the ledger records it
    body: dict[str, Any]


class Inbox:
    def __init__(
        self,
        connection: aiosqlite.Connection,
        transaction: Callable[[], AbstractAsyncContextManager[None]],
        defer: Callable[[str, tuple[object, ...]], None],
    ) -> None:
        self._db = connection
        self._transaction = transaction
        self._defer = defer
        self._batch: list[tuple[Row, asyncio.Future[bool]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def add(self, row: Row) -> bool:
        """Store an update (committed when this returns); False if it was stored before. Updates
        arriving together (webhook calls, many chats) share one commit."""
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._batch.append((row, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_batches())
        return await done

    async def _write_batches(self) -> None:
        while self._batch:
            batch, self._batch = self._batch, []
            try:
                stored = []
                async with self._transaction():
                    for row, _ in batch:
                        cursor = await self._db.execute(
                            "INSERT OR IGNORE INTO inbox (update_id, chat, key, body) VALUES (?, ?, ?, ?)",
                            (row.update_id, row.chat, row.key, json.dumps(row.body, ensure_ascii=False)),
                        )
                        stored.append(cursor.rowcount == 1)
            except Exception as error:
                for _, done in batch:
                    done.set_exception(error)
                continue
            for (_, done), new in zip(batch, stored, strict=True):
                done.set_result(new)

    async def pending(self) -> list[Row]:
        """Every update not yet done, oldest first (what a restart drains before anything new)."""
        async with self._db.execute(
            "SELECT update_id, chat, key, body FROM inbox WHERE done = 0 ORDER BY update_id"
        ) as cursor:
            return [Row(r[0], r[1], r[2], json.loads(r[3])) for r in await cursor.fetchall()]

    async def is_done(self, update_id: int) -> bool:
        async with self._db.execute("SELECT done FROM inbox WHERE update_id = ?", (update_id,)) as cursor:
            row = await cursor.fetchone()
        return bool(row and row[0])

    def mark_done(self, update_id: int) -> None:
        """An update that recorded nothing is done. The mark rides along with the next transaction,
        which comes before any later update of the chat can record; if the process dies first, the
        update is simply answered again, against the same state."""
        self._defer("UPDATE inbox SET done = 1 WHERE update_id = ? AND done = 0", (update_id,))

    async def flush(self) -> None:
        """Commit the marks still waiting (at shutdown)."""
        async with self._transaction():
            pass

    async def earlier(self, key: str, update_id: int) -> int | None:
        """The event an earlier update with this key recorded: a button that was used before."""
        async with self._db.execute(
            "SELECT event_id FROM inbox WHERE key = ? AND update_id < ? AND event_id IS NOT NULL"
            " ORDER BY update_id LIMIT 1",
            (key, update_id),
        ) as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else None

    async def alias(self, chat: int) -> str | None:
        """The ledger chat key a migrated supergroup continues."""
        async with self._db.execute("SELECT chat_key FROM chat_aliases WHERE chat = ?", (chat,)) as cursor:
            row = await cursor.fetchone()
        return str(row[0]) if row else None

    async def set_alias(self, chat: int, chat_key: str) -> None:
        async with self._transaction():
            await self._db.execute(
                "INSERT OR REPLACE INTO chat_aliases (chat, chat_key) VALUES (?, ?)", (chat, chat_key)
            )

    async def prune(self, days: int = KEEP_DONE_DAYS) -> None:
        async with self._transaction():
            await self._db.execute(
                "DELETE FROM inbox WHERE done = 1 AND received_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)",
                (f"-{days} days",),
            )
