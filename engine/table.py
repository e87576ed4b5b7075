"""The table's state through a night, as a pure reducer: `apply(state, event) -> Outcome`.

The state holds the dealer, hand and round numbers, the dealer's streak, whether this hand is a
比下胡 (doubled) hand, each seat's melds with who fed them, the 比下胡 triggers seen in this hand, and
chips for the 进园子 presets. Applying an event returns the new state, its payments and what the table
should be told (notices as message keys). Nothing here does I/O: the bot replays the ledger's events
through `apply` to rebuild the state.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from engine.claims import ClaimRefused, ClaimSituation, check_claims, check_hard_flowers, situation_of
from engine.errors import EngineError
from engine.hand import Hand, Meld, MeldKind
from engine.preset import Preset
from engine.scoring import WinScore, score_declared, score_hand
from engine.settlement import (
    SEATS,
    Factor,
    HandContext,
    Payment,
    WinClaim,
    doubling,
    gang_payments,
    penalty_payments,
    refund,
    win_factors,
    win_payments,
)
from engine.tiles import Tile, suit_of, tile_name
from engine.units import WinFlags

KUAIZHAO_MOUTHS = 3


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


def _with_act(state: TableState, seat: int, act: Act) -> TableState:
    acts = list(state.last_acts)
    acts[seat] = act
    return replace(state, last_acts=tuple(acts))


# ---- events -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pong:
    actor: int
    feeder: int
    tile: Tile | None = None


@dataclass(frozen=True)
class Gang:
    actor: int
    kind: MeldKind  # exposed, added or concealed
    feeder: int | None = None  # exposed gang: whose discard
    tile: Tile | None = None


@dataclass(frozen=True)
class FlowerGang:
    actor: int


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


@dataclass(frozen=True)
class Draw:
    pass


Event = Pong | Gang | FlowerGang | Penalty | Win | Draw


class WinRefused(EngineError):
    """A well-formed win that the rules refuse (no winning shape, below the 小胡 limit)."""

    def __init__(self, key: str, winner: int, score: WinScore) -> None:
        super().__init__(key, winner=winner, total=score.total)
        self.score = score


# ---- state --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableState:
    preset: Preset
    dealer: int = 0
    hand_no: int = 1
    dealer_passes: int = 0  # how often the deal moved on; 4 make a round 圈
    dealer_streak: int = 0  # 连庄 count
    doubled: bool = False  # this hand is a 比下胡 hand
    melds: tuple[tuple[MeldRecord, ...], ...] = ((), (), (), ())
    triggers: frozenset[str] = frozenset()
    hand_gang_payments: tuple[Payment, ...] = ()
    last_added_gang: tuple[int, tuple[Payment, ...]] | None = None
    last_acts: tuple[Act | None, ...] = (None, None, None, None)  # each seat's last event this hand
    chips: tuple[int, ...] | None = None

    @property
    def round_no(self) -> int:
        return self.dealer_passes // SEATS + 1

    def context(self) -> HandContext:
        return HandContext(self.doubled, self.dealer_streak, self.chips)


def new_table(preset: Preset, dealer: int = 0) -> TableState:
    chips = (preset.chips.start,) * SEATS if preset.chips.enabled else None
    return TableState(preset=preset, dealer=dealer, chips=chips)


@dataclass(frozen=True)
class Outcome:
    state: TableState
    payments: tuple[Payment, ...]
    notices: tuple[Notice, ...] = ()
    scores: tuple[tuple[int, WinScore], ...] = ()
    factors: tuple[Factor, ...] = ()  # what turned totals into payments (比下胡, 垒宝塔, 包牌, ...)


def _instant_factors(state: TableState, payments: tuple[Payment, ...]) -> tuple[Factor, ...]:
    """Gang money and penalties are doubled in a 比下胡 hand too ("杠钱也翻")."""
    factor = doubling(state.preset, state.context())
    return (Factor("bixiahu", {"factor": factor}),) if payments and factor > 1 else ()


def _check_seat(seat: int | None) -> None:
    if seat is not None and not 0 <= seat < SEATS:
        raise EngineError("table.bad_seat", seat=seat)


def _with_chips(state: TableState, payments: tuple[Payment, ...]) -> TableState:
    if state.chips is None:
        return state
    chips = list(state.chips)
    for payment in payments:
        chips[payment.payer] -= payment.amount
        chips[payment.payee] += payment.amount
    return replace(state, chips=tuple(chips))


def _bust_notices(before: TableState, after: TableState) -> list[Notice]:
    if before.chips is None or after.chips is None:
        return []
    notices = [Notice("table.bust", {"seat": s}) for s in range(SEATS) if before.chips[s] > 0 >= after.chips[s]]
    if notices and sum(1 for c in after.chips if c <= 0) >= 2:
        notices.append(Notice("table.jiang_over"))
    return notices


def _add_meld(state: TableState, seat: int, record: MeldRecord) -> TableState:
    melds = list(state.melds)
    if len(melds[seat]) >= 4:
        raise EngineError("meld.too_many", seat=seat)
    melds[seat] = (*melds[seat], record)
    return replace(state, melds=tuple(melds))


def mouths_from(state: TableState, taker: int) -> Counter[int]:
    """How many mouths 嘴 each feeder gave `taker` in this hand."""
    return Counter(m.fed_by for m in state.melds[taker] if m.kind.is_mouth and m.fed_by is not None)


def kuaizhao_feeder(state: TableState, taker: int) -> int | None:
    """The seat that fed `taker` three mouths (快照), if any; a preset may count `taker`'s concealed
    gangs toward it (002: two mouths + a concealed gang, one mouth + two concealed gangs)."""
    concealed = sum(1 for m in state.melds[taker] if m.kind is MeldKind.CONCEALED_GANG)
    extra = concealed if state.preset.liability.kuaizhao_concealed_counts else 0
    for feeder, count in mouths_from(state, taker).most_common():
        if count + extra >= KUAIZHAO_MOUTHS:
            return feeder
    return None


def _meld_notices(state: TableState, taker: int, feeder: int | None) -> list[Notice]:
    notices: list[Notice] = []
    if "kuaizhao" in state.preset.liability.kinds and feeder is not None:
        count = mouths_from(state, taker)[feeder]
        if count == KUAIZHAO_MOUTHS:
            notices.append(Notice("table.kuaizhao", {"feeder": feeder, "taker": taker}))
        elif count > KUAIZHAO_MOUTHS:
            notices.append(Notice("table.kuaizhao_fourth", {"feeder": feeder, "taker": taker}))
    melds = state.melds[taker]
    suits = {suit_of(m.tile) for m in melds if m.tile is not None}
    known = all(m.tile is not None for m in melds)
    if "qingyise_three" in state.preset.liability.kinds and len(melds) == 3 and known and len(suits) == 1:
        suit = next(iter(suits))
        if suit is not None:
            notices.append(Notice("table.qingyise_three", {"taker": taker, "suit": "mps"[suit]}))
    return notices


def _apply_pong(state: TableState, event: Pong) -> Outcome:
    _check_seat(event.feeder)
    if event.feeder == event.actor:
        raise EngineError("pong.own_discard")
    state = _add_meld(state, event.actor, MeldRecord(MeldKind.PONG, event.tile, event.feeder))
    state = _with_act(state, event.actor, Act("pong", event.feeder))
    return Outcome(state, (), tuple(_meld_notices(state, event.actor, event.feeder)))


def _find_pong(state: TableState, actor: int, tile: Tile | None) -> int:
    pongs = [
        i
        for i, m in enumerate(state.melds[actor])
        if m.kind is MeldKind.PONG and (tile is None or m.tile in (None, tile))
    ]
    if not pongs:
        raise EngineError("gang.no_pong", tile=tile_name(tile) if tile is not None else "")
    if len(pongs) > 1 and tile is None:
        raise EngineError("gang.which_pong")
    exact = [i for i in pongs if state.melds[actor][i].tile == tile]
    return exact[0] if exact else pongs[0]


def _apply_gang(state: TableState, event: Gang) -> Outcome:
    _check_seat(event.feeder)
    actor = event.actor
    notices: list[Notice] = []
    if event.kind is MeldKind.ADDED_GANG:
        index = _find_pong(state, actor, event.tile)
        pong = state.melds[actor][index]
        record = MeldRecord(MeldKind.ADDED_GANG, event.tile if event.tile is not None else pong.tile, pong.fed_by)
        seat_melds = list(state.melds[actor])
        seat_melds[index] = record
        melds = list(state.melds)
        melds[actor] = tuple(seat_melds)
        state = replace(state, melds=tuple(melds))
        feeder = pong.fed_by
    elif event.kind is MeldKind.EXPOSED_GANG:
        if event.feeder is None:
            raise EngineError("gang.needs_feeder")
        if event.feeder == actor:
            raise EngineError("pong.own_discard")
        feeder = event.feeder
        state = _add_meld(state, actor, MeldRecord(MeldKind.EXPOSED_GANG, event.tile, feeder))
        notices = _meld_notices(state, actor, feeder)
    elif event.kind is MeldKind.CONCEALED_GANG:
        feeder = None
        state = _add_meld(state, actor, MeldRecord(MeldKind.CONCEALED_GANG, event.tile, None))
    else:
        raise EngineError("gang.unknown_kind", kind=str(event.kind))
    payments = tuple(gang_payments(event.kind.value, actor, feeder, state.preset, state.context()))
    after = _with_chips(state, payments)
    after = replace(
        after,
        hand_gang_payments=(*state.hand_gang_payments, *payments),
        last_added_gang=(actor, payments) if event.kind is MeldKind.ADDED_GANG else None,
    )
    after = _with_act(after, actor, Act(event.kind.value, feeder))
    return Outcome(after, payments, (*notices, *_bust_notices(state, after)), factors=_instant_factors(state, payments))


def _apply_flower_gang(state: TableState, event: FlowerGang) -> Outcome:
    payments = tuple(gang_payments("flower_gang", event.actor, None, state.preset, state.context()))
    after = _with_chips(state, payments)
    after = replace(after, triggers=after.triggers | {"flower_gang"}, last_added_gang=None)
    after = _with_act(after, event.actor, Act("flower_gang"))
    return Outcome(after, payments, tuple(_bust_notices(state, after)), factors=_instant_factors(state, payments))


def _apply_penalty(state: TableState, event: Penalty) -> Outcome:
    if event.kind not in ("penalty_follow", "penalty_four", "penalty_custom", "false_win"):
        raise EngineError("penalty.unknown_kind", kind=event.kind)
    payments = tuple(penalty_payments(event.kind, event.offender, event.amount, state.preset, state.context()))
    after = _with_chips(state, payments)
    after = replace(after, triggers=after.triggers | {event.kind}, last_added_gang=None)
    after = _with_act(after, event.offender, Act("penalty"))
    notices = _bust_notices(state, after)
    factors = _instant_factors(state, payments)
    if event.kind == "false_win":
        # A false win pushes the tiles down: the hand is over (003 诈胡; the dealer may stay).
        outcome = _end_hand(after)
        return Outcome(outcome.state, payments, (*notices, *outcome.notices), factors=factors)
    return Outcome(after, payments, tuple(notices), factors=factors)


# ---- the win ------------------------------------------------------------------------------------


def _melds_text(melds: list[MeldRecord] | tuple[Meld, ...]) -> str:
    parts = []
    for m in melds:
        tile = tile_name(m.tile) if m.tile is not None else "?"
        parts.append(f"{m.kind.value}:{tile}")
    return " ".join(parts) or "-"


def reconcile_melds(typed: tuple[Meld, ...], logged: tuple[MeldRecord, ...]) -> tuple[Meld, ...]:
    """Merge the melds typed at /hu with those logged during the hand; feeders come from the log.

    With nothing logged, the typed melds stand. With nothing typed, the logged ones must all have
    their tiles. Otherwise each logged meld must match a typed one of the same kind (a logged meld
    without its tile takes the typed tile); anything else is a contradiction, shown to the players.
    """
    if not logged:
        return typed
    if not typed:
        if any(m.tile is None for m in logged):
            raise EngineError("win.meld_tile_unknown", logged=_melds_text(list(logged)))
        return tuple(Meld(m.kind, m.tile, m.fed_by) for m in logged if m.tile is not None)
    remaining = list(typed)
    merged: list[Meld] = []
    for record in sorted(logged, key=lambda m: m.tile is None):
        match = next(
            (t for t in remaining if t.kind is record.kind and (record.tile is None or record.tile == t.tile)),
            None,
        )
        if match is None:
            break
        remaining.remove(match)
        merged.append(Meld(match.kind, match.tile, record.fed_by))
    if len(merged) != len(logged) or remaining:
        raise EngineError("win.melds_contradict", logged=_melds_text(list(logged)), typed=_melds_text(typed))
    return tuple(merged)


def _score_claim(state: TableState, claim: WinInput, discarder: int | None) -> WinScore:
    logged = state.melds[claim.winner]
    check_hard_flowers(claim.flags.hard_flowers)
    act = state.last_acts[claim.winner]

    def situation(hand: Hand | None) -> ClaimSituation:
        return situation_of(
            hand,
            self_draw=discarder is None,
            dealer=claim.winner == state.dealer,
            logged=tuple(m.kind for m in logged),
            last_act=act.kind if act is not None else None,
            has_log=True,
        )

    if claim.flags.robbing_gang and discarder is not None:
        _check_robbed_pong(state, discarder, claim.winning)
    if claim.declared is not None:
        check_claims(claim.flags, state.preset, situation(None))
        menqing = state.preset.is_menqing(m.kind for m in logged)
        keys = claim.declared
        return score_declared(keys, claim.flags, state.preset, claim.soft, menqing and "menqing" in keys)
    if claim.winning is None:
        raise EngineError("hand.no_winning_tile")
    melds = reconcile_melds(claim.melds, logged)
    hand = Hand(tuple(sorted(claim.concealed)), melds, claim.winning)
    hand.validate()
    check_claims(claim.flags, state.preset, situation(hand))
    return score_hand(hand, claim.flags, state.preset, table_pongs(state))


def table_pongs(state: TableState) -> frozenset[Tile]:
    """The tiles of every pong standing at the table (logged with its tile), anyone's (敞开头 压绝)."""
    return frozenset(m.tile for seat in state.melds for m in seat if m.kind is MeldKind.PONG and m.tile is not None)


