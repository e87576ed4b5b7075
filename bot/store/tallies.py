"""A night's running tally as stored: checkpoints of its state and the hands' nets, kept current
as hands close (the night is tallied whole again when what is stored is not the latest)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

import aiosqlite

from bot.store.rows import (
    StoredTally,
    TallyRows,
    TallyUpdate,
)
from bot.store.writer import Writer
from bot.threads import in_thread


def add_to_tally(db: sqlite3.Connection, night_id: int, last_event_id: int, update: TallyUpdate) -> None:
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


def _tally_rows(rows: Iterable[Sequence[Any]]) -> TallyRows:
    """The tally's hands as read: (hand, player, net) rows, a 比下胡 hand as player -1."""
    nets = tuple((int(h), int(p), int(n)) for h, p, n in rows if p >= 0)
    return TallyRows(nets, tuple(int(h) for h, p, _ in rows if p < 0))


class Tallies:
    """The ledger's reads and writes of a night's tally and checkpoints (a part of `Ledger`: its read
    connection and its writer)."""

    def __init__(self, connection: aiosqlite.Connection, writer: Writer) -> None:
        self._db = connection
        self._writer = writer

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
