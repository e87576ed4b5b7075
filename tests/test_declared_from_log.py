"""A win typed without tiles counts what the table logged (RULES §6): the winner's gangs and wind
pongs give their soft flowers, 无花果 when no hard flower, 门清 when nothing broke it; the reply says
what was added. Nanjing, A deals; figures by hand in each comment."""

from __future__ import annotations

from tests.kit.harness import Table


async def test_logged_exposed_gang_gives_its_soft_flowers(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("A: /gang B 5s")  # B → A 6
    out = await table.say("A: /hu self flowers=4")
    # 20 + 2×(4 hard + 2 gang) + 门清 20 (an exposed gang keeps it) = 52 from each
    assert "合计 52 花" in out
    assert "  从记录补上：明杠 · 门清" in out.splitlines()
    assert await table.balances() == {"A": 6 + 156, "B": -6 - 52, "C": -52, "D": -52}


async def test_seven_pairs_without_hard_flowers_gets_wuhuaguo(table: Table) -> None:
    await table.say("/new A B C D")
    out = await table.say("A: 胡 D 七对 花0")
    # 20 + 七对 80 + 无花果 40 = 140 (七对 takes no 门清), paid by D
    assert "合计 140 花" in out
    assert await table.balances() == {"A": 140, "B": 0, "C": 0, "D": -140}


async def test_wind_pong_counts_and_breaks_menqing(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("A: /pong B E")
    out = await table.say("A: /hu C flowers=4")
    # 20 + 2×(4 hard + 1 风碰) = 30 (the pong breaks 门清), paid by C
    assert "合计 30 花" in out
    assert await table.balances() == {"A": 30, "B": 0, "C": -30, "D": 0}


async def test_concealed_wind_gang_gives_gang_and_wind_flowers(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("B: /gang self E")  # 3 from each to B
    out = await table.say("B: /hu A flowers=1")
    # 20 + 2×(1 hard + 2 gang + 1 风碰) + 门清 20 (a concealed gang keeps it) = 48, paid by A
    assert "合计 48 花" in out
    assert await table.balances() == {"A": -3 - 48, "B": 9 + 48, "C": -3, "D": -3}


async def test_nothing_logged_no_hard_flowers_is_menqing_and_wuhuaguo(table: Table) -> None:
    await table.say("/new A B C D")
    out = await table.say("A: /hu self flowers=0")
    # 20 + 门清 20 + 无花果 40 = 80 from each
    assert "合计 80 花" in out
    assert await table.balances() == {"A": 240, "B": -80, "C": -80, "D": -80}


async def test_the_reply_lists_what_came_from_the_log(table: Table) -> None:
    await table.say("/lang en")
    await table.say("/new A B C D")
    await table.say("A: /gang B 5s")
    out = await table.say("A: /hu self flowers=4")
    line = next(line for line in out.splitlines() if "counted from the table's log" in line)
    assert line == "  counted from the table's log: " + " · ".join(("exposed gang", "concealed hand"))


# ---- a declared pattern is checked against the log (refused, nothing recorded) -----------------


async def test_flush_refused_by_a_logged_meld_of_another_suit(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("A: pong B 7p")  # #2
    await table.say("A: pong C 6s")  # #3
    out = await table.say("A: 胡 D 清一色 对对胡 花2")
    # was scored: 20 + 60 + 40 + 2×2 = 124 from D; A's logged pongs are of two suits
    assert "#3 碰 6s 和前面的副露不是同一门：不能报清一色" in out
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}
    # 对对胡 alone stands: 20 + 40 + 2×2 = 64 from D
    await table.say("A: 胡 D 对对胡 花2")
    assert await table.balances() == {"A": 64, "B": 0, "C": 0, "D": -64}


async def test_flush_refused_by_a_wind_meld_and_half_flush_by_two_suits(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("A: pong B E")  # #2
    out = await table.say("A: 胡 D 清一色 花2")
    assert "#2 碰 东 是风牌：不能报清一色" in out
    # 混一色 with a wind pong: 20 + 40 + 2×(2 + 风碰 1) = 66 from D
    await table.say("A: 胡 D 混一色 花2")
    assert await table.balances() == {"A": 66, "B": 0, "C": 0, "D": -66}
    await table.say("B: pong C 1m")  # #4
    await table.say("B: pong D 9s")  # #5
    out = await table.say("B: 胡 A 混一色 花2")
    assert "#5 碰 9s 和前面的副露不是同一门：不能报混一色" in out


async def test_menqing_refused_by_a_pong_and_seven_pairs_by_any_meld(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("A: /gang B 5s")  # #2: an exposed gang keeps 门清
    await table.say("A: pong C 7p")  # #3
    out = await table.say("A: 胡 D 门清 花4")
    assert "#3 碰 7p：碰过就不是门清" in out
    out = await table.say("A: 胡 D 七对 花4")
    assert "#2 明杠 5s：有副露就不是七对" in out
    assert await table.balances() == {"A": 6, "B": -6, "C": 0, "D": 0}


async def test_changkaitou_an_upgraded_pong_no_longer_breaks_menqing(table: Table) -> None:
    await table.say("/new A B C D preset=changkaitou")
    await table.say("A: pong C 7p")  # #2
    await table.say("A: 补杠 7p")  # #3: C pays 10 ×2 = 20; the added gang restores 门清 (RULES §12)
    # 10 + 门清 10 + 2×(4 + 补杠 1) = 30, ×2 = 60 from D
    await table.say("A: 胡 D 门清 花4")
    assert await table.balances() == {"A": 80, "B": 0, "C": -20, "D": -60}


async def test_melds_nobody_logged_never_contradict(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("A: pong B")  # #2, no tile: it says nothing about suits
    # 20 + 清一色 60 + 2×2 = 84 from D
    await table.say("A: 胡 D 清一色 花2")
    assert await table.balances() == {"A": 84, "B": 0, "C": 0, "D": -84}


async def test_a_fix_to_a_contradicted_pattern_is_refused_the_same_way(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("A: pong B 7p")  # #2
    await table.say("A: pong C 6s")  # #3
    await table.say("A: 胡 D 对对胡 花2")  # #4: 20 + 40 + 2×2 = 64 from D
    out = await table.say("A: 改 4 胡 D 清一色 对对胡 花2")
    assert "#3 碰 6s 和前面的副露不是同一门：不能报清一色" in out
    assert await table.balances() == {"A": 64, "B": 0, "C": 0, "D": -64}
