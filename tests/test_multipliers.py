"""Every multiplier is explained on its own line, in each language (issue: 合计 70 花 then 420 花 unseen).

Each figure is worked out by hand from docs/rules.md in the comment above the case.
"""

from __future__ import annotations

import pytest

from tests.kit.harness import Table

# Nanjing, A deals. The draw keeps the dealer (a draw triggers 比下胡, and the nanjing family stays on
# every trigger): hand 2 is doubled with 垒宝塔 N = 1.
# B's exposed gang on C in hand 2: 6 × 2 = 12 (杠钱也翻).
# A self-draws worked example 1: 20 + 2×(2+1) + 门清 20 = 46; (46 + 10×1) × 2 = 112 from each.
DOUBLED = """
/new A B C D
/draw
B: /gang C 5s
A: /hu self 123m 456m 789m 234p 5p +5p flowers=2
"""

# Nanjing. B pongs C's 7p and adds the gang (C → B 6). A robs it with 123m 456m 789m 11s 68p +7p and
# 1 hard flower: 20 + 2×(1 hard + 1 压档) + 门清 20 = 44; 抢杠 counts as a self-draw and the robbed B pays
# all three shares, 3 × 44 = 132; B gives the 6 back to C.
ROBBED = """
/new A B C D
B: /pong C 7p
B: /gang add 7p
A: /hu B robbing_gang 123m 456m 789m 11s 68p +7p flowers=1
"""

# Jinyuanzi: A self-draws 123m 456m 789m 234p 5p +5p with 2 hard flowers: 跑 20 + 硬花 2×2 + 缺门 2 +
# 门清 20 = 46 flowers; in chips 46 ÷ 2 = 23 from each.
CHIPS = """
/new A B C D preset=jinyuanzi
A: /hu self 123m 456m 789m 234p 5p +5p flowers=2
"""

# App: A's concealed gang of 3m (20 from each), then A self-draws on its replacement
# (3333m) 456m 789m 234p 5p +5p with 2 hard flowers: highest pattern 门清 40 + 5×2 hard + 缺一门 5
# (two suits) = 55; 自摸 ×2 · 杠开 ×2: 55 × 4 = 220 from each.
APP = """
/new A B C D preset=app
A: /gang self 3m
A: /hu self after_gang (3333m) 456m 789m 234p 5p +5p flowers=2
"""

# Jinyuanzi 快照: B takes three mouths, all from A, then wins 对对胡 on C's discard: A owes the fixed
# 外包 of 50 chips instead of any share (RULES §8), not doubled in the first hand.
FIXED = """
/new A B C D preset=jinyuanzi
B: /pong A 1m
B: /pong A 2m
B: /pong A 3m
B: /hu C 对对胡 flowers=4
"""

LINES = {
    "zh-Hans": {
        "bixiahu": "  比下胡 ×2",
        "leibaota": "  垒宝塔 (46 + 10×1) × 2 = 112",
        "liable": "  包牌：B 付三家",
        "refund": "  抢杠：退还杠钱 6",
        "chips": "  46 花 ÷2 → 23 筹码",
        "app": "  自摸 ×2 · 杠开 ×2",
        "fixed": "  外包：A 付 50",
    },
    "zh-Hant": {
        "bixiahu": "  比下胡 ×2",
        "leibaota": "  壘寶塔 (46 + 10×1) × 2 = 112",
        "liable": "  包牌：B 付三家",
        "refund": "  搶槓：退還槓錢 6",
        "chips": "  46 花 ÷2 → 23 籌碼",
        "app": "  自摸 ×2 · 槓開 ×2",
        "fixed": "  外包：A 付 50",
    },
    "en": {
        "bixiahu": "  doubled hand ×2",
        "leibaota": "  doubled hand with the tower: (46 + 10×1) × 2 = 112",
        "liable": "  liability: B pays for all three",
        "refund": "  robbed gang: the gang money 6 is given back",
        "chips": "  46 flowers ÷2 → 23 chips",
        "app": "  self-draw ×2 · win after a gang ×2",
        "fixed": "  fixed liability: A pays 50",
    },
}


async def play(table: Table, language: str, script: str) -> list[str]:
    await table.say("/lang " + language)
    lines = script.strip().splitlines()
    for line in lines[:-1]:
        await table.say(line)
    return (await table.say(lines[-1])).splitlines()


@pytest.mark.parametrize("language", list(LINES))
async def test_gang_money_in_a_doubled_hand_says_x2(table: Table, language: str) -> None:
    lines = DOUBLED.strip().splitlines()
    await table.say("/lang " + language)
    for line in lines[:2]:
        await table.say(line)
    reply = await table.say(lines[2])
    # the quiet reply says it on the event's own line: "✅ #N … · 比下胡 ×2 · C → B：12 花（12）"
    assert len(reply.splitlines()) == 1 and f" · {LINES[language]['bixiahu'].strip()} · " in reply
    assert (await table.balances())["B"] == 12


@pytest.mark.parametrize("language", list(LINES))
async def test_leibaota_shows_its_arithmetic(table: Table, language: str) -> None:
    reply = await play(table, language, DOUBLED)
    assert LINES[language]["leibaota"] in reply
    assert LINES[language]["bixiahu"] not in reply  # the tower line already says ×2
    assert await table.balances() == {"A": 336, "B": 12 - 112, "C": -12 - 112, "D": -112}


@pytest.mark.parametrize("language", list(LINES))
async def test_robbed_gang_names_who_pays_and_the_refund(table: Table, language: str) -> None:
    reply = await play(table, language, ROBBED)
    assert LINES[language]["liable"] in reply
    assert LINES[language]["refund"] in reply
    assert await table.balances() == {"A": 132, "B": 6 - 132 - 6, "C": -6 + 6, "D": 0}


@pytest.mark.parametrize("language", list(LINES))
async def test_chips_show_the_division(table: Table, language: str) -> None:
    reply = await play(table, language, CHIPS)
    assert LINES[language]["chips"] in reply
    assert await table.balances() == {"A": 69, "B": -23, "C": -23, "D": -23}


@pytest.mark.parametrize("language", list(LINES))
async def test_app_multipliers_on_one_line(table: Table, language: str) -> None:
    reply = await play(table, language, APP)
    assert LINES[language]["app"] in reply
    assert await table.balances() == {"A": 60 + 660, "B": -20 - 220, "C": -20 - 220, "D": -20 - 220}


@pytest.mark.parametrize("language", list(LINES))
async def test_fixed_liability_names_who_pays(table: Table, language: str) -> None:
    reply = await play(table, language, FIXED)
    assert LINES[language]["fixed"] in reply
    assert await table.balances() == {"A": -50, "B": 50, "C": 0, "D": 0}


async def test_an_ordinary_hand_has_no_multiplier_line(table: Table) -> None:
    await table.say("/new A B C D")
    reply = await table.say("A: /hu self 123m 456m 789m 234p 5p +5p flowers=2")
    lines = reply.splitlines()
    total = next(i for i, line in enumerate(lines) if "合计 46 花" in line)
    assert "→" in lines[total + 1]  # straight to the payments (the three of them on one line)
