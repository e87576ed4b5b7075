"""The table's state through a night, as a pure reducer: `apply(state, event) -> Outcome`.

The state holds the dealer, hand and round numbers, the dealer's streak, whether this hand is a
比下胡 (doubled) hand, each seat's melds with who fed them, the 比下胡 triggers seen in this hand, and
chips for the 进园子 presets. Applying an event (engine/events.py) returns the new state, its payments
and what the table should be told (notices as message keys); who pays for everyone is asked of
engine/liability.py. Nothing here does I/O: the bot replays the ledger's events through `apply`.
"""

from __future__ import annotations

from typing import assert_never

from engine.claims import ClaimRefused, ClaimSituation, check_claims, check_hard_flowers, situation_of
from engine.errors import EngineError
from engine.events import (
    FLOWER_SETS,
    SEATS,
    Act,
    Draw,
    Event,
    FlowerGang,
    FourWinds,
    Gang,
    MeldRecord,
    Notice,
    Penalty,
    Pong,
    RangeMark,
    SetDealer,
    SetRules,
    Win,
    WinInput,
)
from engine.hand import Hand, Meld, MeldKind
from engine.liability import (
    KUAIZHAO_MOUTHS,
    Liability,
    baozi_notices,
    forced_end,
    gang_liable_lasts,
    kuaizhao_feeder,
    liability_at_win,
    meld_notices,
    new_gang_liable,
    paid_by_gang_liable,
)
from engine.melds import match_melds
from engine.rule_keys import rules_after
from engine.scoring import WinScore, score_declared, score_forced, score_hand
from engine.settlement import (
    Factor,
    Payment,
    WinClaim,
    cap_to_chips,
    doubling,
    four_winds_payments,
    gang_payments,
    penalty_payments,
    refund,
    win_factors,
    win_payments,
)

# the table's state and an event's outcome live in engine/table_state.py; their names stay here too
from engine.table_state import Outcome as Outcome
from engine.table_state import TableState as TableState
from engine.table_state import changed as _changed
from engine.table_state import new_table as new_table
from engine.tiles import Tile, tile_name


def _with_act(state: TableState, seat: int, act: Act) -> TableState:
    acts = list(state.last_acts)
    acts[seat] = act
    return _changed(state, last_acts=tuple(acts))


class WinRefused(EngineError):
    """A well-formed win that the rules refuse (no winning shape, below the 小胡 limit)."""

    def __init__(self, key: str, winner: int, score: WinScore, min_hard: int = 0) -> None:
        super().__init__(key, winner=winner, total=score.total, min_hard=min_hard)  # the limit in force
        self.score = score


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
    return _changed(state, chips=tuple(chips))


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
    return _changed(state, melds=tuple(melds))


def _apply_pong(state: TableState, event: Pong) -> Outcome:
    _check_seat(event.feeder)
    if event.feeder == event.actor:
        raise EngineError("pong.own_discard")
    before = state
    record = MeldRecord(MeldKind.PONG, event.tile, event.feeder)
    state = _add_meld(state, event.actor, record)
    state = _with_act(state, event.actor, Act("pong", event.feeder))
    forced = forced_end(before, event.actor, record)
    if forced is not None:
        return _settle_forced(state, event.actor, forced, event.hard_flowers, ())
    notices = (*meld_notices(state, event.actor, event.feeder), *baozi_notices(state, event.actor))
    return _with_fourth_mouth(before, Outcome(state, (), notices), event.actor, record)


def _with_fourth_mouth(before: TableState, outcome: Outcome, taker: int, record: MeldRecord) -> Outcome:
    """003 外包: B held exactly three mouths, all from A (B's concealed gangs count as A's); as soon as
    anyone feeds B a fourth, A owes 外包 at once, win or not. Recorded on the pong or gang itself."""
    liability = before.preset.liability
    if not liability.fourth_mouth_at_once or record.fed_by is None or len(before.melds[taker]) != KUAIZHAO_MOUTHS:
        return outcome
    feeder = kuaizhao_feeder(before, taker)
    if feeder is None:
        return outcome
    state = outcome.state
    owed = [Payment(feeder, taker, liability.fixed * doubling(state.preset, state.context()), "liability")]
    paid = tuple(cap_to_chips(owed, state.chips))
    after = _with_chips(state, paid)
    after = _changed(
        after, triggers=after.triggers | {"liability", "kuaizhao"}, waibao_paid=after.waibao_paid | {taker}
    )
    amount = sum(p.amount for p in paid)
    notice = Notice("table.waibao_fourth", {"feeder": feeder, "taker": taker, "amount": amount})
    return Outcome(
        after,
        (*outcome.payments, *paid),
        (*outcome.notices, notice, *_bust_notices(state, after)),
        outcome.scores,
        outcome.factors,
    )