def _check_robbed_pong(state: TableState, robbed: int, tile: Tile | None) -> None:
    """抢杠 robs a pong being upgraded: the robbed player holds a pong of the tile (or has just added
    the gang to it); a meld logged without its tile, or a win typed without tiles, cannot be told
    apart, so it counts."""
    for meld in state.melds[robbed]:
        if meld.kind in (MeldKind.PONG, MeldKind.ADDED_GANG) and (tile is None or meld.tile in (None, tile)):
            return
    raise ClaimRefused("claim.robbing_no_pong", seat=robbed, tile=tile_name(tile) if tile is not None else "")


def _liable_seat(
    state: TableState, claim: WinInput, score: WinScore, discarder: int | None
) -> tuple[int | None, str | None]:
    """Who pays for everyone (包牌), and why, for one winner."""
    kinds = state.preset.liability.kinds
    winner = claim.winner
    if claim.flags.robbing_gang and "robbing_gang" in kinds:
        return discarder, "robbing_gang"
    # 大杠开花: the gang just made (the claim was checked) makes its feeder liable if it was exposed or
    # added; after a concealed gang or a flower gang it is an ordinary self-draw (RULES §5, §8)
    act = state.last_acts[winner]
    fed_gang = act is not None and act.kind in ("exposed_gang", "added_gang") and act.feeder is not None
    if claim.flags.after_gang and "dagangkai" in kinds and fed_gang and act is not None:
        return act.feeder, "dagangkai"
    if "kuaizhao" in kinds and "duiduihu" in score.keys:
        feeder = kuaizhao_feeder(state, winner)
        if feeder is not None:
            return feeder, "kuaizhao"
    melds = state.melds[winner]
    if "qingyise_three" in kinds and "qingyise" in score.keys and len(melds) == 4:
        first_suits = {suit_of(m.tile) for m in melds[:3] if m.tile is not None}
        last = melds[3]
        same = len(first_suits) == 1 and last.tile is not None and suit_of(last.tile) in first_suits
        if same and last.fed_by is not None:
            return last.fed_by, "qingyise_three"
    return None, None


