"""The table's state through a night (engine/table.py plays the events into it) and what applying
one event gives: the new state, its payments, what the table is told, each win's score and the
factors that turned it into payments."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from engine.events import SEATS, Act, MeldRecord, Notice
from engine.preset import Preset
from engine.scoring import WinScore
from engine.settlement import Factor, HandContext, Payment
from engine.tiles import Tile


@dataclass(frozen=True)
class TableState:
    preset: Preset
    dealer: int = 0
    hand_no: int = 1
    dealer_passes: int = 0  # how often the deal moved on; 4 make a round 圈
    dealer_streak: int = 0  # 连庄 count
    doubled: bool = False  # this hand is a 比下胡 hand
    melds: tuple[tuple[MeldRecord, ...], ...] = ((), (), (), ())
    triggers: frozenset[str] = frozenset()
    hand_gang_payments: tuple[Payment, ...] = ()
    flower_gangs: int = 0  # flower gangs made this hand: there are five sets (中 发 白 春夏秋冬 梅兰竹菊)
    last_added_gang: tuple[int, tuple[Payment, ...]] | None = None
    last_acts: tuple[Act | None, ...] = (None, None, None, None)  # each seat's last event this hand
    chips: tuple[int, ...] | None = None
    gang_liable: tuple[int, int] | None = None  # 杠后承包: (gang-maker, liable seat) until his next discard
    range_marks: tuple[Tile | None, ...] = (None, None, None, None)  # 全球 架: the tile each seat marked
    waibao_paid: frozenset[int] = frozenset()  # takers whose 快照 外包 was paid at the fourth mouth (003)
    begun: bool = False  # an event other than 定庄 or 改规则 was played in this hand
    next_preset: Preset | None = None  # the rules a 改规则 made while this hand was played: from the next one

    @property
    def round_no(self) -> int:
        return self.dealer_passes // SEATS + 1

    def context(self) -> HandContext:
        return HandContext(self.doubled, self.dealer_streak, self.chips)


_TABLE_FIELDS = frozenset(f.name for f in fields(TableState))


def changed(state: TableState, **changes: Any) -> TableState:
    """The table with these fields changed: `dataclasses.replace` without its per-field work (it
    reads all 16 fields and calls the constructor, a quarter of a night's fold; the table has no
    __post_init__ to run). A field name that is not the table's is refused, as replace would."""
    unknown = changes.keys() - _TABLE_FIELDS
    if unknown:
        raise TypeError(f"TableState has no field {sorted(unknown)[0]!r}")
    after = object.__new__(TableState)
    after.__dict__.update(state.__dict__)
    after.__dict__.update(changes)
    return after


def new_table(preset: Preset, dealer: int = 0) -> TableState:
    chips = (preset.chips.start,) * SEATS if preset.chips.enabled else None
    return TableState(preset=preset, dealer=dealer, chips=chips)


@dataclass(frozen=True)
class Outcome:
    state: TableState
    payments: tuple[Payment, ...]
    notices: tuple[Notice, ...] = ()
    scores: tuple[tuple[int, WinScore], ...] = ()
    factors: tuple[Factor, ...] = ()  # what turned totals into payments (比下胡, 垒宝塔, 包牌, ...)
