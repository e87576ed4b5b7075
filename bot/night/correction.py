"""The correction planner: an undo or fix re-folds the corrected log and books, place by place, the
difference between the money now derived and the money booked so far (pure: runs off the event loop)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from bot.night.codec import (
    Fix,
    encode_fix,
    encode_undo,
)
from bot.night.flows import Flows, add_flow, difference
from bot.night.fold import (
    PENDING_ID,
    Fold,
    active_ids,
    actor_of,
    effective_events,
    fold_events,
    moved_hands,
    places,
)
from bot.night.people import (
    Occupancy,
    PlayerTotals,
    occupancy,
    player_totals,
    stake_at,
)
from bot.night.played import Played
from bot.night.running import sitting_of, tally_from
from bot.night.schedule import placed_schedule
from bot.night.seating import seats_from
from bot.night.tally import (
    Tally,
)
from bot.store.rows import (
    EventRow,
    NewEvent,
    NightRow,
    PaymentRow,
    Seat,
)
from bot.text.vocabulary import fold
from engine.events import Event
from engine.table import TableState


@dataclass(frozen=True)
class Change:
    """What a correction moved one person's balance by: flowers (or chips), and money (each place's
    difference at the stake of its hand, so it is what the board moved by in a night of mixed stakes)."""

    name: str
    amount: int
    money_cents: int


@dataclass(frozen=True)
class Corrected:
    event_id: int
    target: EventRow
    payments: tuple[PaymentRow, ...]  # the correction's own payments (the difference)
    changes: tuple[Change, ...]  # per person (not seat), what the correction moved
    moved_hands: tuple[int, ...]  # later hands whose payments or numbers changed
    replacement: Played | None  # the corrected event as now played (fix)


@dataclass(frozen=True)
class CorrectionPlan:
    """What a correction writes: its own row and the `correction` rows of other places (`news`),
    the place each is booked against (`anchors`), and the re-folded night (ids still pending)."""

    fold: Fold
    news: tuple[NewEvent, ...]
    anchors: tuple[int, ...]
    target_hand: int
    from_place: int


@dataclass(frozen=True)
class SettledCorrection:
    """The night after a correction is in the ledger."""

    fold: Fold
    active: set[int]
    seats: tuple[Seat, ...]
    rows: tuple[PaymentRow, ...]
    changes: tuple[Change, ...]
    moved: tuple[int, ...]
    replacement: Played | None
    seating: PlayerTotals
    schedule: list[tuple[int, int]]
    tally: Tally


def _corrected_log(
    events: Sequence[EventRow], target: EventRow, replacement: Event | None
) -> tuple[list[EventRow], set[int]]:
    kind = "fix" if replacement is not None else "undo"
    body = Fix(replacement) if replacement is not None else None  # as `decode_body` holds what is written
    pending = replace(target, id=PENDING_ID, kind=kind, body=body, reverses=target.id)
    corrected = [*events, pending]  # the newest row, so the activity pass sees it first
    return corrected, active_ids(corrected)


def _by_place(fold: Fold, events: Sequence[EventRow], payments: Iterable[PaymentRow]) -> dict[int, tuple[Flows, Flows]]:
    """Derived and booked flows per place: each place's booked money is brought to its
    derived money on its own, so it is priced at its place's hand and paid by whoever sat at the
    table there (换人), whatever happens to the night later; an undone place's rows sum to zero."""
    by_id = {event.id: event for event in events}
    place_of = places(events)
    groups: dict[int, tuple[Flows, Flows]] = {}
    for played in fold.played:
        derived = groups.setdefault(played.place, ({}, {}))[0]
        for p in played.payments:
            add_flow(derived, p.payer, p.payee, p.amount, p.reason)
    for row in payments:
        event = by_id.get(row.event_id)
        if event is None:
            continue
        place = place_of.get(event.id, event.id)
        add_flow(groups.setdefault(place, ({}, {}))[1], row.payer, row.payee, row.amount, row.reason)
    return groups


