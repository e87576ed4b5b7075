"""docs/rules.md §12, the changkaitou 敞开头 preset: one case per bullet, figures worked out by hand.

share = 10 + Σ patterns + 2 × (hard + soft); every payment ×2 (天胡 excepted).
Seats: A=0 (East, first dealer), B=1, C=2, D=3.
"""

import pytest

from engine.claims import ClaimRefused
from engine.errors import EngineError
from engine.events import Draw, FlowerGang, FourWinds, Gang, Notice, Penalty, Pong, RangeMark, Win, WinInput
from engine.hand import MeldKind
from engine.notation import parse_hand_parts
from engine.preset import load_preset
from engine.table import TableState, WinRefused, apply, new_table
from engine.tiles import suited, wind
from engine.units import WinFlags
from tests.kit.helpers import items, score
from tests.kit.table_play import hu, net, net_of_all, run

A, B, C, D = range(4)
CK = "changkaitou"
EXAMPLE_1 = "123m 456m 789m 234p 5p +5p"  # waits 2p/5p: no wait flower; no 条: 缺一
EXAMPLE_2 = "11p 567s 79s [EEE] [444p] +8s"  # sole wait 8s: 压当; 风碰; no 万: 缺一


def ck(hand: str, **flags: object):  # type: ignore[no-untyped-def]
    return score(hand, CK, **flags)


def table() -> TableState:
    return new_table(load_preset(CK))


# ---- every hand is 比下胡, no 垒宝塔 --------------------------------------------------------------


def test_every_hand_is_doubled_without_leibaota() -> None:
    # EXAMPLE_1 self-drawn by the dealer A, 2 hard: 10 + 门清 10 + 2×(2 + 缺一 1) = 26, ×2 = 52 each.
    first = run(table(), hu(A, EXAMPLE_1, hard_flowers=2))
    assert net(first.payments) == {A: 156, B: -52, C: -52, D: -52}
    # A stays (dealer win); the same win again is still 26 ×2 = 52: no +10N (nanjing would add it).
    second = apply(first.state, hu(A, EXAMPLE_1, hard_flowers=2))
    assert first.state.dealer == A and net(second.payments) == {A: 156, B: -52, C: -52, D: -52}


# ---- a win's share ----------------------------------------------------------------------------


def test_share_on_a_discard_the_discarder_pays_one_share() -> None:
    # B on C's discard, EXAMPLE_2, 4 hard: 10 + 2×(4 + 压当 1 + 风碰 1 + 缺一 1) = 24, ×2 = 48.
    result = ck(EXAMPLE_2, hard_flowers=4)
    assert items(result) == {"pao": 10, "hard": 8, "wind_pong": 2, "que_yi": 2, "kanzhang": 2}
    assert result.total == 24
    assert net(apply(table(), hu(B, EXAMPLE_2, C, hard_flowers=4)).payments) == {A: 0, B: 48, C: -48, D: 0}


def test_share_on_a_self_draw_each_other_pays_one_share_no_dealer_bonus() -> None:
    # non-dealer B self-draws EXAMPLE_1, 2 hard: 26 ×2 = 52 from each of A (the dealer), C, D.
    assert net(apply(table(), hu(B, EXAMPLE_1, hard_flowers=2)).payments) == {A: -52, B: 156, C: -52, D: -52}


# ---- patterns ---------------------------------------------------------------------------------


def test_menqing_10() -> None:
    # 10 + 门清 10 + 2×(2 + 缺一 1) = 26
    assert items(ck(EXAMPLE_1, hard_flowers=2)) == {"pao": 10, "hard": 4, "que_yi": 2, "menqing": 10}


def test_duiduihu_30() -> None:
    # 222m 888s 55p + [777m] [EEE], 1 hard; waits 5p/8s: no wait flower; all three suits: no 缺一.
    # 10 + 对对胡 30 + 2×(1 + 风碰 1) = 44
    result = ck("222m 55p 88s [777m] [EEE] +8s", hard_flowers=1)
    assert items(result) == {"pao": 10, "hard": 2, "wind_pong": 2, "duiduihu": 30}
    assert result.total == 44


def test_hunyise_30_takes_no_que_yi() -> None:
    # 123m 456m EEE 99m + [SSS], 1 hard; waits 9m/E. 10 + 混一色 30 + 2×(1 + 风碰 2) = 46
    result = ck("123m 456m 99m EE [SSS] +E", hard_flowers=1)
    assert items(result) == {"pao": 10, "hard": 2, "wind_pong": 4, "hunyise": 30}
    assert result.total == 46


def test_qingyise_40() -> None:
    # 123m 456m 789m 11m 234m, 1 hard, waits 1m/4m. 10 + 门清 10 + 清一色 40 + 2×1 = 62
    result = ck("123m 456m 789m 11m 23m +4m", hard_flowers=1)
    assert items(result) == {"pao": 10, "hard": 2, "menqing": 10, "qingyise": 40}
    assert result.total == 62


def test_wuhuaguo_30_does_not_lift_the_limit() -> None:
    # 10 + 门清 10 + 无花果 30 + 2×(0 + 缺一 1) = 52
    assert ck(EXAMPLE_1, hard_flowers=0).total == 52
    # EXAMPLE_2 with no hard flower: 无花果 alone, not 门清 → refused by the 小胡 limit.
    refused = ck(EXAMPLE_2, hard_flowers=0)
    assert not refused.valid and refused.reason == "win.below_limit" and items(refused)["wuhuaguo"] == 30


def test_seven_pairs_50_counts_menqing() -> None:
    # 七对 50 + 门清 10; all three suits; no wait flower. 10 + 50 + 10 + 2×1 = 72
    result = ck("11m 22m 33p 44p 55s 66s 7s +7s", hard_flowers=1)
    assert items(result) == {"pao": 10, "hard": 2, "menqing": 10, "qidui": 50}
    assert result.total == 72


def test_a_four_held_in_seven_pairs_is_plain_qidui_and_no_gang() -> None:
    # 1111m counts two pairs, not a gang (no gang soft); not completed by the winning tile: 七对.
    # 10 + 七对 50 + 门清 10 + 2×1 = 72
    assert items(ck("1111m 22p 33p 44s 55s 6s +6s", hard_flowers=1)) == {
        "pao": 10,
        "hard": 2,
        "menqing": 10,
        "qidui": 50,
    }


