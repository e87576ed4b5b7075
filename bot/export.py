"""The night's events and payments as CSV, UTF-8 with a BOM so spreadsheet programs read Chinese."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from bot.ledger import EventRow, NightRow, PaymentRow, Seat
from bot.views import format_money

HEADER = (
    "event_id",
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


def night_csv(
    night: NightRow, seats: Sequence[Seat], events: Sequence[EventRow], payments: Sequence[PaymentRow]
) -> bytes:
    by_event: dict[int, list[PaymentRow]] = {}
    for payment in payments:
        by_event.setdefault(payment.event_id, []).append(payment)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(HEADER)
    for event in events:
        base = [
            event.id,
            event.created_at,
            event.hand_no,
            event.kind,
            event.speaker,
            event.raw_text,
            event.reverses or "",
        ]
        rows = by_event.get(event.id, [])
        if not rows:
            writer.writerow([*base, "", "", "", "", ""])
        for p in rows:
            writer.writerow(
                [*base, seats[p.payer].name, seats[p.payee].name, p.amount, format_money(p.money_cents), p.reason]
            )
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")