def plan_correction(
    night: NightRow,
    start: TableState,
    log: Sequence[EventRow],
    payments: Sequence[PaymentRow],
    target: EventRow,
    replacement: Event | None,
) -> CorrectionPlan:
    """Re-fold the corrected log and work out what to book (pure: runs off the event loop)."""
    events, active = _corrected_log(log, target, replacement)
    place_of = places(events)
    place = place_of[target.id]
    fold = fold_events(start, effective_events(events, active), place)
    kind = "fix" if replacement is not None else "undo"
    payload = encode_fix(Fix(replacement)) if replacement is not None else encode_undo(target.id)
    actor = actor_of(replacement) if replacement is not None else None
    # The correction's own payments are priced at the corrected event's hand (as the night's
    # money reads them); differences in hands at another stake go on `correction` rows of their own.
    schedule = placed_schedule(night.stake_cents, events, active, lambda: fold)
    by_id = {event.id: event for event in log}
    root = by_id.get(place, target)
    target_hand = fold.hand_of(place) or root.hand_no
    groups = _by_place(fold, events, payments)
    own = difference(*groups.pop(place, ({}, {})))
    stake = stake_at(schedule, target_hand)
    news = [NewEvent(fold.state.hand_no, kind, actor, payload, tuple(own), target.id, stake)]
    anchors = [place]
    for other, (derived, booked) in sorted(groups.items()):
        extra = difference(derived, booked)
        if extra:  # booked against the place it belongs to (bot.night.people prices and seats it there)
            root_row = by_id.get(other)
            hand = fold.hand_of(other) or (root_row.hand_no if root_row is not None else target_hand)
            stake = stake_at(schedule, hand)
            news.append(NewEvent(hand, "correction", None, encode_undo(target.id), tuple(extra), other, stake))
            anchors.append(other)
    return CorrectionPlan(fold, tuple(news), tuple(anchors), target_hand, places(log).get(target.id, target.id))


def settle_correction(
    night: NightRow,
    plan: CorrectionPlan,
    before: Fold,
    events: Sequence[EventRow],
    payments: Sequence[PaymentRow],
    written: Sequence[EventRow],
) -> SettledCorrection:
    """The night once the correction's rows are in the ledger (pure: runs off the event loop)."""
    row = written[0]
    fold = Fold.of(  # one copy a correction (it folded the whole night anyway)
        plan.fold.state,
        (replace(p, event_id=row.id) if p.event_id == PENDING_ID else p for p in plan.fold.played),
        plan.fold.before_last,
    )
    active = active_ids(events)
    rows = tuple(
        PaymentRow(done.id, p.payer, p.payee, p.amount, p.amount * (new.stake_cents or 0), p.reason)
        for done, new in zip(written, plan.news, strict=True)
        for p in new.payments
    )
    seating, schedule = player_totals(night, events, active, [*payments, *rows], lambda: fold)
    sat = occupancy(night.seats, events, active)
    changes = person_changes(sat, plan.news, plan.anchors)
    tally = tally_from(fold, events, [*payments, *rows], sitting_of(sat)).tally()  # the summary's, off the loop
    replacement = next((p for p in fold.played if p.event_id == row.id), None)
    moved = moved_hands(before, fold, plan.from_place)
    fold.played.build_index()  # off the event loop: the reply's first lookup is not a walk through the night
    return SettledCorrection(
        fold, active, seats_from(night, events, active), rows, changes, moved, replacement, seating, schedule, tally
    )


def person_changes(seating: Occupancy, news: Sequence[NewEvent], anchors: Sequence[int]) -> tuple[Change, ...]:
    """What each person's balance moved by: each group's payments to whoever sat at its place, its
    money at the group's stake (as `settle_correction` books it)."""
    by_name: dict[str, Change] = {}
    for new, anchor in zip(news, anchors, strict=True):
        sitting = seating.at.get(anchor, seating.now)
        for p in new.payments:
            for seat, sign in ((p.payer, -1), (p.payee, 1)):
                name = seating.names[sitting[seat]]
                was = by_name.get(fold(name), Change(name, 0, 0))
                amount, money = sign * p.amount, sign * p.amount * (new.stake_cents or 0)
                by_name[fold(name)] = Change(was.name, was.amount + amount, was.money_cents + money)
    order = {fold(name): index for index, name in reversed(list(enumerate(seating.names)))}
    found = sorted(by_name.items(), key=lambda item: order.get(item[0], 0))
    return tuple(change for _, change in found if change.amount or change.money_cents)