def test_long_qidui_on_a_discard_100_not_with_qidui() -> None:
    # the winning 5s completes 5555s: 龙七对 100 (七对 dropped) + 门清 10. 10 + 100 + 10 + 2×1 = 122, ×2 = 244.
    hand = "11m 22m 33p 44p 555s 66s +5s"
    result = ck(hand, hard_flowers=1)
    assert items(result) == {"pao": 10, "hard": 2, "menqing": 10, "long_qidui": 100}
    assert net(apply(table(), hu(B, hand, C, hard_flowers=1)).payments) == {A: 0, B: 244, C: -244, D: 0}


def test_quanqiu_80_not_with_duiduihu() -> None:
    # four melds, won on the single 5p: 全球独钓 80 (no 对对胡, no 独占); 风碰 1; all suits.
    # 10 + 80 + 2×(1 + 1) = 94
    result = ck("5p [111m] [EEE] [999s] [222p] +5p", hard_flowers=1)
    assert items(result) == {"pao": 10, "hard": 2, "wind_pong": 2, "quanqiu": 80}
    assert result.total == 94


YAJUE = "11p 234s 567s 79s [EEE] +8s"  # sole wait 8s (79s); 风碰; no 万: 缺一


def test_yajue_on_another_players_pong() -> None:
    # C has ponged 8s; B wins 8s on D's discard: 压绝 30 replaces 压当.
    # 10 + 30 + 2×(4 + 风碰 1 + 缺一 1) = 52, ×2 = 104
    state = apply(table(), Pong(C, A, suited(8, 2))).state
    outcome = apply(state, hu(B, YAJUE, D, hard_flowers=4))
    assert dict(outcome.scores)[B].total == 52
    assert net(outcome.payments) == {A: 0, B: 104, C: 0, D: -104}
    # without that pong: 压当 1 instead: 10 + 2×(4 + 1 + 1 + 1) = 24
    assert ck(YAJUE, hard_flowers=4).total == 24


def test_yajue_on_the_winners_own_pong() -> None:
    # [888s] is B's own: 10 + 压绝 30 + 2×(4 + 风碰 1 + 缺一 1) = 52
    result = ck("11p 234s 79s [888s] [EEE] +8s", hard_flowers=4)
    assert items(result) == {"pao": 10, "hard": 8, "wind_pong": 2, "que_yi": 2, "yajue": 30}


# ---- 压绝 on a sole wait whose other side is dead (C20) ----------------------------------------
# `67m` waits 5m or 8m. The wait is sole when every other tile that completes the hand has all four
# copies in the winner's own hand (concealed tiles and melds); copies in other players' melds do
# not count. A sole wait on a ponged tile's fourth copy is 压绝 whatever its shape (§12 names none).

DEAD_SIDE = "67m 234p 99s [555m] (8888m) +5m"  # 8m: all four in B's concealed gang; [555m] is B's


def test_yajue_on_a_two_sided_wait_whose_other_side_is_the_winners_concealed_gang() -> None:
    # 5m is the only live wait and B's own [555m] is a pong of it; all three suits: no 缺一; not 门清:
    # 10 + 压绝 30 + 2×(4 + 暗杠 2) = 52 (it was 22: 压绝 asked for a 压当/边张 shape)
    result = ck(DEAD_SIDE, hard_flowers=4)
    assert items(result) == {"pao": 10, "hard": 8, "gang_concealed": 4, "yajue": 30}
    assert result.total == 52
    # at the table: B pongs C's 5m, B's concealed gang of 8m (5 ×2 = 10 from each), D discards 5m:
    # D pays 52 ×2 = 104. A −10; B 30 + 104 = 134; C −10; D −10 − 104 = −114
    totals = net_of_all(
        table(),
        Pong(B, C, suited(5, 0)),
        Gang(B, MeldKind.CONCEALED_GANG, tile=suited(8, 0)),
        hu(B, DEAD_SIDE, D, hard_flowers=4),
    )
    assert totals == {A: -10, B: 134, C: -10, D: -114}


def test_the_dead_side_yajue_is_changkaitous_only() -> None:
    # nanjing follows 000's "成压档（必须是压三万或是边三万）": no 压绝 on a two-sided wait, and no wait
    # flower either (decision 2): 跑 20 + 2×(4 + 暗杠 2) = 32
    result = score(DEAD_SIDE, "nanjing", hard_flowers=4)
    assert items(result) == {"pao": 20, "hard": 8, "gang_concealed": 4}
    assert result.total == 32


def test_a_sole_two_sided_wait_earns_no_wait_flower() -> None:
    # the same wait with no pong of 5m anywhere: sole, but no 压当/边张/独占 shape, so nothing for it:
    # 10 + 2×(4 + 暗杠 2) = 22
    result = ck("67m 234p 99s [111s] (8888m) +5m", hard_flowers=4)
    assert items(result) == {"pao": 10, "hard": 8, "gang_concealed": 4}
    assert result.total == 22


def test_robbing_on_a_two_sided_wait_whose_other_side_is_dead_counts_yajue() -> None:
    # 抢杠压绝: D holds 67m with all four 8m in a concealed gang (5 ×2 = 10 from each); B pongs C's 5m
    # and adds the fourth (C pays 10 ×2 = 20); D robs it, 4 hard. D's share:
    # 10 + 压绝 30 + 2×(4 + 暗杠 2) = 52, ×2 = 104; B pays 3 shares = 312 and returns C's 20.
    # A −10; B −10 + 20 − 312 − 20 = −322; C −10 − 20 + 20 = −10; D 30 + 312 = 342
    robbed = "67m 234p 99s [111s] (8888m) +5m"
    state = run(
        table(),
        Gang(D, MeldKind.CONCEALED_GANG, tile=suited(8, 0)),
        Pong(B, C, suited(5, 0)),
        Gang(B, MeldKind.ADDED_GANG, tile=suited(5, 0)),
    ).state
    outcome = apply(state, hu(D, robbed, B, hard_flowers=4, robbing_gang=True))
    assert items(dict(outcome.scores)[D]) == {"pao": 10, "hard": 8, "gang_concealed": 4, "yajue": 30}
    assert [(p.payer, p.payee, p.amount) for p in outcome.payments if p.reason != "added_gang"] == [(B, D, 312)]
    totals = net_of_all(
        table(),
        Gang(D, MeldKind.CONCEALED_GANG, tile=suited(8, 0)),
        Pong(B, C, suited(5, 0)),
        Gang(B, MeldKind.ADDED_GANG, tile=suited(5, 0)),
        hu(D, robbed, B, hard_flowers=4, robbing_gang=True),
    )
    assert totals == {A: -10, B: -322, C: -10, D: 342}