def _apply_win(state: TableState, event: Win) -> Outcome:
    if not event.claims:
        raise EngineError("win.no_winner")
    _check_seat(event.discarder)
    winners = [c.winner for c in event.claims]
    if len(set(winners)) != len(winners):
        raise EngineError("win.duplicate_winner")
    if event.discarder is not None and event.discarder in winners:
        raise EngineError("win.discarder_wins")
    if event.discarder is None and len(event.claims) > 1:
        raise EngineError("win.several_self_draws")
    if state.chips is not None and event.discarder is not None and state.chips[event.discarder] <= 0:
        raise EngineError("win.from_bust_player", seat=event.discarder)
    ordered = sorted(event.claims, key=lambda c: (c.winner - (event.discarder or 0)) % SEATS)
    claims: list[WinClaim] = []
    scores: list[tuple[int, WinScore]] = []
    notices: list[Notice] = []
    triggers = set(state.triggers)
    for claim in ordered:
        score = _score_claim(state, claim, event.discarder)
        if not score.valid:
            raise WinRefused(score.reason or "win.refused", claim.winner, score)
        liable, why = _liable_seat(state, claim, score, event.discarder)
        if liable is not None:
            notices.append(Notice("table.liable", {"seat": liable, "winner": claim.winner, "why": why}))
            triggers.add("liability")
        if claim.flags.after_gang:
            triggers.add("dagangkai")
        if score.big:
            triggers.add("big_hu")
        self_draw = event.discarder is None or claim.flags.self_draw
        claims.append(
            WinClaim(claim.winner, score, self_draw, claim.flags.robbing_gang, claim.flags.after_gang, liable)
        )
        scores.append((claim.winner, score))
    if len(claims) > 1:
        triggers.add("multiple_winners")
    if any(c.robbing_gang for c in claims):
        triggers.add("robbing_gang")
    # 一炮多响: "the dealer won" means the dealer is among the winners (RULES §8).
    if any(c.winner == state.dealer for c in claims):
        triggers.add("dealer_win")
    if any(c.winner == state.dealer and c.score.big for c in claims):
        triggers.add("dealer_big_win")
    payments = list(win_payments(claims, event.discarder, state.preset, state.context()))
    factors = win_factors(claims, state.preset, state.context())
    robbed = state.last_added_gang
    if any(c.robbing_gang for c in claims) and robbed is not None and robbed[0] == event.discarder:
        payments = refund(robbed[1]) + payments  # 抢杠: no gang money
        if robbed[1]:
            factors.append(Factor("robbing_refund", {"amount": sum(p.amount for p in robbed[1])}))
    after = _with_chips(replace(state, triggers=frozenset(triggers)), tuple(payments))
    ended = _end_hand(after)
    return Outcome(
        ended.state,
        tuple(payments),
        (*notices, *_bust_notices(state, after), *ended.notices),
        tuple(scores),
        tuple(factors),
    )


