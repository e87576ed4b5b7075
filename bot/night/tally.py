"""The night's running tally: what /summary and its chart show, added up event by event, so that a
summary reads it instead of folding the whole night again.

Per player — an occupancy index, as bot/night/people.py numbers them (one who left and came back is
two indices, merged by name when shown) — the wins, self-draws, deal-ins, the biggest win and its
patterns, the hands sat in, and the net of each payment reason (`Figures`: small, a few per player);
per hand, each player's net and whether the hand was played 比下胡 (`HandNets`: a row a hand). A
payment counts for whoever sat in the seat at the place it belongs to (a correction's money at the
place it corrects), in that place's hand, exactly as /summary's totals and the CSV count it.

The ledger keeps it as of the newest closed hand: the hand that closes stores the figures and adds
its nets to the hands' rows, in the transaction of its checkpoint (`TallyUpdate`: what a hand adds
costs the same late in a long night as early on), and a correction stores the whole night's tally
again; the night adds the hand being played in memory (bot/night/running.py). It is a cache, never
the truth: it is read only in this code's version and only if no correction came after it (one
whose whole tally never got stored: a crash in between); otherwise the whole night is tallied from
its fold and stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields

from bot.night.codec import POSITIONAL, from_data, to_data
from bot.night.played import Played
from bot.store.rows import PaymentRow, TallyRows
from engine.errors import EngineError
from engine.events import Draw, Win
from engine.settlement import Payment

Sitting = Callable[[int], Sequence[int]]  # a place -> the player index in each seat there


@dataclass(frozen=True, slots=True)
class PlayerTally:
    """One player's (one occupancy index's) figures so far."""

    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    biggest: int = 0  # the biggest win's total; of equal ones the first counts
    biggest_hand: int = 0  # its hand, so that a player merged from two (back after a 换人) keeps the first
    biggest_keys: tuple[str, ...] = ()
    first_hand: int = 0  # the hands sat in, at some event of each: from the first to the last (0: none)
    last_hand: int = 0


@dataclass(frozen=True, slots=True)
class ReasonNet:
    """A player's net flowers (or chips) for one payment reason (gang money, penalties, wins)."""

    player: int
    reason: str
    amount: int


@dataclass(frozen=True)
class Figures:
    """The per-player part of a tally: stored whole with every event (a few rows a player)."""

    players: tuple[PlayerTally, ...] = ()
    reasons: tuple[ReasonNet, ...] = ()


NO_FIGURES = Figures()


@dataclass(frozen=True, slots=True)
class HandNets:
    """One hand: each player's net in it (by occupancy index; one past the last: 0), and whether it
    was played 比下胡. A hand is here once a payment or a 比下胡 win was booked in it."""

    hand: int
    doubled: bool
    nets: tuple[int, ...]


@dataclass(frozen=True)
class Tally:
    figures: Figures = NO_FIGURES
    hands: tuple[HandNets, ...] = ()

    @property
    def players(self) -> tuple[PlayerTally, ...]:
        return self.figures.players

    @property
    def reasons(self) -> tuple[ReasonNet, ...]:
        return self.figures.reasons

    @property
    def doubled(self) -> tuple[int, ...]:
        """The hands played 比下胡."""
        return tuple(hand.hand for hand in self.hands if hand.doubled)


# A stored tally of another shape, or counted by other code, is ignored: bump TALLY_CODE when the
# counting itself changes (the shape's digest follows the fields).
TALLY_CODE = 2  # 2: a 比下胡 hand drawn, or with doubled gang money only, is marked too
TALLY_VERSION = (
    f"{TALLY_CODE}:"
    + hashlib.sha256(
        repr([[f.name for f in fields(kind)] for kind in (PlayerTally, ReasonNet, Figures, HandNets)]).encode()
    ).hexdigest()[:12]
)


# ---- stored: the figures as text, the hands as rows -----------------------------------------------


def encode_figures(figures: Figures) -> str:
    return json.dumps(to_data(figures, POSITIONAL), ensure_ascii=False, separators=(",", ":"))


def decode_figures(text: str) -> Figures | None:
    """The figures `encode_figures` wrote; None when they do not read (the night is tallied whole)."""
    try:
        return from_data(Figures, json.loads(text), POSITIONAL)
    except (EngineError, KeyError, TypeError, ValueError, AttributeError):
        return None


def hand_rows(hands: Iterable[HandNets]) -> TallyRows:
    """The hands as the ledger keeps them: (hand, player, net) for each player's net, and the hands
    played 比下胡. A hand no one's net moved in keeps a row of player 0's zero: it is a hand of the
    tally (a payment or a 比下胡 win was booked in it), so the chart reaches it."""
    nets: list[tuple[int, int, int]] = []
    for hand in hands:
        moved = [(hand.hand, player, net) for player, net in enumerate(hand.nets) if net]
        nets.extend(moved or [(hand.hand, 0, 0)])
    return TallyRows(tuple(nets), tuple(hand.hand for hand in hands if hand.doubled))


def hands_of(rows: TallyRows) -> tuple[HandNets, ...]:
    """The hands `hand_rows` wrote (and the ledger added to, row by row), in order."""
    nets: dict[int, list[int]] = {}
    for hand, player, net in rows.nets:
        found = nets.setdefault(hand, [])
        if len(found) <= player:
            found.extend([0] * (player + 1 - len(found)))
        found[player] += net
    doubled = set(rows.doubled)
    return tuple(
        HandNets(hand, hand in doubled, _trimmed(nets.get(hand, ()))) for hand in sorted(nets.keys() | doubled)
    )