def _settle_forced(
    state: TableState, actor: int, liability: Liability, hard_flowers: int | None, paid: tuple[Payment, ...]
) -> Outcome:
    """Settle a hand a 包子 ended at a meld: the actor's self-draw with the forced patterns, the
    liable seat paying all three shares; then the hand is over."""
    if hard_flowers is None:
        raise EngineError("liability.needs_flowers", seat=actor, why=liability.why)
    check_hard_flowers(hard_flowers)
    melds = tuple((m.kind, m.tile) for m in state.melds[actor])
    score = score_forced(melds, hard_flowers, liability.forced, state.preset)
    claim = WinClaim(actor, score, self_draw=True, liable=liability.seat, liable_kind=liability.why)
    payments = (*paid, *win_payments([claim], None, state.preset, state.context()))
    facts = {"liability", liability.why} | ({"dealer_win"} if actor == state.dealer else set())
    after = _with_chips(_changed(state, triggers=state.triggers | facts), payments[len(paid) :])
    notice = Notice(
        "table.forced_end", {"winner": actor, "seat": liability.seat, "why": liability.why, "total": score.total}
    )
    ended = _end_hand(after)
    notices = (notice, *_bust_notices(state, after), *ended.notices)
    factors = tuple(win_factors([claim], state.preset, state.context()))
    return Outcome(ended.state, payments, notices, ((actor, score),), factors)


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
    before = state
    notices: list[Notice] = []
    forced: Liability | None = None
    if event.kind is MeldKind.ADDED_GANG:
        index = _find_pong(state, actor, event.tile)
        pong = state.melds[actor][index]
        record = MeldRecord(MeldKind.ADDED_GANG, event.tile if event.tile is not None else pong.tile, pong.fed_by)
        seat_melds = list(state.melds[actor])
        seat_melds[index] = record
        melds = list(state.melds)
        melds[actor] = tuple(seat_melds)
        state = _changed(state, melds=tuple(melds))
        feeder = pong.fed_by
    elif event.kind is MeldKind.EXPOSED_GANG:
        if event.feeder is None:
            raise EngineError("gang.needs_feeder")
        if event.feeder == actor:
            raise EngineError("pong.own_discard")
        feeder = event.feeder
        record = MeldRecord(MeldKind.EXPOSED_GANG, event.tile, feeder)
        forced = forced_end(state, actor, record)
        state = _add_meld(state, actor, record)
        notices = meld_notices(state, actor, feeder)
    elif event.kind is MeldKind.CONCEALED_GANG:
        feeder = None
        record = MeldRecord(MeldKind.CONCEALED_GANG, event.tile, None)
        forced = forced_end(state, actor, record)
        state = _add_meld(state, actor, record)
    else:
        raise EngineError("gang.unknown_kind", kind=str(event.kind))
    payments = tuple(gang_payments(event.kind.value, actor, feeder, state.preset, state.context()))
    payments = paid_by_gang_liable(state, actor, payments)
    if forced is not None:
        paid = _with_chips(state, payments)
        return _settle_forced(paid, actor, forced, event.hard_flowers, payments)
    after = _with_chips(state, payments)
    after = _changed(
        after,
        hand_gang_payments=(*state.hand_gang_payments, *payments),
        last_added_gang=(actor, payments) if event.kind is MeldKind.ADDED_GANG else None,
        gang_liable=new_gang_liable(state, actor, event.kind, feeder),
    )
    after = _with_act(after, actor, Act(event.kind.value, feeder))
    notices = [*notices, *baozi_notices(after, actor)] if event.kind is not MeldKind.ADDED_GANG else notices
    factors = _instant_factors(state, payments)
    outcome = Outcome(after, payments, (*notices, *_bust_notices(state, after)), factors=factors)
    if event.kind is MeldKind.EXPOSED_GANG:
        return _with_fourth_mouth(before, outcome, actor, record)
    return outcome


def _apply_flower_gang(state: TableState, event: FlowerGang) -> Outcome:
    if state.flower_gangs >= FLOWER_SETS:
        raise EngineError("flower_gang.all_made", count=FLOWER_SETS)
    payments = tuple(gang_payments("flower_gang", event.actor, None, state.preset, state.context()))
    payments = paid_by_gang_liable(state, event.actor, payments)
    after = _with_chips(state, payments)
    after = _changed(
        after, triggers=after.triggers | {"flower_gang"}, last_added_gang=None, flower_gangs=state.flower_gangs + 1
    )
    after = _with_act(after, event.actor, Act("flower_gang"))
    return Outcome(after, payments, tuple(_bust_notices(state, after)), factors=_instant_factors(state, payments))