def _apply_draw(state: TableState) -> Outcome:
    payments: tuple[Payment, ...] = ()
    if state.preset.instant.refund_gangs_on_draw:
        payments = tuple(refund(state.hand_gang_payments))
    after = _with_chips(replace(state, triggers=state.triggers | {"draw"}), payments)
    ended = _end_hand(after)
    return Outcome(ended.state, payments, ended.notices)


def _end_hand(state: TableState) -> Outcome:
    """Next dealer (RULES §8), 连庄 streak, and whether the next hand is 比下胡 (§9).

    `state.triggers` holds what happened in the hand (HAND_FACTS); the preset says which of them
    keep the dealer and which double the next hand. `bixiahu` among the stay reasons keeps the
    dealer whenever the hand sets up a 比下胡 (nanjing family), so every 比下胡 hand there has a
    垒宝塔 N of at least 1.
    """
    preset = state.preset
    facts = set(state.triggers)
    stays = bool(facts & preset.dealer_stays_on) or (
        "bixiahu" in preset.dealer_stays_on and bool(facts & preset.triggers)
    )
    if stays:
        facts.add("dealer_stays")
        dealer, passes, streak = state.dealer, state.dealer_passes, state.dealer_streak + 1
    else:
        dealer, passes, streak = (state.dealer + 1) % SEATS, state.dealer_passes + 1, 0
    doubled = bool(facts & preset.triggers)
    notices = [Notice("table.next_hand", {"hand": state.hand_no + 1, "dealer": dealer})]
    if stays:
        notices.append(Notice("table.dealer_stays", {"dealer": dealer, "streak": streak}))
    if doubled:
        notices.append(Notice("table.next_doubled"))
    if passes // SEATS > state.dealer_passes // SEATS:
        notices.append(Notice("table.round_over", {"round": passes // SEATS}))
    new_state = replace(
        state,
        dealer=dealer,
        hand_no=state.hand_no + 1,
        dealer_passes=passes,
        dealer_streak=streak,
        doubled=doubled,
        melds=((), (), (), ()),
        triggers=frozenset(),
        hand_gang_payments=(),
        last_added_gang=None,
        last_acts=(None, None, None, None),
    )
    return Outcome(new_state, (), tuple(notices))


def apply(state: TableState, event: Event) -> Outcome:
    """Apply one event; raises EngineError (nothing changes) if it is not legal here."""
    for seat in (getattr(event, "actor", None), getattr(event, "offender", None)):
        _check_seat(seat)
    if isinstance(event, Pong):
        return _apply_pong(state, event)
    if isinstance(event, Gang):
        return _apply_gang(state, event)
    if isinstance(event, FlowerGang):
        return _apply_flower_gang(state, event)
    if isinstance(event, Penalty):
        return _apply_penalty(state, event)
    if isinstance(event, Win):
        for claim in event.claims:
            _check_seat(claim.winner)
        return _apply_win(state, event)
    return _apply_draw(state)
