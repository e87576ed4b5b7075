"""Fewest transfers (end of the night) for 2-8 people: a night can seat more than four once players
are swapped. Checked against a brute force over every split of the players into zero-sum groups."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.transfers import Transfer, minimal_transfers


def partitions(items: list[int]) -> Iterator[list[list[int]]]:
    """Every way to split `items` into non-empty groups (Bell(8) = 4140 for eight people)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for smaller in partitions(rest):
        for index in range(len(smaller)):
            yield [*smaller[:index], [first, *smaller[index]], *smaller[index + 1 :]]
        yield [[first], *smaller]


def brute_force_minimum(balances: list[int]) -> int:
    """n non-zero players split into k zero-sum groups need n - k transfers; take the largest k."""
    players = [b for b in balances if b]
    groups = max((len(split) for split in partitions(players) if all(sum(group) == 0 for group in split)), default=0)
    return len(players) - groups


def settle(balances: list[int], transfers: list[Transfer]) -> list[int]:
    left = list(balances)
    for transfer in transfers:
        assert transfer.amount > 0 and transfer.payer != transfer.payee
        assert balances[transfer.payer] < 0 < balances[transfer.payee]  # debtors pay creditors only
        left[transfer.payer] += transfer.amount
        left[transfer.payee] -= transfer.amount
    return left


@pytest.mark.parametrize(
    ("balances", "fewest"),
    [
        ([], 0),
        ([0, 0, 0], 0),
        ([5, -5], 1),
        ([10, -10, 5, -5], 2),  # two pairs: 2, not 3
        ([3, 4, -4, 2, -5], 3),  # {4, -4} and {3, 2, -5}: 1 + 2; largest-debtor-first takes 4
        ([6, -1, -2, -3], 3),
        ([1, 1, 1, 1, -2, -2], 4),  # {1, 1, -2} twice: 2 + 2
        ([7, -7, 3, -3, 2, -2, 1, -1], 4),  # four pairs among eight people
    ],
)
def test_known_nights_settle_with_the_fewest_transfers(balances: list[int], fewest: int) -> None:
    transfers = minimal_transfers(balances)
    assert settle(balances, transfers) == [0] * len(balances)
    assert len(transfers) == fewest


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-60, 60), min_size=1, max_size=7))
def test_two_to_eight_people_settle_exactly_with_the_brute_force_minimum(some: list[int]) -> None:
    balances = [*some, -sum(some)]
    transfers = minimal_transfers(balances)
    assert settle(balances, transfers) == [0] * len(balances)
    assert len(transfers) == brute_force_minimum(balances)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=2, max_size=4), st.data())
def test_paired_debts_are_settled_pair_by_pair(amounts: list[int], data: st.DataObject) -> None:
    # Each amount once owed and once due, shuffled: many zero-sum pairs, so len(amounts) transfers.
    balances = data.draw(st.permutations([*amounts, *(-a for a in amounts)]))
    assert len(minimal_transfers(balances)) == brute_force_minimum(balances) <= len(amounts)


def test_balances_that_do_not_sum_to_zero_are_refused() -> None:
    with pytest.raises(EngineError) as caught:
        minimal_transfers([5, -4])
    assert caught.value.key == "settle.unbalanced"