def test_the_other_side_dead_by_the_winners_pong_and_a_tile_in_hand() -> None:
    # B: `678m 67m` waits 5m or 8m; B's [888m] and the 8m in 678m are all four 8m, so 5m is sole.
    # C's pong of 5m stands at the table: 10 + 压绝 30 + 2×4 = 48 (all three suits, not 门清);
    # A discards 5m and pays 48 ×2 = 96
    hand = "678m 67m 234p 99s [888m] +5m"
    totals = net_of_all(table(), Pong(C, A, suited(5, 0)), Pong(B, D, suited(8, 0)), hu(B, hand, A, hard_flowers=4))
    assert totals == {A: -96, B: 96, C: 0, D: 0}


def test_tiles_in_other_players_melds_do_not_make_a_wait_sole() -> None:
    # The same wait, but the three other 8m are C's pong: all four 8m are in sight, yet the wait is
    # not sole (only the winner's own tiles count, C20). D's pong of 5m stands at the table, but
    # there is no 压绝 and no wait flower (two-sided): 10 + 2×4 = 18; A pays 18 ×2 = 36
    hand = "678m 67m 234p 99s [111s] +5m"
    state = run(table(), Pong(C, A, suited(8, 0)), Pong(D, A, suited(5, 0)), Pong(B, D, suited(1, 2))).state
    outcome = apply(state, hu(B, hand, A, hard_flowers=4))
    assert items(dict(outcome.scores)[B]) == {"pao": 10, "hard": 8}
    assert net(outcome.payments) == {A: -36, B: 36, C: 0, D: 0}


def test_huakai_10() -> None:
    # 10 + 门清 10 + 花开 10 + 2×(1 + 缺一 1) = 34
    result = ck(EXAMPLE_1, hard_flowers=1, self_draw=True, after_flower=True)
    assert items(result) == {"pao": 10, "hard": 2, "que_yi": 2, "menqing": 10, "huakai": 10}
    assert result.total == 34


GANGKAI = "11p 567s 79s [EEE] [4444p] +8s"  # pair 11p, 567s 789s, EEE, exposed gang 4444p


def test_gangkai_20() -> None:
    # 10 + 杠开 20 + 2×(4 + 明杠 1 + 风碰 1 + 缺一 1 + 压当 1) = 46
    result = ck(GANGKAI, hard_flowers=4, self_draw=True, after_gang=True)
    assert items(result) == {
        "pao": 10,
        "hard": 8,
        "wind_pong": 2,
        "gang_exposed": 2,
        "que_yi": 2,
        "kanzhang": 2,
        "gangkai": 20,
    }
    assert result.total == 46


def test_claiming_huakai_and_gangkai_together_is_refused() -> None:
    result = ck(GANGKAI, hard_flowers=4, self_draw=True, after_gang=True, after_flower=True)
    assert not result.valid and result.reason == "win.claims_conflict"
    # at the table the claim must first fit the log (RULES §5): B ponged EEE, then just made the exposed gang
    state = apply(table(), Pong(B, D)).state
    state = apply(state, Gang(B, MeldKind.EXPOSED_GANG, C, suited(4, 1))).state
    with pytest.raises(WinRefused):
        apply(state, hu(B, GANGKAI, hard_flowers=4, after_gang=True, after_flower=True))


def test_dihu_30() -> None:
    # 10 + 门清 10 + 地胡 30 + 2×(1 + 缺一 1) = 54
    assert ck(EXAMPLE_1, hard_flowers=1, self_draw=True, earthly=True).total == 54


def test_tianhu_1000_flat_never_doubled() -> None:
    result = ck(EXAMPLE_1, hard_flowers=2, self_draw=True, dealer=True, heavenly=True)
    assert items(result) == {"tianhu": 1000} and result.total == 1000
    # at the table every hand is doubled, but 天胡 is not: 1000 from each other player.
    outcome = apply(table(), hu(A, EXAMPLE_1, hard_flowers=2, dealer=True, heavenly=True))
    assert net(outcome.payments) == {A: 3000, B: -1000, C: -1000, D: -1000}


def test_haidi_is_not_a_pattern() -> None:
    assert "haidi" not in items(ck(EXAMPLE_1, hard_flowers=2, self_draw=True, last_stacks=True))


# ---- 门清 -------------------------------------------------------------------------------------


def test_menqing_restored_by_an_added_gang() -> None:
    # {2222p} began as a pong; upgraded it keeps 门清. sole wait 5p: 独占.
    # 10 + 门清 10 + 2×(1 + 补杠 1 + 缺一 1 + 独占 1) = 28; 门清 lifts the limit at 1 hard flower.
    result = ck("123m 456m 789m 5p {2222p} +5p", hard_flowers=1)
    assert items(result) == {"pao": 10, "hard": 2, "gang_added": 2, "que_yi": 2, "dudiao": 2, "menqing": 10}
    assert result.valid and result.total == 28
    # the pong still standing breaks it: with 1 hard flower the win is refused (小胡 limit)
    assert not ck("123m 456m 789m 5p [222p] +5p", hard_flowers=1).valid


def test_menqing_restored_at_the_table_after_pong_then_added_gang() -> None:
    # B pongs 2p from C, later upgrades it (C pays 10 ×2 = 20); A's pong shows B has discarded since
    # (no 杠后承包 any more); B self-draws with 1 hard flower: 28 (above) ×2 = 56 from each other player.
    added = Gang(B, MeldKind.ADDED_GANG, tile=suited(2, 1))
    state = run(table(), Pong(B, C, suited(2, 1)), added, Pong(A, D)).state
    outcome = apply(state, hu(B, "123m 456m 789m 5p +5p", hard_flowers=1))
    assert net(outcome.payments) == {A: -56, B: 168, C: -56, D: -56}


# ---- the 小胡 limit's own list ----------------------------------------------------------------


