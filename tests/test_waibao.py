"""jinyuanzi 外包 as seed 003 words it (docs/rules.md §8, last liability bullet), each case as a short night.

外包 is the fixed 50 chips (100 in a 比下胡 hand). 抢杠 and 大杠开 are 内包: three shares in chips.
Seats: A=0 (East, the first dealer), B=1, C=2, D=3.
"""

from __future__ import annotations

from engine.events import Draw, Gang, Pong, RangeMark
from engine.hand import MeldKind
from engine.preset import load_preset
from engine.settlement import Payment
from engine.table import TableState, new_table
from engine.tiles import suited, wind
from tests.kit.harness import Table
from tests.kit.table_play import hu, play

A, B, C, D = range(4)
M, P, S = 0, 1, 2


def fresh(preset: str = "jinyuanzi") -> TableState:
    return new_table(load_preset(preset))


THREE_FROM_C = (Pong(B, C, suited(1, M)), Pong(B, C, suited(2, P)), Pong(B, C, wind(0)))


def test_a_fourth_mouth_costs_the_three_mouth_feeder_waibao_at_once_win_or_not() -> None:
    # B holds three mouths, all from C; D feeds B a fourth (9s): C pays B 50 on the pong itself.
    state, paid, outcomes = play(fresh(), *THREE_FROM_C, Pong(B, D, suited(9, S)))
    assert paid == {A: 0, B: 50, C: -50, D: 0}
    assert outcomes[-1].payments == (Payment(C, B, 50, "liability"),)
    # B does not win: the hand is a draw. 包牌 doubled the next hand; the draw keeps A dealing (003).
    state, _, _ = play(state, Draw())
    assert state.doubled and state.dealer == A


def test_after_the_fourth_mouth_waibao_b_winning_duiduihu_is_settled_as_usual() -> None:
    # B wins 对对胡 on A's discard: 跑 20 + 2 hard (1×2) + 风刻 2 + 对对胡 40 = 64 flowers = 32 chips, A pays;
    # C's 外包 was already paid at the fourth mouth (three suits: no 缺门; 单钓 goes with 对对胡).
    events = (*THREE_FROM_C, Pong(B, D, suited(9, S)), hu(B, "5p [111m] [222p] [EEE] [999s] +5p", A, hard_flowers=1))
    _, paid, _ = play(fresh(), *events)
    assert paid == {A: -32, B: 50 + 32, C: -50, D: 0}


def test_a_concealed_gang_counts_as_a_mouth_the_feeder_gave() -> None:
    # two pongs from C and B's concealed gang: three mouths "all from C"; A feeds the fourth (an exposed gang)
    events = (
        Pong(B, C, suited(1, M)),
        Pong(B, C, suited(2, P)),
        Gang(B, MeldKind.CONCEALED_GANG, None, wind(0)),
        Gang(B, MeldKind.EXPOSED_GANG, A, suited(9, S)),
    )
    _, paid, _ = play(fresh(), *events)
    assert paid == {A: 0, B: 50, C: -50, D: 0}  # jinyuanzi gangs cost nothing at once


def test_three_mouths_from_two_feeders_owe_nothing_at_the_fourth() -> None:
    events = (Pong(B, C, suited(1, M)), Pong(B, C, suited(2, P)), Pong(B, D, wind(0)), Pong(B, A, suited(9, S)))
    _, paid, _ = play(fresh(), *events)
    assert paid == {A: 0, B: 0, C: 0, D: 0}


def test_waibao_is_100_in_a_bixiahu_hand() -> None:
    _, paid, outcomes = play(fresh(), Pong(B, A, wind(1)), Draw(), *THREE_FROM_C, Pong(B, D, suited(9, S)))
    # hand 1: B's pong from A, then a draw (the dealer stays: 连庄 doubles hand 2); 外包 ×2 = 100 owed,
    # but C has only his 95 chips: he pays 95 and is bust (进园子, §7)
    assert paid == {A: 0, B: 95, C: -95, D: 0}
    assert any(n.key == "table.bust" and n.params["seat"] == C for n in outcomes[-1].notices)
    # with 200 chips each, the full 100 is paid
    rich = TableState(**{**fresh().__dict__, "chips": (200, 200, 200, 200)})
    _, paid, _ = play(rich, Pong(B, A, wind(1)), Draw(), *THREE_FROM_C, Pong(B, D, suited(9, S)))
    assert paid == {A: 0, B: 100, C: -100, D: 0}


