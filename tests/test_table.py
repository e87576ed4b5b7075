"""docs/rules.md §4, §8, §9: instant payments, the win's settlement, liability, next dealer, 比下胡.

Seats: A=0 (East, first dealer), B=1, C=2, D=3.
"""

import pytest

from engine.errors import EngineError
from engine.events import Draw, FlowerGang, Gang, Penalty, Pong, Win, WinInput
from engine.hand import MeldKind
from engine.notation import parse_hand_parts
from engine.preset import load_preset_text
from engine.table import TableState, WinRefused, apply, new_table
from engine.tiles import suited, wind
from engine.units import WinFlags
from tests.kit.table_play import fresh, hu, net, run

A, B, C, D = range(4)
EXAMPLE_1 = "123m 456m 789m 234p 5p +5p"  # 46 self-drawn with 2 hard flowers (menqing)
EXAMPLE_2 = "11p 567s 79s [EEE] [444p] +8s"  # 34 with 4 hard flowers
ROBBER = "123m 456m 789m 34p 99p +5p"  # 46 with 2 hard flowers, as EXAMPLE_1, holding one 5p only


# ---- instant payments 现场汇 -------------------------------------------------------------------


def test_exposed_gang_the_feeder_pays_6() -> None:
    assert net(apply(fresh(), Gang(A, MeldKind.EXPOSED_GANG, B)).payments) == {A: 6, B: -6, C: 0, D: 0}


def test_added_gang_the_pongs_feeder_pays_6() -> None:
    outcome = run(fresh(), Pong(A, C, suited(7, 1)), Gang(A, MeldKind.ADDED_GANG, None, suited(7, 1)))
    assert net(outcome.payments) == {A: 6, B: 0, C: -6, D: 0}


def test_added_gang_needs_a_pong() -> None:
    with pytest.raises(EngineError) as caught:
        apply(fresh(), Gang(A, MeldKind.ADDED_GANG))
    assert caught.value.key == "gang.no_pong"


def test_concealed_gang_each_other_pays_3() -> None:
    assert net(apply(fresh(), Gang(A, MeldKind.CONCEALED_GANG)).payments) == {A: 9, B: -3, C: -3, D: -3}


def test_flower_gang_each_other_pays_6() -> None:
    assert net(apply(fresh(), FlowerGang(B)).payments) == {A: -6, B: 18, C: -6, D: -6}


def test_follow_penalty_first_discarder_pays_each_other_10() -> None:
    assert net(apply(fresh(), Penalty("penalty_follow", C)).payments) == {A: 10, B: 10, C: -30, D: 10}


def test_four_penalty_pays_each_other_10_and_6_in_nanjing_6() -> None:
    assert net(apply(fresh(), Penalty("penalty_four", D)).payments)[D] == -30
    assert net(apply(fresh("nanjing-6"), Penalty("penalty_four", D)).payments)[D] == -18


def test_custom_penalty_as_typed() -> None:
    assert net(apply(fresh(), Penalty("penalty_custom", B, 50)).payments)[B] == -150


def test_nanjing_20_gangs_cost_20() -> None:
    assert net(apply(fresh("nanjing-20"), Gang(A, MeldKind.EXPOSED_GANG, B)).payments)[B] == -20
    assert net(apply(fresh("nanjing-20"), FlowerGang(A)).payments)[A] == 60


def test_app_gang_money() -> None:
    assert net(apply(fresh("app"), Gang(A, MeldKind.EXPOSED_GANG, B)).payments)[A] == 15
    added = run(fresh("app"), Pong(A, C), Gang(A, MeldKind.ADDED_GANG))
    assert net(added.payments) == {A: 15, B: -5, C: -5, D: -5}
    assert net(apply(fresh("app"), Gang(A, MeldKind.CONCEALED_GANG)).payments)[A] == 60


def test_jinyuanzi_gangs_and_penalties_cost_nothing_but_double_the_next_hand() -> None:
    outcome = run(fresh("jinyuanzi"), Penalty("penalty_follow", B), Draw())
    assert outcome.payments == () and outcome.state.doubled


# ---- the win ------------------------------------------------------------------------------------


