"""A chat's seasons and a span of its nights summed per person (a part of `Ledger`).

Seasons have their own append-only log per chat (`season_events`, schema 11), read and folded by
bot/chat/handlers/seasons.py: `new` starts one from a night on, `end` ends the open one through a
night, `undo` takes one of them back. Nothing is edited or deleted.

A span's figures are the closed nights' rows per person (`night_people`, schema 10) summed, the nights
chosen by day (a month, a year, a range of days) or by id (a season): one indexed read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import aiosqlite

from bot.store.history import PEOPLE_COLUMNS, append_chat_log, overflowed, summed_by_person
from bot.store.rows import PersonNightRow, SeasonEventRow, SpanSums
from bot.store.writer import Writer

_SUMS = "COUNT(*), SUM(amount), SUM(money_cents), SUM(hands), SUM(wins), SUM(self_draws), SUM(deal_ins), MAX(biggest)"


class ChatSeasons:
    """The ledger's reads and writes of a chat's seasons and spans of nights."""

    def __init__(self, connection: aiosqlite.Connection, writer: Writer) -> None:
        self._db = connection
        self._writer = writer

    async def season_events(self, chat_id: str) -> list[SeasonEventRow]:
        rows = await self._db.execute_fetchall(
            "SELECT id, kind, payload, speaker, reverses, created_at FROM season_events WHERE chat_id = ? ORDER BY id",
            (chat_id,),
        )
        return [SeasonEventRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), r[4], str(r[5])) for r in rows]

    async def append_season_event(
        self, chat_id: str, kind: str, payload: str, line: tuple[str, str, str | None], reverses: int | None = None
    ) -> int:
        """One entry of the chat's season log (speaker, raw text, update key); DuplicateUpdate for a
        repeated update."""
        return await self._writer.run(
            lambda db: append_chat_log(db, "season_events", chat_id, kind, payload, line, reverses)
        )

    async def night_ids(self, chat_id: str) -> list[int]:
        """The ids of the chat's nights, oldest first (a season counts its nights by them)."""
        rows = await self._db.execute_fetchall("SELECT id FROM nights WHERE chat_id = ? ORDER BY id", (chat_id,))
        return [int(r[0]) for r in rows]

    async def days_sums(self, chat_id: str, start: str, end: str) -> SpanSums:
        """The closed nights opened from `start` up to (not including) `end`, times as the ledger
        stores them (UTC: the caller turns the group's days into them, bot/chat/zones.py), summed."""
        nights = "night_id IN (SELECT id FROM nights WHERE chat_id = ?1 AND created_at >= ?2 AND created_at < ?3)"
        return await self._span(nights, chat_id, start, end)

    async def nights_sums(self, chat_id: str, first_night: int, last_night: int) -> SpanSums:
        """The chat's closed nights with ids from `first_night` to `last_night`, summed."""
        return await self._span("night_id BETWEEN ?2 AND ?3", chat_id, first_night, last_night)

    async def _span(self, which: str, chat_id: str, first: object, last: object) -> SpanSums:
        """One read: the span's rows (a night reopened since its rows were written is left out: its
        newest event is newer) taken once, summed per person, and its nights counted beside them."""
        chosen = (
            f" FROM night_people p WHERE chat_id = ?1 AND {which}"
            " AND last_event_id = (SELECT MAX(id) FROM events e WHERE e.night_id = p.night_id)"
        )
        try:
            rows: Sequence[Sequence[Any]] = list(
                await self._db.execute_fetchall(
                    f"WITH r AS MATERIALIZED (SELECT *{chosen})"
                    f" SELECT person, {_SUMS} FROM r GROUP BY person"
                    " UNION ALL SELECT NULL, COUNT(DISTINCT night_id), 0, 0, 0, 0, 0, 0, 0 FROM r",
                    (chat_id, first, last),
                )
            )
        except sqlite3.OperationalError as error:
            if not overflowed(error):
                raise
            raw = await self._db.execute_fetchall(f"SELECT {PEOPLE_COLUMNS}, night_id{chosen}", (chat_id, first, last))
            nights = len({row[-1] for row in raw})
            rows = [*summed_by_person([row[:-1] for row in raw]), (None, nights, 0, 0, 0, 0, 0, 0, 0)]
        people: list[tuple[str, PersonNightRow]] = []
        nights = 0
        for person, *values in rows:
            if person is None:
                nights = int(values[0])
                continue
            people.append((str(person), PersonNightRow(int(values[0]), str(person), *(int(v) for v in values[1:]))))
        return SpanSums(nights, tuple(sorted(people, key=lambda pair: pair[0])))
