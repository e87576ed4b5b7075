"""The 包子 liabilities of 敞开头 (docs/rules.md §12), read off the melds logged during a hand.

Pure questions about one seat's melds: is a 三嘴 locked on a feeder, does a seat show 三清, is a
discard inside a 全球 range. engine/liability.py asks them in the order the preset lists its liability
kinds, so the first that applies is the only one that pays.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.hand import MeldKind
from engine.melds import Logged
from engine.tiles import Tile, is_wind, rank_of, suit_of

SANZUI_MOUTHS = 3
SANQING_MELDS = 3
RANGE_SPAN = 2  # 全球: the marked tile's suit within 2 ranks
WINDS = "z"  # the 三清 "suit" of three wind melds


def sanzui_feeder(melds: Sequence[Logged]) -> int | None:
    """The A whom B's first three mouths all come from (三嘴), or None.

    Each logged meld is one mouth (an added gang took its pong's place, so it is no new mouth); B's
    concealed gangs count toward A. Three concealed gangs alone name no A: 三嘴 needs a feeder.
    """
    if len(melds) < SANZUI_MOUTHS:
        return None
    feeders = {m.fed_by for m in melds[:SANZUI_MOUTHS] if m.kind is not MeldKind.CONCEALED_GANG}
    return next(iter(feeders)) if len(feeders) == 1 else None


def suit_key(tile: Tile) -> str:
    suit = suit_of(tile)
    return WINDS if suit is None else "mps"[suit]


def sanqing_suit(melds: Sequence[Logged]) -> str | None:
    """The suit ("m", "p", "s", or "z" for winds) of a seat showing three melds, all of one suit.

    A fourth meld of that suit can only be the seat's own concealed gang (one fed by anyone ends the
    hand at once), so four melds of one suit still show 三清.
    """
    if len(melds) < SANQING_MELDS:
        return None
    tiles = [m.tile for m in melds]
    if any(tile is None for tile in tiles):
        return None
    suits = {suit_key(tile) for tile in tiles if tile is not None}
    return next(iter(suits)) if len(suits) == 1 else None


def in_range(mark: Tile, tile: Tile) -> bool:
    """全球: a discard inside the range of the marked tile (same suit within 2 ranks; any wind)."""
    if is_wind(mark) or is_wind(tile):
        return is_wind(mark) and is_wind(tile)
    return suit_of(mark) == suit_of(tile) and abs(rank_of(mark) - rank_of(tile)) <= RANGE_SPAN
