"""Melds at a win: the typed hand is the truth for the winner's melds; the log adds who fed them.

A logged meld with its tile must be in the typed hand (a logged pong may have become an added gang);
a logged meld without its tile matches any typed meld of its kind; a typed meld that was never logged
is accepted (its feeder is unknown, which only matters for liability). A logged meld missing from the
typed hand, a gang above all since it cost money, is a real conflict: the error says which one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.errors import EngineError
from engine.hand import Meld, MeldKind
from engine.tiles import Tile, tile_name


class Logged(Protocol):
    """A meld as the log has it: its kind, its tile if known, and the seat that fed it if any."""

    @property
    def kind(self) -> MeldKind: ...

    @property
    def tile(self) -> Tile | None: ...

    @property
    def fed_by(self) -> int | None: ...


class LoggedMeldMissing(EngineError):
    """A meld logged this hand that the typed winning hand does not hold (or, with no melds typed,
    whose tile was never given). `index` is its place among the winner's logged melds."""

    def __init__(self, seat: int, index: int, kind: MeldKind, tile: Tile | None, unknown_tile: bool) -> None:
        key = "win.logged_meld_tile_unknown" if unknown_tile else "win.logged_meld_missing"
        super().__init__(key, seat=seat, kind=kind.value, tile=tile_name(tile) if tile is not None else "")
        self.index = index


class DeclaredPatternContradicted(LoggedMeldMissing):
    """A pattern named at a declared win (no tiles) that a meld logged this hand rules out (清一色
    with a wind meld, 七对 with any meld, ...). The bot names the meld by its event number exactly as
    it names a missing one, so it is the same kind of conflict; `key` gives the reason."""

    def __init__(self, key: str, seat: int, index: int, kind: MeldKind, tile: Tile | None) -> None:
        EngineError.__init__(self, key, seat=seat, kind=kind.value, tile=tile_name(tile) if tile is not None else "")
        self.index = index


def _fits(record: Logged, typed: Meld) -> bool:
    same_kind = typed.kind is record.kind or (record.kind is MeldKind.PONG and typed.kind is MeldKind.ADDED_GANG)
    return same_kind and (record.tile is None or record.tile == typed.tile)


def match_melds(seat: int, typed: Sequence[Meld], logged: Sequence[Logged]) -> tuple[Meld, ...]:
    """The winner's melds: each logged one matched to a typed one (feeder from the log), then the
    typed ones never logged. With no melds typed, the logged ones stand if their tiles are known."""
    if not typed:
        for index, record in enumerate(logged):
            if record.tile is None:
                raise LoggedMeldMissing(seat, index, record.kind, None, unknown_tile=True)
        return tuple(Meld(m.kind, m.tile, m.fed_by) for m in logged if m.tile is not None)
    remaining = list(typed)
    merged: list[Meld] = []
    # tiles first: a tile-less record must not take the meld a known one needs; exact kinds first too
    order = sorted(range(len(logged)), key=lambda i: logged[i].tile is None)
    for index in order:
        record = logged[index]
        exact = [t for t in remaining if t.kind is record.kind and _fits(record, t)]
        candidates = exact or [t for t in remaining if _fits(record, t)]
        match = candidates[0] if candidates else None
        if match is None:
            raise LoggedMeldMissing(seat, index, record.kind, record.tile, unknown_tile=False)
        remaining.remove(match)
        merged.append(Meld(match.kind, match.tile, record.fed_by))
    return (*merged, *remaining)
