"""Who pays for everyone (包牌/包子, docs/rules.md §8, §12): the liability rules, read off the hand so far.

At a win, the preset's liability kinds are asked in the order it lists them and the first that
applies is the only one that pays (`liability_at_win`). At a meld, a 快照 or 三嘴 is announced, and
a 三嘴's fourth mouth or a 三清's fourth meld may end the hand at once (`forced_end`). 杠后承包 runs
from a gang until the gang-maker's next discard. Nothing here moves money: engine/table.py settles
what these rules name.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from engine.baozi import SANQING_MELDS, SANZUI_MOUTHS, WINDS, in_range, sanqing_suit, sanzui_feeder, suit_key
from engine.events import Act, Event, FlowerGang, Gang, MeldRecord, Notice, Win, WinInput
from engine.hand import MeldKind
from engine.preset import Preset
from engine.scoring import WinScore
from engine.settlement import Payment
from engine.tiles import Tile, suit_of

KUAIZHAO_MOUTHS = 3


class HandSoFar(Protocol):
    """What the liability rules read of the table in the hand being played (engine.table.TableState
    is one): the rules ask about the hand and never play an event."""

    @property
    def preset(self) -> Preset: ...
    @property
    def melds(self) -> tuple[tuple[MeldRecord, ...], ...]: ...
    @property
    def last_acts(self) -> tuple[Act | None, ...]: ...
    @property
    def gang_liable(self) -> tuple[int, int] | None: ...
    @property
    def range_marks(self) -> tuple[Tile | None, ...]: ...
    @property
    def waibao_paid(self) -> frozenset[int]: ...


@dataclass(frozen=True)
class Liability:
    """Who pays for everyone (包牌/包子) at a win, and what the liability itself gives the win."""

    seat: int
    why: str  # the preset's liability kind
    forced: frozenset[str] = frozenset()  # patterns the rule gives (三嘴: 全球独钓)
    self_draw: bool = False  # settled as a self-draw: the liable seat pays all three shares


def mouths_from(state: HandSoFar, taker: int) -> Counter[int]:
    """How many mouths 嘴 each feeder gave `taker` in this hand."""
    return Counter(m.fed_by for m in state.melds[taker] if m.kind.is_mouth and m.fed_by is not None)


def kuaizhao_feeder(state: HandSoFar, taker: int) -> int | None:
    """The seat that fed `taker` three mouths (快照), if any; a preset may count `taker`'s concealed
    gangs toward it (002: two mouths + a concealed gang, one mouth + two concealed gangs)."""
    concealed = sum(1 for m in state.melds[taker] if m.kind is MeldKind.CONCEALED_GANG)
    extra = concealed if state.preset.liability.kuaizhao_concealed_counts else 0
    for feeder, count in mouths_from(state, taker).most_common():
        if count + extra >= KUAIZHAO_MOUTHS:
            return feeder
    return None


def meld_notices(state: HandSoFar, taker: int, feeder: int | None) -> list[Notice]:
    notices: list[Notice] = []
    if "kuaizhao" in state.preset.liability.kinds and feeder is not None:
        count = mouths_from(state, taker)[feeder]
        if count == KUAIZHAO_MOUTHS:
            notices.append(Notice("table.kuaizhao", {"feeder": feeder, "taker": taker}))
        elif count > KUAIZHAO_MOUTHS and not state.preset.liability.fourth_mouth_at_once:
            # the hand ends at once: the notice gives the line to send (003's 外包 is paid here instead)
            notices.append(Notice("table.kuaizhao_fourth", {"feeder": feeder, "taker": taker}))
    melds = state.melds[taker]
    suits = {suit_of(m.tile) for m in melds if m.tile is not None}
    known = all(m.tile is not None for m in melds)
    if "qingyise_three" in state.preset.liability.kinds and len(melds) == 3 and known and len(suits) == 1:
        suit = next(iter(suits))
        if suit is not None:
            notices.append(Notice("table.qingyise_three", {"taker": taker, "suit": "mps"[suit]}))
    return notices


# ---- 敞开头 包子 at a meld (RULES §12) -----------------------------------------------------------


def forced_end(before: HandSoFar, actor: int, record: MeldRecord) -> Liability | None:
    """A new mouth or meld that ends the hand at once: 三嘴's fourth mouth, 三清's fourth meld."""
    for kind in before.preset.liability.kinds:
        if kind == "sanzui" and (feeder := sanzui_feeder(before.melds[actor])) is not None:
            forced = "quanqiu" if record.fed_by in (None, feeder) else "duiduihu"
            return Liability(feeder, kind, frozenset({forced}), self_draw=True)
        showing = before.melds[actor]
        suit = sanqing_suit(showing) if kind == "sanqing" and len(showing) == SANQING_MELDS else None
        feeder, tile = record.fed_by, record.tile
        if suit is not None and feeder is not None and tile is not None and suit_key(tile) == suit:
            forced_keys = {"quanqiu"} if suit == WINDS else {"qingyise", "quanqiu"}
            return Liability(feeder, kind, frozenset(forced_keys), self_draw=True)
    return None


def baozi_notices(state: HandSoFar, actor: int) -> list[Notice]:
    """Tell the table when a 三嘴 locks or a seat shows 三清, so the feeders know what they risk."""
    kinds = state.preset.liability.kinds
    melds = state.melds[actor]
    notices: list[Notice] = []
    if "sanzui" in kinds and len(melds) == SANZUI_MOUTHS and (feeder := sanzui_feeder(melds)) is not None:
        notices.append(Notice("table.sanzui", {"feeder": feeder, "taker": actor}))
    if "sanqing" in kinds and len(melds) == SANQING_MELDS and (suit := sanqing_suit(melds)) is not None:
        notices.append(Notice("table.sanqing", {"taker": actor, "suit": suit}))
    return notices


def paid_by_gang_liable(state: HandSoFar, actor: int, payments: tuple[Payment, ...]) -> tuple[Payment, ...]:
    """杠后承包: while it lasts, the liable seat pays the gang-maker what the others would pay him."""
    if state.gang_liable is None or state.gang_liable[0] != actor:
        return payments
    liable = state.gang_liable[1]
    return tuple(Payment(liable, p.payee, p.amount, p.reason) if p.payee == actor else p for p in payments)


def new_gang_liable(state: HandSoFar, actor: int, kind: MeldKind, feeder: int | None) -> tuple[int, int] | None:
    """杠后承包 starts with an exposed gang (its feeder) or an added gang (the pong's feeder). The
    first liable player is never replaced (RULES §12): a further gang by the same player before he
    discards keeps the running one, and its money is paid by that liable player too."""
    if "gang_after" not in state.preset.liability.kinds:
        return None
    running = state.gang_liable
    if (running is not None and running[0] == actor) or kind is MeldKind.CONCEALED_GANG or feeder is None:
        return running
    return (actor, feeder)


def gang_liable_lasts(state: HandSoFar, event: Event) -> tuple[int, int] | None:
    """杠后承包 lasts until the gang-maker next discards. The table never sees a discard: it learns of
    it from any later event by another player, from his own pong, penalty, 四风 or 架 (all after a
    discard), or from a win on a discard. His own concealed or added gang, his flower gang and his
    self-draw come before his discard, so they keep it."""
    current = state.gang_liable
    if current is None:
        return None
    maker = current[0]
    own_turn = (
        (isinstance(event, Gang) and event.actor == maker and event.kind is not MeldKind.EXPOSED_GANG)
        or (isinstance(event, FlowerGang) and event.actor == maker)
        or (isinstance(event, Win) and event.discarder is None and [c.winner for c in event.claims] == [maker])
    )
    return current if own_turn else None


# ---- at a win -----------------------------------------------------------------------------------


def _robbing_gang(state: HandSoFar, claim: WinInput, score: WinScore, discarder: int | None) -> Liability | None:
    if claim.flags.robbing_gang and discarder is not None:
        return Liability(discarder, "robbing_gang")
    return None


def _dagangkai(state: HandSoFar, claim: WinInput, score: WinScore, discarder: int | None) -> Liability | None:
    """大杠开花: the gang just made (the claim was checked) makes its feeder liable if it was exposed or
    added; after a concealed gang or a flower gang it is an ordinary self-draw (RULES §5, §8)."""
    act = state.last_acts[claim.winner]
    if not claim.flags.after_gang or act is None or act.feeder is None:
        return None
    return Liability(act.feeder, "dagangkai") if act.kind in ("exposed_gang", "added_gang") else None


def _kuaizhao(state: HandSoFar, claim: WinInput, score: WinScore, discarder: int | None) -> Liability | None:
    """快照 (RULES §8): B took three mouths from A. If A fed the fourth, B wins at once as 对对胡 +
    全球独钓 (+清一色/混一色 when the melds allow) and A pays all three shares, whether the win is
    typed as a self-draw or on A's discard. A later 对对胡 by B: A pays in place of the discarder."""
    if claim.winner in state.waibao_paid:
        return None  # (003: a 外包 already paid at the fourth mouth settles the 快照)
    feeder = kuaizhao_feeder(state, claim.winner)
    if feeder is None:
        return None
    if discarder in (None, feeder) and _fed_fourth_mouth(state, claim.winner, feeder):
        return Liability(feeder, "kuaizhao", _kuaizhao_forced(state.melds[claim.winner]), self_draw=True)
    return Liability(feeder, "kuaizhao") if "duiduihu" in score.keys else None


def _fed_fourth_mouth(state: HandSoFar, taker: int, feeder: int) -> bool:
    """The taker's last event is his fourth meld, a mouth fed by the 快照 feeder: the hand ends there."""
    act = state.last_acts[taker]
    fed = act is not None and act.kind in ("pong", "exposed_gang") and act.feeder == feeder
    return fed and len(state.melds[taker]) == KUAIZHAO_MOUTHS + 1


def _kuaizhao_forced(melds: tuple[MeldRecord, ...]) -> frozenset[str]:
    """对对胡 + 全球独钓, and 清一色 (or 混一色 with wind melds) when every meld's tile is known and of
    one suit: the melds decide, as the tile left in hand is not shown (docs/rules.md)."""
    forced = {"duiduihu", "quanqiu"}
    tiles = [m.tile for m in melds if m.tile is not None]
    if len(tiles) == len(melds):
        suits = {suit_of(tile) for tile in tiles}
        if len(suits - {None}) == 1:
            forced.add("hunyise" if None in suits else "qingyise")  # suit_of: None for a wind
    return frozenset(forced)


def _qingyise_three(state: HandSoFar, claim: WinInput, score: WinScore, discarder: int | None) -> Liability | None:
    melds = state.melds[claim.winner]
    if "qingyise" not in score.keys or len(melds) != 4:
        return None
    first_suits = {suit_of(m.tile) for m in melds[:3] if m.tile is not None}
    last = melds[3]
    same = len(first_suits) == 1 and last.tile is not None and suit_of(last.tile) in first_suits
    return Liability(last.fed_by, "qingyise_three") if same and last.fed_by is not None else None


def _qingyise_discard(state: HandSoFar, claim: WinInput, score: WinScore, discarder: int | None) -> Liability | None:
    """003: whoever discards into the 清一色 of a player showing three melds of one suit owes 外包."""
    melds = state.melds[claim.winner]
    suits = {suit_of(m.tile) if m.tile is not None else None for m in melds}
    one_suit = len(melds) == 3 and len(suits) == 1 and None not in suits
    if discarder is None or not one_suit or "qingyise" not in score.keys:
        return None
    return Liability(discarder, "qingyise_discard")


def _sanzui(state: HandSoFar, claim: WinInput, score: WinScore, discarder: int | None) -> Liability | None:
    """三嘴 at a win: B's 对对胡 self-drawn or on A's discard is B's 全球独钓 self-draw; on C's or D's
    discard it is B's 对对胡 self-draw. A pays all three shares."""
    feeder = sanzui_feeder(state.melds[claim.winner])
    if feeder is None or not {"duiduihu", "quanqiu"} & score.keys:
        return None
    forced = frozenset({"quanqiu"}) if discarder in (None, feeder) else frozenset()
    return Liability(feeder, "sanzui", forced, self_draw=True)


def _sanqing(state: HandSoFar, claim: WinInput, score: WinScore, discarder: int | None) -> Liability | None:
    """三清 at a win: B discarding into A's 清一色 pays A's self-draw (清一色 对对胡: 清一色 + 全球独钓)."""
    if discarder is None or sanqing_suit(state.melds[claim.winner]) is None or "qingyise" not in score.keys:
        return None
    forced = frozenset({"quanqiu"}) if "duiduihu" in score.keys else frozenset()
    return Liability(discarder, "sanqing", forced, self_draw=True)


def _quanqiu_range(state: HandSoFar, claim: WinInput, score: WinScore, discarder: int | None) -> Liability | None:
    """全球: a discard inside the range B marked (架) that B wins on as 全球独钓."""
    mark = state.range_marks[claim.winner]
    quanqiu = "quanqiu" in score.keys or len(state.melds[claim.winner]) == 4  # jinyuanzi scores no 全球独钓
    if discarder is None or mark is None or claim.winning is None or not quanqiu:
        return None
    return Liability(discarder, "quanqiu_range", self_draw=True) if in_range(mark, claim.winning) else None


def _gang_after(state: HandSoFar, claim: WinInput, score: WinScore, discarder: int | None) -> Liability | None:
    """杠后承包: B self-draws before his next discard; A pays the three shares."""
    current = state.gang_liable
    if discarder is None and current is not None and current[0] == claim.winner:
        return Liability(current[1], "gang_after", self_draw=True)
    return None


_LIABILITY_CHECKS = {
    "robbing_gang": _robbing_gang,
    "dagangkai": _dagangkai,
    "kuaizhao": _kuaizhao,
    "qingyise_three": _qingyise_three,
    "qingyise_discard": _qingyise_discard,
    "sanzui": _sanzui,
    "sanqing": _sanqing,
    "quanqiu_range": _quanqiu_range,
    "gang_after": _gang_after,
}


def liability_at_win(state: HandSoFar, claim: WinInput, score: WinScore, discarder: int | None) -> Liability | None:
    """Who pays for everyone (包牌/包子) for one winner: the first of the preset's kinds that applies."""
    for kind in state.preset.liability.kinds:
        found = _LIABILITY_CHECKS[kind](state, claim, score, discarder)
        if found is not None:
            return found
    return None