def test_small_hu_limit_is_lifted_only_by_its_own_list() -> None:
    # lifted with 0 hard flowers: 对对胡, 混一色, 全球独钓, 七对 (and 门清, above)
    assert ck("222m 55p 88s [777m] [EEE] +8s", hard_flowers=0).valid
    assert ck("123m 456m 99m EE [SSS] +E", hard_flowers=0).valid
    assert ck("5p [111m] [EEE] [999s] [222p] +5p", hard_flowers=0).valid
    # not lifted with 3 hard flowers: 压绝, 花开, 杠开
    state = apply(table(), Pong(C, A, suited(8, 2))).state
    with pytest.raises(WinRefused):
        apply(state, hu(B, YAJUE, D, hard_flowers=3))
    assert not ck(EXAMPLE_2, hard_flowers=3, self_draw=True, after_flower=True).valid
    assert not ck(GANGKAI, hard_flowers=3, self_draw=True, after_gang=True).valid


# ---- soft flowers -----------------------------------------------------------------------------


def test_soft_flowers_per_gang_kind_and_wind_gangs_on_top() -> None:
    # concealed EEEE: 暗杠 2 + 风 1; 混一色 30; 门清 10; waits 6m/9m. 10 + 30 + 10 + 2×(1 + 2 + 1) = 58
    concealed = ck("123m 456m 78m 99m (EEEE) +9m", hard_flowers=1)
    assert items(concealed) == {
        "pao": 10,
        "hard": 2,
        "wind_pong": 2,
        "gang_concealed": 4,
        "menqing": 10,
        "hunyise": 30,
    }
    assert concealed.total == 58
    # exposed EEEE: 明杠 1 + 风 1, keeps 门清: 10 + 30 + 10 + 2×(1 + 1 + 1) = 56
    assert ck("123m 456m 78m 99m [EEEE] +9m", hard_flowers=1).total == 56


def test_wait_flower_bianzhang_on_a_sole_wait() -> None:
    # 12m wins 3m: 边张 1; all suits present. 10 + 门清 10 + 2×(1 + 1) = 24
    assert items(ck("12m 456p 789s 234s 99p +3m", hard_flowers=1)) == {
        "pao": 10,
        "hard": 2,
        "bianzhi": 2,
        "menqing": 10,
    }


# ---- instant payments, all ×2 -----------------------------------------------------------------


def test_instant_payments_are_doubled() -> None:
    # exposed gang: the feeder pays 10 ×2 = 20
    assert net(apply(table(), Gang(B, MeldKind.EXPOSED_GANG, feeder=C)).payments) == {A: 0, B: 20, C: -20, D: 0}
    # added gang: whoever fed the pong pays 10 ×2 = 20
    added = run(table(), Pong(B, D), Gang(B, MeldKind.ADDED_GANG))
    assert net(added.payments) == {A: 0, B: 20, C: 0, D: -20}
    # concealed gang: 5 ×2 = 10 from each other player
    assert net(apply(table(), Gang(B, MeldKind.CONCEALED_GANG)).payments) == {A: -10, B: 30, C: -10, D: -10}
    # flower gang: 10 ×2 = 20 from each other player
    assert net(apply(table(), FlowerGang(B)).payments) == {A: -20, B: 60, C: -20, D: -20}
    # 跟打一圈 and 四张: 5 ×2 = 10 to each other player
    assert net(apply(table(), Penalty("penalty_follow", A)).payments) == {A: -30, B: 10, C: 10, D: 10}
    assert net(apply(table(), Penalty("penalty_four", C)).payments) == {A: 10, B: 10, C: -30, D: 10}


# ---- 抢杠 -------------------------------------------------------------------------------------

ROB = "123m 456m 789m 46p 99p +5p"  # 46p waits only 5p: 压当; no 条: 缺一; 门清


def test_robbing_an_added_gang_the_adder_pays_three_shares_no_gang_money() -> None:
    # B pongs 5p from C, upgrades it (C pays 20), D robs the 5p, 1 hard flower; the robbed pong of
    # 5p is a pong at the table, so the sole 46p wait is 压绝 (抢杠压绝), not 压当:
    # share 10 + 门清 10 + 压绝 30 + 2×(1 + 缺一 1) = 54, ×2 = 108; B pays 3 shares = 324.
    # The gang money goes back: B returns 20 to C.
    state = run(table(), Pong(B, C, suited(5, 1)), Gang(B, MeldKind.ADDED_GANG, tile=suited(5, 1))).state
    outcome = apply(state, hu(D, ROB, B, hard_flowers=1, robbing_gang=True))
    assert net(outcome.payments) == {A: 0, B: -344, C: 20, D: 324}


def test_robbing_on_a_sole_middle_wait_counts_yajue() -> None:
    # 抢杠压绝 (RULES §12): B ponged 5p from C and adds the fourth; D robs it on a sole 46p wait, 4 hard.
    # The robbed pong is a pong of 5p at the table, so 压绝 30 replaces 压当 1:
    # 10 + 压绝 30 + 2×4 = 48 (it was 10 + 2×(4 + 压当 1) = 20); ×2 = 96; B pays 3 shares = 288
    # (it was 120), and returns C's gang money 10 ×2 = 20.
    state = run(table(), Pong(B, C, suited(5, 1)), Gang(B, MeldKind.ADDED_GANG, tile=suited(5, 1))).state
    outcome = apply(state, hu(D, "123m 678s 46p 99p [222s] +5p", B, hard_flowers=4, robbing_gang=True))
    assert items(dict(outcome.scores)[D]) == {"pao": 10, "hard": 8, "yajue": 30}
    assert [(p.payer, p.payee, p.amount) for p in outcome.payments if p.reason != "added_gang"] == [(B, D, 288)]
    assert net(outcome.payments) == {A: 0, B: -308, C: 20, D: 288}
    # the same hand won on a plain discard (no pong of 5p anywhere) keeps its 压当: 20 ×2 = 40
    plain = apply(table(), hu(D, "123m 678s 46p 99p [222s] +5p", A, hard_flowers=4))
    assert net(plain.payments) == {A: -40, B: 0, C: 0, D: 40}


def test_several_robbers_are_each_paid() -> None:
    # C and D both rob B's added 5p, 1 hard flower each: 324 to each (above); B also returns C's 20.
    state = run(table(), Pong(B, C, suited(5, 1)), Gang(B, MeldKind.ADDED_GANG, tile=suited(5, 1))).state
    flags = WinFlags(hard_flowers=1, self_draw=True, robbing_gang=True)
    claims = tuple(WinInput(seat, flags, *parse_hand_parts(ROB)) for seat in (C, D))
    outcome = apply(state, Win(claims, B))
    assert net(outcome.payments) == {A: 0, B: -668, C: 344, D: 324}


# ---- 四风归齐 ---------------------------------------------------------------------------------