def test_discard_win_the_discarder_pays_the_total() -> None:
    outcome = run(fresh(), Pong(B, C), Pong(B, D), hu(B, EXAMPLE_2, C, hard_flowers=4))
    assert net(outcome.payments) == {A: 0, B: 34, C: -34, D: 0}


def test_self_draw_each_other_pays_the_total() -> None:
    assert net(apply(fresh(), hu(D, EXAMPLE_1, None, hard_flowers=2)).payments) == {A: -46, B: -46, C: -46, D: 138}


def test_refused_win_changes_nothing() -> None:
    with pytest.raises(WinRefused) as caught:
        apply(fresh(), hu(B, EXAMPLE_2, C, hard_flowers=3))
    assert caught.value.key == "win.below_limit"


def test_several_winners_on_one_discard_each_paid_by_the_discarder() -> None:
    both = Win(
        (
            WinInput(B, WinFlags(hard_flowers=4), *parse_hand_parts(EXAMPLE_2)[:2], parse_hand_parts(EXAMPLE_2)[2]),
            WinInput(D, WinFlags(hard_flowers=2), *parse_hand_parts(EXAMPLE_1)[:2], parse_hand_parts(EXAMPLE_1)[2]),
        ),
        C,
    )
    outcome = apply(fresh(), both)
    assert net(outcome.payments) == {A: 0, B: 34, C: -(34 + 46), D: 46}
    assert outcome.state.doubled  # 一炮多响 triggers 比下胡


def test_robbing_an_added_gang_the_robbed_pays_three_shares_and_gets_no_gang_money() -> None:
    before = run(fresh(), Pong(C, A, suited(5, 1)), Gang(C, MeldKind.ADDED_GANG, None, suited(5, 1)))
    assert net(before.payments)[C] == 6
    # D waits 2p/5p and robs C's 5p: 20 + 2×(2 + 缺一 1) + 门清 20 = 46, C pays three shares (138)
    # (D holds no other 5p: C's pong and gang have the other three)
    outcome = apply(before.state, hu(D, ROBBER, C, hard_flowers=2, robbing_gang=True))
    assert net(outcome.payments) == {A: 6, B: 0, C: -6 - 3 * 46, D: 3 * 46}


def test_dagangkai_after_an_exposed_gang_the_feeder_pays_three_shares() -> None:
    outcome = run(
        fresh(),
        Gang(D, MeldKind.EXPOSED_GANG, B, suited(2, 1)),
        hu(D, "123m 456m 789m 5p +5p", None, hard_flowers=1, after_gang=True),
    )
    assert net(outcome.payments) == {A: 0, B: -3 * 90, C: 0, D: 3 * 90}


def test_dagangkai_after_a_concealed_gang_is_an_ordinary_self_draw() -> None:
    outcome = run(
        fresh(),
        Gang(D, MeldKind.CONCEALED_GANG, None, suited(2, 1)),
        hu(D, "123m 456m 789m 5p +5p", None, hard_flowers=1, after_gang=True),
    )
    assert net(outcome.payments) == {A: -90, B: -90, C: -90, D: 270}


def test_kuaizhao_three_mouths_from_one_feeder_makes_them_liable_for_all_pongs() -> None:
    # C fed B three pongs; B wins 对对胡 on D's discard: C pays instead of D.
    state = run(fresh(), Pong(B, C, suited(1, 0)), Pong(B, C, suited(2, 1)), Pong(B, C, wind(0))).state
    outcome = apply(state, hu(B, "999s 5p [111m] [222p] [EEE] +5p", D, hard_flowers=1))
    # 对对胡 40; soft: hard 1 + 风碰 1; all three suits: 20 + 2×2 + 40 = 64, one share, from C.
    assert net(outcome.payments) == {A: 0, B: 64, C: -64, D: 0}


def test_kuaizhao_notice_on_the_third_mouth() -> None:
    outcome = run(fresh(), Pong(B, C), Pong(B, C), Pong(B, C))
    assert [n.key for n in outcome.notices] == ["table.kuaizhao"]


