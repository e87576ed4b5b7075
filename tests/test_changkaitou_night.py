"""A 敞开头 night through the command layer: 四风 words, a forced end at a pong, 架, the 将 count.

Figures are worked out in tests/test_changkaitou.py; here they are summed per player.
"""

from __future__ import annotations

from tests.kit.harness import Table

NEW = "/new Alice Bob Carol Dave preset=changkaitou start=1000"


async def test_four_winds_words_in_both_scripts_and_english(table: Table) -> None:
    await table.play(
        f"""
        {NEW}
        Bob: 四风
        Carol: 四風歸齊
        Dave: /winds
        """
    )
    # each: 5 ×2 = 10 from each other player: +30 for the player, -10 for each of the others
    assert await table.balances() == {"Alice": -30, "Bob": 10, "Carol": 10, "Dave": 10}


async def test_sanzui_forced_end_and_quanqiu_range_over_two_hands(table: Table) -> None:
    await table.play(
        f"""
        {NEW}
        Bob: /pong Alice 1m
        Bob: /pong Alice 9p
        Bob: 碰 Alice 东
        """
    )
    asked = await table.say("Bob: /pong Carol 5s")
    assert "花" in asked and await table.balances() == {"Alice": 0, "Bob": 0, "Carol": 0, "Dave": 0}
    ended = await table.say("Bob: 碰 Carol 5s 花1")
    # 三嘴, fourth mouth from Carol: Bob's 对对胡 self-draw 44 ×2 = 88, Alice pays 3 shares = 264
    assert "264" in ended and "三嘴" in ended
    assert await table.balances() == {"Alice": -264, "Bob": 264, "Carol": 0, "Dave": 0}
    await table.play(
        """
        Bob: /pong Alice 1m
        Bob: /pong Carol 9p
        Bob: /pong Dave E
        Bob: /pong Alice 2s
        架 5s
        """
    )
    # 架 5s marks 3s-7s; Carol's 4s into Bob's 全球独钓: 94 ×2 = 188, Carol pays 3 shares = 564
    out = await table.say("Bob: /hu Carol 4s [111m] [999p] [EEE] [222s] +4s flowers=1")
    assert "564" in out
    assert await table.balances() == {"Alice": -264, "Bob": 828, "Carol": -564, "Dave": 0}
    # the dealer stayed both times (三嘴, 全球): no pass of the deal yet; balances from 1000
    assert "0/16" in out and "1828" in out and "436" in out
    summary = await table.say("/summary")
    assert "0 次，共 16 次" in summary and "1828" in summary


async def test_new_with_start_points_and_rules(table: Table) -> None:
    await table.say("/new Alice Bob Carol Dave preset=nanjing start=500")
    board = await table.say("/score")
    assert "500" in board
    rules = await table.say("/rules all changkaitou")
    assert "1000" in rules and "16" in rules and "三嘴" in rules
    refused = await table.say("Bob: /range Bob 5s")
    assert "nanjing" in refused


def test_command_words_for_four_winds_and_range() -> None:
    from bot.chat.parser import parse

    names = ("Alice", "Bob")
    for line in ("四风", "四風", "四风归齐", "四風歸齊", "winds", "/winds Bob", "Bob 四风"):
        command = parse(line, names)
        assert command is not None and command.name == "winds", line
    for line in ("架 5s", "架 五条", "range 5s", "/range Bob 5s", "/jia 5s"):
        command = parse(line, names)
        assert command is not None and command.name == "range" and command.tile is not None, line
    for chatter in ("打架", "四风吗", "架子"):
        assert parse(chatter, names) is None, chatter
    pong = parse("Bob 碰 Alice 5s 花1", names)
    assert pong is not None and pong.flowers == 1 and pong.tile == "5s"


async def test_gang_after_holds_through_a_further_added_gang_by_commands(table: Table) -> None:
    # test_gang_after_the_first_liable_player_holds_through_a_further_added_gang, typed: Alice pays
    # her exposed gang 20, the added gang's 20 in Carol's place, and the three shares 3 × 156 = 468.
    await table.play(
        f"""
        {NEW}
        Bob: 碰 Carol 7m
        Bob: 杠 Alice 9m
        Bob: 补杠 7m
        Bob: 自摸 杠开 222p 444p 5s {{7777m}} [9999m] +5s 花2
        """
    )
    assert await table.balances() == {"Alice": -508, "Bob": 508, "Carol": 0, "Dave": 0}


async def test_robbing_counts_yajue_by_commands(table: Table) -> None:
    # test_robbing_on_a_sole_middle_wait_counts_yajue, typed: Bob pays Dave 3 × 96 = 288 and gives
    # Carol's 20 back.
    await table.play(
        f"""
        {NEW}
        Bob: 碰 Carol 5p
        Bob: 补杠 5p
        Dave: 胡 Bob 抢杠 123m 678s 46p 99p [222s] +5p 花4
        """
    )
    assert await table.balances() == {"Alice": 0, "Bob": -288, "Carol": 0, "Dave": 288}


async def test_yajue_on_a_dead_side_wait_by_commands(table: Table) -> None:
    # test_yajue_on_a_two_sided_wait_whose_other_side_is_the_winners_concealed_gang, typed: Bob's
    # 67m waits 5m or 8m, all four 8m his concealed gang (10 from each), his pong of 5m at the table:
    # 10 + 压绝 30 + 2×(4 + 暗杠 2) = 52, ×2 = 104 from Dave.
    await table.play(
        f"""
        {NEW}
        Bob: 碰 Carol 5m
        Bob: 暗杠 8m
        """
    )
    out = await table.say("Bob: 胡 Dave 67m 234p 99s [555m] (8888m) +5m 花4")
    assert "压绝" in out and "52" in out
    assert await table.balances() == {"Alice": -10, "Bob": 134, "Carol": -10, "Dave": -114}


async def test_robbing_on_a_dead_side_wait_counts_yajue_by_commands(table: Table) -> None:
    # test_robbing_on_a_two_sided_wait_whose_other_side_is_dead_counts_yajue, typed: Dave's share
    # 52 ×2 = 104, Bob pays 3 × 104 = 312 and gives Carol's 20 back; Dave's concealed gang 10 from each.
    await table.play(
        f"""
        {NEW}
        Dave: 暗杠 8m
        Bob: 碰 Carol 5m
        Bob: 补杠 5m
        Dave: 胡 Bob 抢杠 67m 234p 99s [111s] (8888m) +5m 花4
        """
    )
    assert await table.balances() == {"Alice": -10, "Bob": -322, "Carol": -10, "Dave": 342}
