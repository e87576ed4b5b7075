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

from bot.store.inbox import Inbox
from bot.store.rows import (
    DuplicateUpdate,
    EventRow,
    LineText,
    NewEvent,
    NightMarks,
    NightRow,
    PaymentRow,
    PersonNightRow,
    Seat,
    StoredFigures,
    StoredTally,
    TabEventRow,
    TallyRows,
    TallyUpdate,
)
from bot.store.writer import Writer, pragmas
from bot.threads import in_thread

SCHEMA_VERSION = 10
_MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE chat_settings (
        id INTEGER PRIMARY KEY,
        chat_id TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX chat_settings_by_chat ON chat_settings (chat_id, key, id);
    CREATE TABLE nights (
        id INTEGER PRIMARY KEY,
        chat_id TEXT NOT NULL,
        preset_name TEXT NOT NULL,
        preset_json TEXT NOT NULL,
        stake_cents INTEGER NOT NULL CHECK (stake_cents > 0),
        players TEXT NOT NULL,
        dealer INTEGER NOT NULL,
        opened_by TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX nights_by_chat ON nights (chat_id, id);
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        chat_id TEXT NOT NULL,
        night_id INTEGER NOT NULL REFERENCES nights (id),
        hand_no INTEGER NOT NULL,
        kind TEXT NOT NULL,
        actor INTEGER,
        payload TEXT NOT NULL,
        raw_text TEXT NOT NULL,
        speaker TEXT NOT NULL,
        update_key TEXT UNIQUE,
        reverses INTEGER REFERENCES events (id),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX events_by_night ON events (night_id, id);
    CREATE UNIQUE INDEX one_reversal_each ON events (reverses) WHERE reverses IS NOT NULL;
    CREATE TABLE payments (
        id INTEGER PRIMARY KEY,
        event_id INTEGER NOT NULL REFERENCES events (id),
        night_id INTEGER NOT NULL REFERENCES nights (id),
        payer INTEGER NOT NULL CHECK (payer BETWEEN 0 AND 3),
        payee INTEGER NOT NULL CHECK (payee BETWEEN 0 AND 3),
        amount INTEGER NOT NULL,
        money_cents INTEGER NOT NULL,
        reason TEXT NOT NULL,
        CHECK (payer <> payee)
    );
    CREATE INDEX payments_by_night ON payments (night_id);
    CREATE INDEX payments_by_event ON payments (event_id);
    """,
    # 2: find a night's events of one kind (join, win, close/reopen) without scanning the night
    2: """
    CREATE INDEX events_by_night_kind ON events (night_id, kind, id);
    """,
    # 3: the Telegram inbox (bot/store/inbox.py); an update's row is marked done by the same transaction
    # that records its events, so a crash can neither lose an acknowledged update nor apply it twice
    3: """
    CREATE TABLE inbox (
        update_id INTEGER PRIMARY KEY,
        chat INTEGER,
        key TEXT,
        body TEXT NOT NULL,
        done INTEGER NOT NULL DEFAULT 0,
        event_id INTEGER,
        received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX inbox_pending ON inbox (update_id) WHERE done = 0;
    CREATE INDEX inbox_by_key ON inbox (key, update_id);
    CREATE TRIGGER inbox_done_with_its_events AFTER INSERT ON events WHEN NEW.update_key IS NOT NULL
    BEGIN
        UPDATE inbox SET done = 1, event_id = NEW.id
        WHERE update_id = (SELECT MIN(update_id) FROM inbox WHERE key = NEW.update_key AND done = 0);
    END;
    CREATE TABLE chat_aliases (
        chat INTEGER PRIMARY KEY,
        chat_key TEXT NOT NULL
    );
    INSERT OR REPLACE INTO chat_aliases (chat, chat_key)
        SELECT CAST(substr(chat_id, 4) AS INTEGER), value FROM chat_settings
        WHERE key = 'migrated_from' AND chat_id LIKE 'tg:%' ORDER BY id;
    """,
    # 4: the night's folded table state at closed hands (bot/night/checkpoint.py): a cache, never the truth
    4: """
    CREATE TABLE checkpoints (
        night_id INTEGER NOT NULL REFERENCES nights (id),
        last_event_id INTEGER NOT NULL,
        version TEXT NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (night_id, last_event_id)
    );
    """,
    # 5: a place in the night has versions (bot/night/versions.py): a fix of a fix, and an undo of a fix
    # followed by an undo of what it brought back, reverse the same row twice; each is a new row
    5: """
    DROP INDEX one_reversal_each;
    CREATE INDEX events_by_reverses ON events (reverses) WHERE reverses IS NOT NULL;
    """,
    # 6: the tab across nights (bot/chat/handlers/tab.py). `night_figures` caches each closed night's figures per
    # person (a cache, never the truth: it counts only while its night's newest event is the one it
    # was built after, and its version is the code's). `tab_events` is the chat's own append-only
    # log of payments between people and nights settled on their own, with their undos; an update
    # it records marks its inbox row done in the same transaction, as `events` does.
    6: """
    CREATE TABLE night_figures (
        night_id INTEGER PRIMARY KEY REFERENCES nights (id),
        version TEXT NOT NULL,
        last_event_id INTEGER NOT NULL,
        figures TEXT NOT NULL
    );
    CREATE TABLE tab_events (
        id INTEGER PRIMARY KEY,
        chat_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('paid', 'settled', 'undo')),
        payload TEXT NOT NULL,
        raw_text TEXT NOT NULL,
        speaker TEXT NOT NULL,
        update_key TEXT UNIQUE,
        reverses INTEGER REFERENCES tab_events (id),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX tab_events_by_chat ON tab_events (chat_id, id);
    CREATE TRIGGER inbox_done_with_its_tab_events AFTER INSERT ON tab_events WHEN NEW.update_key IS NOT NULL
    BEGIN
        UPDATE inbox SET done = 1
        WHERE update_id = (SELECT MIN(update_id) FROM inbox WHERE key = NEW.update_key AND done = 0);
    END;
    """,
    # 7: the taps of a guided 胡's tile pad (bot/chat/handlers/tile_flow.py), in the order they came, keyed
    # by the flow: the pad is their fold, so a tap on a keyboard an edit has not replaced yet still
    # counts, and a restart keeps the pad. `press` is the button press's own id (a repeated update
    # is counted once); money is never here (the flow's win is an event like any other).
    7: """
    CREATE TABLE flow_taps (
        id INTEGER PRIMARY KEY,
        flow_key TEXT NOT NULL,
        op TEXT NOT NULL,
        press TEXT UNIQUE,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX flow_taps_by_flow ON flow_taps (flow_key, id);
    """,
    # 8: the night's running tally (bot/night/tally.py): what /summary and its chart show, as of the
    # newest closed hand (`last_event_id`): each closed hand replaces the figures and adds to its
    # hand's rows, in its checkpoint's transaction; a correction stores it whole again. A cache, never
    # the truth: one of another version, or with a correction after it, is ignored and rebuilt.
    8: """
    CREATE TABLE tallies (
        night_id INTEGER PRIMARY KEY REFERENCES nights (id),
        last_event_id INTEGER NOT NULL,
        version TEXT NOT NULL,
        figures TEXT NOT NULL
    );
    CREATE TABLE tally_nets (
        night_id INTEGER NOT NULL REFERENCES nights (id),
        hand INTEGER NOT NULL,
        player INTEGER NOT NULL,
        net INTEGER NOT NULL,
        PRIMARY KEY (night_id, hand, player)
    ) WITHOUT ROWID;
    CREATE TABLE tally_doubled (
        night_id INTEGER NOT NULL REFERENCES nights (id),
        hand INTEGER NOT NULL,
        PRIMARY KEY (night_id, hand)
    ) WITHOUT ROWID;
    """,
    # 9: a night's numbers never change, across an upgrade too (bot/night/log_index.py). The code
    # before per-night numbers showed a line's row id as its number; a night it wrote keeps those:
    # `ids_numbered_through` is the newest row so numbered (0: the night numbers its lines from #1),
    # set by `_keep_row_id_numbers` on an upgrade from schema 6 or older.
    9: """
    ALTER TABLE nights ADD COLUMN ids_numbered_through INTEGER NOT NULL DEFAULT 0;
    """,
    # 10: each closed night's figures per person as plain rows, so that a period's (a month's, a
    # season's) are one indexed sum by the nights' day. Written with the night's stored figures
    # (night_figures), in the same transaction; a night closed by older code gets them at the next
    # /stats or /tab, from its stored figures. Like them a cache: `last_event_id` says which state of
    # the night they are of (a reopened night's rows stand for nothing until it closes again).
    10: """
    CREATE TABLE night_people (
        night_id INTEGER NOT NULL REFERENCES nights (id),
        person TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        day TEXT NOT NULL,
        last_event_id INTEGER NOT NULL,
        amount INTEGER NOT NULL,
        money_cents INTEGER NOT NULL,
        hands INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        self_draws INTEGER NOT NULL,
        deal_ins INTEGER NOT NULL,
        biggest INTEGER NOT NULL,
        PRIMARY KEY (night_id, person)
    ) WITHOUT ROWID;
    CREATE INDEX night_people_by_day ON night_people (chat_id, day);
    """,
}
# The last schema that code numbering lines by their row id may have written (per-night numbers
# came while the schema was 6), and the first checkpoint codec only per-night code wrote.
ROW_ID_NUMBERS_SCHEMA = 6
PER_NIGHT_NUMBERS_CODEC = 3


def _add_to_tally(db: sqlite3.Connection, night_id: int, last_event_id: int, update: TallyUpdate) -> None:
    """What a closed hand adds to the night's running tally, if the stored tally is the one it adds
    to (written after event `update.after`, in its version); else the stored one is dropped, so that
    no one adds to it or reads it: the night is tallied whole when next asked."""
    current = db.execute(
        "UPDATE tallies SET last_event_id = ?, figures = ? WHERE night_id = ? AND version = ? AND last_event_id = ?",
        (last_event_id, update.figures, night_id, update.version, update.after),
    )
    if current.rowcount == 1:
        _add_hands(db, night_id, update.hands)
    else:
        db.execute("DELETE FROM tallies WHERE night_id = ?", (night_id,))


def _add_hands(db: sqlite3.Connection, night_id: int, hands: TallyRows) -> None:
    """Add the rows to the night's stored hands (a net adds to the player's in that hand)."""
    if hands.nets:
        db.executemany(
            "INSERT INTO tally_nets (night_id, hand, player, net) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (night_id, hand, player) DO UPDATE SET net = net + excluded.net",
            [(night_id, hand, player, net) for hand, player, net in hands.nets],
        )
    if hands.doubled:
        db.executemany(
            "INSERT OR IGNORE INTO tally_doubled (night_id, hand) VALUES (?, ?)",
            [(night_id, hand) for hand in hands.doubled],
        )


def _statements(script: str) -> list[str]:
    """Split a migration into statements; a trigger's body holds `;` of its own."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements


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


def _migrate(db: sqlite3.Connection) -> None:
    """Bring the schema to SCHEMA_VERSION (on the writer, in one transaction)."""
    row = db.execute("PRAGMA user_version").fetchone()
    version = row[0] if row else 0
    for target in sorted(v for v in _MIGRATIONS if v > version):
        for statement in _statements(_MIGRATIONS[target]):
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {target}")
    if 0 < version <= ROW_ID_NUMBERS_SCHEMA:
        _keep_row_id_numbers(db)


def _keep_row_id_numbers(db: sqlite3.Connection) -> None:
    """Mark the nights whose lines were shown by their row id (`✅ #8` was row 8), so that they
    keep those numbers. Schema 6 was written both before and after per-night numbers came; what
    tells them apart is the checkpoints' codec (its version's first part): a night with a checkpoint
    of per-night code (codec 3 on) was numbered per night when it was last played; one with only
    older checkpoints was not; one with none (no hand closed yet) was, if no night in the file has
    a checkpoint of per-night code either."""
    codec = "CAST(substr(c.version, 1, instr(c.version, ':') - 1) AS INTEGER)"
    per_night = f"SELECT 1 FROM checkpoints c WHERE {codec} >= {PER_NIGHT_NUMBERS_CODEC}"
    db.execute(
        "UPDATE nights SET ids_numbered_through = (SELECT COALESCE(MAX(id), 0) FROM events e"
        " WHERE e.night_id = nights.id)"
        f" WHERE NOT EXISTS ({per_night} AND c.night_id = nights.id)"
        " AND (EXISTS (SELECT 1 FROM checkpoints c WHERE c.night_id = nights.id)"
        f" OR NOT EXISTS ({per_night}))"
    )


def _is_recorded(db: sqlite3.Connection, update_key: str | None) -> bool:
    if update_key is None:
        return False
    return db.execute("SELECT 1 FROM events WHERE update_key = ?", (update_key,)).fetchone() is not None


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


def _tally_rows(rows: Iterable[Sequence[Any]]) -> TallyRows:
    """The tally's hands as read: (hand, player, net) rows, a 比下胡 hand as player -1."""
    nets = tuple((int(h), int(p), int(n)) for h, p, n in rows if p >= 0)
    return TallyRows(nets, tuple(int(h) for h, p, _ in rows if p < 0))


class Ledger:
    def __init__(self, connection: aiosqlite.Connection, writer: Writer) -> None:
        # Reads use their own connection: under WAL they never wait for a write, and they see only
        # committed rows. Every write goes through the writer (group commit, bot/store/writer.py).
        self._db = connection
        self._writer = writer
        # by chat: how many commits wrote its nights' events (an opening too), so that a line that
        # failed can say whether it recorded anything without reading the log before and after it
        self._recorded: Counter[str] = Counter()

    @classmethod
    async def open(cls, path: str | Path) -> Ledger:
        writer = await Writer.open(path)
        await writer.run(_migrate)
        connection = await aiosqlite.connect(str(path), isolation_level=None)
        connection.row_factory = aiosqlite.Row
        for pragma in pragmas():
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
            if _is_recorded(db, update_key):
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
                _add_to_tally(db, night_id, ids[-1], tally)
            return _read_back(db, ids, decode)

        rows = await self._writer.run(write)
        self._recorded[chat_id] += 1
        return rows

    async def checkpoint(self, night_id: int, version: str) -> tuple[int, str] | None:
        """(last event id, state) of the night's newest checkpoint of this version that no later
        correction reaches into (an undo or fix of an event it covers invalidates it). Walked from
        the newest checkpoint back, taking in the corrections newer than each: one pass over both,
        where asking every checkpoint about every later event took 78 s in a 50,000-event night."""
        corrections = [
            (int(row[0]), int(row[1]))
            for row in await self._db.execute_fetchall(
                "SELECT id, reverses FROM events WHERE night_id = ? AND reverses IS NOT NULL ORDER BY id DESC",
                (night_id,),
            )
        ]
        marks = await self._db.execute_fetchall(
            "SELECT last_event_id FROM checkpoints WHERE night_id = ? AND version = ? ORDER BY last_event_id DESC",
            (night_id, version),
        )
        reach, taken = None, 0  # the earliest event reached back into by a correction newer than the mark
        for (last,) in marks:
            while taken < len(corrections) and corrections[taken][0] > last:
                reverses = corrections[taken][1]
                reach = reverses if reach is None else min(reach, reverses)
                taken += 1
            if reach is None or reach > last:
                rows = await self._db.execute_fetchall(
                    "SELECT state FROM checkpoints WHERE night_id = ? AND version = ? AND last_event_id = ?",
                    (night_id, version, last),
                )
                return int(last), str(next(iter(rows))[0])
        return None

    async def tally(self, night_id: int, hands: bool = True) -> StoredTally | None:
        """The night's running tally as stored (its hands' rows too, unless not `hands`), or None."""
        rows = await self._db.execute_fetchall(
            "SELECT last_event_id, version, figures FROM tallies WHERE night_id = ?", (night_id,)
        )
        row = next(iter(rows), None)
        if row is None:
            return None
        by_hand = TallyRows()
        if hands:  # one read: a 比下胡 hand comes as player -1
            rows = await self._db.execute_fetchall(
                "SELECT hand, player, net FROM tally_nets WHERE night_id = ?"
                " UNION ALL SELECT hand, -1, 0 FROM tally_doubled WHERE night_id = ? ORDER BY 1, 2",
                (night_id, night_id),
            )
            by_hand = await in_thread(_tally_rows, rows)  # a long night's hands: off the event loop
        return StoredTally(int(row[0]), str(row[1]), str(row[2]), by_hand)

    async def store_tally(
        self, night_id: int, last_event_id: int, version: str, figures: str, hands: TallyRows
    ) -> bool:
        """Store the night's whole running tally, worked out after event `last_event_id`; nothing
        (False) if the night has a newer event by now (the tally would not be current)."""

        def write(db: sqlite3.Connection) -> bool:
            newest = db.execute("SELECT MAX(id) FROM events WHERE night_id = ?", (night_id,)).fetchone()[0]
            if newest != last_event_id:
                return False
            db.execute("DELETE FROM tally_nets WHERE night_id = ?", (night_id,))
            db.execute("DELETE FROM tally_doubled WHERE night_id = ?", (night_id,))
            db.execute(
                "INSERT OR REPLACE INTO tallies (night_id, last_event_id, version, figures) VALUES (?, ?, ?, ?)",
                (night_id, last_event_id, version, figures),
            )
            _add_hands(db, night_id, hands)
            return True

        return await self._writer.run(write)

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
            "SELECT 1 FROM events WHERE update_key = ? UNION ALL SELECT 1 FROM tab_events WHERE update_key = ?",
            (update_key, update_key),
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

    # ---- the tab across nights (bot/chat/handlers/tab.py) ----------------------------------------------------

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
        transaction for them all."""

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
        rows = await self._db.execute_fetchall(
            "SELECT person, COUNT(*), SUM(amount), SUM(money_cents), SUM(hands), SUM(wins), SUM(self_draws),"
            " SUM(deal_ins), MAX(biggest) FROM night_people p"
            " WHERE chat_id = ? AND day BETWEEN ? AND ?"
            " AND last_event_id = (SELECT MAX(id) FROM events e WHERE e.night_id = p.night_id)"
            " GROUP BY person ORDER BY person",
            (chat_id, first_day, last_day),
        )
        return [(str(r[0]), PersonNightRow(int(r[1]), str(r[0]), *(int(v) for v in r[2:]))) for r in rows]

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
        speaker, raw_text, update_key = line

        def write(db: sqlite3.Connection) -> int:
            if _is_recorded(db, update_key):
                raise DuplicateUpdate(update_key)
            try:
                cursor = db.execute(
                    "INSERT INTO tab_events (chat_id, kind, payload, raw_text, speaker, update_key, reverses)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (chat_id, kind, payload, raw_text, speaker, update_key, reverses),
                )
            except sqlite3.IntegrityError as error:
                if update_key is not None and "update_key" in str(error):
                    raise DuplicateUpdate(update_key) from error
                raise
            assert cursor.lastrowid is not None
            return cursor.lastrowid

        return await self._writer.run(write)

    async def latest_event_time(self, night_id: int) -> str | None:
        """When the night's newest event was recorded (its `created_at`)."""
        rows = await self._db.execute_fetchall("SELECT MAX(created_at) FROM events WHERE night_id = ?", (night_id,))
        row = next(iter(rows), None)
        return str(row[0]) if row is not None and row[0] is not None else None

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
