"""Group commit: the one connection that writes the ledger, and the turn every write takes.

Each write is a small synchronous function of the connection (one command's rows). Writes that
arrive while a commit is in progress wait, and then go together: the writer thread runs them in
one transaction, each in its own savepoint (a failing write is rolled back alone and its caller gets
the error), and commits once, one fsync for all. A caller's `run` returns only after the COMMIT
holding its write has returned, so a reply sent after it is about durable data ("acknowledged ⇒
durable"). Reads never come here: they use their own connection, which WAL lets read while this one
writes, and which sees only committed rows.

"Durable" holds only while the files are the ones opened: before each transaction the writer checks
that the database and its WAL were neither removed nor replaced (bot/store/database.py `Watch`). If they
were, nothing more is committed: a process that owns its database prints why and exits (status 3)
before acknowledging anything else; otherwise every write from then on fails with `DatabaseLost`.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from bot.store import database
from bot.store.database import EXIT_UNAVAILABLE, DatabaseLost, Watch
from locales import DEFAULT_LANGUAGE, Translator

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], Any]
Deferred = tuple[str, tuple[object, ...], "asyncio.Future[None] | None"]
PRAGMAS = ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON")
BUSY_TIMEOUT_SECONDS = 10.0  # how long a write waits for another process's lock (a backup, a shell)
# A failure of the storage itself, not of the write: another process holds the lock longer than the
# busy timeout, the disk is full or failing. Nothing was written, and the same write may succeed later.
PASSING_CODES = frozenset(
    {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN}
)
MAX_BATCH = 1_000  # writes per transaction: bounds how long the first of them waits for the last


@dataclass(frozen=True)
class _Done:
    value: Any = None
    error: Exception | None = None


def pragmas(busy_timeout: float | None = None) -> tuple[str, ...]:
    """What every connection to the ledger sets: WAL, full syncs, foreign keys, and how long it waits
    for a lock held by another process (`busy_timeout` seconds; None: BUSY_TIMEOUT_SECONDS, the Telegram
    front end passes its REFEREE_BUSY_TIMEOUT setting). A write that waited that long fails; its caller
    tries it again (bot/telegram/lanes.py), so a lock held longer only delays."""
    seconds = BUSY_TIMEOUT_SECONDS if busy_timeout is None else busy_timeout
    return (*PRAGMAS, f"busy_timeout={max(0, round(seconds * 1000))}")


def connect(path: str | Path, busy_timeout: float | None = None) -> sqlite3.Connection:
    connection = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    connection.row_factory = sqlite3.Row
    for pragma in pragmas(busy_timeout):
        connection.execute(f"PRAGMA {pragma}")
    return connection


def storage_unavailable(error: BaseException | None) -> bool:
    """Whether `error` (or what caused it) is the storage failing for now (`PASSING_CODES`), rather
    than a write that is wrong: such a write is tried again, not reported as failed."""
    while error is not None:
        code = getattr(error, "sqlite_errorcode", None)  # set by SQLite's own errors only
        if isinstance(error, sqlite3.Error) and isinstance(code, int) and code & 0xFF in PASSING_CODES:
            return True
        error = error.__cause__ or error.__context__
    return False


def stop_process(error: DatabaseLost) -> None:
    """The files under the ledger are gone: say so and stop at once, acknowledging nothing more."""
    message = Translator(DEFAULT_LANGUAGE).t(
        error.key, path=error.params["path"], what=Translator(DEFAULT_LANGUAGE).t(str(error.params["what"]))
    )
    print(message, file=sys.stderr, flush=True)  # where a front end's log goes too
    os._exit(EXIT_UNAVAILABLE)  # no cleanup may write to the lost file, nor answer anyone


class Writer:
    def __init__(self, connection: sqlite3.Connection, thread: ThreadPoolExecutor, watch: Watch | None = None) -> None:
        self._connection = connection
        self._thread = thread  # the connection's one thread
        self._watch = watch  # the files opened; checked before every transaction
        self.lost: DatabaseLost | None = None  # once set, nothing more is committed
        self._queue: list[tuple[Work, asyncio.Future[Any]]] = []
        self._draining: asyncio.Task[None] | None = None
        # Small writes that ride along with the next transaction (the inbox's "done" marks of
        # updates that recorded nothing, an update's own row that its events will carry): one
        # commit fewer per update. A future, where given, is set once the write is committed.
        self._deferred: list[Deferred] = []
        self.commits = 0  # transactions committed (a bench and the tests read it)

    @classmethod
    async def open(cls, path: str | Path, busy_timeout: float | None = None) -> Writer:
        thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ledger-writer")
        loop = asyncio.get_running_loop()
        connection = await loop.run_in_executor(thread, connect, path, busy_timeout)
        watch = await loop.run_in_executor(thread, Watch.of, path)
        return cls(connection, thread, watch)

    async def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Do `work` in the next shared transaction; its value once that transaction is committed.
        An exception from `work` comes back here, and nothing of that work is written."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append((work, future))
        if self._draining is None or self._draining.done():
            self._draining = asyncio.create_task(self._drain())
        done: _Done = await asyncio.shield(future)
        if done.error is not None:
            raise done.error
        return done.value  # type: ignore[no-any-return]

    def defer(self, sql: str, params: tuple[object, ...], committed: asyncio.Future[None] | None = None) -> None:
        """`sql` written with the next transaction, before its writes; `committed` set once it is."""
        self._deferred.append((sql, params, committed))

    async def commit_deferred(self) -> None:
        """A transaction of no writes of its own, to carry the deferred ones now (a row that waited long
        enough for another to ride with, or shutdown)."""
        await self.run(_nothing)

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self._queue:
            batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
            deferred, self._deferred = self._deferred, []
            try:
                outcomes = await loop.run_in_executor(self._thread, self._commit, [w for w, _ in batch], deferred)
            except DatabaseLost as error:  # nothing of the batch was written, nor will anything be
                self.lost = error
                if database.stop_when_lost:
                    stop_process(error)
                for future in [f for _, f in batch] + [f for _, _, f in deferred if f is not None]:
                    if not future.done():
                        future.set_exception(error)
                continue
            except BaseException as error:  # the COMMIT itself failed: nothing of the batch is written
                self._deferred[:0] = deferred
                for _, future in batch:
                    if not future.done():
                        future.set_exception(error)
                if not isinstance(error, Exception):
                    raise
                continue
            for (_, future), outcome in zip(batch, outcomes, strict=True):
                if not future.done():
                    future.set_result(outcome)
            for _, _, committed in deferred:
                if committed is not None and not committed.done():
                    committed.set_result(None)

    def _commit(self, works: list[Work], deferred: list[Deferred]) -> list[_Done]:
        """On the writer thread: one transaction, a savepoint per write, one COMMIT."""
        db = self._connection
        if self.lost is not None:
            raise self.lost
        if self._watch is not None:
            self._watch.check()
        db.execute("BEGIN IMMEDIATE")
        try:
            for sql, params, _ in deferred:
                db.execute(sql, params)
            outcomes = [self._one(db, work) for work in works]
            db.execute("COMMIT")
            self.commits += 1
            if self._watch is not None:
                self._watch.note_wal()
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        return outcomes

    @staticmethod
    def _one(db: sqlite3.Connection, work: Work) -> _Done:
        db.execute("SAVEPOINT write")
        try:
            value = work(db)
        except Exception as error:  # this write only: the others in the batch go on
            db.execute("ROLLBACK TO write")
            db.execute("RELEASE write")
            return _Done(error=error)
        db.execute("RELEASE write")
        return _Done(value)

    async def close(self) -> None:
        if self._draining is not None:
            await self._draining
        await asyncio.get_running_loop().run_in_executor(self._thread, self._connection.close)
        self._thread.shutdown()


def _nothing(db: sqlite3.Connection) -> None:
    """A write of no rows: its transaction carries the deferred ones."""
