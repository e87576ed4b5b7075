"""Play events straight through the table reducer and read who paid whom: the engine-level test table.

Seats: A=0 (East, the first dealer), B=1, C=2, D=3.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from engine.events import Event, Win, WinInput
from engine.notation import parse_hand_parts
from engine.preset import load_preset
from engine.settlement import Payment
from engine.table import Outcome, TableState, apply, new_table
from engine.units import WinFlags

A, B, C, D = range(4)


def fresh(preset: str = "nanjing") -> TableState:
    """A new table under the named preset, before any event."""
    return new_table(load_preset(preset))


def claim(winner: int, hand: str, **flags: object) -> WinInput:
    """One winner's claim from a hand in notation; the flags exactly as given."""
    concealed, melds, winning = parse_hand_parts(hand)
    return WinInput(winner, WinFlags(**flags), concealed, melds, winning)  # type: ignore[arg-type]


def win_flags(discarder: int | None, **flags: object) -> dict[str, object]:
    """The flags with self_draw filled in: no discarder means self-drawn, and so is robbing a gang."""
    return {"self_draw": discarder is None or bool(flags.get("robbing_gang")), **flags}


def hu(winner: int, hand: str, discarder: int | None = None, **flags: object) -> Win:
    """A single winner's 胡; self-drawn unless a discarder is named (robbing a gang counts as self-drawn)."""
    return Win((claim(winner, hand, **win_flags(discarder, **flags)),), discarder)


def net(payments: Iterable[Payment]) -> dict[int, int]:
    """Every seat's net over the payments: received minus paid."""
    balance: Counter[int] = Counter()
    for p in payments:
        balance[p.payer] -= p.amount
        balance[p.payee] += p.amount
    return {seat: balance[seat] for seat in range(4)}


def play(state: TableState, *events: Event) -> tuple[TableState, dict[int, int], list[Outcome]]:
    """Apply the events in order: the state after, every seat's net over them, and each event's outcome."""
    outcomes = []
    for event in events:
        outcome = apply(state, event)
        outcomes.append(outcome)
        state = outcome.state
    return state, net(payment for outcome in outcomes for payment in outcome.payments), outcomes


def run(state: TableState, *events: Event) -> Outcome:
    """Apply the events in order; the last one's outcome."""
    _, _, outcomes = play(state, *events)
    assert outcomes, "run needs at least one event"
    return outcomes[-1]


def net_of_all(state: TableState, *events: Event) -> dict[int, int]:
    """Every seat's net over all the payments of a run of events."""
    return play(state, *events)[1]
