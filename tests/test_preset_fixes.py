"""Preset readings of docs/rules.md: nanjing-6 wind gangs (§6 end), jinyuanzi 无花果 as a 大胡 (§5, §7, §9),
诈胡 and custom penalties per preset (§4, §7, §9).

Seats: A=0 (East, the first dealer), B=1, C=2, D=3.
"""

from __future__ import annotations

import pytest

from engine.errors import EngineError
from engine.events import Penalty
from engine.table import WinRefused, apply
from tests.kit.harness import Table
from tests.kit.helpers import items, score
from tests.kit.table_play import fresh, hu, net, run

A, B, C, D = range(4)
EXAMPLE_1 = "123m 456m 789m 234p 5p +5p"
EXAMPLE_2 = "11p 567s 79s [EEE] [444p] +8s"


# ---- nanjing-6 wind gangs (002 "風杠：明杠算2個軟花、暗杠算3個軟花") ------------------------------------


@pytest.mark.parametrize(
    ("hand", "preset", "soft", "total"),
    [
        # exposed wind gang: 2 in all. 20 + 2×(4 hard + 风杠 2 + 缺一 1 + 压档 1) = 36
        ("11p 567s 79s [EEEE] [444p] +8s", "nanjing-6", {"wind_gang_open": 4}, 36),
        # added wind gang: 2 in all, as the exposed one: 36
        ("11p 567s 79s {EEEE} [444p] +8s", "nanjing-6", {"wind_gang_open": 4}, 36),
        # concealed wind gang: 3 in all. 20 + 2×(4 + 3 + 1 + 1) = 38
        ("11p 567s 79s (EEEE) [444p] +8s", "nanjing-6", {"wind_gang_concealed": 6}, 38),
        # nanjing keeps 风碰 1 + the gang's 2: 20 + 2×(4 + 1 + 2 + 1 + 1) = 38
        ("11p 567s 79s [EEEE] [444p] +8s", "nanjing", {"wind_pong": 2, "gang_exposed": 4}, 38),
        # a wind pong is still 风碰 1 in nanjing-6: RULES example 2, 34
        (EXAMPLE_2, "nanjing-6", {"wind_pong": 2}, 34),
    ],
)
def test_nanjing_6_wind_gangs(hand: str, preset: str, soft: dict[str, int], total: int) -> None:
    result = score(hand, preset, hard_flowers=4)
    breakdown = items(result)
    assert result.valid and result.total == total
    for key, flowers in soft.items():
        assert breakdown[key] == flowers
    assert not {"wind_pong", "gang_exposed", "gang_added", "gang_concealed"} & set(breakdown) - set(soft)


def test_nanjing_6_a_suited_gang_keeps_its_2() -> None:
    # 20 + 2×(4 hard + 明杠 2 + 风碰 1 + 缺一 1 + 压档 1) = 38
    assert score("11p 567s 79s [EEE] [4444p] +8s", "nanjing-6", hard_flowers=4).total == 38


# ---- jinyuanzi 无花果 is a 大胡 (003's list) -----------------------------------------------------


def test_jinyuanzi_wuhuaguo_lifts_the_limit_and_doubles_the_next_hand() -> None:
    # B on C's discard, no hard flower: 跑 20 + 风刻 2 + 缺门 2 + 卡张 2 + 无花果 40 = 66 flowers = 33 chips
    outcome = apply(fresh("jinyuanzi"), hu(B, EXAMPLE_2, C, hard_flowers=0))
    assert net(outcome.payments) == {A: 0, B: 33, C: -33, D: 0}
    state = outcome.state
    # a 大胡 triggers 比下胡; B is not the dealer, so the deal passes (003)
    assert state.doubled and state.dealer == B
    # D self-draws: 20 + 2×2 hard + 缺门 2 + 门清 20 = 46 flowers = 23 chips, ×2 = 46 from each
    assert net(apply(state, hu(D, EXAMPLE_1, hard_flowers=2)).payments)[D] == 3 * 46


def test_nanjing_wuhuaguo_alone_does_not_lift_the_limit() -> None:
    with pytest.raises(WinRefused) as caught:
        apply(fresh("nanjing"), hu(B, EXAMPLE_2, C, hard_flowers=0))
    assert caught.value.key == "win.below_limit"


# ---- 诈胡 and penalties per preset ---------------------------------------------------------------


