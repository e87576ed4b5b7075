"""A win typed without tiles counts what the table logged (RULES §6): the winner's gangs and wind
pongs give their soft flowers, 无花果 when no hard flower, 门清 when nothing broke it; the reply says
what was added. Nanjing, A deals; figures by hand in each comment."""

from __future__ import annotations

from tests.harness import Table


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
