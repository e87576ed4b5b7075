"""Who pays whom: instant payments 现场汇 and the settlement of a win (docs/rules.md §4, §8, §9).

Every function returns transfers (payer -> payee, amount), so the payments of any event sum to zero
by construction. Amounts are in the preset's unit: flowers, or chips for the 进园子 presets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.errors import EngineError
from engine.events import SEATS
from engine.preset import Preset
from engine.scoring import WinScore


@dataclass(frozen=True)
class Payment:
    payer: int
    payee: int
    amount: int
    reason: str  # "win", "exposed_gang", "penalty_follow", "refund", ...


@dataclass(frozen=True)
class Factor:
    """One step that turned a win's total (or an instant payment) into what is paid, as data the bot
    renders on its own line: 比下胡 ×2, 垒宝塔 (48 + 10×1) × 2 = 116, 包牌, 抢杠 refund, chips ÷2, app
    multipliers. `seat` is the winner it belongs to (None: the whole event)."""

    key: str  # "bixiahu", "leibaota", "chips", "multipliers", "liable_all", "liable_one", "robbing_refund"
    params: dict[str, int] = field(default_factory=dict)
    seat: int | None = None
    parts: tuple[tuple[str, int], ...] = ()  # "multipliers": (key, factor) per applied multiplier


@dataclass(frozen=True)
class HandContext:
    """What the hand as a whole changes about amounts."""

    doubled: bool = False  # 比下胡
    dealer_streak: int = 0  # times the dealer has stayed in a row (垒宝塔)
    chips: tuple[int, ...] | None = None  # chips left per seat (进园子); None: no cap


@dataclass(frozen=True)
class WinClaim:
    winner: int
    score: WinScore
    self_draw: bool
    robbing_gang: bool = False
    after_gang: bool = False
    liable: int | None = None  # the seat that pays for everyone (包牌)
    liable_kind: str | None = None  # why (the preset's liability kind): 内包 kinds pay shares


def others(seat: int) -> list[int]:
    """The other three seats, in turn order after `seat`."""
    return [(seat + step) % SEATS for step in range(1, SEATS)]


def doubling(preset: Preset, context: HandContext) -> int:
    """比下胡 factor; 敞开头 doubles every hand."""
    return preset.doubling_factor if context.doubled or preset.every_hand_doubled else 1


def cap_to_chips(payments: Sequence[Payment], chips: tuple[int, ...] | None) -> list[Payment]:
    """进园子: a player pays only what he has left; payments are taken in order."""
    if chips is None:
        return [p for p in payments if p.amount > 0]
    left = list(chips)
    capped: list[Payment] = []
    for payment in payments:
        amount = min(payment.amount, max(left[payment.payer], 0))
        if amount > 0:
            left[payment.payer] -= amount
            left[payment.payee] += amount
            capped.append(Payment(payment.payer, payment.payee, amount, payment.reason))
    return capped


def from_each_other(payee: int, amount: int, reason: str) -> list[Payment]:
    return [Payment(payer, payee, amount, reason) for payer in others(payee)]


def to_each_other(payer: int, amount: int, reason: str) -> list[Payment]:
    return [Payment(payer, payee, amount, reason) for payee in others(payer)]


# ---- instant payments ---------------------------------------------------------------------------


def gang_payments(kind: str, actor: int, feeder: int | None, preset: Preset, context: HandContext) -> list[Payment]:
    """Gang money: exposed (feeder pays), added (pong's feeder or each other), concealed (each)."""
    rules = preset.instant
    factor = doubling(preset, context)
    if kind == "exposed_gang":
        if feeder is None:
            raise EngineError("gang.needs_feeder")
        payments = [Payment(feeder, actor, rules.exposed_gang * factor, kind)]
    elif kind == "added_gang":
        if rules.added_gang_payers == "others" or feeder is None:
            payments = from_each_other(actor, rules.added_gang * factor, kind)
        else:
            payments = [Payment(feeder, actor, rules.added_gang * factor, kind)]
    elif kind == "concealed_gang":
        payments = from_each_other(actor, rules.concealed_gang * factor, kind)
    elif kind == "flower_gang":
        payments = from_each_other(actor, rules.flower_gang * factor, kind)
    else:
        raise EngineError("gang.unknown_kind", kind=kind)
    return cap_to_chips(payments, context.chips)


def penalty_amount(kind: str, amount: int | None, preset: Preset) -> int:
    """What the offender pays each other player before 比下胡, or EngineError if the preset cannot
    price it (RULES §4, §7): a custom penalty and a false win are typed unless the preset fixes them
    (jinyuanzi: 诈胡 10 chips, and no other custom penalty)."""
    rules = preset.instant
    if amount is not None and amount <= 0:
        raise EngineError("penalty.bad_amount", amount=amount)
    if kind == "penalty_custom":
        if not rules.custom_penalty:
            raise EngineError("penalty.custom_not_in_preset")
        if amount is None:
            raise EngineError("penalty.needs_amount")
        return amount
    if kind == "false_win":
        if rules.false_win and amount not in (None, rules.false_win):
            raise EngineError("penalty.fixed_amount", amount=rules.false_win)
        if not rules.false_win and amount is None:
            raise EngineError("penalty.false_win_needs_amount")
        return amount if amount is not None else rules.false_win
    fixed = rules.penalty_follow if kind == "penalty_follow" else rules.penalty_four
    return amount if amount is not None else fixed


def penalty_payments(
    kind: str, offender: int, amount: int | None, preset: Preset, context: HandContext
) -> list[Payment]:
    """跟牌, 四张, 诈胡 or a custom penalty: the offender pays each other player."""
    each = penalty_amount(kind, amount, preset)
    payments = to_each_other(offender, each * doubling(preset, context), kind)
    return cap_to_chips(payments, context.chips)


def four_winds_payments(actor: int, preset: Preset, context: HandContext) -> list[Payment]:
    """四风归齐 (敞开头): each other player pays the player."""
    if not preset.instant.four_winds:
        raise EngineError("winds.not_in_preset", preset=preset.name)
    payments = from_each_other(actor, preset.instant.four_winds * doubling(preset, context), "four_winds")
    return cap_to_chips(payments, context.chips)


# ---- the win ------------------------------------------------------------------------------------


def _round_half_up(numerator: int, denominator: int) -> int:
    return (2 * numerator + denominator) // (2 * denominator)


def share(claim: WinClaim, preset: Preset, context: HandContext) -> int:
    """What one payer owes the winner: total (+ 垒宝塔) in the preset's unit, x2 in 比下胡, x app
    multipliers."""
    return share_steps(claim, preset, context)[0]


def share_steps(claim: WinClaim, preset: Preset, context: HandContext) -> tuple[int, tuple[Factor, ...]]:
    """One payer's share and the steps that made it from the win's total, in the order applied."""
    flowers = claim.score.total
    if claim.score.flat:
        return flowers, ()  # 敞开头 天胡: a flat amount, never doubled
    seat = claim.winner
    factor = doubling(preset, context)
    steps: list[Factor] = []
    leibaota = bool(context.doubled and preset.leibaota_step)
    if leibaota:
        flowers += preset.leibaota_step * context.dealer_streak
    amount = flowers
    if preset.chips.enabled:
        amount = _round_half_up(flowers, preset.chips.divisor)
        steps.append(Factor("chips", {"flowers": flowers, "divisor": preset.chips.divisor, "chips": amount}, seat))
    if leibaota:
        params = {
            "total": claim.score.total,
            "step": preset.leibaota_step,
            "streak": context.dealer_streak,
            "factor": factor,
            "result": amount * factor,
        }
        steps.append(Factor("leibaota", params, seat))
    elif factor > 1:
        steps.append(Factor("bixiahu", {"factor": factor}, seat))
    rules = preset.multipliers
    applied: list[tuple[str, int]] = []
    if claim.self_draw and not claim.robbing_gang:
        applied.append(("self_draw", rules.self_draw))
    if claim.after_gang:
        applied.append(("after_gang", rules.after_gang))
    if claim.robbing_gang:
        applied.append(("robbing_gang", rules.robbing_gang))
    applied = [(key, value) for key, value in applied if value > 1]
    multiplier = 1
    for _, value in applied:
        multiplier *= value
    multiplier = min(multiplier, max(rules.cap, 1))
    if applied:
        steps.append(Factor("multipliers", {"factor": multiplier}, seat, tuple(applied)))
    return amount * factor * multiplier, tuple(steps)


def win_factors(claims: Sequence[WinClaim], preset: Preset, context: HandContext) -> list[Factor]:
    """The steps of every claim of a win, and who pays for everyone (包牌)."""
    factors: list[Factor] = []
    for claim in claims:
        if claim.score.takes_all:
            continue
        if claim.liable is not None and preset.liability.mode == "fixed":
            fixed = {"amount": preset.liability.fixed * doubling(preset, context), "liable": claim.liable}
            factors.append(Factor("liable_fixed", fixed, claim.winner))
            continue
        factors.extend(share_steps(claim, preset, context)[1])
        if claim.liable is not None:
            everyone = claim.self_draw or claim.robbing_gang
            factors.append(Factor("liable_all" if everyone else "liable_one", {"liable": claim.liable}, claim.winner))
    return factors


def _claim_payments(claim: WinClaim, discarder: int | None, preset: Preset, context: HandContext) -> list[Payment]:
    winner = claim.winner
    if claim.score.takes_all:
        if context.chips is None:
            raise EngineError("win.takes_all_needs_chips")
        return [Payment(payer, winner, context.chips[payer], "win") for payer in others(winner)]
    everyone_pays = claim.self_draw or claim.robbing_gang
    if claim.liable is not None:
        if preset.liability.mode == "fixed" and claim.liable_kind not in preset.liability.shares_kinds:
            return [Payment(claim.liable, winner, preset.liability.fixed * doubling(preset, context), "liability")]
        shares = SEATS - 1 if everyone_pays else 1
        return [Payment(claim.liable, winner, share(claim, preset, context) * shares, "liability")]
    amount = share(claim, preset, context)
    if everyone_pays:
        return from_each_other(winner, amount, "win")
    if discarder is None:
        raise EngineError("win.needs_discarder")
    return [Payment(discarder, winner, amount, "win")]


def win_payments(
    claims: Sequence[WinClaim], discarder: int | None, preset: Preset, context: HandContext
) -> list[Payment]:
    """Payments of one win event; several claims are several winners on one discard, in turn order."""
    payments: list[Payment] = []
    for claim in claims:
        payments.extend(_claim_payments(claim, discarder, preset, context))
    return cap_to_chips(payments, context.chips)


def refund(payments: Sequence[Payment]) -> list[Payment]:
    """The exact reversal of some payments (undo, app draw refund, robbed gang). A reversal keeps
    the original reason, so gang or penalty money nets to zero once given back."""
    return [Payment(p.payee, p.payer, p.amount, p.reason) for p in payments]