def test_kuaizhao_self_draw_the_feeder_pays_three_shares() -> None:
    state = run(fresh(), Pong(B, C, suited(1, 0)), Pong(B, C, suited(2, 1)), Pong(B, C, wind(0))).state
    outcome = apply(state, hu(B, "999s 5p [111m] [222p] [EEE] +5p", None, hard_flowers=1))
    # 64 as above; C pays the three shares: 192.
    assert net(outcome.payments) == {A: 0, B: 192, C: -192, D: 0}


def test_qingyise_three_mouths_the_feeder_of_the_fourth_pays() -> None:
    state = run(
        fresh(), Pong(B, A, suited(1, 0)), Pong(B, C, suited(2, 0)), Pong(B, D, suited(3, 0)), Pong(B, A, suited(5, 0))
    ).state
    outcome = apply(state, hu(B, "9m [111m] [222m] [333m] [555m] +9m", None, hard_flowers=1))
    # 清一色 60 + 对对胡 40 + 全球独钓 60, hard 1: 20 + 2 + 160 = 182; A fed the fourth: 3 × 182 = 546.
    assert net(outcome.payments) == {A: -546, B: 546, C: 0, D: 0}


def test_jinyuanzi_liability_is_the_fixed_50_chips() -> None:
    state = run(fresh("jinyuanzi"), Pong(B, C, suited(1, 0)), Pong(B, C, suited(2, 1)), Pong(B, C, wind(0))).state
    outcome = apply(state, hu(B, "999s 5p [111m] [222p] [EEE] +5p", D, hard_flowers=1))
    assert net(outcome.payments) == {A: 0, B: 50, C: -50, D: 0}


def test_a_logged_meld_missing_from_the_typed_hand_is_a_conflict() -> None:
    state = run(fresh(), Pong(B, C, wind(0))).state
    with pytest.raises(EngineError) as caught:
        apply(state, hu(B, "11p 567s 79s [SSS] [444p] +8s", C, hard_flowers=4))
    assert caught.value.key == "win.logged_meld_missing" and caught.value.params["tile"] == "E"


def test_a_logged_pong_without_its_tile_matches_any_typed_pong_and_unlogged_melds_count() -> None:
    # README: B pongs C's discard (no tile logged), then wins on C's discard with [EEE] [444p] typed:
    # 跑 20 + 硬花 2×4 + 风碰 2 + 缺一门 2 + 压档 2 = 34, paid by C
    state = run(fresh(), Pong(B, C)).state
    outcome = apply(state, hu(B, "11p 567s 79s [EEE] [444p] +8s", C, hard_flowers=4))
    assert net(outcome.payments) == {A: 0, B: 34, C: -34, D: 0}


# ---- 比下胡, 垒宝塔, next dealer -------------------------------------------------------------------


def test_non_dealer_small_win_passes_the_deal() -> None:
    # B (not the dealer) wins 34 on C's discard: no 比下胡 trigger, so the deal passes to B.
    outcome = run(fresh(), Pong(B, C), Pong(B, D), hu(B, EXAMPLE_2, C, hard_flowers=4))
    assert outcome.state.dealer == B and outcome.state.dealer_streak == 0 and not outcome.state.doubled


def test_dealer_small_win_keeps_the_dealer_in_nanjing() -> None:
    # 002 庄家胡牌 is a 比下胡 trigger, and a trigger keeps the dealer: A stays, N = 1.
    outcome = apply(fresh(), hu(A, EXAMPLE_1, B, hard_flowers=4))
    assert outcome.state.dealer == A and outcome.state.dealer_streak == 1 and outcome.state.doubled


def test_dealer_big_win_stays_and_the_next_hand_is_doubled() -> None:
    outcome = apply(fresh(), hu(A, "123m 456m 78m 99m [111m] +9m", B, hard_flowers=1))
    assert outcome.state.dealer == A and outcome.state.dealer_streak == 1 and outcome.state.doubled


def test_draw_keeps_the_dealer_in_nanjing_and_doubles_the_next_hand() -> None:
    outcome = apply(fresh(), Draw())
    assert outcome.state.dealer == A and outcome.state.dealer_streak == 1
    assert outcome.state.doubled and outcome.state.hand_no == 2


BIG_HU = "123m 456m 78m 99m [111m] +9m"  # 清一色, a 大胡


