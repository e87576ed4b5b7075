"""The stake schedule along a night's log: each 改底 takes effect from the first hand that starts after
it, where it sits in the (corrected) log."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence

from bot.night.codec import (
    STAKE,
    stake_change,
)
from bot.night.fold import (
    Fold,
)
from bot.night.played import Played
from bot.store.rows import (
    EventRow,
)
from engine.events import SetDealer, SetRules


def placed_schedule(
    opening_cents: int, events: Sequence[EventRow], active: set[int], fold: Callable[[], Fold]
) -> list[tuple[int, int]]:
    """(from hand, stake) with each 改底 where it sits in the log (`placed_changes`) after the opening
    stake. The fold is asked for only when the stake changed."""
    schedule = [(1, opening_cents)]
    if any(e.kind == STAKE and e.id in active for e in events):
        schedule.extend(placed_changes(events, active, fold()))
    return schedule


def placed_changes(events: Sequence[EventRow], active: set[int], fold: Fold) -> list[tuple[int, int]]:
    """(from hand, stake) of each 改底 among `events`, where it sits in the log (`fold`: the night's,
    or after a checkpoint the events after it): it takes effect from the first hand that starts
    after its place — the hand it was typed in if that hand had not begun (`hand_begun`) — whatever
    the hands are numbered after a correction."""
    changes = [(e.id, stake_change(e.body).stake_cents) for e in events if e.kind == STAKE and e.id in active]
    if not changes:
        return []
    played = fold.played
    places = [p.place for p in played]
    placed: list[tuple[int, int]] = []
    for place, cents in changes:
        at = bisect_right(places, place)  # played[at] is the first event after the change
        hand = played[at].hand_no if at < len(played) else fold.state.hand_no
        placed.append((hand + 1 if hand_begun(played, at, hand) else hand, cents))
    return placed


def hand_begun(played: Sequence[Played], before: int, hand: int) -> bool:
    """Whether `hand` had begun before the event at index `before` of `played`: a 改底 typed then
    waits for the next hand (its payments so far stay at the stake they were booked at). Every
    table event begins its hand but the choice of its dealer and a 改规则, chores before the first tile."""
    at = before
    while at and played[at - 1].hand_no == hand:
        if not isinstance(played[at - 1].event, SetDealer | SetRules):
            return True
        at -= 1
    return False