@pytest.mark.parametrize("preset", ["nanjing", "nanjing-6", "nanjing-20", "chengbei", "app"])
def test_false_win_needs_an_amount_where_the_preset_fixes_none(preset: str) -> None:
    with pytest.raises(EngineError) as caught:
        apply(fresh(preset), Penalty("false_win", B))
    assert caught.value.key == "penalty.false_win_needs_amount"


@pytest.mark.parametrize("preset", ["nanjing", "nanjing-6", "nanjing-20", "chengbei"])
def test_nanjing_family_false_win_is_a_penalty_that_keeps_the_dealer_and_doubles(preset: str) -> None:
    # 罚 诈胡 C 30: C pays 30 to each; the hand is over; a penalty is a 比下胡 trigger, which keeps A: N = 1
    outcome = apply(fresh(preset), Penalty("false_win", C, 30))
    assert net(outcome.payments) == {A: 30, B: 30, C: -90, D: 30}
    state = outcome.state
    assert (state.hand_no, state.dealer, state.dealer_streak, state.doubled) == (2, A, 1, True)


@pytest.mark.parametrize("preset", ["nanjing", "chengbei"])
def test_nanjing_family_custom_penalty_triggers_bixiahu(preset: str) -> None:
    # 罚 B 50, then B's small win on C's discard (no trigger of its own): the penalty alone keeps A
    # dealing (N = 1) and doubles the next hand
    state = run(fresh(preset), Penalty("penalty_custom", B, 50), hu(B, EXAMPLE_2, C, hard_flowers=4)).state
    assert (state.dealer, state.dealer_streak, state.doubled) == (A, 1, True)
    with pytest.raises(EngineError) as caught:
        apply(state, Penalty("penalty_custom", B))
    assert caught.value.key == "penalty.needs_amount"


def test_jinyuanzi_false_win_is_fixed_10_chips_20_in_a_doubled_hand() -> None:
    outcome = apply(fresh("jinyuanzi"), Penalty("false_win", B))
    assert net(outcome.payments) == {A: 10, B: -30, C: 10, D: 10}
    # 诈胡 keeps the dealer (003): 连庄 is a trigger, so the next hand is doubled: 20 chips to each
    state = outcome.state
    assert state.dealer == A and state.doubled
    assert net(apply(state, Penalty("false_win", C)).payments) == {A: 20, B: 20, C: -60, D: 20}


def test_jinyuanzi_refuses_an_amount_it_cannot_price() -> None:
    with pytest.raises(EngineError) as caught:
        apply(fresh("jinyuanzi"), Penalty("false_win", B, 30))
    assert caught.value.key == "penalty.fixed_amount" and caught.value.params["amount"] == 10
    with pytest.raises(EngineError) as caught:
        apply(fresh("jinyuanzi"), Penalty("penalty_custom", B, 30))
    assert caught.value.key == "penalty.custom_not_in_preset"


def test_app_false_win_as_typed_passes_the_deal_and_doubles_nothing() -> None:
    outcome = apply(fresh("app"), Penalty("false_win", B, 30))
    assert net(outcome.payments)[B] == -90
    assert outcome.state.dealer == B and not outcome.state.doubled


@pytest.mark.parametrize("amount", [0, -5])
def test_a_typed_penalty_amount_must_be_positive(amount: int) -> None:
    with pytest.raises(EngineError) as caught:
        apply(fresh("nanjing"), Penalty("penalty_custom", B, amount))
    assert caught.value.key == "penalty.bad_amount"


async def test_a_false_win_without_an_amount_records_nothing_in_nanjing(table: Table) -> None:
    await table.play("/new Alice Bob Carol Dave preset=nanjing stake=2")
    before = await table.row_counts()
    out = await table.say("Alice: /penalty false Bob")
    assert "诈胡要写数目" in out and await table.row_counts() == before
    await table.say("Alice: /penalty false Bob 30")
    # Bob pays 30 to each of the three others
    assert await table.balances() == {"Alice": 30, "Bob": -90, "Carol": 30, "Dave": 30}


async def test_rules_say_who_keeps_the_deal_and_the_leibaota(table: Table) -> None:
    nanjing = await table.say("/rules all nanjing")
    assert "连庄：凡是引起比下胡的事" in nanjing and "垒宝塔" in nanjing and "庄家胡牌" in nanjing
    jinyuanzi = await table.say("/rules all jinyuanzi")
    # (its key is listed among the values a group may change, at 0: "垒宝塔 leibaota_step=0")
    assert "连庄：庄家胡牌、荒庄、诈胡" in jinyuanzi and "垒宝塔：" not in jinyuanzi
