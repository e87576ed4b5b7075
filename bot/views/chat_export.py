"""`/export all`: every closed night of a chat written out as it is read, a slice of nights at a time,
from each night's stored rows (bot/store/exports.py); a night without current rows (closed by older
code, reopened or corrected since) is read once, and its rows stored for the next export. Nothing is
held for the whole chat but the nights' figures the tab beside it needs."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Sequence
from typing import BinaryIO

from bot.night.night import Night
from bot.night.nights import Nights
from bot.night.records import NightMarks, NightRow, StoredExport
from bot.text.vocabulary import fold
from bot.threads import in_thread
from bot.views.export import EXPORT_VERSION, ChatCsv, ExportedNight, ExportRow, chat_rows, night_export
from bot.views.stats import NightFigures, Persons

log = logging.getLogger(__name__)

SLICE = 200  # nights read, written out and let go at a time


def current_rows(marks: NightMarks, stored: StoredExport | None) -> list[ExportRow] | None:
    """The night's stored rows if they still count: this code's, built after its newest event."""
    if stored is None or stored.version != EXPORT_VERSION or stored.last_event_id != marks.last_event_id:
        return None
    return chat_rows(stored.rows)


async def write_chat_csv(
    nights: Nights,
    chat_id: str,
    closed: Sequence[tuple[NightMarks, NightFigures]],
    persons: Persons,
    out: BinaryIO,
    day_of: Callable[[str], str],
) -> None:
    """The chat's closed nights' CSV (`ChatCsv`) into `out`; `day_of`: the day a night opened at this
    (stored, UTC) time is dated by. The nights' rows (their rules' text each) are read only when a
    night must be read again: 5,000 of them held 65 MB."""
    opened = await nights.exports.opened(chat_id)
    rows: dict[int, NightRow] | None = None
    writer = ChatCsv(out)
    for start in range(0, len(closed), SLICE):
        part = closed[start : start + SLICE]
        stored = await nights.exports.stored([marks.night_id for marks, _ in part])
        written: list[ExportedNight] = []
        to_store: list[StoredExport] = []
        for marks, figures in part:
            found = current_rows(marks, stored.pop(marks.night_id, None))
            if found is None:
                rows = rows if rows is not None else {row.id: row for row in await nights.night_rows(chat_id)}
                made = await in_thread(night_export, await nights.load(rows[marks.night_id]))
                to_store.append(made)
                found = chat_rows(made.rows) or []
            names = {
                alias: persons.name(persons.key_of(p)) for p in figures.persons for alias in (*p.names, fold(p.name))
            }
            written.append(ExportedNight(marks.number, day_of(opened[marks.night_id]), found, names))
        await in_thread(writer.write_all, written)
        await nights.exports.store(to_store)
    writer.done()


async def store_export_after_close(nights: Nights, night: Night) -> None:
    """At a close, beside its figures: the night's rows, so that `/export all` need not read it
    again. A cache, and the close is already committed: if this fails the close still stands, and
    the next `/export all` reads the night."""
    try:
        await nights.exports.store([await in_thread(night_export, night)])
    except (sqlite3.Error, OSError):
        log.exception("night %s: export rows not stored at its close", night.id)