def test_four_winds_each_other_pays_5_doubled_again_for_each_new_run() -> None:
    # B's run of 8 wind discards covers E S W N twice: two events, each 5 ×2 = 10 from each other.
    assert net(apply(table(), FourWinds(B)).payments) == {A: -10, B: 30, C: -10, D: -10}
    assert net_of_all(table(), FourWinds(B), FourWinds(B)) == {A: -20, B: 60, C: -20, D: -20}


def test_four_winds_is_not_in_the_nanjing_rules() -> None:
    with pytest.raises(EngineError) as error:
        apply(new_table(load_preset("nanjing")), FourWinds(B))
    assert error.value.key == "winds.not_in_preset"


# ---- 包子: 三嘴 -------------------------------------------------------------------------------

M1, P9, EAST, S5, M3 = suited(1, 0), suited(9, 1), wind(0), suited(5, 2), suited(3, 0)


def three_mouths_from_a() -> TableState:
    """B pongs 1m, 9p and E, all fed by A: 三嘴 locked on A."""
    return run(table(), Pong(B, A, M1), Pong(B, A, P9), Pong(B, A, EAST)).state


def test_sanzui_notice_on_the_third_mouth() -> None:
    outcome = run(table(), Pong(B, A, M1), Pong(B, A, P9), Pong(B, A, EAST))
    assert Notice("table.sanzui", {"feeder": A, "taker": B}) in outcome.notices


def test_sanzui_fourth_mouth_from_c_ends_the_hand_as_duiduihu_self_draw() -> None:
    # melds 1m 9p E 5s, 1 hard: 10 + 对对胡 30 + 2×(1 + 风 1) = 44; ×2 = 88; A pays 3 shares = 264.
    outcome = apply(three_mouths_from_a(), Pong(B, C, S5, hard_flowers=1))
    assert dict(outcome.scores)[B].total == 44
    assert net(outcome.payments) == {A: -264, B: 264, C: 0, D: 0}
    assert outcome.state.hand_no == 2 and outcome.notices[0].key == "table.forced_end"


def test_sanzui_fourth_mouth_from_a_ends_the_hand_as_quanqiu_self_draw() -> None:
    # 10 + 全球独钓 80 + 2×(1 + 风 1) = 94; ×2 = 188; ×3 = 564 from A.
    outcome = apply(three_mouths_from_a(), Pong(B, A, S5, hard_flowers=1))
    assert net(outcome.payments) == {A: -564, B: 564, C: 0, D: 0}


def test_sanzui_own_further_concealed_gang_ends_the_hand_as_quanqiu() -> None:
    # the gang money first: 5 ×2 = 10 from each; then 10 + 80 + 2×(1 + 暗杠 2 + 风 1) = 98; ×2 = 196;
    # ×3 = 588 from A. A: -10 - 588 = -598.
    outcome = apply(three_mouths_from_a(), Gang(B, MeldKind.CONCEALED_GANG, tile=S5, hard_flowers=1))
    assert net(outcome.payments) == {A: -598, B: 618, C: -10, D: -10}


def test_a_forced_end_needs_the_hard_flowers() -> None:
    with pytest.raises(EngineError) as error:
        apply(three_mouths_from_a(), Pong(B, C, S5))
    assert error.value.key == "liability.needs_flowers"


SANZUI_HAND = "555s 7s [111m] [999p] [EEE] +7s"  # 对对胡; all three suits; 风 1


def test_sanzui_a_discarding_into_bs_duiduihu_is_bs_quanqiu_self_draw() -> None:
    # 10 + 全球独钓 80 (对对胡 dropped) + 2×(1 + 风 1) = 94; ×2 = 188; A pays 3 shares = 564.
    outcome = apply(three_mouths_from_a(), hu(B, SANZUI_HAND, A, hard_flowers=1))
    assert net(outcome.payments) == {A: -564, B: 564, C: 0, D: 0}


def test_sanzui_b_self_drawing_duiduihu_is_quanqiu_paid_by_a() -> None:
    outcome = apply(three_mouths_from_a(), hu(B, SANZUI_HAND, hard_flowers=1))
    assert net(outcome.payments) == {A: -564, B: 564, C: 0, D: 0}


def test_sanzui_c_discarding_into_bs_duiduihu_is_a_duiduihu_self_draw_paid_by_a() -> None:
    # 10 + 对对胡 30 + 2×(1 + 1) = 44; ×2 = 88; A pays 3 shares = 264; C pays nothing.
    outcome = apply(three_mouths_from_a(), hu(B, SANZUI_HAND, C, hard_flowers=1))
    assert net(outcome.payments) == {A: -264, B: 264, C: 0, D: 0}


def test_sanzui_broken_by_a_mouth_from_anyone_else() -> None:
    # mouths A, A, C: no 三嘴; a fourth pong from A is an ordinary pong (no flowers needed, no money).
    state = run(table(), Pong(B, A, M1), Pong(B, A, P9), Pong(B, C, EAST)).state
    outcome = apply(state, Pong(B, A, S5))
    assert outcome.payments == () and outcome.state.hand_no == 1


def test_sanzui_counts_bs_concealed_gangs_toward_a() -> None:
    # B's concealed 1111m (10 from each), then 9p and E from A: locked on A. C feeds 5s, 1 hard:
    # 10 + 对对胡 30 + 2×(1 + 暗杠 2 + 风 1) = 48; ×2 = 96; ×3 = 288 from A.
    state = run(table(), Gang(B, MeldKind.CONCEALED_GANG, tile=M1), Pong(B, A, P9), Pong(B, A, EAST)).state
    outcome = apply(state, Pong(B, C, S5, hard_flowers=1))
    assert net(outcome.payments) == {A: -288, B: 288, C: 0, D: 0}


# ---- 包子: 三清 -------------------------------------------------------------------------------


def a_shows_three_wan_melds() -> TableState:
    """A pongs 1m (from C), 5m (from D), 9m (from C): three melds of 万, no 三嘴."""
    return run(table(), Pong(A, C, M1), Pong(A, D, suited(5, 0)), Pong(A, C, suited(9, 0))).state


SANQING_FLUSH = "234m 7m [111m] [555m] [999m] +7m"  # 清一色; sole wait 7m: 独占
SANQING_FLUSH_PONGS = "333m 7m [111m] [555m] [999m] +7m"  # 清一色 对对胡


def test_sanqing_notice_on_the_third_meld() -> None:
    outcome = run(table(), Pong(A, C, M1), Pong(A, D, suited(5, 0)), Pong(A, C, suited(9, 0)))
    assert Notice("table.sanqing", {"taker": A, "suit": "m"}) in outcome.notices


