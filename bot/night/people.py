"""Who sat where when: a night's players, seat by seat through renames and swaps, and what each of them
won or lost.

A seat may see several players in one night (换人): the payments of each event belong to whoever sat
in the seat at that event, so the one who stood up keeps the balance made so far and the newcomer
starts from zero. A rename changes what the current occupant is called. Money is each payment's
flowers at the stake of its hand (改底 takes effect from a hand on), so an undone stake change
re-derives the money like any correction. Everything here is folded from the night's effective events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.night.codec import STAKE, SWAP, seat_change, stake_change
from bot.night.fold import Fold
from bot.night.schedule import placed_schedule
from bot.night.versions import versions
from bot.store.rows import EventRow, NightRow, PaymentRow, Seat
from bot.text.vocabulary import fold

RENAMING = ("join", "bind", "rename")  # the seat's occupant is called something new
# The occupant stands up and keeps what they won so far: a swap seats the newcomer at once, an unseat
# leaves the seat free ("") for whoever joins next, who starts from zero like a swapped-in player.
LEAVING = (SWAP, "unseat")


@dataclass(frozen=True)
class Person:
    name: str
    amount: int  # flowers (or chips) won, net
    money_cents: int


@dataclass(frozen=True)
class Occupancy:
    """The night's players by index, and for each event the player in each seat when it happened."""

    names: tuple[str, ...]
    at: Mapping[int, tuple[int, ...]]  # event id -> player index per seat
    now: tuple[int, ...]


def occupancy(
    seats: Sequence[Seat],
    events: Iterable[EventRow],
    active: set[int],
    start: tuple[Sequence[str], Sequence[int]] | None = None,
) -> Occupancy:
    """`start` (players so far, who sits where) continues a checkpoint's head instead of the opening."""
    names = [seat.name for seat in seats] if start is None else list(start[0])
    current = list(range(len(seats))) if start is None else list(start[1])
    at: dict[int, tuple[int, ...]] = {}
    for event in events:
        at[event.id] = tuple(current)
        if event.id not in active or (event.kind not in LEAVING and event.kind not in RENAMING):
            continue
        change = seat_change(event.body)
        if event.kind in LEAVING:
            names.append(change.name)
            current[change.seat] = len(names) - 1
        else:
            names[current[change.seat]] = change.name
    return Occupancy(tuple(names), at, tuple(current))


def stake_schedule(opening_cents: int, events: Iterable[EventRow], active: set[int]) -> list[tuple[int, int]]:
    """(from hand, stake) in the order typed: the latest change covering a hand wins."""
    schedule = [(1, opening_cents)]
    for event in events:
        if event.kind == STAKE and event.id in active:
            change = stake_change(event.body)
            schedule.append((change.from_hand, change.stake_cents))
    return schedule


def stake_at(schedule: Sequence[tuple[int, int]], hand: int) -> int:
    stake = schedule[0][1]
    for from_hand, cents in schedule:
        if from_hand <= hand:
            stake = cents
    return stake


def stake_runs(schedule: Sequence[tuple[int, int]], last_hand: int) -> list[tuple[int, int]]:
    """(first hand, stake) of each run of hands 1..`last_hand` played for one stake, as `stake_at`
    prices them: a 改底 to the same stake, or one overridden before its hand, starts no run."""
    runs: list[tuple[int, int]] = []
    for hand in range(1, max(1, last_hand) + 1):
        cents = stake_at(schedule, hand)
        if not runs or runs[-1][1] != cents:
            runs.append((hand, cents))
    return runs


def merged_index(names: Sequence[str]) -> list[int]:
    """Each occupancy index's player (`names`: the occupancy's) in `people`'s list: the same name
    twice is one player."""
    order: dict[str, int] = {}
    return [order.setdefault(fold(name), len(order)) for name in names]


def merged_names(names: Sequence[str]) -> list[str]:
    """The name of each merged index (as `merged_index` numbers them), everyone who ever sat."""
    order: dict[str, str] = {}
    for name in names:
        order.setdefault(fold(name), name)
    return list(order.values())


