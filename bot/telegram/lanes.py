"""Per-chat lanes over the inbox. Each update is stored in the inbox (committed before the intake
may move past it), then joins its chat's lane: one worker per chat processes the chat's updates
strictly in order, while chats run side by side, so a long backlog in one chat never delays
another. A group and the supergroup it became share one lane (their ledger key)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from telegram import Update

from bot.store.queue import Row
from bot.telegram.chats import Chats
from bot.telegram.connections import Connections
from bot.telegram.input import Input, read_update

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Arrived(Row):
    """An update's inbox row with the update read (bot/telegram/input.py): read once, where it
    arrives (or, for a row left from before a restart, where it is queued again), and carried
    through its lane to its handler."""

    read: Input

    @classmethod
    def of(cls, row: Row) -> Arrived:
        """A stored row (a crash's leftover) read again."""
        return cls(row.update_id, row.chat, row.key, row.body, read_update(row.body))


STORE_FIRST_DELAY = 0.2  # seconds: an inbox write that failed is retried, doubling up to the cap
STORE_MAX_DELAY = 5.0
WORK_STALL_SECONDS = 60.0  # a worker that finished no update for this long while some wait is stuck


@dataclass
class Lanes:
    connections: Connections
    chats: Chats
    process: Callable[[Arrived, Update], Awaitable[bool]]  # one update: False when it is to be handled again
    _queues: dict[str | None, deque[tuple[Arrived, Update]]] = field(default_factory=dict)
    progressed: float = field(default_factory=time.monotonic)  # an update last finished (or work began)
    _workers: dict[str | None, asyncio.Task[None]] = field(default_factory=dict)

    def working(self) -> bool:
        """Whether updates are being processed (what the heartbeat vouches for): nothing waits, or
        an update was finished within WORK_STALL_SECONDS. A loop that takes updates in while every
        worker hangs is not healthy."""
        waiting = any(self._queues.values())
        return not waiting or time.monotonic() - self.progressed < WORK_STALL_SECONDS

    def busy(self) -> bool:
        return bool(self._workers)

    async def finished(self) -> None:
        """Wait for the workers running now (tests, bench, stop)."""
        await asyncio.gather(*self._workers.values(), return_exceptions=True)

    async def stop(self) -> None:
        """Stop working; rows not done stay in the inbox for the next start."""
        for task in list(self._workers.values()):
            task.cancel()
        await self.finished()

    async def accept(self, update: Update) -> None:
        """Store an update in the inbox and queue it for its chat (returns once it is committed)."""
        await self.store(await self.row_of(update), update)

    async def accept_all(self, updates: Sequence[Update]) -> None:
        """Store a batch (returns once every update is committed): each chat's updates one after
        another, in order, and the chats side by side. One after another across chats, a chat whose
        row rides with its line's events (up to `RIDE_SECONDS`) would hold every chat behind it in the
        batch: twenty tables asking `/summary` at once were answered one by one."""
        lanes: dict[str | None, list[tuple[Arrived, Update]]] = {}
        for update in updates:  # in arrival order: a migration is noted before the lanes are read
            row = await self.row_of(update)
            lanes.setdefault(await self.lane(row.chat), []).append((row, update))

        async def in_order(items: list[tuple[Arrived, Update]]) -> None:
            for row, update in items:
                await self.store(row, update)

        done = await asyncio.gather(*(in_order(items) for items in lanes.values()), return_exceptions=True)
        failed = [outcome for outcome in done if isinstance(outcome, BaseException)]
        if failed:  # every chat's updates were stored or failed: the offset stays before the batch
            raise failed[0]

    async def row_of(self, update: Update) -> Arrived:
        """The update's inbox row, the update read with it; a migration is noted here, in arrival
        order, so that updates of the new supergroup in the same batch already find it."""
        body = update.to_dict()
        read = read_update(body)
        if read.chat_id is not None and read.migrate_to:
            await self.chats.remember_migration(read.chat_id, read.migrate_to)
        if read.chat_id is not None and read.migrate_from:
            await self.chats.remember_migration(read.migrate_from, read.chat_id)
        return Arrived(update.update_id, read.chat_id, read.key, body, read)

    async def store(self, row: Arrived, update: Update) -> None:
        """The inbox write, retried with backoff while storage fails (locked, full, I/O error): the
        updater does not move its offset past an update until this returns, so polling never stops
        and never skips an update that was not written."""
        delay = STORE_FIRST_DELAY
        lane = await self.lane(row.chat)
        queued: list[bool] = []

        def queue_now() -> None:  # a quiet chat's update is processed while its row waits: one commit
            queued.append(True)
            self.enqueue(row, update, lane)

        while True:
            try:
                added = await self.connections.inbox.add(row, queue_now if lane not in self._workers else None)
                break
            except (sqlite3.Error, OSError) as error:
                log.error("update %s not stored yet (%s): retrying in %.1f s", row.update_id, error, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, STORE_MAX_DELAY)
        if added and not queued:
            self.enqueue(row, update, lane)

    async def lane(self, chat: int | None) -> str | None:
        """The queue an update joins: its ledger key, so a group and the supergroup it became (a
        backlog under the old id, new lines under the new one) share one worker, one night."""
        return await self.chats.base_key(chat) if chat is not None else None

    def enqueue(self, row: Arrived, update: Update, lane: str | None) -> None:
        if not any(self._queues.values()):
            self.progressed = time.monotonic()  # idle until now: the clock of "stuck" starts here
        self._queues.setdefault(lane, deque()).append((row, update))
        if lane not in self._workers:
            self._workers[lane] = asyncio.create_task(self._work(lane))

    async def _work(self, chat: str | None) -> None:
        """One chat's updates, one at a time, in order. Other chats' workers run meanwhile."""
        queue = self._queues[chat]
        try:
            while queue:
                row, update = queue[0]
                await self.process_until_written(row, update)
                queue.popleft()
                self.progressed = time.monotonic()
        finally:
            del self._workers[chat]
            if not queue:
                self._queues.pop(chat, None)

    async def process_until_written(self, row: Arrived, update: Update) -> None:
        """An update whose line could not be written (the ledger locked longer than its busy timeout)
        is handled again, with backoff, until it is: it is neither answered "nothing recorded" nor
        marked done, and the chat's later updates wait behind it, in order."""
        delay = STORE_FIRST_DELAY
        while not await self.process(row, update):
            log.warning(
                "update %s not recorded yet (the ledger is not writable): again in %.1f s", row.update_id, delay
            )
            await asyncio.sleep(delay)
            delay = min(delay * 2, STORE_MAX_DELAY)
