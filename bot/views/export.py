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
import hashlib
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from bot.night.night import Night
from bot.night.records import StoredExport
from bot.text.vocabulary import fold
from bot.views.lines import format_money
from bot.views.personal import NightPeople, night_people

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


# A night's rows as stored for `/export all` (bot/store/exports.py): per payment its hand, the line's
# number that night (None: a row no one typed), payer, payee (as the night names them), money and
# reason. Bump EXPORT_CODE when what a row holds or how it is counted changes: every night is read again.
EXPORT_CODE = 1
EXPORT_VERSION = f"{EXPORT_CODE}:" + hashlib.sha256(repr(CHAT_HEADER).encode()).hexdigest()[:12]

ExportRow = tuple[int, int | None, str, str, int, str]


def export_rows(people: NightPeople) -> str:
    """The night's rows of `/export all`, as text to store: what `chat_rows` reads back."""
    rows = [
        (entry.hand, entry.number, p.payer, p.payee, p.money_cents, p.reason)
        for entry in people.log
        for p in entry.payments
    ]
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":"))


def night_export(night: Night) -> StoredExport:
    """The night's rows of `/export all`, as stored (bot/store/exports.py)."""
    return StoredExport(night.id, EXPORT_VERSION, night.log_size(), export_rows(night_people(night)))


def chat_rows(text: str) -> list[ExportRow] | None:
    """What `export_rows` wrote; None when it does not read (the night is read again)."""
    try:
        return [
            (int(h), None if n is None else int(n), str(a), str(b), int(c), str(r))
            for h, n, a, b, c, r in json.loads(text)
        ]
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class ExportedNight:
    """A closed night as `/export all` lists it: its number in the chat, the day it was opened, its
    rows (`chat_rows`), and who each of its people is across the chat's nights (by the name the night
    gave them: a rename or a 换人 is followed by `bot.views.stats.Persons`)."""

    number: int
    date: str
    rows: Sequence[ExportRow]
    persons: Mapping[str, str]


def _quoted(text: str) -> str:
    """A cell as `csv.writer` (QUOTE_MINIMAL) writes it."""
    if any(mark in text for mark in (",", '"', "\r", "\n")):
        return '"' + text.replace('"', '""') + '"'
    return text


class ChatCsv:
    """`/export all`'s CSV written night by night into `out` (binary, UTF-8 with a BOM) as the nights
    are read, so that it is never held whole in memory. One row per person a payment moved money for:
    the payee's row with the money received, the payer's with it negative (so a person's rows sum to
    their money over these nights, and every event's rows to zero). `event` is the line's number that
    night, as /history shows it (empty for a row no one typed, a correction's re-pricing at another
    place); the amount is money, at that hand's stake."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._money: dict[int, str] = {}  # cents -> as written: a chat's amounts repeat night after night
        self._put([CHAT_HEADER], "\ufeff")

    def _put(self, rows: Sequence[Sequence[object]], before: str = "") -> None:
        text = io.StringIO(before)
        text.seek(len(before))
        csv.writer(text).writerows(rows)
        self._out.write(text.getvalue().encode("utf-8"))

    def write(self, night: ExportedNight) -> None:
        """The night's rows as `csv.writer` would write them (only a cell with a comma, a quote or a
        line break is quoted), put together directly: a chat of 5,000 nights is 440,000 rows."""
        people: dict[str, str] = {}  # a name as the night calls them -> the person's cell, as written
        reasons: dict[str, str] = {}
        money = self._money
        head = f"{night.number},{_quoted(night.date)},"
        lines: list[str] = []
        for hand, number, payer, payee, cents, reason in night.rows:
            row = f"{head}{hand},{'' if number is None else number},"
            why = reasons.get(reason)
            if why is None:
                why = reasons[reason] = _quoted(reason)
            for name, amount in ((payee, cents), (payer, -cents)):
                person = people.get(name)
                if person is None:
                    person = people[name] = _quoted(str(cell(night.persons.get(fold(name), name))))
                shown = money.get(amount)
                if shown is None:
                    shown = money[amount] = format_money(amount)
                lines.append(f"{row}{person},{shown},{why}\r\n")
        self._out.write("".join(lines).encode("utf-8"))

    def write_all(self, nights: Sequence[ExportedNight]) -> None:
        for night in nights:
            self.write(night)

    def done(self) -> None:
        """Everything is written (`out` stays open: the caller owns it)."""
        self._out.flush()


def chat_csv(nights: Sequence[ExportedNight]) -> bytes:
    """Every night's rows as one CSV (`ChatCsv`), in memory: a few nights (tests, small chats)."""
    out = io.BytesIO()
    writer = ChatCsv(out)
    writer.write_all(nights)
    writer.done()
    return out.getvalue()


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
