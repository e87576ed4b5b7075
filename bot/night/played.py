"""One effective table event as the (corrected) history of a night has it."""

from __future__ import annotations

from dataclasses import dataclass

from engine.events import Event, Notice
from engine.scoring import WinScore
from engine.settlement import Factor, Payment


@dataclass(frozen=True, slots=True)
class Played:
    """One effective table event as the (corrected) history has it."""

    event_id: int  # the ledger row whose content this is (a fix row for a corrected event)
    place: int  # its place in the night: the id of the event first typed there
    hand_no: int
    event: Event
    payments: tuple[Payment, ...]
    scores: tuple[tuple[int, WinScore], ...]
    doubled: bool  # played in a 比下胡 hand
    notices: tuple[Notice, ...]
    factors: tuple[Factor, ...] = ()  # the multipliers applied (比下胡, 垒宝塔, 包牌, ...)


def played_keys(played: Played) -> tuple[int, int]:
    return played.event_id, played.place
