"""The ledger's room: the largest payment one event could produce under a rule set, and whether it
fits the ledger at a stake (docs/rules.md 20).

SQLite keeps every figure as a 64-bit integer, money in cents: at most 2^63 − 1. A group's ledger
must hold `LEDGER_EVENTS` events each moving the largest payment the rules allow (a night of 1,000
events every night for 27 years) with every sum of them still a 64-bit integer, so one event may move
at most (2^63 − 1) // 10^7 = 922,337,203,685 cents (9,223,372,036.85 at a stake's unit). A rule set
and a stake whose largest event would move more are refused together at the door, naming the stake
that would fit; what is already in a ledger is read whatever it holds.

The largest event is an upper bound worked out from the numbers alone, never a search of hands:
every unit at its most (20 hard flowers, 4 of any other soft flower or pattern, 40 soft flowers
declared), 天胡-style doubling, 垒宝塔 for a dealer streak as long as a night, 比下胡's factor,
every app multiplier (capped as settled), and three payers (a self-draw, 包牌 for everyone, three
winners on one discard); a gang or penalty at its most from each of three players.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.checks import MAX_SOFT
from engine.events import SEATS
from engine.preset import Preset

LEDGER_EVENTS = 10_000_000  # events a group's ledger has room for at the largest payment
MOST_CENTS = (2**63 - 1) // LEDGER_EVENTS  # 922,337,203,685: one event's most, in cents
MOST_HARD = 20  # hard flowers typed at a win (docs/rules.md 17a)
MOST_OF_A_UNIT = 4  # a soft flower or pattern counts at most once per meld: four melds
MOST_PENALTY = 1000  # a custom penalty typed (docs/rules.md 17a)
MOST_STREAK = 5000  # 垒宝塔's dealer streak: no longer than the longest night (5,000 events, bot/night/night.py)
MIN_STAKE_CENTS = 1  # the smallest stake: 0.01 a flower


@dataclass(frozen=True)
class Room:
    """What a rule set needs: its largest event in the preset's unit (flowers, points or chips), and
    the largest stake in cents at which that event still fits (0: none does)."""

    largest: int
    stake_most: int

    def fits(self, stake_cents: int) -> bool:
        return 0 < stake_cents <= self.stake_most


def largest_win_total(preset: Preset) -> int:
    """The most a win's total could be before it is doubled, multiplied or shared."""
    flat = [rule.value for rule in preset.rules.values() if rule.flat]
    total = 0
    for key, rule in preset.rules.items():
        count = MOST_HARD if key == "hard" else MOST_OF_A_UNIT
        total += count * rule.value * (preset.zha if key in preset.soft else 1)
    total += MAX_SOFT * preset.soft_unit * preset.zha  # soft flowers declared at a win
    if any(rule.doubles_total for rule in preset.rules.values()):
        total *= 2
    return max(total, *flat) if flat else total


def largest_share(preset: Preset) -> int:
    """What one payer could owe one winner: the total with 垒宝塔, 比下胡 and the app multipliers."""
    factor = max(preset.doubling_factor, 1)
    rules = preset.multipliers
    multiplier = min(max(rules.self_draw, 1) * max(rules.after_gang, 1) * max(rules.robbing_gang, 1), max(rules.cap, 1))
    streak = preset.leibaota_step * MOST_STREAK
    return (largest_win_total(preset) + streak) * factor * multiplier


def largest_event(preset: Preset) -> int:
    """The most one event could move in all, in the preset's unit."""
    payers = SEATS - 1
    factor = max(preset.doubling_factor, 1)
    instant = preset.instant
    gang = max(instant.exposed_gang, instant.added_gang, instant.concealed_gang, instant.flower_gang)
    penalty = max(instant.penalty_follow, instant.penalty_four, instant.false_win, MOST_PENALTY)
    return max(
        payers * largest_share(preset),  # a self-draw, 包牌 for everyone, or three winners on one discard
        payers * preset.liability.fixed * factor,  # 外包, a winner each
        payers * max(gang, penalty, instant.four_winds) * factor,
        SEATS * preset.chips.start,  # 整铲: every chip at the table
        preset.start,
    )


def room(preset: Preset) -> Room:
    largest = largest_event(preset)
    return Room(largest, MOST_CENTS // largest if largest else MOST_CENTS)
