"""The night's running tally (bot/night/tally.py) as the night keeps it: the tally stored with the last
closed hand and what the events after it added, and the tally folded from a night's fold."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bot.night.fold import (
    Fold,
    hand_in,
)
from bot.night.people import Occupancy
from bot.night.played import Played
from bot.night.tally import (
    NO_FIGURES,
    TALLY_VERSION,
    Figures,
    HandNets,
    Tally,
    TallyBuilder,
    encode_figures,
    hand_rows,
    hands_of,
    tallied,
)
from bot.night.versions import versions
from bot.store.rows import (
    EventRow,
    PaymentRow,
    TallyRows,
    TallyUpdate,
)


def tally_from(
    fold: Fold,
    events: Sequence[EventRow],
    payments: Iterable[PaymentRow],
    sitting: Callable[[int], Sequence[int]],
    base: Figures = NO_FIGURES,
    after: int = 0,
) -> TallyBuilder:
    """`base` (the tally's figures stored after event `after`, or none) and what `fold` played after
    it, with the payments booked after it (`events` and `payments`: at least those after it): each at
    its place, with the players who sat there (`sitting`: a place's player index in each seat), in
    the place's hand (bot/night/tally.py). From no base, the whole night's."""
    place_of = versions(events).place_of
    by_id = {event.id: event for event in events}
    booked: list[tuple[PaymentRow, int, int]] = []
    for payment in payments:
        event = by_id.get(payment.event_id)
        if event is None or event.id <= after:
            continue
        source = by_id.get(place_of.get(event.id, event.id), event)  # its place's first row
        booked.append((payment, source.id, hand_in(fold, source, lambda i: place_of.get(i, i))))
    played = fold.played
    first = len(played)
    while first and played[first - 1].place > after:  # the events after it, read from the end
        first -= 1
    previous = played[first - 1] if first else None
    return tallied(TallyBuilder(base), played[first:], booked, sitting, previous)


def sitting_of(seating: Occupancy) -> Callable[[int], Sequence[int]]:
    """A place's player index in each seat, as `seating` has it."""
    return lambda place: seating.at.get(place, seating.now)


@dataclass(frozen=True)
class RunningTally:
    """A night's running tally: the one stored after event `stored_at` (with the newest closed hand)
    and what the events after it added: `figures`, those figures now, and `hands`, the nets those
    events moved in their hands (added to the stored hands' rows). Held frozen, small."""

    stored_at: int
    figures: Figures
    hands: tuple[HandNets, ...] = ()

    @staticmethod
    def of(stored_at: int, since: TallyBuilder) -> RunningTally:
        return RunningTally(stored_at, since.figures(), since.hands())

    def with_played(self, played: Played, sitting: Sequence[int], previous: Played | None) -> TallyBuilder:
        """The figures with `played` added, a new event (played by whoever sits there now: `sitting`)."""
        adding = TallyBuilder(self.figures, self.hands)
        adding.played(played, sitting, previous)
        for payment in played.payments:
            adding.paid(payment, sitting, played.hand_no)
        return adding

    def stored_with(self, adding: TallyBuilder) -> TallyUpdate:
        """What a closed hand stores: the figures now, and the hands' nets since the stored tally."""
        return TallyUpdate(TALLY_VERSION, self.stored_at, encode_figures(adding.figures()), hand_rows(adding.hands()))


def added_up(running: RunningTally, stored: TallyRows) -> Tally:
    """The tally: the running figures, and the stored hands with the hand being played."""
    since = hand_rows(running.hands)
    return Tally(running.figures, hands_of(TallyRows(stored.nets + since.nets, stored.doubled + since.doubled)))