@pytest.mark.parametrize(
    ("preset", "dealer_small", "small_discard"),
    [
        # EXAMPLE_1 self-drawn, 2 hard: nanjing 20 + 2×(2 + 缺一 1) + 门清 20 = 46; chengbei 10 + 6 + 10 = 26.
        # EXAMPLE_2 on a discard, 4 hard: nanjing 20 + 2×(4 + 风碰 + 缺一 + 压档) = 34; chengbei 10 + 14 = 24.
        ("nanjing", 46, 34),
        ("nanjing-6", 46, 34),
        ("nanjing-20", 46, 34),
        ("chengbei", 26, 24),
    ],
)
def test_nanjing_family_dealer_stays_exactly_on_a_bixiahu_trigger(
    preset: str, dealer_small: int, small_discard: int
) -> None:
    state = fresh(preset)
    # hand 1: B's 大胡 (not the dealer) -> A stays, N = 1
    state = apply(state, hu(B, BIG_HU, C, hard_flowers=1)).state
    assert (state.dealer, state.dealer_streak, state.doubled) == (A, 1, True)
    # hand 2 (比下胡, N = 1): the dealer's 小胡 self-draw: (total + 10×1) × 2 from each; A stays, N = 2
    outcome = apply(state, hu(A, EXAMPLE_1, None, hard_flowers=2))
    assert net(outcome.payments)[B] == -(dealer_small + 10) * 2
    state = outcome.state
    assert (state.dealer, state.dealer_streak, state.doubled) == (A, 2, True)
    # hand 3: a flower gang, then D (not the dealer) wins small -> the flower gang keeps A, N = 3
    state = run(state, FlowerGang(C), hu(D, EXAMPLE_1, None, hard_flowers=2)).state
    assert (state.dealer, state.dealer_streak, state.doubled) == (A, 3, True)
    # hand 4: a draw -> A stays, N = 4
    state = apply(state, Draw()).state
    assert (state.dealer, state.dealer_streak, state.doubled) == (A, 4, True)
    # hand 5: 一炮多响, B and D on C's discard, neither the dealer -> A stays, N = 5
    both = Win(
        (
            WinInput(B, WinFlags(hard_flowers=4), *parse_hand_parts(EXAMPLE_2)),
            WinInput(D, WinFlags(hard_flowers=2), *parse_hand_parts(EXAMPLE_1)),
        ),
        C,
    )
    state = apply(state, both).state
    assert (state.dealer, state.dealer_streak, state.doubled) == (A, 5, True)
    # hand 6 (N = 5): B's small win on C's discard, no trigger: C pays (total + 10×5) × 2, the deal passes
    outcome = apply(state, hu(B, EXAMPLE_2, C, hard_flowers=4))
    assert net(outcome.payments)[C] == -(small_discard + 50) * 2
    state = outcome.state
    assert (state.dealer, state.dealer_streak, state.doubled) == (B, 0, False)


def test_jinyuanzi_non_dealer_big_win_doubles_the_next_hand_but_passes_the_deal() -> None:
    # 003: 大胡 is a 比下胡 trigger, but only a dealer win, a draw or a 诈胡 keeps the dealer.
    outcome = apply(fresh("jinyuanzi"), hu(B, BIG_HU, C, hard_flowers=1))
    assert outcome.state.dealer == B and outcome.state.dealer_streak == 0 and outcome.state.doubled


def test_draw_keeps_the_dealer_in_jinyuanzi() -> None:
    outcome = apply(fresh("jinyuanzi"), Draw())
    assert outcome.state.dealer == A and outcome.state.dealer_streak == 1


def test_everything_in_a_bixiahu_hand_is_doubled_gang_money_too() -> None:
    state = apply(fresh(), Draw()).state
    assert net(apply(state, Gang(A, MeldKind.EXPOSED_GANG, B)).payments)[A] == 12


def test_doubling_does_not_stack() -> None:
    # three triggers, one ×2; they keep the dealer once: N = 1. D self-draws 46: (46 + 10×1) × 2 = 112 each.
    state = run(fresh(), FlowerGang(A), Penalty("penalty_follow", B), Draw()).state
    assert state.dealer_streak == 1
    assert net(apply(state, hu(D, EXAMPLE_1, None, hard_flowers=2)).payments)[D] == 3 * 112


