"""What a night asks of its log (a row by id, the place a row stands for, the current version at a
place, the newest row of some kinds) answered without reading the whole log again.

A night's rows are only ever appended (a correction is a new row), so the index folds each new row
once, the first time a question is asked after it was appended: a question late in a 50,000-event
night costs what it costs early on, and a `/undo` does not walk the night on the event loop. The
index belongs to the night (bot/night.py) and is rebuilt if the night reads its log anew.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence

from bot.ledger import EventRow
from bot.versions import Replay


def _row_id(row: EventRow) -> int:
    return row.id


class LogIndex:
    __slots__ = ("_by_kind", "_done", "_replay", "_rows")

    def __init__(self) -> None:
        self._rows: list[EventRow] | None = None  # the list indexed (a reloaded log starts over)
        self._done = 0
        self._replay = Replay()
        self._by_kind: dict[str, list[EventRow]] = {}

    def catch_up(self, rows: list[EventRow]) -> Replay:
        """The replay with every row folded in: those not yet indexed are folded now (a night loaded
        off the event loop is indexed there)."""
        if rows is not self._rows:
            self._rows, self._done, self._replay, self._by_kind = rows, 0, Replay(), {}
        for row in rows[self._done :]:
            self._replay.add(row)
            self._by_kind.setdefault(row.kind, []).append(row)
        self._done = len(rows)
        return self._replay

    def event(self, rows: list[EventRow], event_id: int) -> EventRow | None:
        """The row with this id (a night's ids grow along its log)."""
        at = bisect_left(rows, event_id, key=_row_id)
        return rows[at] if at < len(rows) and rows[at].id == event_id else None

    def slot(self, rows: list[EventRow], event_id: int) -> int:
        """The place in the night a row stands for (bot/versions.py)."""
        return self.catch_up(rows).slot(event_id)

    def current(self, rows: list[EventRow], slot: int) -> int | None:
        """The id of the version in force at this place, None once it is undone."""
        return self.catch_up(rows).current(slot)

    def last(self, rows: list[EventRow], kinds: Sequence[str], counts: Callable[[EventRow], bool]) -> EventRow | None:
        """The newest row of one of these kinds that `counts` (undone rows are passed over)."""
        self.catch_up(rows)
        found: EventRow | None = None
        for kind in kinds:
            for row in reversed(self._by_kind.get(kind, ())):
                if found is not None and row.id < found.id:
                    break
                if counts(row):
                    found = row
                    break
        return found
