"""docs/rules.md §4, §8, §9: exact amounts between specific people.

Seats: A=0 (East, first dealer), B=1, C=2, D=3. Every expected figure is worked out by hand in the
comment next to it; feeders are chosen so that two different readings of a rule (first vs last gang,
first vs fourth mouth) give different payers.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.events import Draw, Event, FlowerGang, Gang, Penalty, Pong, Win
from engine.hand import Hand, MeldKind
from engine.notation import parse_hand_parts, parse_tile
from engine.preset import load_preset
from engine.scoring import score_hand
from engine.table import TableState, apply
from engine.units import WinFlags
from tests.kit.hands import EXAMPLE_1, EXAMPLE_2, KUAIZHAO
from tests.kit.table_play import claim, fresh, hu, net, run

A, B, C, D = range(4)


def t(name: str) -> int:
    return parse_tile(name)


# ---- instant payments per preset (§4) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "exposed", "added", "concealed", "flower", "follow", "four"),
    [
        ("nanjing", 6, 6, 3, 6, 10, 10),
        ("nanjing-6", 6, 6, 3, 6, 6, 6),  # 002's penalties of 6
        ("nanjing-20", 20, 20, 20, 20, 10, 10),  # 000 其他规则: 20/20/20
        ("chengbei", 6, 6, 3, 6, 10, 10),
        ("jinyuanzi", 0, 0, 0, 0, 0, 0),
        ("jinyuanzi-ben", 0, 0, 0, 0, 0, 0),
        ("changkaitou", 20, 20, 10, 20, 10, 10),  # §12: 10/10/5, 花杠 10, 罚 5, every hand ×2
    ],
)
def test_instant_payments_between_the_right_people(
    preset: str, exposed: int, added: int, concealed: int, flower: int, follow: int, four: int
) -> None:
    state = fresh(preset)
    # exposed gang: A gangs B's discard, B -> A
    assert net(apply(state, Gang(A, MeldKind.EXPOSED_GANG, B, t("7p"))).payments) == {
        A: exposed,
        B: -exposed,
        C: 0,
        D: 0,
    }
    # added gang: the pong's feeder C pays (D is the one who does not pay)
    added_out = run(state, Pong(A, C, t("7p")), Gang(A, MeldKind.ADDED_GANG, None, t("7p")))
    assert net(added_out.payments) == {A: added, B: 0, C: -added, D: 0}
    # concealed gang by D: each other pays
    assert net(apply(state, Gang(D, MeldKind.CONCEALED_GANG, None, t("7p"))).payments) == {
        A: -concealed,
        B: -concealed,
        C: -concealed,
        D: 3 * concealed,
    }
    assert net(apply(state, FlowerGang(C)).payments) == {A: -flower, B: -flower, C: 3 * flower, D: -flower}
    assert net(apply(state, Penalty("penalty_follow", B)).payments) == {A: follow, B: -3 * follow, C: follow, D: follow}
    assert net(apply(state, Penalty("penalty_four", D)).payments) == {A: four, B: four, C: four, D: -3 * four}


def test_app_instant_payments() -> None:
    # §4 app column: exposed 15 from the discarder; added 5 from each other; concealed 20 each.
    state = fresh("app")
    assert net(apply(state, Gang(B, MeldKind.EXPOSED_GANG, D, t("7p"))).payments) == {A: 0, B: 15, C: 0, D: -15}
    added = run(state, Pong(B, C, t("7p")), Gang(B, MeldKind.ADDED_GANG, None, t("7p")))
    assert net(added.payments) == {A: -5, B: 15, C: -5, D: -5}
    assert net(apply(state, Gang(C, MeldKind.CONCEALED_GANG, None, t("7p"))).payments) == {
        A: -20,
        B: -20,
        C: 60,
        D: -20,
    }


def test_custom_penalty_is_paid_to_each_other_as_typed() -> None:
    # 逃跑 50 (000): C pays each other 50.
    assert net(apply(fresh(), Penalty("penalty_custom", C, 50)).payments) == {A: 50, B: 50, C: -150, D: 50}


def test_jinyuanzi_false_win_is_10_chips_to_each_other() -> None:
    assert net(apply(fresh("jinyuanzi"), Penalty("false_win", C)).payments) == {A: 10, B: 10, C: -30, D: 10}


# ---- liability 包牌 (§8) -------------------------------------------------------------------------

# D's hand after two exposed gangs: 123m 456m 5p [2222p] [7777s] +5p.
# nanjing: soft: hard 1 + two gangs 2×2 + 独占 1 (sole wait on 5p) = 6; 门清 kept by direct gangs;
# 20 + 2×6 + 门清 20 + 大杠开 40 = 92.
TWO_GANGS = "123m 456m 5p [2222p] [7777s] +5p"


def test_dagangkai_the_feeder_of_the_last_gang_pays_not_the_first() -> None:
    state = run(
        fresh(),
        Gang(D, MeldKind.EXPOSED_GANG, B, t("2p")),  # first gang fed by B
        Gang(D, MeldKind.EXPOSED_GANG, C, t("7s")),  # the last, fed by C: D wins on its replacement
    ).state
    outcome = apply(state, hu(D, TWO_GANGS, None, hard_flowers=1, after_gang=True))
    assert outcome.scores[0][1].total == 92
    assert net(outcome.payments) == {A: 0, B: 0, C: -3 * 92, D: 3 * 92}


def test_dagangkai_after_an_added_gang_the_pongs_feeder_pays_three_shares() -> None:
    # B fed the pong of 7s that D upgrades; 123m 456m 5p [2222p] {7777s} +5p: the added gang loses 门清:
    # 20 + 2×(1 + 2 + 2 + 1) + 40 = 72; B pays 3 × 72 = 216 (C fed the first gang and pays nothing).
    state = run(
        fresh(),
        Gang(D, MeldKind.EXPOSED_GANG, C, t("2p")),
        Pong(D, B, t("7s")),
        Gang(D, MeldKind.ADDED_GANG, None, t("7s")),
    ).state
    outcome = apply(state, hu(D, "123m 456m 5p [2222p] {7777s} +5p", None, hard_flowers=1, after_gang=True))
    assert net(outcome.payments) == {A: 0, B: -216, C: 0, D: 216}


def test_dagangkai_after_a_concealed_last_gang_is_an_ordinary_self_draw() -> None:
    # The first gang was fed by B, but the last one is concealed: nobody is liable. Hand
    # 123m 456m 5p [2222p] (7777s) +5p = 92 as above (a concealed gang is 2 soft too): each pays 92.
    state = run(
        fresh(),
        Gang(D, MeldKind.EXPOSED_GANG, B, t("2p")),
        Gang(D, MeldKind.CONCEALED_GANG, None, t("7s")),
    ).state
    outcome = apply(state, hu(D, "123m 456m 5p [2222p] (7777s) +5p", None, hard_flowers=1, after_gang=True))
    assert net(outcome.payments) == {A: -92, B: -92, C: -92, D: 276}


def _three_mouths_from_c(preset: str = "nanjing") -> TableState:
    return run(fresh(preset), Pong(B, C, t("1m")), Pong(B, C, t("2p")), Pong(B, C, t("E"))).state


def test_kuaizhao_discard_win_the_feeder_pays_one_share_instead_of_the_discarder() -> None:
    outcome = apply(_three_mouths_from_c(), hu(B, KUAIZHAO, D, hard_flowers=1))
    assert net(outcome.payments) == {A: 0, B: 64, C: -64, D: 0}


def test_kuaizhao_self_draw_the_feeder_pays_all_three_shares() -> None:
    outcome = apply(_three_mouths_from_c(), hu(B, KUAIZHAO, None, hard_flowers=1))
    assert net(outcome.payments) == {A: 0, B: 192, C: -192, D: 0}


def test_kuaizhao_needs_three_mouths_from_the_same_feeder() -> None:
    # Mouths from C, C and D: no 快照; D's discard win is paid by D: 64.
    state = run(fresh(), Pong(B, C, t("1m")), Pong(B, C, t("2p")), Pong(B, D, t("E"))).state
    assert net(apply(state, hu(B, KUAIZHAO, D, hard_flowers=1)).payments) == {A: 0, B: 64, C: 0, D: -64}


def test_nanjing_6_counts_a_concealed_gang_toward_kuaizhao() -> None:
    # 002: two mouths from C plus B's concealed gang. 999s 5p [111m] [222p] (EEEE) +5p:
    # soft: hard 1 + 风碰 1 + gang 2 = 4; 20 + 2×4 + 对对胡 40 = 68. nanjing-6: C pays; nanjing: D pays.
    hand = "999s 5p [111m] [222p] (EEEE) +5p"
    events = (Pong(B, C, t("1m")), Pong(B, C, t("2p")), Gang(B, MeldKind.CONCEALED_GANG, None, t("E")))
    six = apply(run(fresh("nanjing-6"), *events).state, hu(B, hand, D, hard_flowers=1))
    assert net(six.payments) == {A: 0, B: 68, C: -68, D: 0}
    plain = apply(run(fresh("nanjing"), *events).state, hu(B, hand, D, hard_flowers=1))
    assert net(plain.payments) == {A: 0, B: 68, C: 0, D: -68}


# B's three melds are all 万, fed by A, C and D; the fourth 万 meld is fed by C.
# 9m [111m] [222m] [333m] [555m] +9m, 1 hard flower: 清一色 60 + 对对胡 40 + 全球独钓 60; no 缺一 on one
# suit; 20 + 2×1 + 160 = 182.
QINGYISE_FOUR = "9m [111m] [222m] [333m] [555m] +9m"


def _qingyise_three_then_fourth_from_c() -> TableState:
    return run(
        fresh(),
        Pong(B, A, t("1m")),
        Pong(B, D, t("2m")),
        Pong(B, A, t("3m")),
        Pong(B, C, t("5m")),
    ).state


def test_qingyise_three_mouths_the_feeder_of_the_fourth_pays_three_shares() -> None:
    outcome = apply(_qingyise_three_then_fourth_from_c(), hu(B, QINGYISE_FOUR, None, hard_flowers=1))
    assert outcome.scores[0][1].total == 182
    assert net(outcome.payments) == {A: 0, B: 3 * 182, C: -3 * 182, D: 0}


def test_qingyise_three_mouths_discard_win_the_fourth_feeder_pays_one_share() -> None:
    outcome = apply(_qingyise_three_then_fourth_from_c(), hu(B, QINGYISE_FOUR, D, hard_flowers=1))
    assert net(outcome.payments) == {A: 0, B: 182, C: -182, D: 0}


def test_qingyise_fourth_meld_of_another_suit_makes_nobody_liable() -> None:
    # Three 万 melds then a 筒 pong fed by C: no 清一色 at all. 9m [111m] [222m] [333m] [555p] +9m:
    # 对对胡 40 + 全球独钓 60, 缺一 1 (no 条), hard 1: 20 + 2×2 + 100 = 124; D discards: D pays.
    state = run(fresh(), Pong(B, A, t("1m")), Pong(B, D, t("2m")), Pong(B, A, t("3m")), Pong(B, C, t("5p"))).state
    outcome = apply(state, hu(B, "9m [111m] [222m] [333m] [555p] +9m", D, hard_flowers=1))
    assert net(outcome.payments) == {A: 0, B: 124, C: 0, D: -124}


def test_robbing_a_gang_the_robbed_pays_three_shares_and_loses_the_gang_money() -> None:
    # C pongs 2p from A and adds the fourth; D robs it: 123m 456m 789m 55p 34p +2p, 2 hard flowers:
    # 缺一 1; 34p waits 2p or 5p: no wait flower; 门清: 20 + 2×(2+1) + 20 = 46. C pays 3 × 46 = 138,
    # and C's added-gang money (A paid 6) goes back.
    state = run(fresh(), Pong(C, A, t("2p")), Gang(C, MeldKind.ADDED_GANG, None, t("2p"))).state
    outcome = apply(state, Win((claim(D, "123m 456m 789m 55p 34p +2p", hard_flowers=2, robbing_gang=True),), C))
    assert net(outcome.payments) == {A: 6, B: 0, C: -6 - 138, D: 138}


def test_app_robbing_a_gang_three_shares_times_the_robbing_multiplier() -> None:
    # app: the hand is 门清 40 + 5×2 + 缺一门 5 = 55; 抢杠 ×2 = 110 a share; the robbed C pays 3 shares
    # = 330 and gets back the added gang's 5 from each of A, B, D.
    state = run(fresh("app"), Pong(C, A, t("2p")), Gang(C, MeldKind.ADDED_GANG, None, t("2p"))).state
    outcome = apply(state, Win((claim(D, "123m 456m 789m 55p 34p +2p", hard_flowers=2, robbing_gang=True),), C))
    assert net(outcome.payments) == {A: 5, B: 5, C: -15 - 330, D: 330 + 5}


def test_app_after_gang_self_draw_multipliers_multiply() -> None:
    # app 杠上开花 after a concealed gang: 123m 456m 5p (2222p) (7777s) +5p: 门清 40 + 5×1 + 单吊 5 = 50;
    # self-draw ×2 × after gang ×2 = 200 from each other player (a concealed gang: nobody liable).
    state = run(
        fresh("app"), Gang(D, MeldKind.CONCEALED_GANG, None, t("2p")), Gang(D, MeldKind.CONCEALED_GANG, None, t("7s"))
    ).state
    outcome = apply(state, hu(D, "123m 456m 5p (2222p) (7777s) +5p", None, hard_flowers=1, after_gang=True))
    assert net(outcome.payments) == {A: -200, B: -200, C: -200, D: 600}


def test_app_after_an_exposed_gang_its_feeder_pays_three_shares() -> None:
    # The same hand with the last gang exposed, fed by A (the first, concealed, by nobody):
    # 50 × 2 × 2 = 200 a share, A pays 3 × 200 = 600.
    state = run(
        fresh("app"), Gang(D, MeldKind.CONCEALED_GANG, None, t("2p")), Gang(D, MeldKind.EXPOSED_GANG, A, t("7s"))
    ).state
    outcome = apply(state, hu(D, "123m 456m 5p (2222p) [7777s] +5p", None, hard_flowers=1, after_gang=True))
    assert net(outcome.payments) == {A: -600, B: 0, C: 0, D: 600}


# ---- jinyuanzi 外包 (§7, §8): a fixed 50 chips, 100 in a 比下胡 hand --------------------------------


def test_jinyuanzi_waibao_is_50_chips_from_the_liable_player() -> None:
    outcome = apply(_three_mouths_from_c("jinyuanzi"), hu(B, KUAIZHAO, D, hard_flowers=1))
    assert net(outcome.payments) == {A: 0, B: 50, C: -50, D: 0}


def test_jinyuanzi_waibao_is_doubled_in_a_bixiahu_hand() -> None:
    # 跟牌 (costs nothing) triggers 比下胡; the next hand's 外包 is 100. C is given 150 chips so that
    # the 95-chip cap does not hide the doubling.
    doubled = run(fresh("jinyuanzi"), Penalty("penalty_follow", A), Draw()).state
    assert doubled.doubled
    state = replace(doubled, chips=(95, 95, 150, 95))
    state = run(state, Pong(B, C, t("1m")), Pong(B, C, t("2p")), Pong(B, C, t("E"))).state
    outcome = apply(state, hu(B, KUAIZHAO, D, hard_flowers=1))
    assert net(outcome.payments) == {A: 0, B: 100, C: -100, D: 0}


def test_jinyuanzi_robbing_a_gang_is_neibao_three_shares_in_chips() -> None:
    # 内包: 123m 456m 789m 55p 34p +2p, 2 hard flowers: 20 + 2×2 + 缺门 2 + 门清 20 = 46 flowers = 23
    # chips a share; the robbed C pays 3 × 23 = 69 (not the fixed 50).
    state = run(fresh("jinyuanzi"), Pong(C, A, t("2p")), Gang(C, MeldKind.ADDED_GANG, None, t("2p"))).state
    outcome = apply(state, Win((claim(D, "123m 456m 789m 55p 34p +2p", hard_flowers=2, robbing_gang=True),), C))
    assert net(outcome.payments) == {A: 0, B: 0, C: -69, D: 69}


# ---- several winners on one discard (§8) -----------------------------------------------------------


def test_several_winners_with_the_dealer_among_them_each_paid_by_the_discarder() -> None:
    # C discards; A (the dealer) wins 123m 456m 789m 234p 5p +5p with 2 hard flowers: 46 (as §11.1, a
    # discard win); B wins §11.2 with 4: 34. C pays 46 + 34 = 80.
    both = Win((claim(A, EXAMPLE_1, hard_flowers=2), claim(B, EXAMPLE_2, hard_flowers=4)), C)
    outcome = apply(fresh(), both)
    assert net(outcome.payments) == {A: 46, B: 34, C: -80, D: 0}
    assert outcome.state.doubled  # 一炮多响


@pytest.mark.parametrize("preset", ["app", "jinyuanzi"])
def test_the_dealer_among_several_winners_keeps_the_deal(preset: str) -> None:
    # §8: "When several winners share a discard, the dealer won means the dealer is among them."
    both = Win((claim(A, EXAMPLE_1, hard_flowers=2), claim(B, EXAMPLE_2, hard_flowers=4)), C)
    outcome = apply(fresh(preset), both)
    assert outcome.state.dealer == A and outcome.state.dealer_streak == 1


def test_jinyuanzi_several_winners_are_paid_in_turn_order_until_the_discarder_is_bust() -> None:
    # C has 30 chips. In turn order after C: D, A, B. A's 46 flowers = 23 chips, paid first; B's 34
    # flowers = 17 chips, but only 30 - 23 = 7 are left.
    state = replace(fresh("jinyuanzi"), chips=(95, 95, 30, 95))
    both = Win((claim(B, EXAMPLE_2, hard_flowers=4), claim(A, EXAMPLE_1, hard_flowers=2)), C)
    outcome = apply(state, both)
    assert net(outcome.payments) == {A: 23, B: 7, C: -30, D: 0}
    assert outcome.state.chips == (118, 102, 0, 95)


def test_several_winners_a_non_dealer_pair_passes_the_deal_in_app() -> None:
    both = Win((claim(B, EXAMPLE_2, hard_flowers=4), claim(D, EXAMPLE_1, hard_flowers=2)), C)
    assert apply(fresh("app"), both).state.dealer == B


# ---- 比下胡 triggers, one at a time (§9) -----------------------------------------------------------
# Each hand below sets exactly one trigger and ends with a small win by a non-dealer. The figure that
# shows it: the next hand's exposed gang (nanjing family: 6, doubled 12) or the next hand's win
# (jinyuanzi: §11.2's 34 flowers = 17 chips, doubled 34).

SMALL_WIN_B = hu(B, EXAMPLE_2, C, hard_flowers=4)  # 34, not a 大胡, B is not the dealer
ROB_EVENTS: tuple[Event, ...] = (
    Pong(C, A, t("2p")),
    Gang(C, MeldKind.ADDED_GANG, None, t("2p")),
    Win((claim(D, "123m 456m 789m 55p 34p +2p", hard_flowers=2, robbing_gang=True),), C),  # 包牌, small
)
TWO_SMALL_WINNERS = Win((claim(B, EXAMPLE_2, hard_flowers=4), claim(D, EXAMPLE_1, hard_flowers=2)), C)

NANJING_TRIGGERS: dict[str, tuple[Event, ...]] = {
    "flower_gang": (FlowerGang(B), SMALL_WIN_B),
    "penalty_follow": (Penalty("penalty_follow", C), SMALL_WIN_B),
    "penalty_four": (Penalty("penalty_four", D), SMALL_WIN_B),
    "penalty_custom": (Penalty("penalty_custom", D, 5), SMALL_WIN_B),
    "liability": ROB_EVENTS,
    "multiple_winners": (TWO_SMALL_WINNERS,),
    "draw": (Draw(),),
    "big_hu": (hu(B, "111m 999p 22s 55s [777s] +5s", C, hard_flowers=1),),  # 对对胡 by a non-dealer
    "dealer_win": (hu(A, EXAMPLE_1, B, hard_flowers=2),),  # a small win by the dealer (002 庄家胡牌)
    "false_win": (Penalty("false_win", C, 10),),  # 诈胡, the amount typed
}


def _next_exposed_gang(state: TableState) -> int:
    return net(apply(state, Gang(C, MeldKind.EXPOSED_GANG, D, t("9s"))).payments)[C]


def test_a_plain_hand_leaves_the_next_one_undoubled() -> None:
    assert _next_exposed_gang(run(fresh(), SMALL_WIN_B).state) == 6


@pytest.mark.parametrize("preset", ["nanjing", "nanjing-6", "nanjing-20", "chengbei"])
@pytest.mark.parametrize("trigger", list(NANJING_TRIGGERS))
def test_each_nanjing_family_trigger_doubles_the_next_hands_gang_money(preset: str, trigger: str) -> None:
    gang = load_preset(preset).instant.exposed_gang
    assert _next_exposed_gang(run(fresh(preset), *NANJING_TRIGGERS[trigger]).state) == 2 * gang


def _next_win_chips(state: TableState) -> int:
    return net(apply(state, hu(B, EXAMPLE_2, C, hard_flowers=4)).payments)[B]


JINYUANZI_TRIGGERS: dict[str, tuple[Event, ...]] = {
    "dealer_stays": (hu(A, EXAMPLE_1, B, hard_flowers=2),),  # a small dealer win keeps the dealer (连庄)
    "multiple_winners": (TWO_SMALL_WINNERS,),
    "penalty_follow": (Penalty("penalty_follow", C), SMALL_WIN_B),
    "penalty_four": (Penalty("penalty_four", C), SMALL_WIN_B),
    "flower_gang": (FlowerGang(D), SMALL_WIN_B),
    "big_hu": (hu(B, "111m 999p 22s 55s [777s] +5s", C, hard_flowers=1),),  # 对对胡 by a non-dealer
    # 003 外包 at the fourth mouth: D holds three mouths from A, C feeds a fourth: A pays D 50 chips at
    # once; B's small win ends the hand. (A 抢杠 is 内包 here: C's three shares would leave C too few
    # chips to pay the doubled 34 below.)
    "liability": (
        Pong(D, A, t("1m")),
        Pong(D, A, t("2m")),
        Pong(D, A, t("9m")),
        Pong(D, C, t("7m")),
        SMALL_WIN_B,
    ),
}


@pytest.mark.parametrize("preset", ["jinyuanzi", "jinyuanzi-ben"])
def test_jinyuanzi_plain_hand_leaves_the_next_one_undoubled(preset: str) -> None:
    # jinyuanzi §11.2: 34 flowers = 17 chips; jinyuanzi-ben: 跑 10: 24 flowers = 12 chips.
    assert _next_win_chips(run(fresh(preset), SMALL_WIN_B).state) == {"jinyuanzi": 17, "jinyuanzi-ben": 12}[preset]


@pytest.mark.parametrize("trigger", list(JINYUANZI_TRIGGERS))
def test_each_jinyuanzi_trigger_doubles_the_next_win(trigger: str) -> None:
    assert _next_win_chips(run(fresh("jinyuanzi"), *JINYUANZI_TRIGGERS[trigger]).state) == 34


@pytest.mark.parametrize("events", [(FlowerGang(B), SMALL_WIN_B), (Draw(),), (TWO_SMALL_WINNERS,)])
def test_app_has_no_bixiahu(events: tuple[Event, ...]) -> None:
    state = run(fresh("app"), *events).state
    assert not state.doubled
    assert net(apply(state, Gang(C, MeldKind.EXPOSED_GANG, D, t("9s"))).payments)[C] == 15


# ---- the next dealer and 垒宝塔 (§8, §9) -----------------------------------------------------------


@pytest.mark.parametrize("preset", ["nanjing", "nanjing-6", "nanjing-20", "chengbei"])
@pytest.mark.parametrize("trigger", list(NANJING_TRIGGERS))
def test_nanjing_family_the_dealer_stays_exactly_when_the_next_hand_is_doubled(preset: str, trigger: str) -> None:
    # "形成比下胡，則連莊" (002): every trigger keeps the dealer A, whoever won.
    state = run(fresh(preset), *NANJING_TRIGGERS[trigger]).state
    assert (state.dealer, state.dealer_streak, state.doubled) == (A, 1, True)


@pytest.mark.parametrize("preset", ["nanjing", "nanjing-6", "nanjing-20", "chengbei"])
def test_nanjing_family_a_plain_win_passes_the_deal(preset: str) -> None:
    state = run(fresh(preset), SMALL_WIN_B).state
    assert (state.dealer, state.dealer_streak, state.doubled) == (B, 0, False)


def test_the_dealer_among_several_winners_keeps_the_deal_in_nanjing() -> None:
    both = Win((claim(A, EXAMPLE_1, hard_flowers=2), claim(B, EXAMPLE_2, hard_flowers=4)), C)
    state = apply(fresh(), both).state
    assert (state.dealer, state.dealer_streak, state.doubled) == (A, 1, True)


def test_leibaota_n_is_the_dealers_stays_in_a_row() -> None:
    # Two draws: A stays twice, N = 2. B then wins §11.2 (34) on C's discard in the 比下胡 hand:
    # (34 + 10 × 2) × 2 = 108. B's win sets up nothing: the deal passes to B, N = 0, not doubled.
    state = run(fresh(), Draw(), Draw()).state
    assert (state.dealer, state.dealer_streak, state.doubled) == (A, 2, True)
    outcome = apply(state, hu(B, EXAMPLE_2, C, hard_flowers=4))
    assert net(outcome.payments) == {A: 0, B: 108, C: -108, D: 0}
    assert (outcome.state.dealer, outcome.state.dealer_streak, outcome.state.doubled) == (B, 0, False)
    # In the next plain hand the same win is 34 again.
    assert net(apply(outcome.state, hu(D, EXAMPLE_2, C, hard_flowers=4)).payments)[C] == -34


def test_leibaota_self_draw_each_other_pays_the_stacked_share() -> None:
    # One draw (N = 1); D self-draws §11.1 with 2 hard flowers (46): (46 + 10) × 2 = 112 from each.
    state = run(fresh(), Draw()).state
    outcome = apply(state, hu(D, EXAMPLE_1, None, hard_flowers=2))
    assert net(outcome.payments) == {A: -112, B: -112, C: -112, D: 336}


def test_chengbei_dagangkai_doubled_total_in_a_bixiahu_hand() -> None:
    # chengbei: D self-draws 123m 456m 5p [2222p] (7777s) +5p after the concealed gang, 1 hard flower:
    # 10 + 2×(1 + 2 + 2 + 独占 1) + 门清 10 = 32, 兜底翻 ×2 = 64; after one draw (N = 1):
    # (64 + 10) × 2 = 148 from each other player.
    state = run(fresh("chengbei"), Draw(), Gang(D, MeldKind.EXPOSED_GANG, B, t("2p"))).state
    state = apply(state, Gang(D, MeldKind.CONCEALED_GANG, None, t("7s"))).state
    outcome = apply(state, hu(D, "123m 456m 5p [2222p] (7777s) +5p", None, hard_flowers=1, after_gang=True))
    assert outcome.scores[0][1].total == 64
    assert net(outcome.payments) == {A: -148, B: -148, C: -148, D: 444}


@pytest.mark.parametrize(
    ("hand", "nanjing", "nanjing_6"),
    [
        # nanjing: a wind gang is 风碰 1 + gang 2 = 3 soft; nanjing-6 (002 風杠): exposed or added 2 in
        # all, concealed 3. With 4 hard flowers: exposed 20 + 2×(4+3) + 门清 20 = 54 vs 20 + 2×(4+2) + 20 = 52.
        ("123m 456p 23s 99s [EEEE] +4s", 54, 52),
        ("123m 456p 23s 99s {EEEE} +4s", 34, 32),  # added: no 门清: 20 + 14 vs 20 + 12
        ("123m 456p 23s 99s (EEEE) +4s", 54, 54),  # concealed: 3 either way
    ],
)
def test_nanjing_6_counts_wind_gangs_as_002(hand: str, nanjing: int, nanjing_6: int) -> None:
    concealed, melds, winning = parse_hand_parts(hand)
    assert winning is not None
    flags = WinFlags(hard_flowers=4)
    assert score_hand(Hand(concealed, melds, winning), flags, load_preset("nanjing")).total == nanjing
    assert score_hand(Hand(concealed, melds, winning), flags, load_preset("nanjing-6")).total == nanjing_6


def test_the_round_is_over_after_every_seat_has_dealt_once() -> None:
    # §3: a round 圈 is every seat dealing once. Four plain wins by non-dealers pass the deal
    # A -> B -> C -> D -> A; only the fourth pass ends round 1.
    wins = [hu(B, EXAMPLE_2, C, hard_flowers=4), hu(C, EXAMPLE_2, D, hard_flowers=4)]
    wins += [hu(D, EXAMPLE_2, A, hard_flowers=4), hu(A, EXAMPLE_2, B, hard_flowers=4)]
    state = fresh()
    rounds_over = []
    for win in wins:
        outcome = apply(state, win)
        state = outcome.state
        rounds_over.append([n.params for n in outcome.notices if n.key == "table.round_over"])
    assert rounds_over == [[], [], [], [{"round": 1}]]
    assert (state.dealer, state.round_no, state.dealer_passes) == (A, 2, 4)
