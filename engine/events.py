"""The table's events (what the players do at the table), the seats they name, and the small values
the table keeps and tells about them.

Every event names seats 0 to 3: the table has four seats, East, South, West and North, and the deal
passes round them in that order. engine/table.py plays the events into the table's state; the bot
parses them from chat lines (bot/chat) and stores them in the ledger (bot/night/codec.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.hand import Meld, MeldKind
from engine.tiles import Tile
from engine.units import WinFlags

SEATS = 4  # the table's four seats: every seat number, the deal's round, a settlement's shares


@dataclass(frozen=True)
class Notice:
    key: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MeldRecord:
    """A meld logged during the hand; the tile may be unknown until the win."""

    kind: MeldKind
    tile: Tile | None
    fed_by: int | None


@dataclass(frozen=True)
class Act:
    """A seat's last recorded event in the hand (杠开 must follow a gang: RULES §5)."""

    kind: str  # pong, exposed_gang, added_gang, concealed_gang, flower_gang, penalty
    feeder: int | None = None


# ---- events -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pong:
    actor: int
    feeder: int
    tile: Tile | None = None
    hard_flowers: int | None = None  # given when the pong ends the hand (敞开头 三嘴/三清)


@dataclass(frozen=True)
class Gang:
    actor: int
    kind: MeldKind  # exposed, added or concealed
    feeder: int | None = None  # exposed gang: whose discard
    tile: Tile | None = None
    hard_flowers: int | None = None  # given when the gang ends the hand (敞开头 三嘴/三清)


@dataclass(frozen=True)
class FlowerGang:
    actor: int


FLOWER_SETS = 5  # a hand has five flower gangs at most: 中, 发, 白, 春夏秋冬, 梅兰竹菊


@dataclass(frozen=True)
class Penalty:
    kind: str  # penalty_follow, penalty_four, penalty_custom, false_win
    offender: int
    amount: int | None = None


@dataclass(frozen=True)
class WinInput:
    """One winner's claim as typed: a hand (tiles) or declared pattern keys, and the flags."""

    winner: int
    flags: WinFlags
    concealed: tuple[Tile, ...] = ()
    melds: tuple[Meld, ...] = ()
    winning: Tile | None = None
    declared: tuple[str, ...] | None = None
    soft: int = 0


@dataclass(frozen=True)
class Win:
    claims: tuple[WinInput, ...]
    discarder: int | None  # None: self-draw; the robbed player for 抢杠
    # Another winner on the discard of the win at this place in the night (一炮多响, as the table said
    # it): `apply` plays a Win as given; the night (bot/night/night.py) joins the claims into one win.
    joins: int | None = None


@dataclass(frozen=True)
class Draw:
    pass


@dataclass(frozen=True)
class FourWinds:
    """四风归齐 (敞开头): the actor's unbroken run of wind discards has covered E, S, W and N."""

    actor: int


@dataclass(frozen=True)
class RangeMark:
    """架 (敞开头 全球): after his fourth meld by a pong, the actor discards `tile`, marking a range."""

    actor: int
    tile: Tile


@dataclass(frozen=True)
class SetDealer:
    """定庄: the table names the dealer before a hand starts (the dealer's streak starts again)."""

    seat: int


@dataclass(frozen=True)
class RuleChange:
    """One value of the rules changed by the table: a key of the preset format (`patterns.pao`,
    `bixiahu.triggers`), `=` to set it, `+` or `-` to add a value to a set or take one out; the
    value as JSON (`10`, `true`, `["draw"]`), so it keeps its exact type in the ledger."""

    key: str
    op: str
    value: str


@dataclass(frozen=True)
class SetRules:
    """改规则: the table's rules from the next hand on, or from this one if nothing was played in it yet
    (engine/rule_keys.py). `changes` are made to the rules in force; `whole` is a whole rules file
    (its tables, `base` resolved, as JSON) that replaces them."""

    changes: tuple[RuleChange, ...] = ()
    whole: str = ""
    # typed once its hand had begun: it counts from the next hand, and keeps that through every
    # re-derivation (a later undo of what began the hand never moves it back, docs/rules.md 20)
    next_hand: bool = False


Event = Pong | Gang | FlowerGang | Penalty | Win | Draw | FourWinds | RangeMark | SetDealer | SetRules
