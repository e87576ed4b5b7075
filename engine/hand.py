"""A hand as typed at a win: concealed tiles, declared melds (with who fed them), the winning tile."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic, TypeVar, overload

from engine.errors import EngineError
from engine.tiles import COPIES, Tile, any_wind, is_wind, suits_of, tile_name

WINNING_HAND_SIZE = 14
MAX_MELDS = 4
T = TypeVar("T")


class once(Generic[T]):
    """`functools.cached_property` without its lock (Python 3.11 takes one on every first read):
    worked out on first read and kept in the instance's dict, where later reads find it. Every
    score reads a hand's closed tiles and suits on a fresh Hand, so that first read is the hot one."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> once[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | once[T]:
        if instance is None:
            return self
        value = self.compute(instance)
        instance.__dict__[self.name] = value  # a frozen dataclass's own dict: no __setattr__
        return value


class MeldKind(StrEnum):
    PONG = "pong"  # 碰 [777p]
    EXPOSED_GANG = "exposed_gang"  # 直杠 on a discard [7777p]
    ADDED_GANG = "added_gang"  # 补杠 a pong upgraded {7777p}
    CONCEALED_GANG = "concealed_gang"  # 暗杠 (7777p)

    @property
    def is_gang(self) -> bool:
        return self is not MeldKind.PONG

    @property
    def breaks_menqing(self) -> bool:
        """门清 is lost by a pong and by an added gang, which began as a pong (RULES §5)."""
        return self in (MeldKind.PONG, MeldKind.ADDED_GANG)

    @property
    def is_mouth(self) -> bool:
        """A mouth 嘴 is a meld someone else fed (pong, exposed gang, added gang)."""
        return self is not MeldKind.CONCEALED_GANG


_BRACKETS = {
    MeldKind.PONG: ("[", "]"),
    MeldKind.EXPOSED_GANG: ("[", "]"),
    MeldKind.ADDED_GANG: ("{", "}"),
    MeldKind.CONCEALED_GANG: ("(", ")"),
}


@dataclass(frozen=True)
class Meld:
    kind: MeldKind
    tile: Tile
    fed_by: int | None = None  # the seat that fed it, when the table knows

    @property
    def size(self) -> int:
        return 4 if self.kind.is_gang else 3

    def notation(self) -> str:
        name = tile_name(self.tile)  # `7p` or `E`
        digits = name * self.size if is_wind(self.tile) else name[0] * self.size + name[1]
        brackets = _BRACKETS[self.kind]
        return f"{brackets[0]}{digits}{brackets[1]}"


@dataclass(frozen=True)
class Hand:
    concealed: tuple[Tile, ...]  # sorted, without the winning tile
    melds: tuple[Meld, ...]
    winning: Tile

    @once
    def closed_tiles(self) -> tuple[Tile, ...]:
        """The concealed tiles with the winning tile: what must form the remaining sets and pair."""
        return tuple(sorted((*self.concealed, self.winning)))

    @once
    def _counts(self) -> Counter[Tile]:
        counts: Counter[Tile] = Counter(self.closed_tiles)
        for meld in self.melds:
            counts[meld.tile] += meld.size
        return counts

    def _kinds(self) -> tuple[Tile, ...]:
        """The closed tiles, then the tile of each meld: enough to tell every kind the hand holds."""
        return (*self.closed_tiles, *(m.tile for m in self.melds)) if self.melds else self.closed_tiles

    # Every reading of a hand asks which suits are present and whether winds are: found once here.
    @once
    def suits(self) -> frozenset[int]:
        """The suits present (0 m, 1 p, 2 s), melds included."""
        return suits_of(self._kinds())

    @once
    def has_winds(self) -> bool:
        return any_wind(self._kinds())

    def tile_counts(self) -> Counter[Tile]:
        """Every physical tile of the hand, melds included (a gang counts four). A copy: callers may
        change it."""
        return Counter(self._counts)

    @property
    def is_menqing(self) -> bool:
        return not any(m.kind.breaks_menqing for m in self.melds)

    def validate(self) -> None:
        """Raise EngineError unless the hand has 14 tiles (a meld counts 3) and no tile 5 times."""
        if len(self.melds) > MAX_MELDS:
            raise EngineError("hand.too_many_melds", count=len(self.melds))
        for tile, count in sorted(self.tile_counts().items()):
            if count > COPIES:
                raise EngineError("hand.too_many_copies", tile=tile_name(tile), count=count)
        size = len(self.concealed) + 1 + 3 * len(self.melds)
        if size != WINNING_HAND_SIZE:
            raise EngineError("hand.tile_count", count=size)
