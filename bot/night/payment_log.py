"""A night's booked payments held in columns: a night holds every payment it booked (two or three a
table event), and a row object each cost some 136 bytes (the object and its two large ints) where
their columns cost 28. Reading one gives the same `PaymentRow` the ledger read; the log is only
ever appended to, as the ledger is.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from bot.night.append_only import same_items
from bot.store.rows import PaymentRow


class PaymentLog(Sequence[PaymentRow]):
    __slots__ = ("_amounts", "_events", "_index", "_money", "_names", "_payees", "_payers", "_reasons")

    def __init__(self, rows: Iterable[PaymentRow] = ()) -> None:
        self._events = array("q")
        self._payers = array("B")  # a seat, 0 to 3
        self._payees = array("B")
        self._amounts = array("q")
        self._money = array("q")
        self._reasons = array("H")  # the reason's place in `_names`
        self._names: list[str] = []  # each reason once (a night has a handful)
        self._index: dict[str, int] = {}
        self.extend(rows)

    def extend(self, rows: Iterable[PaymentRow]) -> None:
        for row in rows:
            self.append(row)

    def append(self, row: PaymentRow) -> None:
        reason = self._index.get(row.reason)
        if reason is None:
            reason = self._index[row.reason] = len(self._names)
            self._names.append(row.reason)
        self._events.append(row.event_id)
        self._payers.append(row.payer)
        self._payees.append(row.payee)
        self._amounts.append(row.amount)
        self._money.append(row.money_cents)
        self._reasons.append(reason)

    def copy(self) -> PaymentLog:
        """The log as of now (its columns copied whole: no row is built)."""
        copied = PaymentLog()
        copied._events, copied._payers, copied._payees = self._events[:], self._payers[:], self._payees[:]
        copied._amounts, copied._money, copied._reasons = self._amounts[:], self._money[:], self._reasons[:]
        copied._names, copied._index = list(self._names), dict(self._index)
        return copied

    def _row(self, at: int) -> PaymentRow:
        return PaymentRow(
            self._events[at],
            self._payers[at],
            self._payees[at],
            self._amounts[at],
            self._money[at],
            self._names[self._reasons[at]],
        )

    def __len__(self) -> int:
        return len(self._events)

    @overload
    def __getitem__(self, index: int) -> PaymentRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[PaymentRow]: ...

    def __getitem__(self, index: int | slice) -> PaymentRow | list[PaymentRow]:
        if isinstance(index, slice):
            return [self._row(at) for at in range(*index.indices(len(self)))]
        at = index + len(self) if index < 0 else index
        if not 0 <= at < len(self):
            raise IndexError(index)
        return self._row(at)

    def __iter__(self) -> Iterator[PaymentRow]:
        for at in range(len(self)):
            yield self._row(at)

    def __eq__(self, other: object) -> bool:
        return same_items(self, other)

    __hash__ = None  # type: ignore[assignment]  # equal to other sequences by content, so not hashable

    def __repr__(self) -> str:
        return f"PaymentLog({list(self)!r})"
