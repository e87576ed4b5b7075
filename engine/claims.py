"""Claims must fit the hand and the table (docs/rules.md §5): a flag the players give is checked first.

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
from engine.melds import DeclaredPatternContradicted, Logged
from engine.preset import Preset
from engine.tiles import suit_of
from engine.units import UNITS_BY_KEY, WinFlags

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
        _check_heavenly(facts)
    if flags.earthly:
        _check_earthly(preset, facts)
    if flags.last_stacks and not facts.self_draw:
        raise ClaimRefused("claim.last_stacks_self_draw")


def _check_heavenly(facts: ClaimSituation) -> None:
    """天胡: the dealer's own first draw, nothing melded."""
    if not facts.dealer:
        raise ClaimRefused("claim.heavenly_not_dealer")
    if not facts.self_draw:
        raise ClaimRefused("claim.heavenly_self_draw")
    if facts.melds:
        raise ClaimRefused("claim.heavenly_melds")


def _check_earthly(preset: Preset, facts: ClaimSituation) -> None:
    """地胡: not the dealer, and "不碰不杠" (RULES §5); 敞开头 allows gangs that keep the wait (V1.0.2
    §10.12): the players vouch that the wait was kept, the table cannot see it."""
    if facts.dealer:
        raise ClaimRefused("claim.earthly_dealer")
    dihu = preset.rules.get("dihu")
    allowed = dihu.melds_allowed if dihu is not None else frozenset()
    if any(kind.value not in allowed for kind in facts.melds):
        raise ClaimRefused("claim.earthly_pong" if allowed else "claim.earthly_melds")


SEVEN_PAIRS_KEYS = frozenset(
    {"qidui", "haohua_qidui", "chaohaohua_qidui", "chaochaohaohua_qidui", "shuang_qidui", "long_qidui"}
)


def _second_suit(logged: Sequence[Logged], winds_too: bool) -> tuple[int, str] | None:
    """The first logged meld that a one-suit hand cannot hold: a suit other than the earlier melds'
    (or, when `winds_too`, a wind meld), with the reason's key. Melds logged without a tile say
    nothing, like melds nobody logged."""
    first: int | None = None
    for index, meld in enumerate(logged):
        if meld.tile is None:
            continue
        suit = suit_of(meld.tile)
        if suit is None:
            if winds_too:
                return index, "win.declared_qingyise_wind"
            continue
        if first is None:
            first = suit
        elif suit != first:
            return index, "win.declared_qingyise_suits" if winds_too else "win.declared_hunyise_suits"
    return None


def check_declared(declared: Sequence[str], logged: Sequence[Logged], preset: Preset, seat: int) -> None:
    """A pattern named without tiles is checked against what the table logged for the winner this
    hand, as claims are (RULES §5): 清一色 against a meld of another suit or a wind meld, 混一色
    against melds of two suits, 门清 against a meld the preset says breaks it (a pong; nanjing: also
    one since upgraded), the seven-pairs family against any meld. Raises DeclaredPatternContradicted
    naming the first meld that contradicts it."""
    keys = set(declared)
    found: tuple[int, str] | None = None
    if "qingyise" in keys:
        found = _second_suit(logged, winds_too=True)
    if found is None and "hunyise" in keys:
        found = _second_suit(logged, winds_too=False)
    if found is None and "menqing" in keys:
        broken = [i for i, m in enumerate(logged) if not preset.is_menqing((m.kind,))]
        found = (broken[0], "win.declared_menqing") if broken else None
    if found is None and keys & SEVEN_PAIRS_KEYS and logged:
        found = (0, "win.declared_seven_pairs")
    if found is not None:
        index, key = found
        meld = logged[index]
        raise DeclaredPatternContradicted(key, seat, index, meld.kind, meld.tile)


def conflicting_patterns(keys: Sequence[str]) -> tuple[str, str, str] | None:
    """Two patterns named for one win that no hand can both be, as the units say of themselves: one
    needs a fact of the hand (`Unit.needs`) on which the other never counts (`Unit.never_with`) —
    七对 needs seven pairs, 对对胡 never counts on them. Returns (the one that needs it, the other, the
    fact), the first such pair in the order typed; None when they can all be true together."""
    units = [UNITS_BY_KEY[key] for key in dict.fromkeys(keys) if key in UNITS_BY_KEY]
    for first in units:
        for other in units:
            if first.needs is not None and first.needs in other.never_with:
                return first.key, other.key, first.needs
    return None
