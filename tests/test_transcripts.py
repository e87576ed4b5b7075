"""Whole nights through the command layer, in Chinese and English, with the balances asserted."""

from __future__ import annotations

from tests.kit.harness import Table

NEW = "/new Alice Bob Carol Dave preset=nanjing stake=2"


async def test_english_night_pongs_win_gang_self_draw_undo_summary(table: Table) -> None:
    out = await table.play(
        f"""
        {NEW}
        Bob: /pong Carol
        Bob: /pong Dave
        Bob: /hu Carol 11p 567s 79s [EEE] [444p] +8s flowers=4
        Carol: /gang self 9s
        Dave: /hu self 123m 456m 789m 234p 5p +5p flowers=2
        """
    )
    assert "34" in out and "46" in out
    assert await table.balances() == {"Alice": -49, "Bob": -15, "Carol": -71, "Dave": 135}
    await table.say("Alice: /undo")
    assert await table.balances() == {"Alice": -3, "Bob": 31, "Carol": -25, "Dave": -3}
    night = await table.night()
    assert night["money"] == {"Alice": "-6", "Bob": "62", "Carol": "-50", "Dave": "-6"}
    assert night["transfers"] == [
        {"from": "Carol", "to": "Bob", "amount": "50"},
        {"from": "Alice", "to": "Bob", "amount": "6"},
        {"from": "Dave", "to": "Bob", "amount": "6"},
    ]
    assert night["hands"] == 1


async def test_chinese_night_every_event_word(table: Table) -> None:
    table.default_speaker = "张三"
    await table.play(
        """
        开局 张三 李四 王五 赵六
        李四: 碰 王五 7p
        李四: 补杠 7p
        赵六: 杠 张三 5s
        王五: 暗杠 9s
        张三: 花杠
        罚 跟牌 李四
        荒庄
        """
    )
    # 补杠 6 (王五 fed the pong), 明杠 6 (张三 fed), 暗杠 3×3, 花杠 6×3, 跟牌 10×3; 荒庄 doubles the next hand
    # and keeps the dealer 张三 (a 比下胡 trigger keeps the dealer): 垒宝塔 N = 1
    assert await table.balances() == {
        "张三": -6 - 3 + 18 + 10,
        "李四": 6 - 3 - 6 - 30,
        "王五": -6 + 9 - 6 + 10,
        "赵六": 6 - 3 - 6 + 10,
    }
    out = await table.say("张三: 胡 自摸 123m 456m 789m 234p 5p +5p 花2")
    assert "112" in out  # (46 + 10×1) × 2 in the 比下胡 hand
    night = await table.night()
    assert night["balances"]["张三"] == 19 + 3 * 112
    assert night["hands"] == 2


async def test_traditional_chinese_words(table: Table) -> None:
    table.default_speaker = "張三"
    await table.play(
        """
        開局 張三 李四 王五 趙六
        李四: 碰 王五
        李四: 補槓
        王五: 暗槓
        張三: 花槓
        罰 四張 李四
        荒莊
        """
    )
    # 李四: 补杠 +6 (王五 fed the pong), 王五's 暗杠 -3, 张三's 花杠 -6, 四张 -30 = -33;
    # 王五: -6 + 9 - 6 + 10 = 7; 张三: -3 + 18 + 10 = 25; 趙六: -3 - 6 + 10 = 1. 荒莊 costs nothing.
    assert await table.balances() == {"張三": 25, "李四": -33, "王五": 7, "趙六": 1}


async def test_declared_win_with_named_patterns(table: Table) -> None:
    await table.play(NEW)
    out = await table.say("Alice: /hu Alice Bob 清一色 对对胡 flowers=3")
    # nothing logged for Alice: 门清 from the log; 20 + 2×3 + 60 + 40 + 门清 20 = 146, paid by Bob
    assert "146" in out
    assert (await table.balances())["Bob"] == -146


async def test_bixiahu_and_leibaota(table: Table) -> None:
    await table.play(NEW)
    await table.play(
        """
        Alice: /hu Alice Bob 123m 456m 78m 99m [111m] +9m flowers=1
        Alice: /hu Alice Carol 123m 456m 78m 99m [111m] +9m flowers=1
        """
    )
    before = await table.balances()
    await table.say("Alice: /hu self 123m 456m 789m 234p 5p +5p flowers=2")
    after = await table.balances()
    # dealer stayed twice (清一色 big wins) -> 比下胡 hand: (46 + 10×2) × 2 = 132 from each
    assert after["Bob"] - before["Bob"] == -132


async def test_kuaizhao_liability_by_commands(table: Table) -> None:
    out = await table.play(
        f"""
        {NEW}
        Bob: /pong Carol 1m
        Bob: /pong Carol 2p
        Bob: /pong Carol E
        """
    )
    assert "快照" in out
    await table.say("Bob: /hu Dave 999s 5p +5p flowers=1")
    # 999s 5p [111m] [222p] [EEE] +5p: 对对胡 40, hard 1 + 风碰 1: 20 + 2×2 + 40 = 64; Carol pays for Dave.
    assert await table.balances() == {"Alice": 0, "Bob": 64, "Carol": -64, "Dave": 0}


