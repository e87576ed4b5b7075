"""The SQLite ledger: an append-only log of events and their payments, one per group chat.

Nothing is updated or deleted. A night is opened by a row in `nights` and an `open` event; closing,
reopening, undo and language changes are further events or rows. Balances are sums over `payments`.
Every command's writes are atomic (a savepoint in a transaction that commands arriving together
share: one COMMIT, one fsync, bot/store/writer.py), and a reply is sent only after that commit. A
Telegram update (or console line) carries an `update_key`, unique in `events`, so a repeated
update is recorded once.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.store.answers import Answers
from bot.store.exports import NightExports
from bot.store.flow_taps import FlowTaps
from bot.store.history import ChatHistory, ChatTab, is_recorded
from bot.store.inbox import Inbox
from bot.store.rows import (
    DuplicateUpdate,
    EventRow,
    LineText,
    NewEvent,
    NightRow,
    PaymentRow,
    Seat,
    TallyUpdate,
)
from bot.store.schema import migrate
from bot.store.seasons import ChatSeasons
from bot.store.tallies import Tallies, add_to_tally
from bot.store.writer import Writer, pragmas
from bot.threads import in_thread

R = TypeVar("R")

LONG_READ = 5_000  # rows: building more than these objects is done off the event loop
LONG_DECODE = 300  # rows whose payloads are decoded as they are read (some 10 µs each)


async def _built(make: Callable[..., R], rows: Iterable[Sequence[Any]], longest: int = LONG_READ) -> list[R]:
    """One object a row; a long night's 100,000 payments take the event loop 100 ms, so they are
    built in a worker thread (other chats are answered meanwhile)."""
    listed = list(rows)
    if len(listed) <= longest:
        return [make(*row) for row in listed]
    return await in_thread(lambda: [make(*row) for row in listed])


# The columns a night holds of an event (EventRow), the payload last: it is held as the reader decodes it.
_EVENT_COLUMNS = "id, night_id, hand_no, kind, actor, speaker, reverses, payload"

# How a reader holds a row's payload: (kind, payload text) -> its body (bot/night/codec.py `decode_body`).
Decode = Callable[[str, str], object]


def as_text(kind: str, payload: str) -> str:
    """A row's payload held as its text (a reader that decodes nothing)."""
    return payload


# A night row with its number within its chat (ids are global across chats).
_NIGHTS = (
    "SELECT n.*, (SELECT COUNT(*) FROM nights m WHERE m.chat_id = n.chat_id AND m.id <= n.id) AS number FROM nights n"
)


_EventValues = tuple[str, int, int, str, int | None, str, str, str, str | None, int | None]


