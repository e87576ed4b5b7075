"""A line as read: the command it names and what it says (names, tile, hand, options), and a fix's
corrected line read with it. The grammar (bot/chat/grammar.py) makes them; handlers take them."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.chat.periods import Period
from engine.errors import EngineError


@dataclass(frozen=True)
class Command:
    name: str
    raw: str
    names: tuple[str, ...] = ()  # player names, in the order typed
    tile: str | None = None
    kind: str | None = None  # gang kind, penalty kind
    amount: int | None = None
    options: dict[str, str] = field(default_factory=dict)
    self_draw: bool = False
    hand_text: str = ""
    declared: tuple[str, ...] = ()
    flowers: int | None = None
    soft: int = 0
    flags: frozenset[str] = frozenset()
    number: int | None = None  # /undo N, /history N (the page)
    word: str | None = None  # /lang X, /stats NAME, the unknown /command
    plain: bool = False  # started by a plain word, not a /command
    also: bool = False  # 胡 … 一炮多响 / also: another winner on the last win's discard
    inner: Inner | None = None  # a fix's corrected line, read with the same names where the fix was read
    period: Period | None = None  # /stats 本月: the period asked (bot/chat/periods.py)


@dataclass(frozen=True)
class Inner:
    """A fix's corrected line as read once, where the fix was read: its command (None: talk), or the
    error that refused it (raised where the fix's handler reads it, so the errors keep their order)."""

    known: tuple[str, ...]  # the names it was read with
    command: Command | None
    error: EngineError | None = None
