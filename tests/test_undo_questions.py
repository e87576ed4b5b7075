"""/undo while the table is being asked something (#39): the line held by an open question is withdrawn,
never an event recorded before it; after a line that recorded nothing (a hint, a refusal) a bare /undo
names the event it would undo and asks; a question whose event was undone since is gone. And /fix of
what cannot be fixed says "cannot fix", not "cannot undo".

Money worked by hand (nanjing, stake 2 a flower): a flower gang costs each other player 6 flowers
(12 money), its maker +18 flowers (36); a pong moves nothing."""

from __future__ import annotations

from pathlib import Path

from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.telegram import ALICE, BOB, CAROL, Running, balances, buttons

OPEN = "/new 刘洋 B C D stake=2"
ZERO = {"刘洋": 0, "B": 0, "C": 0, "D": 0}
ONE_FLOWER_GANG = {"刘洋": -6, "B": -6, "C": -6, "D": 18}


async def test_undo_with_a_repeat_question_open_withdraws_the_held_line(table: Table) -> None:
    await table.say(OPEN)
    assert "✅ #2" in await table.say("D: 花杠")
    assert await table.balances() == ONE_FLOWER_GANG
    question = await table.respond("D: 花杠")
    assert question is not None and [c.command for c in question.choices] == ["/again q1", "/again q1 no"]
    before = await table.row_counts()
    response = await table.respond("D: 撤销")
    assert response is not None and not response.recorded and response.settles
    assert [r.key for r in response.replies] == ["undo.withdrawn"]
    assert await table.row_counts() == before  # nothing written: no undo of #2, no second flower gang
    assert await table.balances() == ONE_FLOWER_GANG  # the recorded 花杠 stands
    # the question went with its line: a typed answer and its button record nothing
    assert "没有等着再记一次的事件" in await table.say("D: 再记一次")
    assert "收回" in await table.say("刘洋: /again q1")
    assert await table.row_counts() == before
    assert await table.balances() == ONE_FLOWER_GANG


async def test_the_withdrawal_says_what_it_withdrew_in_chinese_and_english(table: Table) -> None:
    await table.play(f"{OPEN}\nD: 花杠\nD: 花杠")
    out = await table.say("B: /undo")
    assert "收回了还没记的一行：D 花杠" in out and "没有动钱" in out and "#2" not in out
    await table.say("/lang en")
    await table.say("D: flower gang")
    out = await table.say("B: undo")
    assert "Withdrawn, never recorded: D made a flower gang" in out and "no money moved" in out
    assert await table.balances() == ONE_FLOWER_GANG


async def test_undo_after_a_line_was_recorded_since_the_question_undoes_that_line(table: Table) -> None:
    await table.play(f"{OPEN}\nD: 花杠\nD: 花杠")  # #2, then the question about it
    assert "✅ #3" in await table.say("B: 碰 C")  # recorded after the question was asked
    assert "撤销了 #3" in await table.say("B: /undo")  # the newest line recorded, not the held one
    assert "✅" in await table.say("D: 再记一次")  # the question still stands: a second flower gang
    assert await table.balances() == {"刘洋": -12, "B": -12, "C": -12, "D": 36}


async def test_after_a_hint_a_bare_undo_names_the_event_and_asks(table: Table) -> None:
    await table.say(OPEN)
    assert "✅ #2 B 碰 C" in await table.say("B: 碰 C")
    assert "没有 刘样，是 刘洋 吗？" in await table.say("C: 杠 刘样 3s")
    before = await table.row_counts()
    response = await table.respond("C: 撤销")
    assert response is not None and not response.recorded
    assert [c.command for c in response.choices] == ["/undo 2"]
    out = await table.say("C: 撤销")  # asked again: a bare undo never acts past a line that recorded nothing
    assert "上一行没有记下任何东西" in out and "#2：碰 C" in out
    assert await table.row_counts() == before  # B's pong stands
    assert "撤销了 #2" in await table.say("C: /undo 2")  # the button's line (or typed): at once
    assert await table.balances() == ZERO