def _apply_penalty(state: TableState, event: Penalty) -> Outcome:
    if event.kind not in ("penalty_follow", "penalty_four", "penalty_custom", "false_win"):
        raise EngineError("penalty.unknown_kind", kind=event.kind)
    payments = tuple(penalty_payments(event.kind, event.offender, event.amount, state.preset, state.context()))
    after = _with_chips(state, payments)
    after = _changed(after, triggers=after.triggers | {event.kind}, last_added_gang=None)
    after = _with_act(after, event.offender, Act("penalty"))
    notices = _bust_notices(state, after)
    factors = _instant_factors(state, payments)
    if event.kind == "false_win":
        # A false win pushes the tiles down: the hand is over (003 诈胡; the dealer may stay).
        outcome = _end_hand(after)
        return Outcome(outcome.state, payments, (*notices, *outcome.notices), factors=factors)
    return Outcome(after, payments, tuple(notices), factors=factors)


# ---- the win ------------------------------------------------------------------------------------


def reconcile_melds(seat: int, typed: tuple[Meld, ...], logged: tuple[MeldRecord, ...]) -> tuple[Meld, ...]:
    """Merge the melds typed at /hu with those logged during the hand (engine.melds.match_melds)."""
    return match_melds(seat, typed, logged)


def _score_claim(
    state: TableState, claim: WinInput, discarder: int | None, forced: frozenset[str] = frozenset()
) -> WinScore:
    """Score one claim, checked against the table; `forced` patterns are given by a liability (三嘴:
    全球独钓)."""
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
        # the declared patterns are checked against the log where a line is new (bot.night.night's
        # new-line checks, engine.claims.check_declared), not here: a stored win is never dropped
        menqing = state.preset.is_menqing(m.kind for m in logged)
        keys = (*claim.declared, *sorted(forced - set(claim.declared)))
        shown = tuple((m.kind, m.tile) for m in logged)
        return score_declared(keys, claim.flags, state.preset, claim.soft, menqing, shown)
    if claim.winning is None:
        raise EngineError("hand.no_winning_tile")
    melds = reconcile_melds(claim.winner, claim.melds, logged)
    hand = Hand(tuple(sorted(claim.concealed)), melds, claim.winning)
    hand.validate()
    check_claims(claim.flags, state.preset, situation(hand))
    return score_hand(hand, claim.flags, state.preset, table_pongs(state), forced)


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


def _check_win_seats(state: TableState, event: Win) -> None:
    """Who a win names can be: one winner at least, each once, none the discarder, one self-draw at
    most, and no discarder who is bust."""
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


