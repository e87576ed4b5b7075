"""Every event is checked against the table before it costs anyone money: each impossible event from
the issue is refused with a clear reason, and the balances and the ledger stay as they were."""

from __future__ import annotations

import pytest

from tests.kit.harness import Table

HAND = "123m456m789m234p5p+5p"


async def refused(table: Table, line: str, expected: str) -> None:
    before_rows, before = await table.row_counts(), await table.balances()
    out = await table.say(line)
    assert expected in out, out
    assert await table.row_counts() == before_rows
    assert await table.balances() == before


async def test_impossible_events_in_english(table: Table) -> None:
    table.language = "en"
    await table.play(
        """
        /new A B C D
        C: /gang B 5s
        """
    )
    # the exposed gang: B pays C 6 (RULES §4)
    assert await table.balances() == {"A": 0, "B": -6, "C": 6, "D": 0}
    await refused(table, "D: /gang C B 5s", "already recorded as #2")  # the same gang typed twice
    await refused(table, "D: /gang self 5s", "C already holds 5s")  # twelve copies of 5s
    await table.say("A: /pong B 7p")
    await refused(table, "B: /pong C 7p", "A already holds 7p")  # four pongs of 7p
    await table.say("D: /gang self 3m")
    await refused(table, "D: /gang self 3m", "already recorded as #4")
    await refused(table, "B: /gang add 7p", "")  # B has no pong of 7p (A has)
    assert "flower gang" in await table.say("A: /flowergang")
    for _ in range(4):  # the same flower gang again in the hand: asked, recorded on /again
        assert "once more?" in await table.say("A: /flowergang")
        assert "flower gang" in await table.say("A: /again")
    await refused(table, "A: /flowergang", "already has 5 flower gangs")
    await refused(table, f"B: /hu self {HAND} flowers=999999999999999", "that number is too big: 999999999999999")
    await refused(table, "A: /penalty B 0", "1 to 1000 flowers: 0")
    await refused(table, "A: /flowergang C D", "too many names: C D")
    # 3m: D's concealed gang holds all four, so a hand with 123m is a fifth copy
    await refused(table, f"B: /hu self {HAND} flowers=2", "5 copies of 3m")


async def test_a_pattern_named_twice_counts_once(table: Table) -> None:
    await table.play("/new A B C D")
    await table.say("B: /hu C 清一色 清一色 flowers=2")
    # 清一色 counted once: 跑 20 + 硬花 2×2 + 门清 20 (no pong or gang logged) + 清一色 60 = 104, paid by C
    assert await table.balances() == {"A": 0, "B": 104, "C": -104, "D": 0}


async def test_impossible_events_in_chinese(table: Table) -> None:
    table.default_speaker = "甲"
    await table.play("开局 甲 乙 丙 丁\n丙: 杠 乙 5s")
    await refused(table, "丁: 杠 丙 乙 5s", "这一条已经记过了：#2")
    await refused(table, "丁: 暗杠 5s", "5s 已经在 丙 的碰或杠里了")
    await refused(table, "甲: 罚 乙 0", "罚分要在 1 到 1000 花之间")
    await refused(table, "/new 甲 乙 丙 丁 底=NaN", "已经有一局")


@pytest.mark.parametrize("stake", ["NaN", "inf", "-1", "0", "1e30", "0.001", "99999999999", "²", "1.555"])
async def test_stakes_are_finite_positive_with_two_decimals(table: Table, stake: str) -> None:
    table.language = "en"
    out = await table.say(f"/new A B C D stake={stake}")
    assert "bad stake" in out
    assert await table.row_counts() == (0, 0, 0)


async def test_a_stake_with_two_decimals_is_fine(table: Table) -> None:
    await table.say("/new A B C D stake=0.25")
    await table.say("C: /gang B 5s")
    assert (await table.night())["money"] == {"A": "0", "B": "-1.50", "C": "1.50", "D": "0"}


async def test_a_gang_onto_ones_own_pong_points_to_the_added_gang(table: Table) -> None:
    table.language = "en"
    await table.play(
        """
        /new A B C D
        B: /pong C 5s
        """
    )
    # an exposed or concealed gang of a tile B already ponged is the fourth tile onto that pong
    await refused(table, "B: /gang C 5s", "/addgang 5s")
    await refused(table, "B: /selfgang 5s", "/addgang 5s")
    # the added gang: C, who fed the pong, pays B 6 (RULES §4)
    await table.say("B: /addgang 5s")
    assert await table.balances() == {"A": 0, "B": 6, "C": -6, "D": 0}