async def test_after_a_refusal_a_bare_undo_asks_and_after_a_recorded_line_it_acts(table: Table) -> None:
    await table.play(f"{OPEN}\nD: 花杠")
    assert "没有" in await table.say("刘洋: /pong 王五")  # refused: no such player
    out = await table.say("刘洋: /undo")
    assert "#2：花杠" in out and "撤销" in out
    assert await table.balances() == ONE_FLOWER_GANG
    assert "✅ #3" in await table.say("B: 碰 C")
    assert "撤销了 #3" in await table.say("刘洋: /undo")  # the newest line recorded: acts at once, as before


async def test_after_a_hint_a_bare_undo_asks_in_english(table: Table) -> None:
    await table.play("/new Alice Bob Carol Dave stake=2\n/lang en\nBob: /pong Carol")
    await table.say("Carol: gang Alise 3s")  # a hint: no such player
    out = await table.say("Carol: /undo")
    assert "The last line recorded nothing" in out and "#2: /pong Carol" in out
    response = await table.respond("Carol: /undo")
    assert response is not None and [c.command for c in response.choices] == ["/undo 2"]


async def test_a_question_whose_event_was_undone_is_gone(table: Table) -> None:
    await table.play(f"{OPEN}\nD: 花杠\nD: 花杠")  # #2, then the question about it
    assert "撤销了 #2" in await table.say("刘洋: /undo 2")  # a number: at once
    assert await table.balances() == ZERO
    before = await table.row_counts()
    out = await table.say("刘洋: /again")
    assert "#2 已经撤销了" in out and "问题作废了" in out
    assert await table.row_counts() == before and await table.balances() == ZERO  # no second 花杠 out of nowhere


async def test_a_stale_question_dropped_does_not_say_its_event_is_recorded(table: Table) -> None:
    await table.play(f"{OPEN}\nD: 花杠\nD: 花杠\n刘洋: /undo 2")
    out = await table.say("刘洋: /again q1 no")
    assert "已经记过了" not in out and "问题作废了" in out
    assert await table.balances() == ZERO


async def test_fix_of_an_undo_or_a_stake_change_says_it_cannot_be_fixed(table: Table) -> None:
    await table.play(f"{OPEN}\nD: 花杠\n刘洋: /undo 2\n刘洋: /stake 1")  # #3 the undo, #4 the 改底
    out = await table.say("刘洋: /fix 3 花杠")
    assert "#3（撤销）不能修改" in out and "不能撤销" not in out
    assert "#4（改底）不能修改" in await table.say("刘洋: /fix 4 花杠")
    await table.say("/lang zh-Hant")
    assert "不能修改" in await table.say("刘洋: /fix 3 花杠")
    await table.say("/lang en")
    out = await table.say("刘洋: /fix 3 flower gang")
    assert "cannot be fixed" in out and "undone" not in out
    assert "cannot be undone" in await table.say("刘洋: /undo 3")  # an undo still says it cannot be undone


async def test_in_telegram_undo_withdraws_the_question_and_its_button_then_records_nothing(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave stake=2")
        await bot.say(BOB, "/flowergang")
        assert "又一次？" in await bot.say(BOB, "/flowergang")
        choices = buttons(fake)
        assert "收回" in await bot.say(BOB, "撤销")
        assert "收回" in await bot.press(CAROL, choices["再记一次"])
    # bob's one flower gang: each other player pays 6 flowers (12 at stake 2) → bob 18
    assert await balances(db) == [-6, 18, -6, -6]


async def test_in_telegram_the_undo_asked_after_a_refusal_is_done_by_its_button(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave stake=2")
        await bot.say(BOB, "/flowergang")  # #2
        await bot.say(CAROL, "/pong 王五")  # refused: no such player
        assert "#2" in await bot.say(CAROL, "/undo")
        choices = buttons(fake)
        assert set(choices) == {"撤销 #2"} and choices["撤销 #2"].endswith(":/undo 2")
        assert "撤销了 #2" in await bot.press(CAROL, choices["撤销 #2"])
    assert await balances(db) == [0, 0, 0, 0]