async def test_robbing_a_gang(table: Table) -> None:
    await table.play(
        f"""
        {NEW}
        Carol: /pong Alice 5p
        Carol: /gang add 5p
        Dave: /hu Carol robbing 123m 456m 789m 34p 99p +5p flowers=2
        """
    )
    # Dave: 20 + 2×(2 + 缺一 1) + 门清 20 = 46, three shares from Carol (138).
    # Alice's 6 for the added gang comes back: a robbed gang earns no gang money
    assert await table.balances() == {"Alice": 0, "Bob": 0, "Carol": -138, "Dave": 138}


async def test_several_winners_comma_form(table: Table) -> None:
    await table.play(NEW)
    await table.say("Alice: /hu Alice,Dave Carol flowers=5")
    # declared wins, nothing ponged (门清 from the log): 20 + 2×5 + 20 = 50 each, both from Carol
    assert await table.balances() == {"Alice": 50, "Bob": 0, "Carol": -100, "Dave": 50}


async def test_several_winners_two_lines_merge(table: Table) -> None:
    await table.play(NEW)
    await table.say("Bob: /hu Carol 123m 456m 789m 234p 5p +5p flowers=4")
    out = await table.say("Dave: /hu Carol 123m 456m 789m 234p 5p +5p flowers=4")  # asked: the same discard?
    assert "一炮多响" in out and await table.balances() == {"Alice": 0, "Bob": 50, "Carol": -50, "Dave": 0}
    assert "一炮多响" in await table.say("Bob: /again")  # the table says: the same discard, 5p
    # each: 20 + 2×(4 hard + 缺一 1) + 门清 20 = 50, both paid by Carol
    assert await table.balances() == {"Alice": 0, "Bob": 50, "Carol": -100, "Dave": 50}
    assert (await table.night())["hands"] == 1
    # the merged win triggers 比下胡 for the next hand
    out = await table.say("/score")
    assert "×2" in out


async def test_undo_of_each_kind(table: Table) -> None:
    await table.play(
        f"""
        {NEW}
        Bob: /pong Carol 7p
        Bob: /gang add 7p
        Dave: /gang Alice 5s
        Carol: /gang self 9s
        Alice: /flowergang
        /penalty follow Bob
        /penalty Dave 50
        Dave: /hu self 123m 456m 789m 234p 5p +5p flowers=2
        /draw
        """
    )
    for _ in range(9):
        await table.say("Alice: /undo")
    assert await table.balances() == {"Alice": 0, "Bob": 0, "Carol": 0, "Dave": 0}
    assert "没有可以撤销的记录" in await table.say("Alice: /undo")  # undo.nothing: every event is undone


async def test_undo_by_id_and_history_shows_both(table: Table) -> None:
    await table.play(f"{NEW}\nCarol: /gang self 9s\nAlice: /flowergang")
    await table.say("Alice: /undo 2")
    history = await table.say("/history")
    assert "已撤销" in history and "撤销" in history
    assert await table.balances() == {"Alice": 18, "Bob": -6, "Carol": -6, "Dave": -6}


async def test_jinyuanzi_chips_night(table: Table) -> None:
    await table.play("/new Alice Bob Carol Dave preset=jinyuanzi")
    await table.play("Bob: /pong Carol\nBob: /pong Dave\nBob: /hu Carol 11p 567s 79s [EEE] [444p] +8s flowers=4")
    assert await table.balances() == {"Alice": 0, "Bob": 17, "Carol": -17, "Dave": 0}
    assert (await table.night())["unit"] == "chips"


async def test_app_night(table: Table) -> None:
    await table.play("/new Alice Bob Carol Dave preset=app")
    await table.say("Dave: /hu self 123m 456m 789m 234p 5p +5p flowers=2")
    assert (await table.balances())["Dave"] == 330


async def test_summary_then_yes_closes_and_reopen(table: Table) -> None:
    await table.play(f"{NEW}\nCarol: /gang self 9s")
    out = await table.say("/summary")
    assert "Carol" in out and "确认" in out
    assert "结束" in await table.say("yes")
    assert "没有进行中" in await table.say("Carol: /gang self 4m")
    assert "重新打开" in await table.say("/reopen")
    assert "✅" in await table.say("Carol: /gang self 4m")


async def test_stake_in_decimal_is_stored_in_minor_units(table: Table) -> None:
    await table.play("/new Alice Bob Carol Dave stake=0.5\nCarol: /gang self 9s")
    night = await table.night()
    assert night["stake"] == "0.50" and night["money"]["Carol"] == "4.50"
