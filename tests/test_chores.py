"""Table chores are events of the night (RULES-free bookkeeping): 改名, 换人, 改底, 定庄 — undoable, in
/history, re-derived like any event. Balances worked out by hand in the comments (nanjing)."""

from __future__ import annotations

import io
from pathlib import Path

from bot.chat.service import Referee
from bot.console import Console
from tests.kit.harness import Table

NIGHT = """
/new A B C D
/dealer B
B: /gang C 5s
/stake 2
/rename D Dan
A: /hu self 123m 456m 789m 234p 5p +5p flowers=2
/swap B Eve
/dealer Eve
Eve: /gang self 3m
/rename Dan Dave
/undo
C: /hu Dan flowers=4
"""


async def test_a_night_with_every_chore(table: Table) -> None:
    table.default_speaker = "A"
    out = await table.play(NIGHT)
    # Hand 1 (stake 1, B deals by 定庄): B's exposed gang on C, C → B 6. 改底 2 is typed mid-hand, so it
    # counts from hand 2. A self-draws worked example 1: 20 + 2×(2+1) + 门清 20 = 46 from each.
    #   A +138 · B 6 − 46 = −40 · C −6 − 46 = −52 · Dan −46 (money the same, stake 1)
    # Eve takes B's seat; B keeps −40. 定庄 Eve before hand 2. Hand 2 (stake 2): Eve's concealed gang,
    # 3 from each: Eve +9 (18) · A −3 (−6) · C −3 (−6) · Dan −3 (−6). The rename to Dave is undone.
    # C's declared win on Dan's discard, nothing logged for C: 20 + 2×4 + 门清 20 = 48 (96).
    #   flowers: A 135 · B −40 · C −52 − 3 + 48 = −7 · Dan −46 − 3 − 48 = −97 · Eve 9 (sum 0)
    #   money:   A 132 · B −40 · C −52 − 6 + 96 = 38 · Dan −46 − 6 − 96 = −148 · Eve 18 (sum 0)
    assert "换人：Eve 坐南，B 离座，之前的输赢算 B 的" in out  # not "B 的输赢留给 B"
    night = await table.night()
    assert night["balances"] == {"A": 135, "B": -40, "C": -7, "Dan": -97, "Eve": 9}
    assert night["money"] == {"A": "132", "B": "-40", "C": "38", "Dan": "-148", "Eve": "18"}
    assert "Dave" not in str(night["balances"])
    summary = await table.say("/summary")
    # each player keeps their own figures (B's exposed gang at 1, Eve's concealed gang at 2): the night
    # mixes stakes, so they are said in money and no gang net in flowers is shown (docs/rules.md 17d)
    assert "1. A：132 元\n2. C：38 元\n3. Eve：18 元\n4. B：-40 元\n5. Dan：-148 元\n" in summary
    assert "  B：胡 0（自摸 0），放炮 0\n" in summary
    assert "  Eve：胡 0（自摸 0），放炮 0\n" in summary
    assert "  Dan：胡 0（自摸 0），放炮 1" in summary
    stats = await table.say("/stats")
    # money, not flowers (Eve's 9 flowers at 2 are 18; B's -40 at 1): the night mixed stakes
    assert "B：1 局，净 -40 元" in stats and "Eve：1 局，净 18 元" in stats
    history = await table.say("/history")
    for word in ("改名", "换人", "改底", "定庄"):
        assert word in history


async def test_dealer_only_before_a_hand_starts(table: Table) -> None:
    table.default_speaker = "A"
    await table.play("/new A B C D\nB: /pong C 7p")
    assert "定庄只能在一盘开始之前" in await table.say("/dealer C")
    await table.say("/draw")  # a draw keeps A (a 比下胡 trigger) but hand 2 has not started
    assert "第 2 盘由 C 坐庄" in await table.say("/dealer C")
    assert "庄 C" in await table.say("/score")


async def test_undoing_a_stake_change_rederives_the_money(table: Table) -> None:
    table.default_speaker = "A"
    await table.play("/new A B C D\n/stake 2\n/undo\nB: /gang C 5s")
    # nothing was logged when 改底 was typed, so it would have counted from hand 1; undone: stake 1
    assert (await table.night())["money"] == {"A": "0", "B": "6", "C": "-6", "D": "0"}


async def test_undoing_a_swap_gives_the_seat_back(table: Table) -> None:
    table.default_speaker = "A"
    await table.play("/new A B C D\n/swap 北 Eve\n/undo\nD: /gang C 5s")
    assert (await table.balances()) == {"A": 0, "B": 0, "C": -6, "D": 6}


async def test_chores_in_chinese_words(table: Table) -> None:
    table.default_speaker = "张三"
    await table.say("开局 张三 李四 王五 赵六")
    assert "李四 改名为 李老四" in await table.say("改名 李四 李老四")
    assert "钱七 坐北" in await table.say("换人 赵六 钱七")
    assert "从第 1 盘起每花 0.5" in await table.say("改底 0.5")
    assert "定庄：王五" in await table.say("定庄 王五")


async def test_console_new_with_three_names_leaves_a_free_seat(referee: Referee, tmp_path: Path) -> None:
    out = io.StringIO()
    console = Console(referee, "console", None, out, tmp_path)
    await console.run_line("/new A B C")
    assert "北：（空位）" in out.getvalue() or "空" in out.getvalue()
    await console.run_line("D: /join")
    await console.run_line("D: /gang C 5s")
    night = await referee.night_json("console")
    assert night is not None and night["balances"] == {"A": 0, "B": 0, "C": -6, "D": 6}
