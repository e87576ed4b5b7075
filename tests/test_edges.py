"""Edges the other tests leave open, each pinned with a figure worked out from docs/rules.md: changkaitou's
value table (§12), declared wins and what they take from the log, explanations of a share, table
events at their limits.

Seats: A=0 (East, first dealer), B=1, C=2, D=3.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from engine.claims import ClaimRefused
from engine.errors import EngineError
from engine.events import Draw, FlowerGang, Gang, Penalty, Pong, RangeMark, SetDealer, Win, WinInput
from engine.hand import MeldKind
from engine.notation import parse_tile
from engine.preset import load_preset, load_preset_text
from engine.scoring import Item, score_declared, score_forced
from engine.settlement import HandContext, WinClaim, gang_payments, share_steps, win_payments
from engine.table import apply, new_table
from engine.units import WinFlags
from tests.kit.hands import (
    ADDED_GANG,
    BIANZHI,
    CLOSED,
    CONCEALED_GANG,
    DUDIAO,
    DUIDUIHU,
    EXAMPLE_1,
    EXAMPLE_2,
    EXPOSED_GANG,
    H4,
    HAOHUA,
    HUNYISE,
    KANZHANG,
    KUAIZHAO,
    PONG,
    QIDUI,
    QINGYISE,
    QUANQIU,
    QUE_YI,
    SELF,
    SHUANG_QIDUI,
    WIND_PONG,
    YAJUE,
)
from tests.kit.helpers import items, score
from tests.kit.table_play import claim, hu, net, run

A, B, C, D = range(4)


def t(name: str) -> int:
    return parse_tile(name)


# ---- changkaitou (§12): a share = 10 + patterns + 2 × (hard + soft), before the every-hand ×2 ------
CHANGKAITOU: list[tuple[str, str, dict[str, Any], int, int]] = [
    ("hard", PONG, H4, 8, 18),  # 10 + 2×4
    ("wind_pong", WIND_PONG, H4, 2, 20),  # 10 + 2×(4 + 1)
    ("gang_exposed", EXPOSED_GANG, H4, 2, 30),  # 10 + 2×(4 + 1) + 门清 10 (a gang keeps it)
    ("gang_added", ADDED_GANG, H4, 2, 30),  # 10 + 2×(4 + 1) + 门清 10 (the upgrade restores it)
    ("gang_concealed", CONCEALED_GANG, H4, 4, 32),  # 10 + 2×(4 + 2) + 10
    ("que_yi", QUE_YI, H4, 2, 20),
    ("kanzhang", KANZHANG, H4, 2, 20),
    ("bianzhi", BIANZHI, H4, 2, 20),
    ("dudiao", DUDIAO, H4, 2, 20),
    ("menqing", CLOSED, H4, 10, 28),  # 10 + 8 + 10
    ("hunyise", HUNYISE, H4, 30, 50),  # 10 + 2×(4 + 1) + 30
    ("qingyise", QINGYISE, H4, 40, 58),  # 10 + 8 + 40
    ("duiduihu", DUIDUIHU, H4, 30, 48),  # 10 + 8 + 30
    ("quanqiu", QUANQIU, H4, 80, 98),  # 10 + 8 + 80 (not with 对对胡)
    ("qidui", QIDUI, H4, 50, 78),  # 10 + 8 + 50 + 门清 10 (seven pairs count it)
    ("qidui", HAOHUA, H4, 50, 78),  # the four was held before the win: no 龙七对
    ("long_qidui", SHUANG_QIDUI, H4, 100, 128),  # 10 + 8 + 100 + 10 (not with 七对)
    ("yajue", YAJUE, H4, 30, 50),  # 10 + 2×(4 + 缺一 1) + 30
    ("wuhuaguo", CLOSED, {}, 30, 50),  # 10 + 门清 10 + 30
    ("huakai", PONG, {**SELF, "after_flower": True}, 10, 28),  # 10 + 8 + 10
    ("gangkai", ADDED_GANG, {**SELF, "after_gang": True}, 20, 50),  # 10 + 2×5 + 门清 10 + 20
    ("dihu", CLOSED, {**H4, "earthly": True}, 30, 58),  # 10 + 8 + 10 + 30
]


@pytest.mark.parametrize(
    ("key", "hand", "flags", "flowers", "total"), CHANGKAITOU, ids=[f"{r[0]}-{r[4]}" for r in CHANGKAITOU]
)
def test_changkaitou_values(key: str, hand: str, flags: dict[str, Any], flowers: int, total: int) -> None:
    result = score(hand, "changkaitou", **flags)
    assert result.valid and items(result)[key] == flowers and result.total == total


def test_changkaitou_tianhu_is_a_flat_1000_alone() -> None:
    result = score(CLOSED, "changkaitou", hard_flowers=4, self_draw=True, dealer=True, heavenly=True)
    assert result.valid and result.flat and result.items == (Item("tianhu", 1, 1000),) and result.total == 1000


def test_changkaitou_huakai_with_gangkai_is_refused() -> None:
    result = score(ADDED_GANG, "changkaitou", hard_flowers=4, self_draw=True, after_gang=True, after_flower=True)
    assert not result.valid and result.reason == "win.claims_conflict"


def test_changkaitou_forced_end_counts_what_the_melds_show() -> None:
    # 三嘴 ends B's hand at a meld: concealed gang 1m, exposed gangs 2m and 3m, 1 hard flower, 对对胡
    # forced. 10 + 2×(1 + concealed 2 + exposed 1 + 1) + 清一色 40 + 门清 10 + 对对胡 30 = 100.
    melds = [(MeldKind.CONCEALED_GANG, t("1m")), (MeldKind.EXPOSED_GANG, t("2m")), (MeldKind.EXPOSED_GANG, t("3m"))]
    result = score_forced(melds, 1, ["duiduihu"], load_preset("changkaitou"))
    assert result.valid and result.total == 100 and items(result)["menqing"] == 10


# ---- declared wins (patterns named, no tiles) ------------------------------------------------------


def test_declared_win_with_plain_soft_flowers() -> None:
    # nanjing 清一色 对对胡, 3 hard flowers, 3 soft: 20 + 2×3 + 60 + 40 + 2×3 = 132.
    result = score_declared(["qingyise", "duiduihu"], WinFlags(hard_flowers=3), load_preset("nanjing"), soft=3)
    assert result.total == 132 and items(result)["soft"] == 6
    # 清一色 alone: jinyuanzi (hard 2, soft 2, no 砸) 20 + 2×3 + 60 + 2×3 = 92; chengbei 10 + 2×3 + 50 + 2×3 = 72.
    assert score_declared(["qingyise"], WinFlags(hard_flowers=3), load_preset("jinyuanzi"), soft=3).total == 92
    assert score_declared(["qingyise"], WinFlags(hard_flowers=3), load_preset("chengbei"), soft=3).total == 72


def test_declared_win_takes_gangs_winds_menqing_and_wuhuaguo_from_the_log() -> None:
    # nanjing, logged: a concealed gang of E. Named 混一色 and 门清, no hard flower:
    # 20 + 2×(gang 2 + 风碰 1) + 混一色 40 + 门清 20 (once, named and logged) + 无花果 40 = 126.
    logged = [(MeldKind.CONCEALED_GANG, t("E"))]
    result = score_declared(["hunyise", "menqing"], WinFlags(), load_preset("nanjing"), menqing=True, logged=logged)
    assert items(result) == {
        "pao": 20,
        "wind_pong": 2,
        "gang_concealed": 4,
        "menqing": 20,
        "hunyise": 40,
        "wuhuaguo": 40,
    }
    assert result.total == 126


def test_declared_win_haidi_needs_a_self_draw() -> None:
    # 海底捞月 is a self-draw: 20 + 2×4 = 28 on a discard, 20 + 8 + 10 = 38 self-drawn.
    nanjing = load_preset("nanjing")
    assert score_declared([], WinFlags(hard_flowers=4, last_stacks=True), nanjing).total == 28
    assert score_declared([], WinFlags(hard_flowers=4, last_stacks=True, self_draw=True), nanjing).total == 38


# ---- how a share was made (the lines the bot shows) -------------------------------------------------


def test_share_steps_name_the_bixiahu_doubling() -> None:
    # §11.2 (34) in a 比下胡 hand with N = 0: (34 + 10×0) × 2 = 68, shown as 垒宝塔; a house file without
    # 垒宝塔 shows the plain 比下胡 ×2 (N does not count there).
    result = score(EXAMPLE_2, "nanjing", hard_flowers=4)
    amount, steps = share_steps(WinClaim(B, result, False), load_preset("nanjing-20"), HandContext(True, 0, None))
    assert amount == 68 and [s.key for s in steps] == ["leibaota"]
    house = load_preset_text('base = "nanjing"\nname = "no-tower"\n[bixiahu]\nleibaota_step = 0\n')
    amount, steps = share_steps(WinClaim(B, result, False), house, HandContext(True, 2, None))
    assert amount == 68 and [(s.key, s.params) for s in steps] == [("bixiahu", {"factor": 2})]


# ---- table events at their limits ------------------------------------------------------------------


@pytest.mark.parametrize("event", [Pong(-1, A), Pong(A, -1), Pong(4, A), Gang(-1, MeldKind.CONCEALED_GANG)])
def test_seats_outside_0_to_3_are_refused(event: object) -> None:
    with pytest.raises(EngineError) as caught:
        apply(new_table(load_preset("nanjing")), event)  # type: ignore[arg-type]
    assert caught.value.key == "table.bad_seat"


def test_the_third_meld_of_one_suit_announces_qingyise_three() -> None:
    state = new_table(load_preset("nanjing"))
    notices = []
    for feeder, tile in ((A, "1m"), (C, "2m"), (D, "3m")):
        outcome = apply(state, Pong(B, feeder, t(tile)))
        state = outcome.state
        notices.append([(n.key, n.params) for n in outcome.notices])
    assert notices == [[], [], [("table.qingyise_three", {"taker": B, "suit": "m"})]]


def test_an_added_gang_on_one_of_two_pongs_must_say_which() -> None:
    state = run(new_table(load_preset("nanjing")), Pong(B, A, t("1m")), Pong(B, C, t("2p"))).state
    with pytest.raises(EngineError) as caught:
        apply(state, Gang(B, MeldKind.ADDED_GANG))
    assert caught.value.key == "gang.which_pong"
    # Naming the tile picks the pong: C fed 2p, so C pays the 6.
    assert net(apply(state, Gang(B, MeldKind.ADDED_GANG, None, t("2p"))).payments) == {A: 0, B: 6, C: -6, D: 0}


def test_a_house_rule_keeping_the_dealer_on_a_big_win_only() -> None:
    # stays_on = ["dealer_big_win"]: the dealer's 清一色 keeps the deal, his small win does not.
    house = load_preset_text('base = "nanjing"\nname = "big-stays"\n[dealer]\nstays_on = ["dealer_big_win"]\n')
    big = apply(new_table(house), hu(A, "123m 456m 78m 99m [111m] +9m", B, hard_flowers=1)).state
    assert (big.dealer, big.dealer_streak) == (A, 1)
    small = apply(new_table(house), hu(A, EXAMPLE_1, B, hard_flowers=2)).state
    assert (small.dealer, small.dealer_streak) == (B, 0)


def test_naming_the_dealer_starts_the_streak_again() -> None:
    state = run(new_table(load_preset("nanjing")), Draw(), Draw()).state
    assert (state.dealer, state.dealer_streak) == (A, 2)
    after = apply(state, SetDealer(C)).state
    assert (after.dealer, after.dealer_streak) == (C, 0)


def test_a_custom_penalty_of_one_is_paid() -> None:
    assert net(apply(new_table(load_preset("nanjing")), Penalty("penalty_custom", B, 1)).payments) == {
        A: 1,
        B: -3,
        C: 1,
        D: 1,
    }


def test_two_claims_each_paid_once() -> None:
    both = Win((claim(B, EXAMPLE_2, hard_flowers=4), claim(D, EXAMPLE_1, hard_flowers=2)), C)
    payments = apply(new_table(load_preset("nanjing")), both).payments
    assert sorted((p.payer, p.payee, p.amount) for p in payments) == [(C, B, 34), (C, D, 46)]


def test_changkaitou_gang_after_the_feeder_pays_everything_until_the_maker_discards() -> None:
    # 杠后承包: B fed A's exposed gang; A self-draws on the replacement: 123m 456p 23s 99s [8888p] +4s,
    # 4 hard flowers: 10 + 2×(4 + 1) + 门清 10 + 杠开 20 = 50, ×2 every hand = 100 a share; B pays all
    # three: 300.
    state = apply(new_table(load_preset("changkaitou")), Gang(A, MeldKind.EXPOSED_GANG, B, t("8p"))).state
    outcome = apply(state, hu(A, EXPOSED_GANG, None, hard_flowers=4, after_gang=True))
    assert net(outcome.payments) == {A: 300, B: -300, C: 0, D: 0}


def test_a_range_mark_outside_changkaitou_is_refused() -> None:
    with pytest.raises(EngineError) as caught:
        apply(new_table(load_preset("nanjing")), RangeMark(B, t("5m")))
    assert caught.value.key == "range.not_in_preset"


def test_robbing_a_gang_nobody_holds_is_refused() -> None:
    # §5: at the table, the robbed player holds a pong of the winning tile. Nobody has melded here.
    with pytest.raises(ClaimRefused):
        apply(
            new_table(load_preset("nanjing")),
            Win((claim(D, "123m 456m 789m 55p 34p +2p", hard_flowers=2, robbing_gang=True),), C),
        )


def test_four_melds_of_one_suit_but_a_pair_of_another_is_no_qingyise_liability() -> None:
    # 万 melds fed by A, C, D and C; the pair is 5p: no 清一色, so nobody is liable. 5p [111m] [222m]
    # [333m] [555m] +5p: 对对胡 40 + 全球独钓 60, 缺一 1 (no 条), hard 1: 20 + 2×2 + 100 = 124; D pays.
    state = run(
        new_table(load_preset("nanjing")),
        Pong(B, A, t("1m")),
        Pong(B, C, t("2m")),
        Pong(B, D, t("3m")),
        Pong(B, C, t("5m")),
    ).state
    outcome = apply(state, hu(B, "5p [111m] [222m] [333m] [555m] +5p", D, hard_flowers=1))
    assert net(outcome.payments) == {A: 0, B: 124, C: 0, D: -124}


def test_a_declared_win_at_the_table() -> None:
    # B names 清一色 对对胡 with 3 hard flowers on C's discard. B logged no pong this hand, so the table
    # counts 门清 (§5): 20 + 2×3 + 60 + 40 + 20 = 146. After a logged pong of 1m fed by A: no 门清,
    # 126 (and no liability: one mouth).
    declared = WinInput(B, WinFlags(hard_flowers=3), declared=("qingyise", "duiduihu"))
    outcome = apply(new_table(load_preset("nanjing")), Win((declared,), C))
    assert net(outcome.payments) == {A: 0, B: 146, C: -146, D: 0}
    state = apply(new_table(load_preset("nanjing")), Pong(B, A, t("1m"))).state
    assert net(apply(state, Win((declared,), C)).payments) == {A: 0, B: 126, C: -126, D: 0}


# ---- settlement and table details the mutation run found unguarded ---------------------------------


def test_a_refused_shape_scores_nothing() -> None:
    result = score("123m 456m 789m 234p 5p +6p", "nanjing", hard_flowers=4)
    assert (result.valid, result.total, result.items, result.reason) == (False, 0, (), "win.not_a_winning_shape")


def test_a_declared_pattern_the_preset_does_not_have_counts_nothing() -> None:
    # 龙七对 is changkaitou's; named in nanjing it adds nothing: 20 + 2×4 = 28.
    assert score_declared(["long_qidui"], WinFlags(hard_flowers=4), load_preset("nanjing")).total == 28


def test_declared_flag_patterns_count_once() -> None:
    # 小杠开花 on a declared self-draw: 20 + 2×4 + 20 = 48.
    flags = WinFlags(hard_flowers=4, self_draw=True, after_flower=True)
    assert score_declared([], flags, load_preset("nanjing")).total == 48


def test_no_payment_of_nothing() -> None:
    # app has no flower-gang money and no penalties (§4 "—"): nothing is paid, not four payments of 0.
    assert apply(new_table(load_preset("app")), FlowerGang(B)).payments == ()
    assert apply(new_table(load_preset("jinyuanzi")), Penalty("penalty_four", B)).payments == ()


def test_an_exposed_gang_needs_its_feeder() -> None:
    with pytest.raises(EngineError) as caught:
        gang_payments("exposed_gang", A, None, load_preset("nanjing"), HandContext())
    assert caught.value.key == "gang.needs_feeder"


@pytest.mark.parametrize(
    ("preset", "penalty", "key"),
    [
        ("nanjing", Penalty("penalty_custom", B, 0), "penalty.bad_amount"),
        ("nanjing", Penalty("penalty_custom", B, -5), "penalty.bad_amount"),
        ("jinyuanzi", Penalty("penalty_custom", B, 5), "penalty.custom_not_in_preset"),  # 003 prices none
        ("jinyuanzi", Penalty("false_win", B, 20), "penalty.fixed_amount"),  # 诈胡 is 10 chips
    ],
)
def test_penalties_a_preset_cannot_price_are_refused(preset: str, penalty: Penalty, key: str) -> None:
    with pytest.raises(EngineError) as caught:
        apply(new_table(load_preset(preset)), penalty)
    assert caught.value.key == key


def test_a_last_chip_is_paid_and_the_player_is_bust() -> None:
    # C has 1 chip left and discards into §11.2 (17 chips): C pays 1 and is bust; one bust: the 将 goes on.
    state = replace(new_table(load_preset("jinyuanzi")), chips=(95, 95, 1, 95))
    outcome = run(state, Pong(B, C), Pong(B, D), hu(B, EXAMPLE_2, C, hard_flowers=4))
    assert net(outcome.payments) == {A: 0, B: 1, C: -1, D: 0}
    keys = [(n.key, n.params) for n in outcome.notices]
    assert ("table.bust", {"seat": C}) in keys and ("table.jiang_over", {}) not in keys


def test_a_player_already_bust_is_not_announced_again_and_a_second_bust_ends_the_jiang() -> None:
    # C is at 0. B wins §11.2 from D, who has 17 chips left: D is bust, the second: the 将 is over.
    state = replace(new_table(load_preset("jinyuanzi")), chips=(95, 95, 0, 17))
    outcome = run(state, Pong(B, A), Pong(B, A), hu(B, EXAMPLE_2, D, hard_flowers=4))
    assert net(outcome.payments) == {A: 0, B: 17, C: 0, D: -17}
    busts = [n.params for n in outcome.notices if n.key == "table.bust"]
    assert busts == [{"seat": D}] and any(n.key == "table.jiang_over" for n in outcome.notices)
    # The same win from A (95 chips): nobody new is bust, no notice at all.
    calm = run(state, Pong(B, C), Pong(B, D), hu(B, EXAMPLE_2, A, hard_flowers=4))
    assert not [n for n in calm.notices if n.key in ("table.bust", "table.jiang_over")]


def test_a_fifth_meld_is_refused() -> None:
    state = run(new_table(load_preset("nanjing")), *(Pong(B, A, t(tile)) for tile in ("1m", "2m", "3m", "4m"))).state
    with pytest.raises(EngineError) as caught:
        apply(state, Pong(B, C, t("5m")))
    assert caught.value.key == "meld.too_many"


def test_nanjing_6_one_mouth_and_one_concealed_gang_is_not_kuaizhao() -> None:
    # 002 counts two mouths + a concealed gang, or one mouth + two: one + one is only two. D pays.
    # 999s 5p [111m] [222p] (EEEE) +5p as above: 68.
    state = run(
        new_table(load_preset("nanjing-6")),
        Pong(B, C, t("1m")),
        Pong(B, D, t("2p")),
        Gang(B, MeldKind.CONCEALED_GANG, None, t("E")),
    ).state
    outcome = apply(state, hu(B, "999s 5p [111m] [222p] (EEEE) +5p", D, hard_flowers=1))
    assert net(outcome.payments) == {A: 0, B: 68, C: 0, D: -68}


def test_a_fourth_mouth_from_the_same_feeder_is_announced() -> None:
    outcome = run(new_table(load_preset("nanjing")), *(Pong(B, C) for _ in range(4)))
    assert [(n.key, n.params) for n in outcome.notices] == [("table.kuaizhao_fourth", {"feeder": C, "taker": B})]


def test_three_melds_with_unknown_tiles_announce_no_qingyise() -> None:
    outcome = run(new_table(load_preset("nanjing")), Pong(B, A), Pong(B, C), Pong(B, D))
    assert [n.key for n in outcome.notices] == []


def test_instant_payment_factors_show_the_doubling_only_in_a_bixiahu_hand() -> None:
    plain = apply(new_table(load_preset("nanjing")), Gang(A, MeldKind.EXPOSED_GANG, B, t("7p")))
    assert plain.factors == ()
    doubled = apply(apply(new_table(load_preset("nanjing")), Draw()).state, Gang(A, MeldKind.EXPOSED_GANG, B, t("7p")))
    assert [(f.key, f.params) for f in doubled.factors] == [("bixiahu", {"factor": 2})]


def test_liability_factors_name_who_pays() -> None:
    # jinyuanzi 外包: the fixed 50 from C; nanjing 快照 on a discard: one share from C.
    state = run(new_table(load_preset("jinyuanzi")), Pong(B, C, t("1m")), Pong(B, C, t("2p")), Pong(B, C, t("E")))
    outcome = apply(state.state, hu(B, KUAIZHAO, D, hard_flowers=1))
    assert [(f.key, f.params) for f in outcome.factors] == [("liable_fixed", {"amount": 50, "liable": C})]
    state = run(new_table(load_preset("nanjing")), Pong(B, C, t("1m")), Pong(B, C, t("2p")), Pong(B, C, t("E")))
    outcome = apply(state.state, hu(B, KUAIZHAO, D, hard_flowers=1))
    assert [(f.key, f.params) for f in outcome.factors] == [("liable_one", {"liable": C})]


def test_robbing_shows_the_refunded_gang_money() -> None:
    state = run(new_table(load_preset("nanjing")), Pong(C, A, t("2p")), Gang(C, MeldKind.ADDED_GANG, None, t("2p")))
    outcome = apply(state.state, Win((claim(D, "123m 456m 789m 55p 34p +2p", hard_flowers=2, robbing_gang=True),), C))
    assert ("robbing_refund", {"amount": 6}) in [(f.key, f.params) for f in outcome.factors]


def test_the_dealer_staying_is_announced() -> None:
    outcome = apply(new_table(load_preset("nanjing")), Draw())
    assert ("table.dealer_stays", {"dealer": A, "streak": 1}) in [(n.key, n.params) for n in outcome.notices]


def test_five_flower_gangs_in_every_hand() -> None:
    # Five sets (中 发 白, 春夏秋冬, 梅兰竹菊): a sixth is refused; the count starts again each hand.
    state = run(new_table(load_preset("nanjing")), *(FlowerGang(B) for _ in range(5))).state
    with pytest.raises(EngineError) as caught:
        apply(state, FlowerGang(C))
    assert caught.value.key == "flower_gang.all_made"
    state = run(state, Draw(), *(FlowerGang(C) for _ in range(5))).state
    assert state.flower_gangs == 5


def test_changkaitou_robbing_keeps_the_dealer() -> None:
    # §12: the dealer stays on 抢杠. C pongs 2p from A, adds the gang, D robs it.
    state = run(new_table(load_preset("changkaitou")), Pong(C, A, t("2p")), Gang(C, MeldKind.ADDED_GANG, None, t("2p")))
    outcome = apply(state.state, Win((claim(D, "123m 456m 789m 55p 34p +2p", hard_flowers=4, robbing_gang=True),), C))
    assert (outcome.state.dealer, outcome.state.dealer_streak) == (A, 1)


def test_yajue_needs_a_sole_wait() -> None:
    # 111m 222m 1113s [222s] +2s: 13s waits on 2s, but 1113s also waits on 3s (111s + 33s): not a sole
    # wait, so neither 压绝 nor 压档 (§6). Soft: 缺一 1 (no 筒): 20 + 2×(4 + 1) = 30; with 3 hard flowers
    # it is refused by the 小胡 limit (a 压绝 would have lifted it).
    hand = "111m 222m 1113s [222s] +2s"
    result = score(hand, "nanjing", hard_flowers=4)
    assert items(result) == {"pao": 20, "hard": 8, "que_yi": 2} and result.total == 30
    assert not score(hand, "nanjing", hard_flowers=3).valid


def test_declared_wuhuaguo_from_the_log_without_menqing() -> None:
    # nanjing's 无花果 needs no 门清: a logged pong, 清一色 named, no hard flower:
    # 20 + 清一色 60 + 无花果 40 = 120.
    logged = [(MeldKind.PONG, t("1m"))]
    assert score_declared(["qingyise"], WinFlags(), load_preset("nanjing"), logged=logged).total == 120


def test_engine_level_refusals() -> None:
    nanjing = load_preset("nanjing")
    with pytest.raises(EngineError) as caught:
        gang_payments("bogus_gang", A, None, nanjing, HandContext())
    assert caught.value.key == "gang.unknown_kind"
    result = score(EXAMPLE_2, "nanjing", hard_flowers=4)
    with pytest.raises(EngineError) as caught:
        win_payments([WinClaim(B, result, False)], None, nanjing, HandContext())
    assert caught.value.key == "win.needs_discarder"


@pytest.mark.parametrize(
    ("claims", "discarder", "key"),
    [
        ((claim(B, EXAMPLE_2, hard_flowers=4), claim(B, EXAMPLE_2, hard_flowers=4)), C, "win.duplicate_winner"),
        ((claim(4, EXAMPLE_2, hard_flowers=4),), C, "table.bad_seat"),
        ((claim(B, EXAMPLE_2, hard_flowers=4),), B, "win.discarder_wins"),
    ],
)
def test_impossible_wins_are_refused(claims: tuple[WinInput, ...], discarder: int, key: str) -> None:
    with pytest.raises(EngineError) as caught:
        apply(new_table(load_preset("nanjing")), Win(claims, discarder))
    assert caught.value.key == key


def test_a_house_rule_keeping_the_dealer_on_a_robbed_gang() -> None:
    # No liability kinds but the dealer stays on 抢杠: D robs C's added gang (123m 456m 789m 55p 34p
    # +2p, 2 hard flowers: 46, each other pays as on a self-draw); A stays.
    house = load_preset_text(
        'base = "nanjing"\nname = "rob"\n[liability]\nkinds = ["dagangkai"]\n[dealer]\nstays_on = ["robbing_gang"]\n'
    )
    state = run(new_table(house), Pong(C, A, t("2p")), Gang(C, MeldKind.ADDED_GANG, None, t("2p"))).state
    outcome = apply(state, Win((claim(D, "123m 456m 789m 55p 34p +2p", hard_flowers=2, robbing_gang=True),), C))
    assert (outcome.state.dealer, outcome.state.dealer_streak) == (A, 1)


def test_more_refusals_at_the_table() -> None:
    nanjing = new_table(load_preset("nanjing"))
    with pytest.raises(EngineError) as caught:
        apply(nanjing, Penalty("bogus", B))
    assert caught.value.key == "penalty.unknown_kind"
    with pytest.raises(EngineError) as caught:
        apply(nanjing, Win((claim(B, EXAMPLE_2, hard_flowers=4),), 7))
    assert caught.value.key == "table.bad_seat"
    with pytest.raises(EngineError) as caught:  # 1m five times
        apply(nanjing, Win((claim(B, "11111m 234p 567s 9s +9s", hard_flowers=4),), C))
    assert caught.value.key == "hand.too_many_copies"
    with pytest.raises(ClaimRefused):  # a declared 天胡 by a player who does not deal
        apply(nanjing, Win((WinInput(B, WinFlags(hard_flowers=4, heavenly=True), declared=("qingyise",)),), C))
    with pytest.raises(EngineError) as caught:  # the dealer is named before anything happens
        apply(apply(nanjing, Pong(B, C, t("1m"))).state, SetDealer(C))
    assert caught.value.key == "dealer.hand_started"


def test_an_added_gang_needs_a_pong_of_that_tile_not_a_gang() -> None:
    state = run(
        new_table(load_preset("nanjing")), Gang(B, MeldKind.EXPOSED_GANG, A, t("7p")), Pong(B, C, t("1m"))
    ).state
    with pytest.raises(EngineError) as caught:
        apply(state, Gang(B, MeldKind.ADDED_GANG, None, t("7p")))
    assert caught.value.key == "gang.no_pong"


def test_only_a_pong_or_added_gang_can_be_robbed() -> None:
    state = apply(new_table(load_preset("nanjing")), Gang(C, MeldKind.EXPOSED_GANG, A, t("2p"))).state
    with pytest.raises(ClaimRefused):
        apply(state, Win((claim(D, "123m 456m 789m 55p 34p +2p", hard_flowers=2, robbing_gang=True),), C))


def test_app_wuhuaguo_needs_menqing_even_without_hard_flowers() -> None:
    assert items(score(PONG, "app")) == {"pao": 20}  # a pong: no 无花果; 小胡 20 (refused by the limit)


def test_share_steps_show_leibaota_and_app_multipliers() -> None:
    result = score(EXAMPLE_2, "nanjing", hard_flowers=4)
    _, steps = share_steps(WinClaim(B, result, False), load_preset("nanjing"), HandContext(True, 1, None))
    # (34 + 10×1) × 2 = 88
    assert [(s.key, s.params) for s in steps] == [
        ("leibaota", {"total": 34, "step": 10, "streak": 1, "factor": 2, "result": 88})
    ]
    app = score(EXAMPLE_1, "app", hard_flowers=2)  # 门清 40 + 5×2 + 缺一门 5 = 55; self-draw ×2 = 110
    amount, steps = share_steps(WinClaim(D, app, True), load_preset("app"), HandContext())
    assert amount == 110 and [(s.key, s.parts) for s in steps] == [("multipliers", (("self_draw", 2),))]


def test_forced_end_without_hard_flowers_counts_wuhuaguo() -> None:
    # changkaitou forced end, melds [111m] [222p] (EEE) ... as pongs: B's three pongs (no 门清), no hard
    # flower: 10 + 2×(风 1) + 无花果 30 + 对对胡 30 = 72.
    melds = [(MeldKind.PONG, t("1m")), (MeldKind.PONG, t("2p")), (MeldKind.PONG, t("E"))]
    result = score_forced(melds, 0, ["duiduihu"], load_preset("changkaitou"))
    assert result.total == 72 and items(result)["wuhuaguo"] == 30
