"""Replies as a player reads them on a phone: whole sentences, lists with separators, no figure that
means nothing (a "biggest hand 0" for a player who never won), no word of another script."""

from __future__ import annotations

import re

from tests.kit.harness import Table

NEW = "/new Alice Bob Carol Dave preset=nanjing stake=2"
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


async def test_english_pong_and_gang_lines_read_as_sentences(table: Table) -> None:
    await table.say("/lang en")
    await table.say(NEW)
    pong = await table.say("Bob: /pong Carol")
    assert "✅ #2 Bob ponged Carol's discard\n" in pong + "\n"
    pong_tile = await table.say("Bob: /pong Dave 7p")
    assert "Bob ponged 7p on Dave's discard" in pong_tile
    gang = await table.say("Bob: /gang Carol 5s")
    assert "Bob made an exposed gang of 5s on Carol's discard" in gang
    concealed = await table.say("Carol: /gang self 9s")
    assert "Carol made a concealed gang of 9s" in concealed
    assert not any(line != line.rstrip() for line in (pong + pong_tile + gang + concealed).splitlines())


async def test_chinese_pong_without_a_tile_leaves_no_trailing_space(table: Table) -> None:
    table.default_speaker = "张三"
    await table.say("开局 张三 李四 王五 赵六")
    out = await table.say("李四: 碰 王五")
    assert out.splitlines()[0] == "✅ #2 李四 碰 王五"


async def test_english_summary_lists_patterns_with_commas_and_no_biggest_for_a_non_winner(table: Table) -> None:
    await table.say("/lang en")
    await table.say(NEW)
    # Bob self-draws 222m 55m 88m [777m] (3333m) +8m style is not needed: declared 清一色 对对胡, 2 hard flowers
    await table.say("Bob: /hu self full flush all pongs flowers=2")
    summary = await table.say("/summary")
    bob = next(line for line in summary.splitlines() if line.startswith("  Bob:"))
    assert "(concealed hand, full flush, all pongs)" in bob
    alice = next(line for line in summary.splitlines() if line.startswith("  Alice:"))
    assert "biggest" not in alice
    assert alice == "  Alice: won 0 (self-drawn 0), dealt in 0, gang money 0 flowers, penalties 0 flowers"


async def test_chinese_summary_omits_biggest_for_a_non_winner(table: Table) -> None:
    table.default_speaker = "张三"
    await table.say("开局 张三 李四 王五 赵六")
    await table.say("李四: 胡 自摸 清一色 对对胡 花2")
    summary = await table.say("结算")
    zhang = next(line for line in summary.splitlines() if line.startswith("  张三："))
    assert "最大" not in zhang and "0 花（" not in zhang
    li = next(line for line in summary.splitlines() if line.startswith("  李四："))
    assert "（门清、清一色、对对胡）" in li


async def test_english_stats_count_one_night_and_say_nothing_of_wins_never_made(table: Table) -> None:
    await table.say("/lang en")
    await table.play(f"{NEW}\nBob: /hu self full flush flowers=2\n/summary\nyes")
    stats = await table.say("/stats")
    assert "1 night in this chat" in stats and "1 nights" not in stats
    alice = next(line for line in stats.splitlines() if line.startswith("Alice:"))
    assert alice.endswith("deal-in rate 0%")  # no "average 0", "biggest 0", empty "favourites"
    bob = next(line for line in stats.splitlines() if line.startswith("Bob:"))
    assert "favourites: concealed hand, full flush" in bob


async def test_english_rules_have_no_chinese_list_marks(table: Table) -> None:
    await table.say("/lang en")
    rules = await table.say("/rules all nanjing")
    assert "、" not in rules
    assert "big win, " in rules


async def test_traditional_rules_use_traditional_forms(table: Table) -> None:
    await table.say("/lang zh-Hant")
    rules = await table.say("/rules all nanjing")
    assert "看著" in rules and "看着" not in rules


async def test_english_rules_header_is_english_for_a_built_in_preset(table: Table) -> None:
    await table.say("/lang en")
    for name in ("nanjing", "chengbei", "jinyuanzi", "app", "changkaitou"):
        header = (await table.say(f"/rules {name}")).splitlines()[0]
        assert not CJK.search(header), header


