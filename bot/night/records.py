"""The ledger's value types the layers above the night may hold (bot/views, bot/chat): the rows a night
reads back (a night, its events, payments and typed lines, a seat, the marks of its stored figures, a
tab entry, a group's house rules, a season entry, a span of nights summed) and the refusal of a
repeated update. They read them here, never from bot/store: the store is the night layer's to reach
(tests/test_layers.py holds them to it)."""

from __future__ import annotations

from bot.store.rows import (
    DuplicateUpdate,
    EventRow,
    HouseRules,
    LineText,
    NightMarks,
    NightRow,
    PaymentRow,
    PersonNightRow,
    SeasonEventRow,
    Seat,
    SpanSums,
    StoredExport,
    StoredFigures,
    TabEventRow,
)

__all__ = [
    "DuplicateUpdate",
    "EventRow",
    "HouseRules",
    "LineText",
    "NightMarks",
    "NightRow",
    "PaymentRow",
    "PersonNightRow",
    "SeasonEventRow",
    "Seat",
    "SpanSums",
    "StoredExport",
    "StoredFigures",
    "TabEventRow",
]