RANGE_MELDS = (Pong(B, A, suited(1, P)), Pong(B, C, suited(9, S)), Pong(B, D, wind(0)), Pong(B, A, wind(1)))


def test_a_discard_in_the_marked_range_into_bs_win_owes_waibao() -> None:
    # B's fourth mouth (S from A), then B discards 5m: 架 5m marks 3m-7m. C discards 4m into B's win.
    events = (*RANGE_MELDS, RangeMark(B, suited(5, M)), hu(B, "4m [111p] [999s] [EEE] [SSS] +4m", C, hard_flowers=1))
    _, paid, outcomes = play(fresh(), *events)
    assert paid == {A: 0, B: 50, C: -50, D: 0}
    assert any(n.key == "table.liable" and n.params["why"] == "quanqiu_range" for n in outcomes[-1].notices)


def test_a_discard_outside_the_range_is_an_ordinary_win() -> None:
    # 8m is outside 3m-7m: C pays the win. 跑 20 + 2 hard + 风刻 2×2 + 对对胡 40 = 66 flowers = 33 chips
    events = (*RANGE_MELDS, RangeMark(B, suited(5, M)), hu(B, "8m [111p] [999s] [EEE] [SSS] +8m", C, hard_flowers=1))
    _, paid, _ = play(fresh(), *events)
    assert paid == {A: 0, B: 33, C: -33, D: 0}


QINGYISE_MELDS = (Pong(B, A, suited(1, M)), Pong(B, C, suited(2, M)), Pong(B, D, suited(3, M)))


def test_discarding_into_a_three_mouth_qingyise_owes_waibao() -> None:
    # B shows three 万 melds (any feeders); A discards 9m into B's 清一色: A owes 外包 50
    events = (*QINGYISE_MELDS, hu(B, "456m 9m [111m] [222m] [333m] +9m", A, hard_flowers=1))
    _, paid, _ = play(fresh(), *events)
    assert paid == {A: -50, B: 50, C: 0, D: 0}


def test_feeding_the_fourth_mouth_of_that_suit_owes_waibao_on_bs_qingyise() -> None:
    # C feeds B a fourth 万 mouth (5m); B self-draws 清一色: C owes 外包 50 (not each other player's share)
    events = (*QINGYISE_MELDS, Pong(B, C, suited(5, M)), hu(B, "9m [111m] [222m] [333m] [555m] +9m", hard_flowers=1))
    _, paid, _ = play(fresh(), *events)
    assert paid == {A: 0, B: 50, C: -50, D: 0}


def test_robbing_a_gang_is_neibao_three_shares_in_chips() -> None:
    # D robs C's added 5p: 20 + 2×2 hard + 缺门 2 + 门清 20 = 46 flowers = 23 chips; C pays three shares (69)
    events = (
        Pong(C, A, suited(5, P)),
        Gang(C, MeldKind.ADDED_GANG, None, suited(5, P)),
        hu(D, "123m 456m 789m 34p 99p +5p", C, hard_flowers=2, robbing_gang=True),
    )
    _, paid, _ = play(fresh(), *events)
    assert paid == {A: 0, B: 0, C: -69, D: 69}


def test_dagangkai_is_neibao_the_gangs_feeder_pays_three_shares() -> None:
    # jinyuanzi-ben (跑 10): D ponged A's 7s, ganged B's 2p, won on the replacement.
    # 10 + 2 hard (1×2) + 明杠 2 + 大杠开 40 = 54 flowers = 27 chips (three suits, two-sided 45m, a pong: none
    # of 缺门, a wait flower or 门清); B pays three shares, 81.
    events = (
        Pong(D, A, suited(7, S)),
        Gang(D, MeldKind.EXPOSED_GANG, B, suited(2, P)),
        hu(D, "123m 45m 66s [777s] [2222p] +6m", hard_flowers=1, after_gang=True),
    )
    _, paid, _ = play(fresh("jinyuanzi-ben"), *events)
    assert paid == {A: 0, B: -81, C: 0, D: 81}


async def test_the_fourth_mouth_waibao_is_recorded_on_the_pong(table: Table) -> None:
    await table.play(
        """
        /new Alice Bob Carol Dave preset=jinyuanzi
        Bob: /pong Carol 1m
        Bob: /pong Carol 2p
        Bob: /pong Carol E
        """
    )
    out = await table.say("Bob: /pong Dave 9s")
    assert "外包" in out
    assert await table.balances() == {"Alice": 0, "Bob": 50, "Carol": -50, "Dave": 0}
