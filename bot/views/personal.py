"""The night as its people see it: every payment named by the person who sat in the seat at its event,
in that hand, at that hand's stake. The CSV export reads this, never the ledger's seat numbers, so
after a 换人 the one who left keeps their own money there, as in /summary and its chart (which count
the same way, from the night's tally: bot/night/tally.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.night.night import Night
from bot.night.people import merged_index, stake_at
from bot.night.records import LineText


@dataclass(frozen=True)
class PersonPayment:
    event_id: int
    hand: int  # the hand of the event it belongs to (a correction's: the corrected event's)
    payer: str
    payee: str
    amount: int  # flowers (or chips)
    money_cents: int  # at the stake of that hand, as /summary counts it
    reason: str


@dataclass(frozen=True)
class LogEntry:
    """One line of the night's log, with its payments by person."""

    id: int
    time: str
    hand: int
    kind: str
    speaker: str
    text: str
    undoes: int | None  # the number of the line it corrects
    payments: tuple[PersonPayment, ...]
    number: int | None = None  # the line's number tonight; None for a row no one typed (a claim)


@dataclass(frozen=True)
class NightPeople:
    """The night's people (as `Night.people` lists them) and the log by person (the CSV)."""

    names: tuple[str, ...]
    log: tuple[LogEntry, ...]


def night_people(night: Night, texts: Mapping[int, LineText] | None = None) -> NightPeople:
    """`texts`: what was typed for every row and when (Night.texts), for the CSV; without them each
    entry's text and time are empty."""
    blank = LineText("", "")

    def typed(event_id: int) -> LineText:
        return blank if texts is None else texts[event_id]

    seating = night.seating()
    merged = merged_index(seating.names)
    first_name: dict[int, str] = {}
    for index, name in enumerate(seating.names):
        first_name.setdefault(merged[index], name)  # the name a merged player first sat down with

    def person(event_id: int, seat: int) -> str:
        return first_name[merged[seating.at.get(event_id, seating.now)[seat]]]

    schedule = night.stake_schedule()  # as /summary prices the hands (a 改底 where it sits in the log)
    by_id = {event.id: event for event in night.events}
    by_event: dict[int, list[PersonPayment]] = {}
    for payment in night.payment_rows:
        event = by_id.get(payment.event_id)
        if event is None:
            continue
        # a correction's money belongs to the hand and the people of the place it corrects,
        # exactly as `bot.night.people.index_totals` counts it for /summary
        source = by_id.get(night.place_of(event.id), event)
        hand = night.hand_in_log(source)  # as /history shows it, a superseded fix included
        by_event.setdefault(event.id, []).append(
            PersonPayment(
                event.id,
                hand,
                person(source.id, payment.payer),
                person(source.id, payment.payee),
                payment.amount,
                payment.amount * stake_at(schedule, hand),
                payment.reason,
            )
        )
    log = tuple(
        LogEntry(
            e.id,
            typed(e.id).created_at,
            night.hand_in_log(e),
            e.kind,
            e.speaker,
            typed(e.id).raw_text,
            night.number_of(e.reverses) if e.reverses is not None else None,
            tuple(by_event.get(e.id, ())),
            night.number_of(e.id),
        )
        for e in night.events
    )
    return NightPeople(tuple(p.name for p in night.people()), log)
