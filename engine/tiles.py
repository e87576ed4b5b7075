"""Tiles and their names.

A tile kind is a small int: 0-8 are 1m-9m (万), 9-17 1p-9p (筒/饼), 18-26 1s-9s (条), 27-30 the winds
E S W N (东南西北). Ints keep hand decomposition fast; this module is the only place that knows the
encoding. Hard flowers (中发白, 春夏秋冬梅兰竹菊) are never tiles of a hand: they are given as a count.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

Tile: TypeAlias = int

SUITS = "mps"
SUIT_SIZE = 9
FIRST_WIND = 27
WIND_LETTERS = "ESWN"
NUM_KINDS = 31
COPIES = 4
ALL_TILES: tuple[Tile, ...] = tuple(range(NUM_KINDS))

# Chinese input: suit characters in both scripts, numerals, winds, and the hard flowers to reject.
CHINESE_SUITS = {"万": 0, "萬": 0, "筒": 1, "饼": 1, "餅": 1, "条": 2, "條": 2}
CHINESE_NUMERALS = {c: i + 1 for i, c in enumerate("一二三四五六七八九")}
CHINESE_WINDS = {"东": 0, "東": 0, "南": 1, "西": 2, "北": 3}
HARD_FLOWER_CHARS = "中发發白春夏秋冬梅兰蘭竹菊"


def suited(rank: int, suit: int) -> Tile:
    """The tile of `rank` (1-9) in suit index `suit` (0 m, 1 p, 2 s)."""
    return suit * SUIT_SIZE + rank - 1


def wind(index: int) -> Tile:
    """The wind tile, 0 E, 1 S, 2 W, 3 N."""
    return FIRST_WIND + index


def is_wind(tile: Tile) -> bool:
    return tile >= FIRST_WIND


def suit_of(tile: Tile) -> int | None:
    """Suit index 0-2, or None for a wind."""
    return None if is_wind(tile) else tile // SUIT_SIZE


_WIND_BLOCK = frozenset({FIRST_WIND // SUIT_SIZE})  # what every wind floor-divides to (27-30 // 9)


def suits_of(tiles: Iterable[Tile]) -> frozenset[int]:
    """The suit indices among `tiles` (winds have none). (`SUIT_SIZE.__rfloordiv__` is `t // 9`, run
    by `map` without a Python call per tile.)"""
    return frozenset(map(SUIT_SIZE.__rfloordiv__, tiles)) - _WIND_BLOCK


def any_wind(tiles: Iterable[Tile]) -> bool:
    """Whether `tiles` include a wind (the winds are the highest kinds)."""
    return max(tiles, default=-1) >= FIRST_WIND


def rank_of(tile: Tile) -> int:
    """Rank 1-9 of a suited tile."""
    return tile % SUIT_SIZE + 1


def tile_name(tile: Tile) -> str:
    """ASCII notation of one tile: `5p`, `E`."""
    if is_wind(tile):
        return WIND_LETTERS[tile - FIRST_WIND]
    return f"{rank_of(tile)}{SUITS[tile // SUIT_SIZE]}"


def format_tiles(tiles: list[Tile] | tuple[Tile, ...]) -> str:
    """Compact notation, suits grouped: [0,1,2,9,27] -> `123m1pE`."""
    out: list[str] = []
    ordered = sorted(tiles)
    for suit_index, letter in enumerate(SUITS):
        ranks = [str(rank_of(t)) for t in ordered if suit_of(t) == suit_index]
        if ranks:
            out.append("".join(ranks) + letter)
    out.extend(WIND_LETTERS[t - FIRST_WIND] for t in ordered if is_wind(t))
    return "".join(out)
