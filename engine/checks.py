"""Checks of one event against the table before it costs anyone money (all pure).

A hand has four copies of each tile: the melds logged this hand by everyone, plus a winner's typed
hand, never hold a fifth. A pong or gang of a tile that another player already holds as a pong or
gang is impossible. At most five flower gangs exist in a hand (RULES §1: 20 hard flowers, four to a
set). Numbers typed by people are bounded: a custom penalty is 1–1000 flowers, soft flowers 0–40.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from engine.errors import EngineError
from engine.hand import Meld, MeldKind
from engine.tiles import COPIES, Tile, tile_name

MAX_FLOWER_GANGS = 5
MAX_PENALTY = 1000
MAX_SOFT = 40


def meld_size(kind: MeldKind) -> int:
    return 3 if kind is MeldKind.PONG else 4


def logged_copies(melds_by_seat: Iterable[Iterable[Meld | object]], skip_seat: int | None = None) -> Counter[Tile]:
    """Copies of each known tile in the melds logged this hand (optionally leaving one seat out)."""
    counts: Counter[Tile] = Counter()
    for seat, melds in enumerate(melds_by_seat):
        if seat == skip_seat:
            continue
        for meld in melds:
            tile, kind = getattr(meld, "tile", None), getattr(meld, "kind", None)
            if tile is not None and isinstance(kind, MeldKind):
                counts[tile] += meld_size(kind)
    return counts


def check_fifth_copy(counts: Counter[Tile]) -> None:
    for tile, count in sorted(counts.items()):
        if count > COPIES:
            raise EngineError("table.fifth_copy", tile=tile_name(tile), count=count)


def check_meld(melds_by_seat: tuple[tuple[object, ...], ...], actor: int, kind: MeldKind, tile: Tile | None) -> None:
    """A new pong or gang (exposed, concealed, or added onto the actor's own pong) of `tile`."""
    if tile is None:
        return
    for seat, melds in enumerate(melds_by_seat):
        if seat != actor and any(getattr(m, "tile", None) == tile for m in melds):
            raise EngineError("table.tile_held", tile=tile_name(tile), seat=seat)
    own_pong = any(
        getattr(m, "tile", None) == tile and getattr(m, "kind", None) is MeldKind.PONG for m in melds_by_seat[actor]
    )
    if own_pong and kind in (MeldKind.EXPOSED_GANG, MeldKind.CONCEALED_GANG):
        # the fourth tile onto one's own pong is an added gang (补杠), priced differently
        raise EngineError("table.gang_on_own_pong", tile=tile_name(tile))
    counts = logged_copies(melds_by_seat)
    counts[tile] += 1 if kind is MeldKind.ADDED_GANG else meld_size(kind)
    check_fifth_copy(counts)


def check_flower_gangs(already: int) -> None:
    if already >= MAX_FLOWER_GANGS:
        raise EngineError("table.flower_gangs_used", max=MAX_FLOWER_GANGS)


def check_penalty_amount(amount: int | None) -> None:
    if amount is not None and not 1 <= amount <= MAX_PENALTY:
        raise EngineError("penalty.amount_out_of_range", amount=amount, max=MAX_PENALTY)


def check_soft(soft: int) -> None:
    if not 0 <= soft <= MAX_SOFT:
        raise EngineError("win.bad_soft_count", count=soft, max=MAX_SOFT)


def check_win_copies(
    melds_by_seat: tuple[tuple[object, ...], ...],
    winner: int,
    concealed: Iterable[Tile],
    melds: Iterable[Meld],
    winning: Tile | None,
    robbed: int | None = None,
) -> None:
    """The winner's typed hand (the truth for the winner's melds) plus everyone else's logged melds.
    A hand that alone holds a fifth copy is left to the hand's own check (it says so itself). When
    the win robs a gang (`robbed`: the seat whose added gang is robbed), the robbed tile is the
    winning tile, not a fourth copy in that gang."""
    hand: Counter[Tile] = Counter(concealed)
    for meld in melds:
        hand[meld.tile] += meld_size(meld.kind)
    if winning is not None:
        hand[winning] += 1
    if any(count > COPIES for count in hand.values()):
        return
    counts = logged_copies(melds_by_seat, skip_seat=winner)
    if robbed is not None and winning is not None:
        robbed_melds = melds_by_seat[robbed]
        if any(
            getattr(m, "kind", None) is MeldKind.ADDED_GANG and getattr(m, "tile", None) == winning
            for m in robbed_melds
        ):
            counts[winning] -= 1
    counts.update(hand)
    check_fifth_copy(counts)
