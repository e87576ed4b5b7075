"""A chat's history across nights: each night's marks and stored figures, the rows per person a
period is summed from, and the tab's own events (bot/chat/handlers/tab.py, /stats)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, Literal

import aiosqlite

from bot.store.rows import (
    DuplicateUpdate,
    NightMarks,
    PersonNightRow,
    StoredFigures,
    TabEventRow,
)
from bot.store.writer import Writer


def is_recorded(db: sqlite3.Connection, update_key: str | None) -> bool:
    if update_key is None:
        return False
    return db.execute("SELECT 1 FROM events WHERE update_key = ?", (update_key,)).fetchone() is not None


INTEGER_MOST = 2**63 - 1  # SQLite's INTEGER


def fits(row: PersonNightRow) -> bool:
    """Whether each figure of a person's night is an SQLite INTEGER."""
    values = (row.amount, row.money_cents, row.hands, row.wins, *row.counts)
    return all(-INTEGER_MOST <= value <= INTEGER_MOST for value in values)


# A row of `night_people` as the sums read it, and the sums themselves: (person, how many rows, the
# sums of amount, money_cents, hands, wins, self_draws, deal_ins, the largest biggest).
PEOPLE_COLUMNS = "person, amount, money_cents, hands, wins, self_draws, deal_ins, biggest"