async def test_chinese_rules_header_keeps_the_preset_description(table: Table) -> None:
    header = (await table.say("/rules chengbei")).splitlines()[0]
    assert "城北: 跑10, 门清10, 大杠开花兜底翻" in header
    await table.say("/lang zh-Hant")
    header = (await table.say("/rules chengbei")).splitlines()[0]
    assert "城北: 跑10, 門清10, 大槓開花兜底翻" in header


async def test_jinyuanzi_summary_gives_the_biggest_hand_in_flowers_not_chips(table: Table) -> None:
    await table.say("/lang en")
    await table.say("/new Alice Bob Carol Dave preset=jinyuanzi")
    # RULES §11 ex. 1 in jinyuanzi (a hard flower counts 2, 缺一门 2): 20 + 2×2 + 2 + 门清 20 = 46 flowers, 23 chips
    await table.say("Dave: /hu self 123m 456m 789m 234p 5p +5p flowers=2")
    summary = await table.say("/summary")
    assert "biggest hand 46 flowers (missing suit, concealed hand)" in summary
    assert "chips (" not in summary.split("biggest hand", 1)[1].split(",", 1)[0]


async def test_a_flag_alone_is_a_whole_win_not_a_guided_flow(table: Table) -> None:
    table.default_speaker = "甲"
    await table.play("开局 甲 乙 丙 丁\n甲: 暗杠 3m")
    out = await table.say("甲: 杠上开花 花4")
    # 杠开 is drawn by the winner: 20 + 2 × (4 hard + 暗杠 2) + 门清 20 + 大杠开花 40 = 92 from each;
    # with the 暗杠's 3 from each: 甲 9 + 3 × 92 = 285, each other −3 − 92 = −95
    assert "谁胡了" not in out and "合计 92 花" in out
    assert await table.balances() == {"甲": 285, "乙": -95, "丙": -95, "丁": -95}


async def test_a_flower_count_alone_asks_whose_discard_instead_of_forgetting_it(table: Table) -> None:
    table.default_speaker = "甲"
    await table.say("开局 甲 乙 丙 丁")
    out = await table.say("乙: 胡 花4")
    assert "谁放的炮" in out and "谁胡了" not in out


async def test_bare_hu_still_opens_the_guided_flow(table: Table) -> None:
    table.default_speaker = "甲"
    await table.say("开局 甲 乙 丙 丁")
    assert "点牌记胡" in await table.say("乙: 胡")  # the tile pad


async def test_a_fix_in_a_doubled_hand_shows_the_multiplier_its_changes_come_from(table: Table) -> None:
    table.default_speaker = "张三"
    await table.play("开局 张三 李四 王五 赵六\n荒庄\n李四: 胡 自摸 123m 456m 789m 234p 5p +5p 花2")
    out = await table.say("改 3 胡 自摸 123m 456m 789m 234p 5p +5p 花3")
    # hand 2 is 比下胡 after the draw, 张三 stays (N = 1): 20 + 2 × (3 + 缺一 1) + 门清 20 = 48,
    # (48 + 10×1) × 2 = 116 from each, was (46 + 10) × 2 = 112: 李四 +12, each other −4
    assert "垒宝塔 (48 + 10×1) × 2 = 116" in out
    assert "李四 +12" in out
    assert await table.balances() == {"张三": -116, "李四": 348, "王五": -116, "赵六": -116}


async def test_summary_ranks_by_money_after_a_stake_change(table: Table) -> None:
    table.default_speaker = "张三"
    await table.play(
        """
        开局 张三 李四 王五 赵六 底=2
        李四: 胡 王五 11p 567s 79s [EEE] [444p] +8s 花4
        改底 1
        王五: 胡 赵六 123m 456m 789m 234p 5p +5p 花2
        """
    )
    # hand 1 at 2: 李四 34 flowers from 王五 (RULES §11 ex. 2) = 68. Hand 2 at 1: 王五 on 赵六's discard
    # 20 + 2 × (2 + 缺一 1) + 门清 20 = 46. 王五: −34 + 46 = 12 flowers but −68 + 46 = −22 money, below 张三's 0
    # (the night mixes stakes: money alone, docs/rules.md 17d)
    summary = await table.say("结算")
    ranks = [line for line in summary.splitlines() if line[:2] in ("1.", "2.", "3.", "4.")]
    assert ranks == [
        "1. 李四：68 元",
        "2. 张三：0 元",
        "3. 王五：-22 元",
        "4. 赵六：-46 元",
    ]