def _insert_event(db: sqlite3.Connection, values: _EventValues) -> int:
    """(chat, night, hand, kind, actor, payload, raw text, speaker, update key, reverses); a repeated
    update key fails the UNIQUE index: DuplicateUpdate."""
    update_key = values[8]
    try:
        cursor = db.execute(
            "INSERT INTO events (chat_id, night_id, hand_no, kind, actor, payload, raw_text, speaker,"
            " update_key, reverses) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        )
    except sqlite3.IntegrityError as error:
        if update_key is not None and "update_key" in str(error):
            raise DuplicateUpdate(update_key) from error
        raise
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def _event_maker(decode: Decode) -> Callable[..., EventRow]:
    """Rows as held in memory (the columns of _EVENT_COLUMNS): the kind and speaker shared with every
    row that repeats them, the payload decoded by `decode`."""

    def make(id: int, night: int, hand: int, kind: str, actor: int | None, *rest: Any) -> EventRow:
        speaker, reverses, payload = rest
        kind = sys.intern(kind)
        return EventRow(id, night, hand, kind, actor, sys.intern(speaker), reverses, decode(kind, payload))

    return make


def _compact_payment(event_id: int, payer: int, payee: int, amount: int, money: int, reason: str) -> PaymentRow:
    return PaymentRow(event_id, payer, payee, amount, money, sys.intern(reason))


def _seats_json(seats: Sequence[Seat]) -> str:
    return json.dumps([s.__dict__ for s in seats], ensure_ascii=False)


def _night(row: aiosqlite.Row | sqlite3.Row) -> NightRow:
    seats = tuple(Seat(**s) for s in json.loads(row["players"]))
    return NightRow(
        row["id"],
        row["chat_id"],
        row["preset_name"],
        row["preset_json"],
        row["stake_cents"],
        seats,
        row["dealer"],
        row["opened_by"],
        row["created_at"],
        row["number"],
        row["ids_numbered_through"],
    )


@dataclass(frozen=True)
class _Line:
    """Who wrote which command line, where: shared by the events it records."""

    chat_id: str
    night_id: int
    speaker: str
    raw_text: str
    update_key: str | None
    stake_cents: int


def _append_events(db: sqlite3.Connection, line: _Line, events: Sequence[NewEvent]) -> list[int]:
    ids: list[int] = []
    for index, new in enumerate(events):
        key = line.update_key if index == 0 else None
        row = (line.chat_id, line.night_id, new.hand_no, new.kind, new.actor, new.payload, line.raw_text, line.speaker)
        event_id = _insert_event(db, (*row, key, new.reverses))
        stake = new.stake_cents if new.stake_cents is not None else line.stake_cents
        db.executemany(
            "INSERT INTO payments (event_id, night_id, payer, payee, amount, money_cents, reason)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(event_id, line.night_id, p.payer, p.payee, p.amount, p.amount * stake, p.reason) for p in new.payments],
        )
        ids.append(event_id)
    return ids


def _read_back(db: sqlite3.Connection, ids: list[int], decode: Decode) -> list[EventRow]:
    marks = ", ".join("?" for _ in ids)
    make = _event_maker(decode)
    rows = db.execute(f"SELECT {_EVENT_COLUMNS} FROM events WHERE id IN ({marks}) ORDER BY id", ids)
    return [make(*row) for row in rows]


class Ledger:
    """The ledger: a night's events and payments, settings, the inbox; and its parts, each sharing its
    read connection and its writer: `tallies` (a night's running tally and checkpoints,
    bot/store/tallies.py), `history` (each night's marks, stored figures and rows per person),
    `tab` (the chat's tab log; both bot/store/history.py), `seasons` (the seasons and spans of nights,
    bot/store/seasons.py), `exports` (the closed nights' rows of /export all, bot/store/exports.py) and
    `flows` (a guided flow's taps, bot/store/flow_taps.py)."""

    def __init__(self, connection: aiosqlite.Connection, writer: Writer) -> None:
        # Reads use their own connection: under WAL they never wait for a write, and they see only
        # committed rows. Every write goes through the writer (group commit, bot/store/writer.py).
        self._db = connection
        self._writer = writer
        self.tallies = Tallies(connection, writer)
        self.history = ChatHistory(connection, writer)
        self.tab = ChatTab(connection, writer)
        self.seasons = ChatSeasons(connection, writer)
        self.exports = NightExports(connection, writer)
        self.flows = FlowTaps(connection, writer)
        # by chat: how many commits wrote its nights' events (an opening too), so that a line that
        # failed can say whether it recorded anything without reading the log before and after it
        self._recorded: Counter[str] = Counter()

    @classmethod
    async def open(cls, path: str | Path, busy_timeout: float | None = None) -> Ledger:
        """The ledger at `path`, created and migrated as needed; a write waits `busy_timeout` seconds
        for a lock another process holds (None: bot/store/writer.py's BUSY_TIMEOUT_SECONDS)."""
        writer = await Writer.open(path, busy_timeout)
        await writer.run(migrate)
        connection = await aiosqlite.connect(str(path), isolation_level=None)
        connection.row_factory = aiosqlite.Row
        for pragma in pragmas(busy_timeout):
            await connection.execute(f"PRAGMA {pragma}")
        return cls(connection, writer)

    async def close(self) -> None:
        await self._writer.close()
        await self._db.close()

    def recorded(self, chat_id: str) -> int:
        """How many commits this process made of the chat's events (a night opened counts): a line
        that failed recorded something if the count moved while it was answered."""
        return self._recorded[chat_id]

    def inbox(self) -> Inbox:
        """The Telegram intake: an update is marked done by the transaction that records its events
        (see bot/store/inbox.py)."""
        return Inbox(self._db, self._writer)

    def answers(self) -> Answers:
        """The bot's sent answers and what a replied message recorded (bot/store/answers.py)."""
        return Answers(self._db, self._writer)

    async def schema_version(self) -> int:
        rows = await self._db.execute_fetchall("PRAGMA user_version")
        row = next(iter(rows), None)
        return int(row[0]) if row else 0

    # ---- writes (each one command's rows, in a shared transaction: bot/store/writer.py) -----------------

    async def open_night(
        self,
        chat_id: str,
        seats: Sequence[Seat],
        preset_name: str,
        preset_json: str,
        stake_cents: int,
        dealer: int,
        opened_by: str,
        raw_text: str,
        update_key: str | None,
    ) -> int:
        """Create a night and its `open` event; raises DuplicateUpdate for a repeated update."""

        def write(db: sqlite3.Connection) -> int:
            if is_recorded(db, update_key):
                raise DuplicateUpdate(update_key)
            cursor = db.execute(
                "INSERT INTO nights (chat_id, preset_name, preset_json, stake_cents, players, dealer, opened_by)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (chat_id, preset_name, preset_json, stake_cents, _seats_json(seats), dealer, opened_by),
            )
            assert cursor.lastrowid is not None
            night_id = cursor.lastrowid
            _insert_event(db, (chat_id, night_id, 1, "open", None, "{}", raw_text, opened_by, update_key, None))
            return night_id

        night_id = await self._writer.run(write)
        self._recorded[chat_id] += 1
        return night_id

    async def append(
        self,
        chat_id: str,
        night_id: int,
        speaker: str,
        raw_text: str,
        update_key: str | None,
        stake_cents: int,
        events: Sequence[NewEvent],
    ) -> list[int]:
        """The ids of `append_rows`."""
        rows = await self.append_rows(chat_id, night_id, speaker, raw_text, update_key, stake_cents, events)
        return [row.id for row in rows]

    async def append_rows(
        self,
        chat_id: str,
        night_id: int,
        speaker: str,
        raw_text: str,
        update_key: str | None,
        stake_cents: int,
        events: Sequence[NewEvent],
        checkpoint: tuple[str, str] | None = None,
        decode: Decode = as_text,
        tally: TallyUpdate | None = None,
    ) -> list[EventRow]:
        """`append`, returning the rows as recorded: read back in the same transaction, so that no
        reader's older snapshot can hide them, their payloads held as `decode` reads them. A
        checkpoint (version, state) of the table after the last of these events rides in the same
        transaction, and so does what the hand they close adds to the night's running tally."""
        line = _Line(chat_id, night_id, speaker, raw_text, update_key, stake_cents)

        def write(db: sqlite3.Connection) -> list[EventRow]:
            ids = _append_events(db, line, events)
            if checkpoint is not None and ids:
                db.execute(
                    "INSERT OR REPLACE INTO checkpoints (night_id, last_event_id, version, state) VALUES (?, ?, ?, ?)",
                    (night_id, ids[-1], *checkpoint),
                )
            if tally is not None and ids:
                add_to_tally(db, night_id, ids[-1], tally)
            return _read_back(db, ids, decode)

        rows = await self._writer.run(write)
        self._recorded[chat_id] += 1
        return rows

    async def set_setting(self, chat_id: str, key: str, value: str) -> None:
        def write(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO chat_settings (chat_id, key, value) VALUES (?, ?, ?)", (chat_id, key, value))

        await self._writer.run(write)

    # ---- reads ---------------------------------------------------------------------------------

    async def setting(self, chat_id: str, key: str) -> str | None:
        rows = await self._db.execute_fetchall(
            "SELECT value FROM chat_settings WHERE chat_id = ? AND key = ? ORDER BY id DESC LIMIT 1",
            (chat_id, key),
        )
        row = next(iter(rows), None)
        return str(row["value"]) if row else None

    async def has_update(self, update_key: str) -> bool:
        """Whether a line with this update key was recorded (a repeated Telegram update)."""
        rows = await self._db.execute_fetchall(
            "SELECT 1 FROM events WHERE update_key = ? UNION ALL SELECT 1 FROM tab_events WHERE update_key = ?"
            " UNION ALL SELECT 1 FROM season_events WHERE update_key = ?",
            (update_key, update_key, update_key),
        )
        return next(iter(rows), None) is not None

    async def event_of_update(self, update_key: str) -> int | None:
        """The first event recorded under this update key (a guided flow already recorded)."""
        rows = await self._db.execute_fetchall("SELECT MIN(id) FROM events WHERE update_key = ?", (update_key,))
        row = next(iter(rows), None)
        return int(row[0]) if row is not None and row[0] is not None else None

    async def event_count(self, night_id: int) -> int:
        """Rows the night holds (events, chores and corrections): an index range count."""
        rows = await self._db.execute_fetchall("SELECT COUNT(*) FROM events WHERE night_id = ?", (night_id,))
        return int(next(iter(rows))[0])

    async def latest_night(self, chat_id: str) -> NightRow | None:
        rows = await self._db.execute_fetchall(f"{_NIGHTS} WHERE chat_id = ? ORDER BY id DESC LIMIT 1", (chat_id,))
        row = next(iter(rows), None)
        return _night(row) if row else None

    async def nights(self, chat_id: str) -> list[NightRow]:
        rows = await self._db.execute_fetchall(f"{_NIGHTS} WHERE chat_id = ? ORDER BY id", (chat_id,))
        return [_night(row) for row in rows]

    async def nights_of_user(self, user_id: str) -> list[NightRow]:
        """Nights, in any chat, that may have seated this Telegram user (at /new, or by a later
        join/bind event); callers confirm with the seats themselves."""
        pattern = f'%"user_id": "{user_id}"%'
        rows = await self._db.execute_fetchall(
            f"{_NIGHTS} WHERE players LIKE ? OR id IN"
            " (SELECT night_id FROM events WHERE kind IN ('join', 'bind') AND payload LIKE ?) ORDER BY id",
            (pattern, pattern),
        )
        return [_night(row) for row in rows]

    async def events(self, night_id: int, after_id: int = 0, decode: Decode = as_text) -> list[EventRow]:
        """The night's rows after `after_id`, oldest first, each payload held as `decode` reads it."""
        rows = await self._db.execute_fetchall(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE night_id = ? AND id > ? ORDER BY id", (night_id, after_id)
        )
        longest = LONG_READ if decode is as_text else LONG_DECODE  # a long night is decoded off the event loop
        return await _built(_event_maker(decode), rows, longest)

    async def event(self, night_id: int, event_id: int, decode: Decode = as_text) -> EventRow | None:
        rows = await self._db.execute_fetchall(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE night_id = ? AND id = ?", (night_id, event_id)
        )
        row = next(iter(rows), None)
        return _event_maker(decode)(*row) if row else None

    async def line_texts(
        self, night_id: int, ids: Sequence[int] | None = None, kind: str | None = None
    ) -> dict[int, LineText]:
        """What was typed for the night's rows and when each was recorded, by row id: of `ids`
        (every row when None), or of the rows of one `kind`."""
        params: list[int | str] = [night_id]
        where = "night_id = ?"
        if kind is not None:
            where += " AND kind = ?"
            params.append(kind)
        wanted = None if ids is None else set(ids)
        if wanted is not None and len(wanted) <= 500:  # SQLite's limit on bound values (more: read all, keep these)
            where += f" AND id IN ({', '.join('?' for _ in wanted)})"
            params.extend(sorted(wanted))
        rows = await self._db.execute_fetchall(
            f"SELECT id, raw_text, created_at FROM events WHERE {where} ORDER BY id", params
        )
        return {int(r[0]): LineText(str(r[1]), str(r[2])) for r in rows if wanted is None or int(r[0]) in wanted}

    async def payments_after(self, night_id: int, after_event_id: int) -> list[PaymentRow]:
        """Payments of the night's events newer than `after_event_id` (for running totals)."""
        rows = await self._db.execute_fetchall(
            "SELECT event_id, payer, payee, amount, money_cents, reason FROM payments"
            " WHERE night_id = ? AND event_id > ? ORDER BY id",
            (night_id, after_event_id),
        )
        return await _built(_compact_payment, rows)

    async def is_closed(self, night_id: int) -> bool:
        """A night is closed when its latest close/reopen event is a close (two index seeks)."""
        rows = await self._db.execute_fetchall(
            "SELECT (SELECT MAX(id) FROM events WHERE night_id = ? AND kind = 'close'),"
            " (SELECT MAX(id) FROM events WHERE night_id = ? AND kind = 'reopen')",
            (night_id, night_id),
        )
        row = next(iter(rows), None)
        closed, reopened = (row[0], row[1]) if row else (None, None)
        return closed is not None and (reopened is None or closed > reopened)

    async def payments(self, night_id: int) -> list[PaymentRow]:
        rows = await self._db.execute_fetchall(
            "SELECT event_id, payer, payee, amount, money_cents, reason FROM payments WHERE night_id = ? ORDER BY id",
            (night_id,),
        )
        return await _built(_compact_payment, rows)

    async def balances(self, night_id: int) -> tuple[list[int], list[int]]:
        """Net amount and money (cents) per seat, derived from the payments."""
        amounts, money = [0] * 4, [0] * 4
        rows = await self._db.execute_fetchall(
            "SELECT payee AS seat, SUM(amount), SUM(money_cents) FROM payments WHERE night_id = ? GROUP BY payee"
            " UNION ALL "
            "SELECT payer AS seat, -SUM(amount), -SUM(money_cents) FROM payments WHERE night_id = ? GROUP BY payer",
            (night_id, night_id),
        )
        for seat, amount, cents in rows:
            amounts[seat] += amount
            money[seat] += cents
        return amounts, money

    async def event_of_message(self, chat_id: str, message_key: str) -> tuple[int, bool] | None:
        """The latest event a Telegram message recorded, by its own line or by an edit of it
        (`msg:<chat>:<id>` and `edit:<chat>:<id>:<date>`): what an edit of that message corrects."""
        rows = await self._db.execute_fetchall(
            "SELECT id, update_key LIKE 'edit:%' FROM events"
            " WHERE chat_id = ? AND (update_key = ? OR update_key LIKE ?) ORDER BY id DESC LIMIT 1",
            (chat_id, f"msg:{message_key}", f"edit:{message_key}:%"),
        )
        row = next(iter(rows), None)
        return (int(row[0]), bool(row[1])) if row else None

    async def latest_event_time(self, night_id: int) -> str | None:
        """When the night's newest event was recorded (its `created_at`)."""
        rows = await self._db.execute_fetchall("SELECT MAX(created_at) FROM events WHERE night_id = ?", (night_id,))
        row = next(iter(rows), None)
        return str(row[0]) if row is not None and row[0] is not None else None
