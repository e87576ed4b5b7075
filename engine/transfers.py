"""Settle a night with the fewest transfers.

The minimum number of transfers that settles balances summing to zero is (players with a non-zero
balance) - (the largest number of disjoint zero-sum groups they split into): inside a group of k
players, k - 1 transfers suffice and are needed. The split is found exactly by a search over subsets
(bit masks), which is instant for a table of four and fine up to a dozen players.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from engine.errors import EngineError


@dataclass(frozen=True)
class Transfer:
    payer: int
    payee: int
    amount: int


def _best_groups(values: tuple[int, ...]) -> list[int]:
    """Masks of the largest family of disjoint zero-sum groups covering every index."""
    count = len(values)

    def total(mask: int) -> int:
        return sum(values[i] for i in range(count) if mask >> i & 1)

    @cache
    def best(mask: int) -> tuple[int, ...]:
        if mask == 0:
            return ()
        lowest = mask & -mask
        rest = mask ^ lowest
        answer: tuple[int, ...] | None = None
        sub = rest
        while True:  # every zero-sum group that contains the lowest index
            group = sub | lowest
            if total(group) == 0:
                candidate = (group, *best(mask ^ group))
                if answer is None or len(candidate) > len(answer):
                    answer = candidate
            if sub == 0:
                break
            sub = (sub - 1) & rest
        assert answer is not None  # the whole mask sums to zero
        return answer

    return list(best((1 << count) - 1))


def _settle_group(members: list[tuple[int, int]]) -> list[Transfer]:
    """k - 1 transfers inside one zero-sum group: the largest debtor pays the largest creditor."""
    balances = dict(members)
    transfers: list[Transfer] = []
    while any(balances.values()):
        debtor = min(balances, key=lambda s: (balances[s], s))
        creditor = max(balances, key=lambda s: (balances[s], -s))
        amount = min(-balances[debtor], balances[creditor])
        transfers.append(Transfer(debtor, creditor, amount))
        balances[debtor] += amount
        balances[creditor] -= amount
    return transfers


def minimal_transfers(balances: Sequence[int]) -> list[Transfer]:
    """Transfers (by seat index) that bring every balance to zero, as few as possible."""
    if sum(balances) != 0:
        raise EngineError("settle.unbalanced", total=sum(balances))
    nonzero = [(seat, value) for seat, value in enumerate(balances) if value]
    if not nonzero:
        return []
    transfers: list[Transfer] = []
    for mask in _best_groups(tuple(value for _, value in nonzero)):
        members = [nonzero[i] for i in range(len(nonzero)) if mask >> i & 1]
        transfers.extend(_settle_group(members))
    return transfers