def test_leibaota_counts_10_per_dealer_stay() -> None:
    # A stays twice with big wins; in the doubled hand A self-draws 46: (46 + 10×2) × 2 = 132 each.
    big = "123m 456m 78m 99m [111m] +9m"
    state = run(fresh(), hu(A, big, B, hard_flowers=1), hu(A, big, C, hard_flowers=1)).state
    assert state.dealer_streak == 2 and state.doubled
    assert net(apply(state, hu(A, EXAMPLE_1, None, hard_flowers=2)).payments)[B] == -132


def test_app_has_no_bixiahu_and_multiplies_self_draw() -> None:
    outcome = apply(fresh("app"), hu(D, EXAMPLE_1, None, hard_flowers=2))
    assert net(outcome.payments)[A] == -110 and not outcome.state.doubled


def test_app_draw_refunds_the_hands_gang_money() -> None:
    outcome = run(fresh("app"), Gang(A, MeldKind.CONCEALED_GANG), Draw())
    assert net(outcome.payments) == {A: -60, B: 20, C: 20, D: 20}


def test_jinyuanzi_chips_are_half_the_flowers() -> None:
    # §11.2 in jinyuanzi: 20 + 2×4 + 风刻 2 + 缺门 2 + 卡张 2 = 34 flowers = 17 chips; 5 hard: 36 = 18.
    outcome = run(fresh("jinyuanzi"), Pong(B, C), Pong(B, D), hu(B, EXAMPLE_2, C, hard_flowers=4))
    assert net(outcome.payments)[B] == 17
    outcome = run(fresh("jinyuanzi"), Pong(B, C), Pong(B, D), hu(B, EXAMPLE_2, C, hard_flowers=5))
    assert net(outcome.payments)[B] == 18


def test_chips_round_an_exact_half_up() -> None:
    # Every jinyuanzi value is even, so a half needs a house file: 跑 19 makes §11.2 19 + 8 + 6 = 33
    # flowers = 16.5 chips, rounded half up to 17 (down or to even would give 16).
    house = load_preset_text('base = "jinyuanzi"\nname = "odd"\n[patterns]\npao = 19\n')
    outcome = run(new_table(house), Pong(B, C), Pong(B, D), hu(B, EXAMPLE_2, C, hard_flowers=4))
    assert net(outcome.payments) == {A: 0, B: 17, C: -17, D: 0}


def test_jinyuanzi_a_bust_player_pays_only_what_is_left() -> None:
    state = fresh("jinyuanzi")
    state = TableState(**{**state.__dict__, "chips": (95, 95, 5, 95)})
    outcome = run(state, Pong(B, C), Pong(B, D), hu(B, EXAMPLE_2, C, hard_flowers=4))
    assert net(outcome.payments)[C] == -5
    assert any(n.key == "table.bust" for n in outcome.notices)


def test_jinyuanzi_winning_from_a_bust_player_is_refused() -> None:
    state = fresh("jinyuanzi")
    state = TableState(**{**state.__dict__, "chips": (95, 95, 0, 95)})
    with pytest.raises(EngineError) as caught:
        apply(state, hu(B, EXAMPLE_1, C, hard_flowers=4))
    assert caught.value.key == "win.from_bust_player"


def test_jinyuanzi_tianhu_takes_every_remaining_chip() -> None:
    outcome = apply(fresh("jinyuanzi"), hu(A, EXAMPLE_1, None, hard_flowers=2, heavenly=True))
    assert net(outcome.payments) == {A: 285, B: -95, C: -95, D: -95}


def test_false_win_in_jinyuanzi_costs_10_chips_each_and_the_dealer_stays() -> None:
    outcome = apply(fresh("jinyuanzi"), Penalty("false_win", B))
    assert net(outcome.payments)[B] == -30 and outcome.state.dealer == A and outcome.state.hand_no == 2


@pytest.mark.parametrize("event", [Pong(A, A), Gang(A, MeldKind.EXPOSED_GANG, A), Pong(5, A)])
def test_illegal_events_raise(event: object) -> None:
    with pytest.raises(EngineError):
        apply(fresh(), event)  # type: ignore[arg-type]
