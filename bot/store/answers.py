"""What a message a line replies to recorded (Telegram): a reply with /undo or /fix acts on it.

A player's message is found by its update key (`msg:<chat>:<id>`, its edits `edit:<chat>:<id>:<date>`;
a line kept while its sender claimed a seat is recorded under its own key, and one kept by older code
under the claim's, `msg:<chat>:<id>:kept`): the events and the tab's entries keep it. The
bot's own answers are kept here once sent, in `answers`: a row for each answer a message carried
(several when a backlog went out as one message), with the ledger row its first line reports
(`✅ #N`, `✏️ #N`, `↩️ #N`) and whether it recorded anything. Only what the bot itself sent is here,
by Telegram's message id: a player's text that looks like an answer is never read as one.

An answer's rows ride with the ledger's next transaction (bot/store/writer.py `defer`), or are
committed on their own after RIDE_SECONDS: a busy table's answers cost no commit of their own. Until
committed they are known from memory, so a reply is never read against rows not yet written; a
process killed meanwhile loses only the rows of its last second, and a reply to such a message is
told the referee cannot tie it to a line (never that it recorded nothing).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

import aiosqlite

from bot.store.writer import Writer

RIDE_SECONDS = 1.0  # an answer's rows wait at most this long for a transaction to ride with
KEEP_UNNUMBERED_DAYS = 30  # rows of answers that report no line: a reply that old is told it cannot be tied
INSERT = "INSERT INTO answers (chat, message_id, event_id, recorded) VALUES (?, ?, ?, ?)"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reported:
    """One answer a sent message carried: the ledger row its first line reports as #N (None: it
    reports none) and whether it recorded anything (a seat, a payment: recorded, with no #N)."""

    event_id: int | None
    recorded: bool


@dataclass(frozen=True)
class MessageRecords:
    """What a message recorded, as far as the ledger knows: the rows of the lines it recorded or
    reports (newest first for a player's message: its latest version), and whether it recorded
    anything at all (a line, a seat, a payment)."""

    event_ids: tuple[int, ...]
    recorded: bool


class Answers:
    """The bot's sent answers, by message, and a player's message's records (on the ledger's
    connection: reads see what is committed; writes go through the ledger's writer)."""

    def __init__(self, connection: aiosqlite.Connection, writer: Writer) -> None:
        self._db = connection
        self._writer = writer
        self._unwritten: dict[tuple[int, int], list[Reported]] = {}  # sent, their rows not committed yet
        self._riding: set[asyncio.Task[None]] = set()  # each commits its rows if nothing else does soon

    def remember(self, chat: int, message_id: int, reported: Sequence[Reported]) -> None:
        """Keep what a message the bot sent carried (written with the next transaction)."""
        if not reported:
            return
        key = (chat, message_id)
        self._unwritten.setdefault(key, []).extend(reported)
        committed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        for index, one in enumerate(reported):  # the last one's future: set once they all are committed
            last = committed if index == len(reported) - 1 else None
            self._writer.defer(INSERT, (chat, message_id, one.event_id, int(one.recorded)), last)
        task = asyncio.get_running_loop().create_task(self._ride(key, committed))
        self._riding.add(task)
        task.add_done_callback(self._riding.discard)

    async def _ride(self, key: tuple[int, int], committed: asyncio.Future[None]) -> None:
        try:
            await asyncio.wait([committed], timeout=RIDE_SECONDS)
            if not committed.done():
                await self._writer.commit_deferred()
            await committed
        except Exception as error:  # lost for a reply: it is told the message cannot be tied to a line
            log.warning("the answer %s was not kept for replies (%s)", key, error)
        finally:
            self._unwritten.pop(key, None)

    async def flush(self) -> None:
        """Commit the rows still waiting (at shutdown)."""
        if self._riding:
            await self._writer.commit_deferred()
            await asyncio.gather(*self._riding, return_exceptions=True)

    async def of_answer(self, chat: int, message_id: int) -> MessageRecords | None:
        """What a message the bot sent carried; None when it is not known (not an answer, sent
        before answers were kept, or lost in a crash right after it was sent)."""
        found = list(self._unwritten.get((chat, message_id), ()))
        rows = await self._db.execute_fetchall(
            "SELECT event_id, recorded FROM answers WHERE chat = ? AND message_id = ? ORDER BY rowid",
            (chat, message_id),
        )
        found += [Reported(None if r[0] is None else int(r[0]), bool(r[1])) for r in rows]
        if not found:
            return None
        lines = tuple(dict.fromkeys(r.event_id for r in found if r.event_id is not None))
        return MessageRecords(lines, any(r.recorded for r in found))

    async def of_message(self, message_key: str) -> MessageRecords:
        """What a player's message (`<chat>:<message id>`) recorded: the newest row it or an edit of
        it wrote (an edit is a correction of the line), or the line a seat claim it made kept; and
        whether it recorded anything, the tab's entries too (a payment)."""
        own, kept = f"msg:{message_key}", f"msg:{message_key}:kept"
        edits_from, edits_to = f"edit:{message_key}:", f"edit:{message_key};"  # ';' sorts right after ':'
        rows = await self._db.execute_fetchall(
            "SELECT id FROM events WHERE update_key IN (?, ?) OR (update_key >= ? AND update_key < ?)"
            " ORDER BY id DESC LIMIT 1",
            (own, kept, edits_from, edits_to),
        )
        row = next(iter(rows), None)
        if row is not None:
            return MessageRecords((int(row[0]),), True)
        tab = await self._db.execute_fetchall("SELECT 1 FROM tab_events WHERE update_key = ?", (own,))
        return MessageRecords((), next(iter(tab), None) is not None)

    async def forget(self, days: int = KEEP_UNNUMBERED_DAYS) -> int:
        """Drop the rows of answers that report no line, older than `days` (a question, a refusal,
        a seat): kept, they would grow with every message the bot sends. Returns how many."""

        def write(db: sqlite3.Connection) -> int:
            return db.execute(
                "DELETE FROM answers WHERE event_id IS NULL AND sent_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)",
                (f"-{days} days",),
            ).rowcount

        return await self._writer.run(write)