def test_sanqing_b_discarding_into_as_flush_pays_as_a_self_draw() -> None:
    # 10 + 清一色 40 + 2×(1 + 独占 1) = 54; ×2 = 108; B pays 3 shares = 324.
    outcome = apply(a_shows_three_wan_melds(), hu(A, SANQING_FLUSH, B, hard_flowers=1))
    assert net(outcome.payments) == {A: 324, B: -324, C: 0, D: 0}


def test_sanqing_b_feeding_a_fourth_meld_ends_the_hand_as_flush_and_quanqiu() -> None:
    # melds 1m 5m 9m 3m: 10 + 清一色 40 + 全球独钓 80 + 2×1 = 132; ×2 = 264; B pays ×3 = 792.
    outcome = apply(a_shows_three_wan_melds(), Pong(A, B, M3, hard_flowers=1))
    assert net(outcome.payments) == {A: 792, B: -792, C: 0, D: 0}


def test_sanqing_b_discarding_into_as_flush_duiduihu_is_flush_and_quanqiu() -> None:
    # 10 + 清一色 40 + 全球独钓 80 (对对胡 dropped) + 2×1 = 132; B pays 792.
    outcome = apply(a_shows_three_wan_melds(), hu(A, SANQING_FLUSH_PONGS, B, hard_flowers=1))
    assert net(outcome.payments) == {A: 792, B: -792, C: 0, D: 0}


def test_sanqing_a_self_draw_is_ordinary() -> None:
    # 54 ×2 = 108 from each other player.
    outcome = apply(a_shows_three_wan_melds(), hu(A, SANQING_FLUSH, hard_flowers=1))
    assert net(outcome.payments) == {A: 324, B: -108, C: -108, D: -108}


def test_sanqing_ended_by_a_meld_of_another_suit() -> None:
    state = run(table(), Pong(A, C, M1), Pong(A, D, suited(5, 0)), Pong(A, C, P9)).state
    outcome = apply(state, Pong(A, B, M3))
    assert outcome.payments == () and outcome.state.hand_no == 1


# ---- 包子: 全球 -------------------------------------------------------------------------------


def b_has_four_pongs() -> TableState:
    """B pongs 1m (A), 9p (C), E (D), 2s (A): four melds by a pong, mouths mixed (no 三嘴)."""
    return run(table(), Pong(B, A, M1), Pong(B, C, P9), Pong(B, D, EAST), Pong(B, A, suited(2, 2))).state


def test_quanqiu_range_a_discard_inside_it_pays_three_shares() -> None:
    # B marks 5s (架 5s: 3s-7s). C discards 4s into B's 全球独钓, 1 hard:
    # 10 + 80 + 2×(1 + 风 1) = 94; ×2 = 188; C pays 3 shares = 564.
    state = apply(b_has_four_pongs(), RangeMark(B, S5)).state
    outcome = apply(state, hu(B, "4s [111m] [999p] [EEE] [222s] +4s", C, hard_flowers=1))
    assert net(outcome.payments) == {A: 0, B: 564, C: -564, D: 0}


def test_quanqiu_range_a_discard_outside_it_pays_one_share() -> None:
    # 8s is outside 3s-7s: D pays one share, 94 ×2 = 188.
    state = apply(b_has_four_pongs(), RangeMark(B, S5)).state
    outcome = apply(state, hu(B, "8s [111m] [999p] [EEE] [222s] +8s", D, hard_flowers=1))
    assert net(outcome.payments) == {A: 0, B: 188, C: 0, D: -188}


def test_quanqiu_range_needs_the_fourth_meld_by_a_pong() -> None:
    state = run(table(), Pong(B, A, M1), Pong(B, C, P9), Pong(B, D, EAST)).state
    with pytest.raises(EngineError) as error:
        apply(state, RangeMark(B, S5))
    assert error.value.key == "range.needs_fourth_pong"


# ---- 包子: 杠后承包 ----------------------------------------------------------------------------

GANG_HAND = "123m 456m 789m 9s [5555p] +9s"  # sole wait 9s: 独占; 明杠 1; exposed gang keeps 门清


def test_gang_after_the_feeder_pays_the_self_draw_on_the_replacement() -> None:
    # A feeds B's exposed 5p (A pays 20); B wins on the replacement, 1 hard:
    # 10 + 杠开 20 + 门清 10 + 2×(1 + 明杠 1 + 独占 1) = 46; ×2 = 92; A pays 3 shares = 276.
    state = apply(table(), Gang(B, MeldKind.EXPOSED_GANG, feeder=A, tile=suited(5, 1))).state
    outcome = apply(state, hu(B, GANG_HAND, hard_flowers=1, after_gang=True))
    assert net(outcome.payments) == {A: -276, B: 276, C: 0, D: 0}


def test_gang_after_the_feeder_pays_further_gang_and_flower_gang_money() -> None:
    # after A's fed gang (A pays 20): B's concealed gang 5 ×2 from each → A pays all 3 × 10 = 30;
    # B's flower gang 10 ×2 from each → A pays 3 × 20 = 60. A: -20 - 30 - 60 = -110.
    totals = net_of_all(
        table(), Gang(B, MeldKind.EXPOSED_GANG, feeder=A), Gang(B, MeldKind.CONCEALED_GANG), FlowerGang(B)
    )
    assert totals == {A: -110, B: 110, C: 0, D: 0}


def test_gang_after_ends_when_the_table_learns_of_bs_discard() -> None:
    # C's pong shows B has discarded: B's later self-draw is ordinary. 1 hard, no 杠开:
    # 10 + 门清 10 + 2×(1 + 1 + 1) = 26; ×2 = 52 from each.
    state = run(table(), Gang(B, MeldKind.EXPOSED_GANG, feeder=A, tile=suited(5, 1)), Pong(C, D)).state
    assert state.gang_liable is None
    outcome = apply(state, hu(B, GANG_HAND, hard_flowers=1))
    assert net(outcome.payments) == {A: -52, B: 156, C: -52, D: -52}


M7 = suited(7, 0)


