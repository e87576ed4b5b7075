"""A liability prompt says exactly what to type, and the money never depends on the phrasing
(RULES §8 快照). Nanjing, A deals; figures by hand in each comment."""

from __future__ import annotations

import pytest

from tests.kit.harness import Table

# B takes three mouths from C (1m, E, 9p), then C feeds the fourth (5s): B wins at once as
# 对对胡 + 全球独钓 and C pays all three. Declared with 1 hard flower; the log adds 风碰 1 (the E pong):
# 20 + 对对胡 40 + 全球独钓 60 + 2×(1 + 1) = 124; C pays 3 × 124 = 372.
FOUR_MOUTHS = ("B: 碰 C 1m", "B: 碰 C E", "B: 碰 C 9p")


async def _four_mouths(table: Table) -> str:
    await table.say("/new A B C D")
    for line in FOUR_MOUTHS:
        await table.say(line)
    return await table.say("B: 碰 C 5s")


async def test_the_fourth_mouth_prompt_gives_the_line_to_send(table: Table) -> None:
    out = await _four_mouths(table)
    assert "发这一行记下（N 换成 B 的硬花数）：B 自摸 对对胡 全球独钓 花N" in out
    await table.say("B 自摸 对对胡 全球独钓 花1")  # the line as prompted, N = 1
    assert await table.balances() == {"A": 0, "B": 372, "C": -372, "D": 0}


@pytest.mark.parametrize(
    "line",
    [
        "B: 胡 C 对对胡 全球独钓 花1",  # typed as a win on C's discard: was C → B 124
        "B: 自摸 对对胡 全球独钓 花1",  # typed as a self-draw: 372
        "B: 胡 C 对对胡 花1",  # 全球独钓 left out: the rule gives it
        "B: 胡 C 5p +5p 花1",  # with tiles: the four melds come from the log; 独占 excluded by 对对胡
    ],
)
async def test_the_fourth_mouth_win_settles_the_same_however_typed(table: Table, line: str) -> None:
    await _four_mouths(table)
    await table.say(line)
    assert await table.balances() == {"A": 0, "B": 372, "C": -372, "D": 0}


async def test_a_later_duiduihu_on_another_discard_the_feeder_pays_one_share(table: Table) -> None:
    # three mouths from C, the fourth from A: no win at once. B later wins 对对胡 on D's discard:
    # C pays in D's place, one share: 20 + 40 + 全球独钓 60 + 2×(1 + 风碰 1) = 124 (the four melds
    # are B's own: 全球独钓 is counted from the hand, not given by the rule).
    await table.say("/new A B C D")
    for line in FOUR_MOUTHS:
        await table.say(line)
    await table.say("B: 碰 A 5s")
    await table.say("B: 胡 D 对对胡 全球独钓 花1")
    assert await table.balances() == {"A": 0, "B": 124, "C": -124, "D": 0}


async def test_the_prompt_in_english_is_a_line_the_referee_reads(table: Table) -> None:
    await table.say("/lang en")
    out = await _four_mouths(table)
    assert "Send this line, with N = B's hard flowers: /hu B self duiduihu quanqiu flowers=N" in out
    await table.say("/hu B self duiduihu quanqiu flowers=1")
    assert await table.balances() == {"A": 0, "B": 372, "C": -372, "D": 0}


async def test_the_fourth_mouth_of_one_suit_adds_qingyise_from_the_melds(table: Table) -> None:
    # 1m 3m 5m from C, then C feeds 9m: the four melds are all 万, so the rule gives 清一色 too
    # (RULES §8 "+清一色/混一色 when the melds allow"). 1 hard flower:
    # 20 + 对对胡 40 + 全球独钓 60 + 清一色 60 + 2×1 = 182; C pays 3 × 182 = 546.
    await table.say("/new A B C D")
    for tile in ("1m", "3m", "5m", "9m"):
        await table.say(f"B: 碰 C {tile}")
    await table.say("B 自摸 对对胡 全球独钓 花1")
    assert await table.balances() == {"A": 0, "B": 546, "C": -546, "D": 0}


@pytest.mark.parametrize(
    ("language", "hint", "line"),
    [
        (None, "记第四嘴时加上 B 的硬花数，例如 B 碰 A 5s 花N", "B 碰 A 5s 花1"),
        ("en", "record it with B's hard flowers, e.g. /pong B A 5s flowers=N", "/pong B A 5s flowers=1"),
    ],
)
async def test_changkaitou_sanzui_notice_says_how_to_record_the_fourth_mouth(
    table: Table, language: str | None, hint: str, line: str
) -> None:
    # 敞开头 三嘴: B's first three mouths from A (1m, 9p, E); A feeds the fourth (5s): B's 全球独钓
    # self-draw, A pays three shares. Shown: 10 + 全球独钓 80 + 2×(1 hard + 风碰 1) = 94 (pongs: no
    # 门清; four suits and a wind: no flush); ×2 = 188; A pays 3 × 188 = 564.
    if language:
        await table.say(f"/lang {language}")
    await table.say("/new A B C D preset=changkaitou")
    await table.say("B: 碰 A 1m")
    await table.say("B: 碰 A 9p")
    out = await table.say("B: 碰 A E")
    assert hint in out
    await table.say(line)
    assert await table.balances() == {"A": -564, "B": 564, "C": 0, "D": 0}


async def test_jinyuanzi_fourth_mouth_pays_waibao_and_asks_for_no_win(table: Table) -> None:
    # 进园子: the 外包 is paid the moment the fourth mouth is fed (50 chips) and the hand goes on, so the
    # table is not told to record a win.
    await table.say("/new A B C D preset=jinyuanzi")
    for line in FOUR_MOUTHS:
        await table.say(line)
    out = await table.say("B: 碰 C 5s")
    assert "外包" in out and "自摸 对对胡" not in out
    assert await table.balances() == {"A": 0, "B": 50, "C": -50, "D": 0}
