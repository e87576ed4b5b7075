"""Money between seats as net flows per unordered pair and reason: what a correction compares (derived
against booked), the payments that settle a difference, and the sums of what is booked."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from bot.store.rows import (
    PaymentRow,
)
from engine.events import SEATS
from engine.settlement import Payment


@dataclass
class Totals:
    """Sums of the payments booked so far: per seat, per (seat, reason), and net per pair and reason."""

    amounts: list[int] = field(default_factory=lambda: [0] * SEATS)
    money: list[int] = field(default_factory=lambda: [0] * SEATS)
    by_reason: dict[tuple[int, str], int] = field(default_factory=dict)
    pairs: dict[tuple[int, int, str], int] = field(default_factory=dict)

    def add(self, payments: Iterable[PaymentRow]) -> None:
        for p in payments:
            self.amounts[p.payer] -= p.amount
            self.amounts[p.payee] += p.amount
            self.money[p.payer] -= p.money_cents
            self.money[p.payee] += p.money_cents
            self.by_reason[(p.payer, p.reason)] = self.by_reason.get((p.payer, p.reason), 0) - p.amount
            self.by_reason[(p.payee, p.reason)] = self.by_reason.get((p.payee, p.reason), 0) + p.amount
            add_flow(self.pairs, p.payer, p.payee, p.amount, p.reason)


Flows = dict[tuple[int, int, str], int]


def add_flow(pairs: dict[tuple[int, int, str], int], payer: int, payee: int, amount: int, reason: str) -> None:
    """Net flow per unordered pair and reason: positive means the lower seat pays the higher."""
    low, high = min(payer, payee), max(payer, payee)
    sign = 1 if payer == low else -1
    pairs[(low, high, reason)] = pairs.get((low, high, reason), 0) + sign * amount


def difference(derived: dict[tuple[int, int, str], int], booked: dict[tuple[int, int, str], int]) -> list[Payment]:
    """Payments that bring the booked flows to the derived ones (they sum to zero by construction)."""
    payments: list[Payment] = []
    for low, high, reason in sorted(derived.keys() | booked.keys()):
        delta = derived.get((low, high, reason), 0) - booked.get((low, high, reason), 0)
        if delta > 0:
            payments.append(Payment(low, high, delta, reason))
        elif delta < 0:
            payments.append(Payment(high, low, -delta, reason))
    return payments