def test_gang_after_the_first_liable_player_holds_through_a_further_added_gang() -> None:
    # B pongs C's 7m; A feeds B's exposed 9m (A pays 10 ×2 = 20): 杠后承包 on A. B adds to the 7m
    # pong before discarding: C would pay 10 ×2 = 20, A pays it instead and stays liable (the first
    # liable player is never replaced, RULES §12). B wins 杠开 on the replacement, 2 hard:
    # 10 + 门清 10 (the added gang restores it) + 对对胡 30 + 杠开 20 + 2×(2 + 明杠 1 + 补杠 1) = 78;
    # ×2 = 156; A pays 3 shares = 468. A: −20 − 20 − 468 = −508 (the old reading put the win on C:
    # A −40, C −468).
    state = run(
        table(),
        Pong(B, C, M7),
        Gang(B, MeldKind.EXPOSED_GANG, feeder=A, tile=suited(9, 0)),
        Gang(B, MeldKind.ADDED_GANG, tile=M7),
    ).state
    assert state.gang_liable == (B, A)
    outcome = apply(state, hu(B, "222p 444p 5s {7777m} [9999m] +5s", hard_flowers=2, after_gang=True))
    assert dict(outcome.scores)[B].total == 78
    assert net(outcome.payments) == {A: -468, B: 468, C: 0, D: 0}
    totals = net_of_all(
        table(),
        Pong(B, C, M7),
        Gang(B, MeldKind.EXPOSED_GANG, feeder=A, tile=suited(9, 0)),
        Gang(B, MeldKind.ADDED_GANG, tile=M7),
        hu(B, "222p 444p 5s {7777m} [9999m] +5s", hard_flowers=2, after_gang=True),
    )
    assert totals == {A: -508, B: 508, C: 0, D: 0}


def test_gang_after_an_exposed_gang_shows_a_discard_and_starts_a_new_one() -> None:
    # An exposed gang is made on another player's discard, so B has discarded since A's gang: A's
    # 杠后承包 is over and C's starts. A pays 20 (his gang), C pays 20 (his); B's concealed gang
    # then (5 ×2 from each) is paid by C alone: 30. A −20, C −50.
    totals = net_of_all(
        table(),
        Gang(B, MeldKind.EXPOSED_GANG, feeder=A, tile=suited(9, 0)),
        Gang(B, MeldKind.EXPOSED_GANG, feeder=C, tile=suited(5, 1)),
        Gang(B, MeldKind.CONCEALED_GANG, tile=suited(3, 2)),
    )
    assert totals == {A: -20, B: 70, C: -50, D: 0}


# ---- only the highest liability applies ---------------------------------------------------------


def test_sanzui_outranks_sanqing_at_a_fourth_mouth() -> None:
    # B's 1m 5m 9m all from A: 三嘴 (A) and 三清 (万) at once. C feeds 3m, 1 hard: 三嘴 applies:
    # B's 对对胡 self-draw, 清一色 met by the melds: 10 + 30 + 40 + 2×1 = 82; ×2 = 164; A pays ×3 = 492.
    state = run(table(), Pong(B, A, M1), Pong(B, A, suited(5, 0)), Pong(B, A, suited(9, 0))).state
    outcome = apply(state, Pong(B, C, M3, hard_flowers=1))
    assert net(outcome.payments) == {A: -492, B: 492, C: 0, D: 0}
    assert outcome.notices[0].params["why"] == "sanzui"


def test_sanzui_outranks_gang_after_at_a_self_draw() -> None:
    # 1m, 9p from A, then A feeds B's exposed E gang: 三嘴 and 杠后承包 both on A. B wins on the
    # replacement, 对对胡 → 三嘴 gives 全球独钓: 10 + 80 + 杠开 20 + 2×(1 + 明杠 1 + 风 1) = 116;
    # ×2 = 232; A pays ×3 = 696 (杠后承包 alone would have been the plain hand's shares).
    state = run(table(), Pong(B, A, M1), Pong(B, A, P9), Gang(B, MeldKind.EXPOSED_GANG, feeder=A, tile=EAST)).state
    outcome = apply(state, hu(B, "555s 7s [111m] [999p] [EEEE] +7s", hard_flowers=1, after_gang=True))
    assert net(outcome.payments) == {A: -696, B: 696, C: 0, D: 0}
    assert any(n.key == "table.liable" and n.params["why"] == "sanzui" for n in outcome.notices)


# ---- the next dealer --------------------------------------------------------------------------

FLUSH_C = "234m 7m [111m] [555m] [999m] +7m"


def _stays(*events: object) -> bool:
    """Play the events from a fresh table (A deals) and say whether A still deals the next hand."""
    outcome = run(table(), *events)
    assert outcome.state.hand_no == 2
    return outcome.state.dealer == A


def test_dealer_stays_on_each_reason_of_section_12() -> None:
    rob = (Pong(B, C, suited(5, 1)), Gang(B, MeldKind.ADDED_GANG, tile=suited(5, 1)))
    two_winners = Win(
        tuple(WinInput(seat, WinFlags(hard_flowers=4), *parse_hand_parts(EXAMPLE_2)) for seat in (B, C)), D
    )
    wan = (Pong(C, A, M1), Pong(C, D, suited(5, 0)), Pong(C, A, suited(9, 0)))
    four = (Pong(B, A, M1), Pong(B, C, P9), Pong(B, D, EAST), Pong(B, A, suited(2, 2)), RangeMark(B, S5))
    assert _stays(hu(A, EXAMPLE_1, hard_flowers=2))  # dealer win
    gang = Gang(B, MeldKind.EXPOSED_GANG, feeder=C, tile=suited(4, 1))
    assert _stays(Pong(B, D, EAST), gang, hu(B, GANGKAI, hard_flowers=4, after_gang=True))  # 杠开
    assert _stays(two_winners)  # 一炮多响
    assert _stays(*rob, hu(D, ROB, B, hard_flowers=1, robbing_gang=True))  # 抢杠
    assert _stays(Pong(B, A, M1), Pong(B, A, P9), Pong(B, A, EAST), Pong(B, C, S5, hard_flowers=1))  # 三嘴
    assert _stays(*wan, hu(C, FLUSH_C, B, hard_flowers=1))  # 三清
    assert _stays(*four, hu(B, "4s [111m] [999p] [EEE] [222s] +4s", C, hard_flowers=1))  # 全球
    assert _stays(Draw())  # 荒庄


def test_the_deal_passes_otherwise() -> None:
    assert not _stays(hu(B, EXAMPLE_1, hard_flowers=2))  # a plain non-dealer win
    assert not _stays(hu(B, EXAMPLE_2, C, hard_flowers=4))  # a non-dealer discard win
    # 杠后承包 with 花开 (the gang's replacement was a flower): not a reason to stay
    gang = Gang(B, MeldKind.EXPOSED_GANG, feeder=C, tile=suited(5, 1))
    assert not _stays(gang, hu(B, GANG_HAND, hard_flowers=1, after_flower=True))


