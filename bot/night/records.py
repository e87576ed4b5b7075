"""The ledger's value types the layers above the night may hold (bot/views, bot/chat): the rows a night
reads back (a night, its events, payments and typed lines, a seat, the marks of its stored figures, a
tab entry, a group's house rules, a season entry, a span of nights summed) and the refusal of a
repeated update. They read them here, never from bot/store: the store is the night layer's to reach
(tests/test_layers.py holds them to it).

And the ledger's parts as those layers use them, each a small Protocol that `Nights` hands on as an
attribute (`nights.history`, `nights.tab`, `nights.seasons`, `nights.exports`, `nights.flows`): a new query of a part
is one method in the store and its line here, with no forward in between."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

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
    "ExportRows",
    "FlowLog",
    "HouseRules",
    "LineText",
    "NightHistory",
    "NightMarks",
    "NightRow",
    "PaymentRow",
    "PersonNightRow",
    "SeasonEventRow",
    "SeasonLog",
    "Seat",
    "SpanSums",
    "StoredExport",
    "StoredFigures",
    "TabEventRow",
    "TabLog",
]


class NightHistory(Protocol):
    """Each night's marks and stored figures, and the rows per person periods are summed from
    (bot/store/history.py `ChatHistory`)."""

    async def night_marks(self, chat_id: str) -> list[NightMarks]: ...
    async def night_marks_of(self, night_ids: Sequence[int]) -> list[NightMarks]: ...
    async def store_figures(self, rows: Sequence[StoredFigures]) -> None: ...
    async def period_sums(self, chat_id: str, first_day: str, last_day: str) -> list[tuple[str, PersonNightRow]]: ...


class TabLog(Protocol):
    """The chat's tab entries (bot/store/history.py `ChatTab`)."""

    async def tab_events(self, chat_id: str) -> list[TabEventRow]: ...
    async def append_tab_event(
        self, chat_id: str, kind: str, payload: str, line: tuple[str, str, str | None], reverses: int | None = None
    ) -> int: ...


class SeasonLog(Protocol):
    """The chat's seasons and its spans of nights summed (bot/store/seasons.py `ChatSeasons`)."""

    async def season_events(self, chat_id: str) -> list[SeasonEventRow]: ...
    async def append_season_event(
        self, chat_id: str, kind: str, payload: str, line: tuple[str, str, str | None], reverses: int | None = None
    ) -> int: ...
    async def night_ids(self, chat_id: str) -> list[int]: ...
    async def days_sums(self, chat_id: str, start: str, end: str) -> SpanSums: ...
    async def nights_sums(self, chat_id: str, first_night: int, last_night: int) -> SpanSums: ...


class ExportRows(Protocol):
    """The closed nights' stored rows of `/export all` (bot/store/exports.py `NightExports`)."""

    async def opened(self, chat_id: str) -> dict[int, str]: ...
    async def stored(self, night_ids: Sequence[int]) -> dict[int, StoredExport]: ...
    async def store(self, exports: Sequence[StoredExport]) -> None: ...


class FlowLog(Protocol):
    """The guided flows' taps (bot/store/flow_taps.py `FlowTaps`)."""

    async def flow_taps(self, flow_key: str) -> list[tuple[str, str | None]]: ...
    async def forget_flow_taps(self, days: int) -> int: ...
    async def append_flow_tap(self, flow_key: str, op: str, press: str | None) -> bool: ...