def summed_by_person(rows: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    """`night_people` rows summed per person in Python: what the SQL sums give, when a sum of rows
    that each fit passes a 64-bit integer (SQLite's SUM then fails with "integer overflow"; a ledger
    written before the bounds of docs/rules.md 20)."""
    found: dict[str, list[int]] = {}
    for person, *values in rows:
        sums = found.setdefault(str(person), [0, 0, 0, 0, 0, 0, 0, 0])
        sums[0] += 1
        for index, value in enumerate(values[:6], start=1):
            sums[index] += int(value)
        sums[7] = max(sums[7], int(values[6]))
    return [(person, *sums) for person, sums in sorted(found.items())]


def overflowed(error: sqlite3.OperationalError) -> bool:
    return "overflow" in str(error)


ChatLog = Literal["tab_events", "season_events"]  # a chat's own append-only logs, beside its nights'


def append_chat_log(
    db: sqlite3.Connection,
    table: ChatLog,
    chat_id: str,
    kind: str,
    payload: str,
    line: tuple[str, str, str | None],
    reverses: int | None,
) -> int:
    """One row of a chat's own log (the tab's, the seasons'): the line's speaker, raw text and update
    key with it; DuplicateUpdate for a repeated update (checked, and held by the key's UNIQUE)."""
    speaker, raw_text, update_key = line
    if is_recorded(db, update_key):
        raise DuplicateUpdate(update_key)
    try:
        cursor = db.execute(
            f"INSERT INTO {table} (chat_id, kind, payload, raw_text, speaker, update_key, reverses)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (chat_id, kind, payload, raw_text, speaker, update_key, reverses),
        )
    except sqlite3.IntegrityError as error:
        if update_key is not None and "update_key" in str(error):
            raise DuplicateUpdate(update_key) from error
        raise
    assert cursor.lastrowid is not None
    return cursor.lastrowid


class ChatHistory:
    """The ledger's reads and writes across a chat's nights: each night's marks and stored figures,
    the rows per person a period is summed from (a part of `Ledger`: its connection and writer)."""

    def __init__(self, connection: aiosqlite.Connection, writer: Writer) -> None:
        self._db = connection
        self._writer = writer

    async def night_marks(self, chat_id: str) -> list[NightMarks]:
        """Each night of the chat, oldest first, with what says whether its stored figures still
        count: its newest event, whether it is closed now, and the figures stored for it (index
        seeks per night, no scan of the events)."""
        return await self._marks("n.chat_id = ?", (chat_id,), counted=False)

    async def night_marks_of(self, night_ids: Sequence[int]) -> list[NightMarks]:
        """`night_marks` of these nights, in any chat (their number is the chat's)."""
        found: list[NightMarks] = []
        for start in range(0, len(night_ids), 500):  # SQLite's limit on bound values
            chunk = list(night_ids[start : start + 500])
            found += await self._marks(f"n.id IN ({', '.join('?' for _ in chunk)})", tuple(chunk), counted=True)
        return found

    async def _marks(self, where: str, params: tuple[object, ...], counted: bool) -> list[NightMarks]:
        """(`counted`: with each night's number in its chat, one count per night; else the nights
        are the chat's own, numbered as they come.)"""
        number = "(SELECT COUNT(*) FROM nights m WHERE m.chat_id = n.chat_id AND m.id <= n.id)" if counted else "0"
        rows = await self._db.execute_fetchall(
            f"SELECT n.id, {number},"
            " (SELECT MAX(id) FROM events e WHERE e.night_id = n.id),"
            " (SELECT MAX(id) FROM events e WHERE e.night_id = n.id AND e.kind = 'close'),"
            " (SELECT MAX(id) FROM events e WHERE e.night_id = n.id AND e.kind = 'reopen'),"
            " f.version, f.last_event_id, f.figures,"
            " EXISTS (SELECT 1 FROM night_people p WHERE p.night_id = n.id AND p.last_event_id = f.last_event_id)"
            f" FROM nights n LEFT JOIN night_figures f ON f.night_id = n.id WHERE {where} ORDER BY n.id",
            params,
        )
        marks: list[NightMarks] = []
        for position, (night_id, number, last, closed, reopened, version, built_after, figures, summed) in enumerate(
            rows, 1
        ):
            is_closed = closed is not None and (reopened is None or closed > reopened)
            stored = (str(version), int(built_after), str(figures)) if version is not None else None
            numbered = int(number) if counted else position
            marks.append(NightMarks(int(night_id), numbered, int(last or 0), is_closed, stored, bool(summed)))
        return marks

    async def store_figures(self, rows: Sequence[StoredFigures]) -> None:
        """Each night's figures and its rows per person (replacing those stored for it): one
        transaction for them all. A night one of whose rows holds a figure past a 64-bit integer (a
        ledger written before the bounds of docs/rules.md 20) keeps its figures without rows: /tab and
        /summary read it, a period's sums leave it out, rather than every view after it failing."""
        rows = [row if all(map(fits, row[4])) else (*row[:4], ()) for row in rows]

        def write(db: sqlite3.Connection) -> None:
            db.executemany(
                "INSERT OR REPLACE INTO night_figures (night_id, version, last_event_id, figures) VALUES (?, ?, ?, ?)",
                [row[:4] for row in rows],
            )
            db.executemany("DELETE FROM night_people WHERE night_id = ?", [(row[0],) for row in rows])
            db.executemany(
                "INSERT INTO night_people (night_id, person, chat_id, day, last_event_id, amount, money_cents,"
                " hands, wins, self_draws, deal_ins, biggest) SELECT ?, ?, chat_id, substr(created_at, 1, 10),"
                " ?, ?, ?, ?, ?, ?, ?, ? FROM nights WHERE id = ?",
                [
                    (p.night_id, p.person, built_after, p.amount, p.money_cents, p.hands, p.wins, *p.counts, p.night_id)
                    for _, _, built_after, _, people in rows
                    for p in people
                ],
            )

        await self._writer.run(write)

    async def period_sums(self, chat_id: str, first_day: str, last_day: str) -> list[tuple[str, PersonNightRow]]:
        """Per person (as stored: an account or a folded name; `Persons` joins them), their closed
        nights from `first_day` to `last_day` (YYYY-MM-DD, the day each night was opened) summed:
        (person, the sums with `night_id` holding how many nights). One indexed read of the period's
        rows; a night reopened since its rows were written is left out (its newest event is newer)."""
        chosen = (
            " FROM night_people p WHERE chat_id = ? AND day BETWEEN ? AND ?"
            " AND last_event_id = (SELECT MAX(id) FROM events e WHERE e.night_id = p.night_id)"
        )
        try:
            rows: Sequence[Sequence[Any]] = list(
                await self._db.execute_fetchall(
                    "SELECT person, COUNT(*), SUM(amount), SUM(money_cents), SUM(hands), SUM(wins), SUM(self_draws),"
                    f" SUM(deal_ins), MAX(biggest){chosen} GROUP BY person ORDER BY person",
                    (chat_id, first_day, last_day),
                )
            )
        except sqlite3.OperationalError as error:
            if not overflowed(error):
                raise
            raw = await self._db.execute_fetchall(f"SELECT {PEOPLE_COLUMNS}{chosen}", (chat_id, first_day, last_day))
            rows = summed_by_person(list(raw))
        return [(str(r[0]), PersonNightRow(int(r[1]), str(r[0]), *(int(v) for v in r[2:]))) for r in rows]


class ChatTab:
    """The ledger's reads and writes of a chat's tab (its own append-only log: bot/chat/handlers/tab.py),
    a part of `Ledger`: its connection and writer."""

    def __init__(self, connection: aiosqlite.Connection, writer: Writer) -> None:
        self._db = connection
        self._writer = writer

    async def tab_events(self, chat_id: str) -> list[TabEventRow]:
        rows = await self._db.execute_fetchall(
            "SELECT id, kind, payload, speaker, reverses, created_at FROM tab_events WHERE chat_id = ? ORDER BY id",
            (chat_id,),
        )
        return [TabEventRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), r[4], str(r[5])) for r in rows]

    async def append_tab_event(
        self, chat_id: str, kind: str, payload: str, line: tuple[str, str, str | None], reverses: int | None = None
    ) -> int:
        """One entry of the chat's tab (speaker, raw text, update key); DuplicateUpdate for a repeated update."""
        return await self._writer.run(
            lambda db: append_chat_log(db, "tab_events", chat_id, kind, payload, line, reverses)
        )