def test_a_jiang_is_16_passes_of_the_deal() -> None:
    # every hand won by the seat after the dealer: the deal passes 16 times.
    state = table()
    notices: list[str] = []
    for _ in range(16):
        outcome = apply(state, hu((state.dealer + 1) % 4, EXAMPLE_1, hard_flowers=2))
        state = outcome.state
        notices.extend(n.key for n in outcome.notices)
    assert state.dealer_passes == 16 and state.dealer == A
    assert notices.count("table.jiang_complete") == 1 and notices[-1] == "table.jiang_complete"


def test_flower_gangs_at_most_five_per_hand() -> None:
    # the five sets 中 发 白 春夏秋冬 梅兰竹菊 each exist once: a sixth flower gang in one hand is refused
    state = run(table(), *(FlowerGang(seat) for seat in (A, B, C, D, A))).state
    with pytest.raises(EngineError) as error:
        apply(state, FlowerGang(B))
    assert error.value.key == "flower_gang.all_made"


def test_sanqing_still_shown_after_the_players_own_concealed_gang_of_the_suit() -> None:
    # A adds a concealed 3333m (5 ×2 = 10 from each) to 1m 5m 9m; B discards 7m into A's 清一色 全球独钓:
    # 10 + 清一色 40 + 全球独钓 80 + 2×(1 + 暗杠 2) = 136; ×2 = 272; B pays 3 shares = 816.
    state = apply(a_shows_three_wan_melds(), Gang(A, MeldKind.CONCEALED_GANG, tile=M3)).state
    outcome = apply(state, hu(A, "7m [111m] [555m] [999m] (3333m) +7m", B, hard_flowers=1))
    assert net(outcome.payments) == {A: 816, B: -816, C: 0, D: 0}


def test_the_dealer_over_one_night_with_each_stay_reason() -> None:
    state = table()
    expected: list[tuple[str, tuple[object, ...], int, int]] = [
        # (what happens, events, the dealer of the next hand, passes of the deal so far)
        ("B's plain self-draw: the deal passes", (hu(B, EXAMPLE_1, hard_flowers=2),), B, 1),
        ("dealer win", (hu(B, EXAMPLE_1, hard_flowers=2),), B, 1),
        ("draw", (Draw(),), B, 1),
        (
            "杠开",
            (
                Pong(C, D, EAST),
                Gang(C, MeldKind.EXPOSED_GANG, feeder=A, tile=suited(4, 1)),
                hu(C, GANGKAI, hard_flowers=4, after_gang=True),
            ),
            B,
            1,
        ),
        (
            "一炮多响",
            (Win(tuple(WinInput(s, WinFlags(hard_flowers=4), *parse_hand_parts(EXAMPLE_2)) for s in (C, D)), A),),
            B,
            1,
        ),
        (
            "抢杠",
            (
                Pong(C, A, suited(5, 1)),
                Gang(C, MeldKind.ADDED_GANG, tile=suited(5, 1)),
                hu(D, ROB, C, hard_flowers=1, robbing_gang=True),
            ),
            B,
            1,
        ),
        ("三嘴", (Pong(C, A, M1), Pong(C, A, P9), Pong(C, A, EAST), Pong(C, D, S5, hard_flowers=1)), B, 1),
        (
            "三清",
            (Pong(C, A, M1), Pong(C, D, suited(5, 0)), Pong(C, A, suited(9, 0)), hu(C, FLUSH_C, A, hard_flowers=1)),
            B,
            1,
        ),
        (
            "全球",
            (
                Pong(D, A, M1),
                Pong(D, B, P9),
                Pong(D, C, EAST),
                Pong(D, A, suited(2, 2)),
                RangeMark(D, S5),
                hu(D, "4s [111m] [999p] [EEE] [222s] +4s", B, hard_flowers=1),
            ),
            B,
            1,
        ),
        (
            "杠后承包 with 花开: the deal passes",
            (
                Gang(C, MeldKind.EXPOSED_GANG, feeder=D, tile=suited(5, 1)),
                hu(C, GANG_HAND, hard_flowers=1, after_flower=True),
            ),
            C,
            2,
        ),
        ("D's discard win: the deal passes", (hu(D, EXAMPLE_2, A, hard_flowers=4),), D, 3),
    ]
    for what, events, dealer, passes in expected:
        state = run(state, *events).state
        assert (state.dealer, state.dealer_passes) == (dealer, passes), what
    assert state.hand_no == len(expected) + 1


# ---- RULES changes of the third reading ----------------------------------------------------------


def test_dihu_allows_a_gang_that_keeps_the_wait_but_no_pong() -> None:
    # V1.0.2 §10.12: B (not the dealer) is ready from the deal, makes a concealed gang of 3s (5 ×2 = 10
    # from each) and self-draws 5p as 地胡, 1 hard; sole wait 5p: 独占; all three suits: no 缺一:
    # 10 + 门清 10 + 地胡 30 + 2×(1 + 暗杠 2 + 独占 1) = 58; ×2 = 116 from each.
    # B: 3 × 10 + 3 × 116 = 378; each other: −10 − 116 = −126.
    totals = net_of_all(
        table(),
        Gang(B, MeldKind.CONCEALED_GANG, tile=suited(3, 2)),
        hu(B, "123m 456m 789m 5p (3333s) +5p", hard_flowers=1, earthly=True),
    )
    assert totals == {A: -126, B: 378, C: -126, D: -126}
    # a pong is still refused (不碰), with its own reason; nanjing refuses the gang too (不碰不杠)
    with pytest.raises(ClaimRefused) as caught:
        run(table(), Pong(B, C, suited(1, 0)), hu(B, "234m 456m 789m 5p [111m] +5p", hard_flowers=4, earthly=True))
    assert caught.value.key == "claim.earthly_pong"
    nanjing = new_table(load_preset("nanjing"))
    with pytest.raises(ClaimRefused) as caught:
        run(
            nanjing,
            Gang(B, MeldKind.CONCEALED_GANG, tile=suited(3, 2)),
            hu(B, "123m 456m 789m 5p (3333s) +5p", hard_flowers=1, earthly=True),
        )
    assert caught.value.key == "claim.earthly_melds"