def kept_indices(names: Sequence[str], kept: Sequence[Person]) -> list[int]:
    """The merged index (as `merged_index`) of each person `merged_people` kept, in its order: a
    player who left at 0 is in the index but not in the list."""
    wanted = {fold(person.name) for person in kept}
    return [index for index, name in enumerate(merged_names(names)) if fold(name) in wanted]


def player_of(seating: Occupancy) -> Callable[[int, int], int]:
    """(event id, seat) → the player (as in `people`) who sat there at that event."""
    merged = merged_index(seating.names)
    return lambda event_id, seat: merged[seating.at.get(event_id, seating.now)[seat]]


def people(
    seating: Occupancy,
    events: Sequence[EventRow],
    payments: Iterable[PaymentRow],
    schedule: Sequence[tuple[int, int]],
    hand_of: Callable[[int], int | None],
) -> list[Person]:
    """Each player's net, in the order they sat down; the same name twice (back after a swap) is one
    player."""
    amounts, money = index_totals(seating, events, payments, schedule, hand_of)
    return merged_people(seating.names, seating.now, amounts, money)


def index_totals(
    seating: Occupancy,
    events: Sequence[EventRow],
    payments: Iterable[PaymentRow],
    schedule: Sequence[tuple[int, int]],
    hand_of: Callable[[int], int | None],
    base: tuple[Sequence[int], Sequence[int]] = ((), ()),
) -> tuple[list[int], list[int]]:
    """(flowers, money) per occupancy index, starting from `base` (a checkpoint's head, by index)."""
    by_id = {event.id: event for event in events}
    place_of = versions(events).place_of
    amounts = [0] * len(seating.names)
    money = [0] * len(seating.names)
    for index, (amount, cents) in enumerate(zip(*base, strict=True)):
        amounts[index], money[index] = amount, cents
    for payment in payments:
        event = by_id.get(payment.event_id)
        if event is None:
            continue
        # a correction's money belongs to the hand and the players of the place it corrects
        source = by_id.get(place_of.get(event.id, event.id), event)  # its place's first row
        sitting = seating.at.get(source.id, seating.now)
        hand = hand_of(source.id) or source.hand_no
        cents = payment.amount * stake_at(schedule, hand)
        for seat, sign in ((payment.payer, -1), (payment.payee, 1)):
            amounts[sitting[seat]] += sign * payment.amount
            money[sitting[seat]] += sign * cents
    return amounts, money


def merged_people(
    names: Sequence[str], now: Sequence[int], amounts: Sequence[int], money: Sequence[int]
) -> list[Person]:
    """Players by index merged by name, in the order they sat down."""
    merged: dict[str, tuple[str, int, int]] = {}
    for index, name in enumerate(names):
        key = fold(name)
        first, amount, cents = merged.get(key, (name, 0, 0))
        merged[key] = (first, amount + amounts[index], cents + money[index])
    seated = {fold(names[index]) for index in now}
    # someone who left with nothing won or lost (a join by mistake, then /unseat) is not a player, nor
    # is a seat left free by /unseat
    return [
        Person(name, amount, cents)
        for key, (name, amount, cents) in merged.items()
        if (key in seated and name) or amount or cents
    ]


def player_totals(
    night: NightRow,
    events: Sequence[EventRow],
    active: set[int],
    payments: Sequence[PaymentRow],
    fold: Callable[[], Fold],
) -> tuple[PlayerTotals, list[tuple[int, int]]]:
    """Players by index and their totals from the whole log, and the night's stake schedule. The
    fold is asked for only when the stake changed (it picks each payment's hand, for its stake)."""
    seating = occupancy(night.seats, events, active)
    schedule = placed_schedule(night.stake_cents, events, active, fold)
    hand_of = fold().hand_of if len(schedule) > 1 else no_hand
    amounts, money = index_totals(seating, events, payments, schedule, hand_of)
    totals = PlayerTotals((len(events), len(payments)), seating.names, seating.now, amounts, money)
    return totals, schedule


@dataclass(frozen=True)
class PlayerTotals:
    """The night's players by index (occupancy names, who sits where now) and each one's totals,
    as of `version` (events, payments in memory)."""

    version: tuple[int, int]
    names: tuple[str, ...]
    now: tuple[int, ...]
    amounts: Sequence[int]
    money: Sequence[int]


def no_hand(event_id: int) -> int | None:
    return None