def _trimmed(nets: Sequence[int]) -> tuple[int, ...]:
    """Nets without the zeros after the last player who moved any (one form, stored or not)."""
    last = len(nets)
    while last and not nets[last - 1]:
        last -= 1
    return tuple(nets[:last])


# ---- adding up ----------------------------------------------------------------------------------


def joins_previous(played: Played, previous: Played | None) -> bool:
    """Whether `played` is a claim settled with the win just before it (一炮多响): one hand and one
    discard with it, not a hand or a deal-in of its own (a win ends its hand, so only a joined claim
    follows a win in the same hand)."""
    return (
        isinstance(played.event, Win)
        and played.event.joins is not None
        and previous is not None
        and isinstance(previous.event, Win)
        and previous.hand_no == played.hand_no
    )


@dataclass
class _Sums:
    """A player's figures while they are added to (PlayerTally's fields, mutable)."""

    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    biggest: int = 0
    biggest_hand: int = 0
    biggest_keys: tuple[str, ...] = ()
    first_hand: int = 0
    last_hand: int = 0


class TallyBuilder:
    """Figures being added to, and the hands the additions moved: `played` for each event as
    played, in the night's order; `paid` for each payment booked, with the players at its place and
    its hand. `figures()` is the base's figures and these; `hands()` the hands these moved (the
    whole night's, from empty figures; what one event adds to the stored hands, from the stored)."""

    def __init__(self, base: Figures = NO_FIGURES, moved: Iterable[HandNets] = ()) -> None:
        """From the `base` figures; `moved`: the hands additions before these moved (they go on)."""
        self._base = base.players
        self._sums: dict[int, _Sums] = {}  # the players these additions changed (the others stay as they were)
        self._seen = len(base.players)
        self._reasons = {(r.player, r.reason): r.amount for r in base.reasons}
        self._hands = {h.hand: ([h.doubled], list(h.nets)) for h in moved}  # hand -> ([doubled], nets)

    def played(self, played: Played, sitting: Sequence[int], previous: Played | None) -> None:
        hand = played.hand_no
        for index in sitting:
            now = self._sums.get(index) or (self._base[index] if index < len(self._base) else None)
            if now is None or now.last_hand != hand or not now.first_hand:  # once a hand
                sums = self._player(index)
                sums.first_hand = sums.first_hand or hand
                sums.last_hand = hand
        event = played.event
        # a 比下胡 hand: one won or drawn doubled, or where money moved doubled (a gang, a penalty); a
        # chore typed before the next hand's first tile does not make that hand one of the tally's
        if played.doubled and (isinstance(event, Win | Draw) or played.payments):
            self._hand(hand)[0][0] = True
        if not played.scores:
            return
        # a hand a 包子 ended at a pong or gang (敞开头) is settled as the melder's self-draw
        win = event if isinstance(event, Win) else None
        self_draw = win is None or win.discarder is None or any(c.flags.robbing_gang for c in win.claims)
        for winner, score in played.scores:
            sums = self._player(sitting[winner])
            sums.wins += 1
            sums.self_draws += 1 if self_draw else 0
            if score.total > sums.biggest:
                sums.biggest, sums.biggest_hand = score.total, hand
                sums.biggest_keys = tuple(item.key for item in score.items)
        if win is not None and win.discarder is not None and not self_draw and not joins_previous(played, previous):
            self._player(sitting[win.discarder]).deal_ins += 1

    def paid(self, payment: PaymentRow | Payment, sitting: Sequence[int], hand: int) -> None:
        nets = self._hand(hand)[1]
        for seat, sign in ((payment.payer, -1), (payment.payee, 1)):
            index = sitting[seat]
            self._seen = max(self._seen, index + 1)  # a player with a payment only is a player too
            key = (index, payment.reason)
            self._reasons[key] = self._reasons.get(key, 0) + sign * payment.amount
            if len(nets) <= index:
                nets.extend([0] * (index + 1 - len(nets)))
            nets[index] += sign * payment.amount

    def tally(self) -> Tally:
        """The figures, and the hands these additions moved."""
        return Tally(self.figures(), self.hands())

    def _hand(self, hand: int) -> tuple[list[bool], list[int]]:
        return self._hands.setdefault(hand, ([False], []))

    def _player(self, index: int) -> _Sums:
        """The player's figures, to change (from the base's, or zero for one new tonight)."""
        sums = self._sums.get(index)
        if sums is None:
            base = self._base[index] if index < len(self._base) else PlayerTally()
            sums = self._sums[index] = _Sums(*(getattr(base, f.name) for f in fields(PlayerTally)))
        return sums

    def figures(self) -> Figures:
        count = max(self._seen, max(self._sums, default=-1) + 1)
        players = tuple(
            PlayerTally(**vars(self._sums[index]))
            if index in self._sums
            else self._base[index]
            if index < len(self._base)
            else PlayerTally()
            for index in range(count)
        )
        reasons = tuple(ReasonNet(index, reason, amount) for (index, reason), amount in sorted(self._reasons.items()))
        return Figures(players, reasons)

    def hands(self) -> tuple[HandNets, ...]:
        return tuple(
            HandNets(hand, doubled[0], _trimmed(nets)) for hand, (doubled, nets) in sorted(self._hands.items())
        )


def tallied(
    builder: TallyBuilder,
    played: Iterable[Played],
    payments: Iterable[tuple[PaymentRow, int, int]],
    sitting: Sitting,
    previous: Played | None = None,
) -> TallyBuilder:
    """`builder` with these events as played (in the night's order, after `previous`) and these
    payments booked, each with the place it belongs to and that place's hand."""
    for entry in played:
        builder.played(entry, sitting(entry.place), previous)
        previous = entry
    for payment, place, hand in payments:
        builder.paid(payment, sitting(place), hand)
    return builder
