"""What a night asks of its log (a row by id, the place a row stands for, the current version at a
place, the newest row of some kinds) answered without reading the whole log again.

A night's rows are only ever appended (a correction is a new row), so the index folds each new row
once, the first time a question is asked after it was appended: a question late in a 50,000-event
night costs what it costs early on, and a `/undo` does not walk the night on the event loop. The
index belongs to the night (bot/night/reading.py) and is rebuilt if the night reads its log anew.

It also numbers the night's lines: the number a player sees (`✅ #3`, `撤销 3`, /history) counts the
lines the table typed, per night, the opening being #1. A row no one typed as a line of the table
takes none: a seat claimed or bound (我是 李四, the Join button, an account bound with its first
line), a seat freed, the re-pricing row a correction books at another place, and a correction of
an unnumbered row (an undo of a claim). The rule is `takes_number`; the numbers are a pure fold of
the log, so they stay what they were when later rows are added, and after a restart.

A number never changes once given, across an upgrade too: the code before per-night numbers showed
a line's row id (`✅ #8` was row 8, a re-pricing row or a claim before it took an id). A night it
wrote keeps those numbers for its rows up to `ids_through` (the ledger marks such nights when it
upgrades them, bot/store/ledger.py), and the lines typed after them take the next numbers on from
the last of them: numbers still grow along the night, with gaps where the older code left them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence

from bot.night.versions import BOOKING, CORRECTIONS, Replay
from bot.store.rows import EventRow

# Rows that are never a line of the table: seat claims and bindings (an account, not an event),
# a freed seat (the claim taken back), a correction's re-pricing row at another place.
UNNUMBERED = frozenset({"join", "bind", "unseat", BOOKING})


def takes_number(row: EventRow, numbered: Callable[[int], bool]) -> bool:
    """Whether a row is a line the table typed (`numbered`: whether an earlier row took a number):
    a correction is one when what it corrects is (an undo of a claim is not)."""
    if row.kind in UNNUMBERED:
        return False
    if row.kind in CORRECTIONS and row.reverses is not None:
        return numbered(row.reverses)
    return True


def _row_id(row: EventRow) -> int:
    return row.id


class LogIndex:
    __slots__ = ("_base", "_by_kind", "_by_number", "_done", "_ids_through", "_legacy", "_replay", "_rows")

    def __init__(self, ids_through: int = 0) -> None:
        """`ids_through`: the night's rows up to this id are numbered by their id (older code)."""
        self._rows: list[EventRow] | None = None  # the list indexed (a reloaded log starts over)
        self._done = 0
        self._replay = Replay()
        self._by_kind: dict[str, list[EventRow]] = {}
        self._base = 0  # the last number before the first row indexed (a checkpoint's, see `numbers`)
        self._by_number: list[EventRow] = []  # the numbered rows in id order, numbered base + 1, base + 2, …
        self._ids_through = ids_through
        self._legacy = 0  # … after the first `_legacy` of them, numbered by their id (they come first)

    def catch_up(self, rows: list[EventRow], base: int = 0) -> Replay:
        """The replay with every row folded in: those not yet indexed are folded now (a night loaded
        off the event loop is indexed there). `base`: the number of the last line before `rows`
        (0: `rows` is the whole night)."""
        if rows is not self._rows or base != self._base:
            self._rows, self._done, self._replay, self._by_kind = rows, 0, Replay(), {}
            self._base, self._by_number, self._legacy = base, [], 0
        by_number = self._by_number
        for row in rows[self._done :]:
            self._replay.add(row)
            self._by_kind.setdefault(row.kind, []).append(row)
            if takes_number(row, self._numbered_at_all):
                by_number.append(row)
                if row.id <= self._ids_through:  # ids grow along the log: these come first
                    self._legacy += 1
        self._done = len(rows)
        return self._replay

    def _after_legacy(self) -> int:
        """The number the lines numbered one by one go on from: the last row numbered by its id,
        else `base`."""
        return self._by_number[self._legacy - 1].id if self._legacy else self._base

    def _number_at(self, at: int) -> int:
        if at < self._legacy:
            return self._by_number[at].id
        return self._after_legacy() + at - self._legacy + 1

    def _place(self, event_id: int) -> int | None:
        """Where the row with this id stands among the numbered rows (they are in id order)."""
        by_number = self._by_number
        at = bisect_left(by_number, event_id, key=_row_id)
        return at if at < len(by_number) and by_number[at].id == event_id else None

    def _numbered_at_all(self, event_id: int) -> bool:
        return self._place(event_id) is not None

    def number_of(self, rows: list[EventRow], event_id: int, base: int = 0) -> int | None:
        """The number of the line this row is, None for a row no one typed as a line."""
        self.catch_up(rows, base)
        at = self._place(event_id)
        return None if at is None else self._number_at(at)

    def numbered(self, rows: list[EventRow], number: int, base: int = 0) -> EventRow | None:
        """The row typed as line #number (None: no such line among `rows`)."""
        self.catch_up(rows, base)
        by_number, legacy = self._by_number, self._legacy
        if legacy and number <= by_number[legacy - 1].id:  # a number the older code gave: the row's id
            at = bisect_left(by_number, number, hi=legacy, key=_row_id)
            return by_number[at] if by_number[at].id == number else None
        at = legacy + number - self._after_legacy() - 1
        return by_number[at] if legacy <= at < len(by_number) else None

    def lines(self, rows: list[EventRow]) -> list[EventRow]:
        """The numbered rows of a whole night, #1 first."""
        self.catch_up(rows)
        return list(self._by_number)

    def last_number(self, rows: list[EventRow], base: int = 0) -> int:
        """The number of the latest line (the next one typed takes one more)."""
        self.catch_up(rows, base)
        return self._after_legacy() + len(self._by_number) - self._legacy

    def in_force(self, rows: list[EventRow]) -> int:
        """How many places the night plays (what its bound counts): each row first typed opens one
        (a correction's own rows, fix, undo and re-pricing, open none), less those undone."""
        replay = self.catch_up(rows)
        marks = sum(len(self._by_kind.get(kind, ())) for kind in (*CORRECTIONS, BOOKING))
        return len(rows) - marks - replay.emptied()

    def event(self, rows: list[EventRow], event_id: int) -> EventRow | None:
        """The row with this id (a night's ids grow along its log)."""
        at = bisect_left(rows, event_id, key=_row_id)
        return rows[at] if at < len(rows) and rows[at].id == event_id else None

    def place(self, rows: list[EventRow], event_id: int) -> int:
        """The place in the night a row stands for (bot/night/versions.py)."""
        return self.catch_up(rows).place(event_id)

    def current(self, rows: list[EventRow], place: int) -> int | None:
        """The id of the version in force at this place, None once it is undone."""
        return self.catch_up(rows).current(place)

    def versions(self, rows: list[EventRow], place: int) -> tuple[int, ...]:
        """The ids of the versions standing at this place, oldest first (the last is in force; a
        version undone is in none of them)."""
        return self.catch_up(rows).versions(place)

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