def _apply_win(state: TableState, event: Win) -> Outcome:
    _check_win_seats(state, event)
    ordered = sorted(event.claims, key=lambda c: (c.winner - (event.discarder or 0)) % SEATS)
    claims: list[WinClaim] = []
    scores: list[tuple[int, WinScore]] = []
    notices: list[Notice] = []
    triggers = set(state.triggers)
    for claim in ordered:
        score = _score_claim(state, claim, event.discarder)
        if not score.valid:
            raise WinRefused(score.reason or "win.refused", claim.winner, score, state.preset.small_hu_min_hard)
        liability = liability_at_win(state, claim, score, event.discarder)
        liable = liability.seat if liability is not None else None
        if liability is not None:
            notices.append(Notice("table.liable", {"seat": liable, "winner": claim.winner, "why": liability.why}))
            triggers |= {"liability", liability.why}
            if liability.forced:
                score = _score_claim(state, claim, event.discarder, liability.forced)
        if claim.flags.after_gang:
            triggers.add("dagangkai")
        if score.big:
            triggers.add("big_hu")
        self_draw = event.discarder is None or claim.flags.self_draw or (liability is not None and liability.self_draw)
        claims.append(
            WinClaim(
                claim.winner,
                score,
                self_draw,
                claim.flags.robbing_gang,
                claim.flags.after_gang,
                liable,
                liability.why if liability is not None else None,
            )
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
    after = _with_chips(_changed(state, triggers=frozenset(triggers)), tuple(payments))
    ended = _end_hand(after)
    return Outcome(
        ended.state,
        tuple(payments),
        (*notices, *_bust_notices(state, after), *ended.notices),
        tuple(scores),
        tuple(factors),
    )


def _apply_four_winds(state: TableState, event: FourWinds) -> Outcome:
    payments = tuple(four_winds_payments(event.actor, state.preset, state.context()))
    after = _with_chips(state, payments)
    return Outcome(after, payments, tuple(_bust_notices(state, after)), factors=_instant_factors(state, payments))


def _apply_range_mark(state: TableState, event: RangeMark) -> Outcome:
    """架: only after the seat's fourth meld, made by a pong (§12 全球)."""
    if "quanqiu_range" not in state.preset.liability.kinds:
        raise EngineError("range.not_in_preset", preset=state.preset.name)
    melds = state.melds[event.actor]
    if len(melds) != 4 or melds[-1].kind.value not in state.preset.liability.range_after:
        raise EngineError("range.needs_fourth_pong", seat=event.actor)
    marks = list(state.range_marks)
    marks[event.actor] = event.tile
    after = _changed(state, range_marks=tuple(marks))
    return Outcome(after, (), (Notice("table.range_marked", {"seat": event.actor, "tile": tile_name(event.tile)}),))


def _apply_draw(state: TableState) -> Outcome:
    payments: tuple[Payment, ...] = ()
    if state.preset.instant.refund_gangs_on_draw:
        payments = tuple(refund(state.hand_gang_payments))
    after = _with_chips(_changed(state, triggers=state.triggers | {"draw"}), payments)
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
    next_rules = state.next_preset or preset  # the next hand is doubled by its own rules' factor
    notices = [Notice("table.next_hand", {"hand": state.hand_no + 1, "dealer": dealer})]
    if stays:
        notices.append(Notice("table.dealer_stays", {"dealer": dealer, "streak": streak}))
    if doubled:
        # the warning says why: the facts of this hand that double the next one (a 清一色, a draw …)
        said = {"triggers": ",".join(sorted(facts & preset.triggers)), "factor": next_rules.doubling_factor}
        notices.append(Notice("table.next_doubled", said))
    if passes // SEATS > state.dealer_passes // SEATS:
        notices.append(Notice("table.round_over", {"round": passes // SEATS}))
    if passes > state.dealer_passes and passes == preset.jiang_passes:
        notices.append(Notice("table.jiang_complete", {"passes": passes}))
    new_state = _changed(
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
        gang_liable=None,
        range_marks=(None,) * SEATS,
        waibao_paid=frozenset(),
        flower_gangs=0,
        begun=False,
        preset=state.next_preset or preset,  # the hand just played was settled by its own rules
        next_preset=None,
    )
    return Outcome(new_state, (), tuple(notices))


def apply(state: TableState, event: Event) -> Outcome:
    """Apply one event; raises EngineError (nothing changes) if it is not legal here."""
    for seat in (getattr(event, "actor", None), getattr(event, "offender", None)):
        _check_seat(seat)
    if not isinstance(event, SetDealer | SetRules):  # chores, not play: the hand has not begun by them
        state = _changed(state, gang_liable=gang_liable_lasts(state, event), begun=True)
    # a closed set: an event type with no case here is a type error (mypy), never read as a draw
    match event:
        case Pong():
            return _apply_pong(state, event)
        case Gang():
            return _apply_gang(state, event)
        case FlowerGang():
            return _apply_flower_gang(state, event)
        case Penalty():
            return _apply_penalty(state, event)
        case Win():
            for claim in event.claims:
                _check_seat(claim.winner)
            return _apply_win(state, event)
        case FourWinds():
            return _apply_four_winds(state, event)
        case RangeMark():
            return _apply_range_mark(state, event)
        case SetDealer():
            return _apply_set_dealer(state, event)
        case SetRules():
            return _apply_set_rules(state, event)
        case Draw():
            return _apply_draw(state)
        case _:
            assert_never(event)


def hand_started(state: TableState) -> bool:
    """Whether anything was logged in the current hand (a meld, a payment, a penalty)."""
    return any(act is not None for act in state.last_acts) or any(state.melds) or bool(state.hand_gang_payments)


def _apply_set_dealer(state: TableState, event: SetDealer) -> Outcome:
    _check_seat(event.seat)
    if hand_started(state):
        raise EngineError("dealer.hand_started", hand=state.hand_no)
    after = _changed(state, dealer=event.seat, dealer_streak=0)
    return Outcome(after, (), (Notice("table.dealer_set", {"dealer": event.seat, "hand": state.hand_no}),))


def _apply_set_rules(state: TableState, event: SetRules) -> Outcome:
    """改规则: from the next hand once this one has begun (its money stays as it was played), else
    from this one; one typed in a hand begun then counts from the next hand in every re-derivation
    (docs/rules.md 20)."""
    preset = rules_after(state.next_preset or state.preset, event, bounded=False)  # checked at its door
    later = state.begun or event.next_hand  # the hand it was typed in had begun: the next one, always
    after = _changed(state, next_preset=preset) if later else _changed(state, preset=preset, next_preset=None)
    return Outcome(after, (), (Notice("table.rules_from", {"hand": state.hand_no + later}),))
