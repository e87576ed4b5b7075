"""The RULES changes of the third reading outside 敞开头 (RULES §6, §8 app); figures by hand.

Seats: A=0 (East, the first dealer), B=1, C=2, D=3. The 敞开头 ones (抢杠压绝, 杠后承包, 地胡 with
gangs) are in tests/test_changkaitou.py.
"""

from engine.events import FlowerGang, Gang, Pong
from engine.hand import MeldKind
from engine.tiles import suited
from tests.kit.harness import Table
from tests.kit.table_play import A, B, C, D, fresh, hu, net, net_of_all, run

EXAMPLE_1 = "123m 456m 789m 234p 5p +5p"  # waits 2p/5p: no wait flower; no 条: 缺一


def test_a_flower_gang_adds_no_soft_flower_to_the_win() -> None:
    # RULES §6: a 花杠 is no tile gang. A makes one (6 from each: +18), then self-draws EXAMPLE_1 with
    # 2 hard: 20 + 2×(2 + 缺一 1) + 门清 20 = 46 from each (with the gang's 2 soft it would be 50).
    # A: 18 + 3 × 46 = 156; each other: −6 − 46 = −52.
    totals = net_of_all(fresh(), FlowerGang(A), hu(A, EXAMPLE_1, hard_flowers=2))
    assert totals == {A: 156, B: -52, C: -52, D: -52}


def test_app_robbing_a_gang_is_x2_alone() -> None:
    # RULES §8 app: 抢杠 ×2 alone, no 自摸 ×2 on top. B pongs C's 5p and adds it (5 from each other:
    # +15); D robs the 5p, 1 hard: highest pattern 门清 40; soft 5 each: hard 1, 缺一, 卡张 (46p, sole):
    # 40 + 5 + 5 + 5 = 55; ×2 = 110; B pays 3 shares = 330 (×4 would be 660). The gang money goes back.
    state = run(fresh("app"), Pong(B, C, suited(5, 1)), Gang(B, MeldKind.ADDED_GANG, tile=suited(5, 1))).state
    outcome = run(state, hu(D, "123m 456m 789m 46p 99p +5p", B, hard_flowers=1, robbing_gang=True))
    assert [p.amount for p in outcome.payments if p.reason == "liability"] == [330]
    assert net(outcome.payments) == {A: 5, B: -345, C: 5, D: 335}


async def test_app_robbing_a_gang_typed_at_the_table(table: Table) -> None:
    # the case above, typed: Dave +330, Bob −330 (his added-gang 5 from each is given back).
    await table.say("/new Alice Bob Carol Dave preset=app")
    await table.say("Bob: 碰 Carol 5p")
    await table.say("Bob: 补杠 5p")
    await table.say("Dave: 胡 Bob 抢杠 123m 456m 789m 46p 99p +5p 花1")
    assert await table.balances() == {"Alice": 0, "Bob": -330, "Carol": 0, "Dave": 330}
