"""Claims must fit the hand and the table (RULES.md §5): a flag the players give is checked first.

杠开, 小杠开, 天胡, 地胡, 抢杠 and 海底 are claims the tiles alone cannot show. One that cannot be true is
refused with its reason (`ClaimRefused`: nothing is recorded, the CLI exits 1), never scored. A hard-
flower count outside 0–20 is bad input (`EngineError`: the CLI exits 2). The table adds what only its
log knows (the winner's last event, the robbed player's pong) through `TableFacts`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import EngineError
from engine.hand import Hand, MeldKind
from engine.preset import Preset
from engine.units import WinFlags

HARD_FLOWERS = 20  # 中发白 ×4 + 春夏秋冬梅兰竹菊 (RULES §1)
GANG_KINDS = frozenset({"exposed_gang", "added_gang", "concealed_gang"})


class ClaimRefused(EngineError):
    """A claim that cannot be true for this hand or table (a refusal, not bad input)."""


@dataclass(frozen=True)
class ClaimSituation:
    """What is known about one winner beside the flags.

    `self_draw`: the winner drew the tile (no discarder and no robbed player named).
    `dealer`: the winner deals this hand. `melds`: the kinds of every meld the winner shows (typed
    or logged). `winning_copies`: copies of the winning tile in the whole hand, None if no tiles were
    typed. `last_act`: the winner's last recorded event in this hand (`exposed_gang`, `flower_gang`,
    `pong`, ...), None when there is no log (the CLI) — then a flower gang counts only when the caller
    says one was just made (`flower_gang_before`).
    """

    self_draw: bool
    dealer: bool
    melds: tuple[MeldKind, ...]
    winning_copies: int | None
    last_act: str | None = None
    has_log: bool = False
    flower_gang_before: bool = False


def check_hard_flowers(count: int) -> None:
    """There are 20 hard flowers: anything else is bad input (RULES §5)."""
    if not 0 <= count <= HARD_FLOWERS:
        raise EngineError("win.bad_flower_count", count=count)


def situation_of(
    hand: Hand | None,
    *,
    self_draw: bool,
    dealer: bool,
    logged: Sequence[MeldKind] = (),
    last_act: str | None = None,
    has_log: bool = False,
    flower_gang_before: bool = False,
) -> ClaimSituation:
    melds = tuple(m.kind for m in hand.melds) if hand is not None else tuple(logged)
    copies = hand.tile_counts()[hand.winning] if hand is not None else None
    return ClaimSituation(self_draw, dealer, melds, copies, last_act, has_log, flower_gang_before)


def _check_after_gang(preset: Preset, facts: ClaimSituation) -> None:
    """杠开: a self-draw right after a gang the hand shows, or (where the preset says so, 002 "明杠、
    暗杠或花杠后，補牌即胡") right after a flower gang; at the table, the winner's last event."""
    if not facts.self_draw:
        raise ClaimRefused("claim.after_gang_self_draw")
    flower_ok = preset.flower_gang_opens
    if facts.has_log:
        if facts.last_act in GANG_KINDS or (flower_ok and facts.last_act == "flower_gang"):
            return
        raise ClaimRefused("claim.after_gang_not_last")
    if any(kind.is_gang for kind in facts.melds) or (flower_ok and facts.flower_gang_before):
        return
    raise ClaimRefused("claim.after_gang_no_gang")


def check_claims(flags: WinFlags, preset: Preset, facts: ClaimSituation) -> None:
    """Refuse (ClaimRefused) a claim that cannot be true; bad flower counts are bad input."""
    check_hard_flowers(flags.hard_flowers)
    if flags.robbing_gang:
        if facts.self_draw:
            raise ClaimRefused("claim.robbing_self_draw")
        if facts.winning_copies is not None and facts.winning_copies != 1:
            raise ClaimRefused("claim.robbing_tile_count", count=facts.winning_copies)
    if flags.after_gang:
        _check_after_gang(preset, facts)
    if flags.after_flower:
        if not facts.self_draw:
            raise ClaimRefused("claim.after_flower_self_draw")
        if flags.hard_flowers < 1:
            raise ClaimRefused("claim.after_flower_no_flower")
    if flags.heavenly:
        if not facts.dealer:
            raise ClaimRefused("claim.heavenly_not_dealer")
        if not facts.self_draw:
            raise ClaimRefused("claim.heavenly_self_draw")
        if facts.melds:
            raise ClaimRefused("claim.heavenly_melds")
    if flags.earthly:
        if facts.dealer:
            raise ClaimRefused("claim.earthly_dealer")
        if facts.melds:
            raise ClaimRefused("claim.earthly_melds")
    if flags.last_stacks and not facts.self_draw:
        raise ClaimRefused("claim.last_stacks_self_draw")
