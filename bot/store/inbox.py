"""The Telegram inbox: every update is stored before Telegram is allowed to forget it. The front end
sees it as its durable queue of updates (bot/store/queue.py, which also holds `Row`).

An update is written here (one committed row) before the next `getUpdates` offset passes it, or
before a webhook call is answered. Rows are processed per chat in arrival order. A row whose command
records events is marked done by the very transaction that records them (a trigger on `events`,
keyed by the command's update key), so after a crash every acknowledged update is either recorded
exactly once or still pending here, and pending rows are drained first at start. A row that records
nothing (a question, a refused command) is marked done after its answer is decided; repeating such a
row after a crash changes nothing.

The inbox shares the ledger's writer (bot/store/writer.py): its rows and marks go in the same group
commits as the ledger's events (one process owns a database file).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from collections.abc import Callable

import aiosqlite

from bot.store.queue import Row
from bot.store.writer import Writer

KEEP_DONE_DAYS = 7  # done rows answer "already recorded #N" for a repeated button press
RIDE_SECONDS = 0.05  # a row riding with its update's events is committed on its own after this
MARK_SECONDS = 5.0  # a done mark waits at most this long for a transaction to ride with (`health` reads it)
INSERT = "INSERT OR IGNORE INTO inbox (update_id, chat, key, body) VALUES (?, ?, ?, ?)"
log = logging.getLogger(__name__)


class Inbox:
    def __init__(self, connection: aiosqlite.Connection, writer: Writer) -> None:
        self._db = connection  # reads
        self._writer = writer  # writes: updates arriving together (many chats) share one commit
        self._riding: dict[int, asyncio.Future[None]] = {}  # rows waiting for the next transaction
        self._marking: asyncio.Task[None] | None = None  # commits the done marks of a quiet bot

    async def add(self, row: Row, meanwhile: Callable[[], None] | None = None) -> bool:
        """Store an update (committed when this returns); False if it was stored before.

        With `meanwhile` (what queues the update for processing), a new row is not committed on its
        own: it rides with the next transaction, and `meanwhile` is called at once, so that the
        update's own events carry it — one commit for the update and its row, and the row still
        committed before this returns. An update that records nothing commits it at once (via
        `mark_done`), and a row is committed on its own after RIDE_SECONDS whatever happens."""
        params = (row.update_id, row.chat, row.key, json.dumps(row.body, ensure_ascii=False))
        if meanwhile is None:

            def write(db: sqlite3.Connection) -> bool:
                return db.execute(INSERT, params).rowcount == 1

            return await self._writer.run(write)
        riding = self._riding.get(row.update_id)
        if riding is None:
            stored = await self._db.execute_fetchall("SELECT 1 FROM inbox WHERE update_id = ?", (row.update_id,))
            if list(stored):
                return False
            riding = self._riding.get(row.update_id)
        if riding is not None:  # queued already (a retry after a failed commit): only its commit is awaited
            await self._committed(riding)
            return False
        riding = self._riding[row.update_id] = asyncio.get_running_loop().create_future()
        self._writer.defer(INSERT, params, riding)
        meanwhile()
        await self._committed(riding)
        return True

    async def _committed(self, riding: asyncio.Future[None]) -> None:
        """Wait for the transaction carrying a row; after RIDE_SECONDS, commit it on its own."""
        while not riding.done():
            await asyncio.wait([riding], timeout=RIDE_SECONDS)
            if not riding.done():
                await self._writer.commit_deferred()  # raises if the commit fails: the caller retries
        self._riding = {key: value for key, value in self._riding.items() if value is not riding}
        riding.result()  # the database was lost: raised here too

    async def pending(self) -> list[Row]:
        """Every update not yet done, oldest first (what a restart drains before anything new)."""
        rows = await self._db.execute_fetchall(
            "SELECT update_id, chat, key, body FROM inbox WHERE done = 0 ORDER BY update_id"
        )
        return [Row(r[0], r[1], r[2], json.loads(r[3])) for r in rows]

    async def is_done(self, update_id: int) -> bool:
        rows = await self._db.execute_fetchall("SELECT done FROM inbox WHERE update_id = ?", (update_id,))
        row = next(iter(rows), None)
        return bool(row and row[0])

    def mark_done(self, update_id: int) -> None:
        """An update that recorded nothing is done. The mark rides along with the next transaction,
        which comes before any later update of the chat can record; if the process dies first, the
        update is simply answered again, against the same state."""
        self._writer.defer("UPDATE inbox SET done = 1 WHERE update_id = ? AND done = 0", (update_id,))
        if update_id in self._riding:  # its own row waits for a transaction: this is it
            asyncio.get_running_loop().create_task(self._flush_quietly())
        elif self._marking is None or self._marking.done():  # else a quiet bot's backlog looks stuck
            self._marking = asyncio.get_running_loop().create_task(self._flush_later())

    async def _flush_later(self) -> None:
        await asyncio.sleep(MARK_SECONDS)
        await self._flush_quietly()

    async def _flush_quietly(self) -> None:
        try:
            await self.flush()
        except Exception:  # the row's own wait commits it again, and says so to the intake
            log.exception("the inbox's waiting rows were not committed")

    async def flush(self) -> None:
        """Commit the marks still waiting (at shutdown)."""
        marking = self._marking
        if marking is not None and marking is not asyncio.current_task() and not marking.done():
            marking.cancel()
        await self._writer.commit_deferred()

    async def earlier(self, key: str, update_id: int) -> int | None:
        """The event an earlier update with this key recorded: a button that was used before."""
        rows = await self._db.execute_fetchall(
            "SELECT event_id FROM inbox WHERE key = ? AND update_id < ? AND event_id IS NOT NULL"
            " ORDER BY update_id LIMIT 1",
            (key, update_id),
        )
        row = next(iter(rows), None)
        return int(row[0]) if row else None

    async def alias(self, chat: int) -> str | None:
        """The ledger chat key a migrated supergroup continues."""
        rows = await self._db.execute_fetchall("SELECT chat_key FROM chat_aliases WHERE chat = ?", (chat,))
        row = next(iter(rows), None)
        return str(row[0]) if row else None

    async def set_alias(self, chat: int, chat_key: str) -> None:
        def write(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR REPLACE INTO chat_aliases (chat, chat_key) VALUES (?, ?)", (chat, chat_key))

        await self._writer.run(write)

    async def prune(self, days: int = KEEP_DONE_DAYS) -> None:
        def write(db: sqlite3.Connection) -> None:
            db.execute(
                "DELETE FROM inbox WHERE done = 1 AND received_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)",
                (f"-{days} days",),
            )

        await self._writer.run(write)
