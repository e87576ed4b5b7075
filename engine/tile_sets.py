"""A set of three tiles in a reading of a hand: a triplet or a sequence.

Its own module because both the per-suit tables (engine/suit_shapes.py) and the whole-hand
decompositions (engine/decompose.py) are built from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.tiles import Tile


class SetKind(StrEnum):
    TRIPLET = "triplet"
    SEQUENCE = "sequence"


@dataclass(frozen=True, order=True, slots=True)
class TileSet:
    kind: SetKind
    tile: Tile  # the triplet's tile, or the lowest tile of the sequence

    def contains(self, tile: Tile) -> bool:
        if self.kind is SetKind.TRIPLET:
            return tile == self.tile
        return self.tile <= tile <= self.tile + 2
