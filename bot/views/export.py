"""The night's events and payments as CSV (`/export`; `/export all`: every closed night, below),
UTF-8 with a BOM so spreadsheet programs read Chinese.

Each row carries its line's number tonight (`number`, as /history shows it; numbered per night) and
the number of the line a correction corrects (`undoes`). Rows no one typed as a line (a seat claim,
a correction's re-pricing row at another place) are listed too, with no number: their money counts.

Every payment names the people who paid and were paid (whoever sat in the seat at that event, so
after a 换人 the one who left keeps their hands), with its money at that hand's stake: each person's
sum of `money` over the `payee` rows minus the `payer` rows is their /summary figure. A cell a
spreadsheet would read as a formula (= + - @ or a tab first) is written as text.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.text.vocabulary import fold
from bot.views.lines import format_money
from bot.views.personal import NightPeople

HEADER = (
    "number",  # the line's number tonight, as /history shows it; empty for a row no one typed
    "time",
    "hand",
    "kind",
    "speaker",
    "text",
    "undoes",
    "payer",
    "payee",
    "amount",
    "money",
    "reason",
)

# the spreadsheet convention (OWASP "CSV injection"): a leading quote makes the cell plain text
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    """A text cell a spreadsheet would evaluate is neutralised; numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def night_csv(people: NightPeople, shown: Mapping[int, str] | None = None) -> bytes:
    """`shown`: what a line not meant for people (a guided flow's token) stands for, by event id."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(HEADER)
    for entry in people.log:
        number = "" if entry.number is None else entry.number
        base = [number, entry.time, entry.hand, entry.kind, entry.speaker, (shown or {}).get(entry.id, entry.text)]
        base.append(entry.undoes or "")
        if not entry.payments:
            writer.writerow([cell(v) for v in (*base, "", "", "", "", "")])
        for p in entry.payments:
            # amounts are numbers (a negative one is not a formula); only text cells are neutralised
            row = [*map(cell, base), cell(p.payer), cell(p.payee), p.amount, format_money(p.money_cents), p.reason]
            writer.writerow(row)
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


# ---- every closed night of the chat (`/export all`) ----------------------------------------------

# `money` says what the column is (before #48 it was `amount`, which the night's CSV uses for flowers;
# a reader of the older files reads `amount` when there is no `money`: docs/players.md)
CHAT_HEADER = ("night", "date", "hand", "event", "person", "money", "reason")
TAB_HEADER = ("kind", "person", "to", "money")


@dataclass(frozen=True)
class ExportedNight:
    """A closed night as `/export all` lists it: its number in the chat, the day it was opened, its
    log by person, and who each of its people is across the chat's nights (by the name the night
    gave them: a rename or a 换人 is followed by `bot.views.stats.Persons`)."""

    number: int
    date: str
    people: NightPeople
    persons: Mapping[str, str]


def chat_csv(nights: Sequence[ExportedNight]) -> bytes:
    """One row per person a payment moved money for: the payee's row with the money received, the
    payer's with it negative (so a person's rows sum to their money over these nights, and every
    event's rows to zero). `event` is the line's number that night, as /history shows it (empty for
    a row no one typed, a correction's re-pricing at another place); `money` is at that hand's stake."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CHAT_HEADER)
    for night in nights:
        for entry in night.people.log:
            event = "" if entry.number is None else entry.number
            for p in entry.payments:
                for name, cents in ((p.payee, p.money_cents), (p.payer, -p.money_cents)):
                    person = night.persons.get(fold(name), name)
                    writer.writerow(
                        [night.number, night.date, entry.hand, event, cell(person), format_money(cents), p.reason]
                    )
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def tab_csv(balances: Sequence[tuple[str, int]], transfers: Sequence[tuple[str, str, int]]) -> bytes:
    """The tab as /tab shows it: each person's balance (positive: owed), then the fewest transfers
    that settle it (`person` pays `to`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(TAB_HEADER)
    for name, cents in balances:
        writer.writerow(["balance", cell(name), "", format_money(cents)])
    for payer, payee, cents in transfers:
        writer.writerow(["transfer", cell(payer), cell(payee), format_money(cents)])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")
