"""A correction's 变动 line says its unit and agrees with the board (docs/rules.md 17d); a counted item of
a win's breakdown says its count, 1 too (`硬花 ×1：2`, never "硬花：2", read as two flowers).

Figures by hand from docs/rules.md (nanjing):
- §4: a concealed gang 暗杠 takes 3 flowers from each other player; an exposed gang 直杠 6 from its feeder.
- §6: `123m456m789m234p5p+5p` on a discard = 跑 20 + 砸 2 × (hard + 缺一门 1) + 门清 20;
  1 hard flower: 20 + 2 × (1 + 1) + 20 = 44 (the hard flowers' line: 1 × 2 = 2); 2 hard: 46.
- §6: a declared 清一色 60 (a 大胡: no 4-hard-flower limit) with 2 hard flowers and 1 soft flower:
  跑 20 + 砸 2 × 2 hard = 4 + 清一色 60 + 砸 2 × 1 soft = 2, and 门清 20 (no meld logged), 106 in all.
- money = flowers × the stake of the hand they were paid in (§4).
"""

from __future__ import annotations

from tests.kit.harness import Table
from tests.kit.messages import changes, money_changes, rendered

HAND = "123m456m789m234p5p+5p"


async def test_undoing_a_concealed_gang_at_half_a_yuan_says_flowers_and_money(table: Table) -> None:
    await table.play("/new 张三 李四 王老五 钱七 stake=0.5\n李四: 暗杠 7s")
    # 3 flowers from each of three at 0.50: 1.50 元 each, 李四 took 9 flowers (4.50 元)
    assert (await table.night())["money"] == {"张三": "-1.50", "李四": "4.50", "王老五": "-1.50", "钱七": "-1.50"}
    out = await table.say("李四: 撤销")
    assert (
        changes(("张三", "+3", "+1.50"), ("李四", "−9", "−4.50"), ("王老五", "+3", "+1.50"), ("钱七", "+3", "+1.50"))
        in out
    )
    assert (await table.night())["money"] == {"张三": "0", "李四": "0", "王老五": "0", "钱七": "0"}


async def test_undoing_an_exposed_gang_in_english_says_its_unit(table: Table) -> None:
    table.language = "en"
    await table.play("/new Alice Bob Carol Dave stake=0.5\nBob: /gang Carol 6p")
    out = await table.say("/undo")
    # Carol fed Bob 6 flowers at 0.50 = 3: the undo gives them back
    assert changes(("Bob", "−6", "−3"), ("Carol", "+6", "+3"), language="en") in out
    assert "Changes: Bob −6 flowers (money −3) · Carol +6 flowers (money +3)" in out  # as a player reads it


async def night_of_two_stakes(table: Table) -> None:
    """Hand 1 at 1 元: 王老五 wins on 李四's discard with 1 hard flower, 44 (44 元); the deal passes to
    李四. Then 改底 0.5 in hand 2 (so the night mixes stakes) and 李四's 暗杠 7s: 3 flowers (1.50 元)
    from each other."""
    await table.play(f"/new 张三 李四 王老五 钱七\n王老五: 胡 李四 {HAND} 花1\n张三: /stake 0.5\n李四: 暗杠 7s")
    # 张三 −1.50 · 李四 −44 + 4.50 = −39.50 · 王老五 44 − 1.50 = 42.50 · 钱七 −1.50
    money = {"张三": "-1.50", "李四": "-39.50", "王老五": "42.50", "钱七": "-1.50"}
    assert (await table.night())["money"] == money


async def test_once_the_night_mixes_stakes_an_undo_says_money_alone(table: Table) -> None:
    await night_of_two_stakes(table)
    out = await table.say("李四: 撤销")
    # the board goes by money alone (docs/rules.md 17d): so does the changes line, by the board's moves
    assert money_changes(("张三", "+1.50"), ("李四", "−4.50"), ("王老五", "+1.50"), ("钱七", "+1.50")) in out
    assert "花" not in out.split("变动：")[1].splitlines()[0]
    assert (await table.night())["money"] == {"张三": "0", "李四": "-44", "王老五": "44", "钱七": "0"}


async def test_a_fix_of_a_hand_at_the_old_stake_says_the_money_of_that_hand(table: Table) -> None:
    await night_of_two_stakes(table)
    out = await table.say(f"张三: 改 2 胡 李四 {HAND} 花2")
    # hand 1 now 46, played at 1 元 (not the 0.50 in force now): 李四 pays 2 元 more, 王老五 gets them
    assert money_changes(("李四", "−2"), ("王老五", "+2")) in out
    assert (await table.night())["money"] == {"张三": "-1.50", "李四": "-41.50", "王老五": "44.50", "钱七": "-1.50"}


async def test_one_hard_flower_says_its_count(table: Table) -> None:
    await table.say("/new 张三 李四 王老五 钱七")
    out = await table.say(f"王老五: 胡 李四 {HAND} 花1")
    assert rendered("score.item", name="硬花", count=" ×1", flowers=2) in out  # 1 hard flower × 2 (砸)
    assert "  硬花 ×1：2" in out.splitlines()
    assert "  缺一门：2" in out.splitlines()  # a presence, not a count × a rate: no ×1
    assert "  门清：20" in out.splitlines()


async def test_one_hard_flower_in_english_and_one_soft_flower(table: Table) -> None:
    table.language = "en"
    await table.say("/new Alice Bob Carol Dave")
    out = await table.say(f"Carol: /hu Bob {HAND} flowers=1")
    assert "  hard flowers ×1: 2" in out.splitlines()
    out = await table.say("Dave: /hu Alice qingyise flowers=2 soft=1")
    lines = out.splitlines()
    assert "  hard flowers ×2: 4" in lines
    assert "  soft flowers ×1: 2" in lines  # 1 soft flower × 砸 2
    qingyise = rendered("unit.qingyise", "en")
    assert rendered("score.item", "en", name=qingyise, count="", flowers=60) in lines  # a pattern: no ×1
    assert "  total 106 flowers" in lines
