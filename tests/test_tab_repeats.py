"""Money between players is asked like money at the table (issue #48, item 2; docs/players.md, the tab).

A payment the same as the one just recorded is held and asked about, as a table event sent twice is
(tests/test_repeats.py): 再记一次 records it, 重复了 drops it, a bare /undo withdraws it; and a payment
beyond what the tab owed always says what the tab becomes.

Every figure is worked out by hand (preset nanjing, docs/rules.md §4): a flower gang (花杠) takes 6
flowers from each of the three others (+18 to whoever made it); money is flowers × the night's stake.
Night 1, 底=5: 王五 花杠: 王五 +90, 张三 李四 赵六 −30 each.
"""

from __future__ import annotations

from pathlib import Path

from bot.chat.service import Referee
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.telegram import ALICE, BOB, CAROL, NEW, Running, buttons

NIGHT = """
张三: 开局 张三 李四 王五 赵六 底=5
王五: 花杠
张三: 结算
张三: 确认
"""


async def payments(table: Table) -> int:
    db = table.referee.nights.ledger._db
    rows = list(await db.execute_fetchall("SELECT COUNT(*) FROM tab_events WHERE kind = 'paid'"))
    return int(rows[0][0])


async def test_a_payment_sent_twice_is_asked_and_recorded_only_on_again(table: Table) -> None:
    await table.play(NIGHT)
    first = await table.say("李四: 付了 王五 20")
    # 李四 −30 + 20 = −10; 王五 +90 − 20 = +70
    assert "付款 1：李四 → 王五 20 元" in first and "李四：−10 元" in first
    question = await table.respond("李四: 付了 王五 20")
    assert question is not None and not question.recorded
    assert [c.command for c in question.choices] == ["/again q1", "/again q1 no"]  # the repeat's buttons
    assert await payments(table) == 1  # held, not recorded
    out = await table.say("李四: 付了 王五 20")  # asked again: the same question, a new id
    assert "和付款 1 一样：李四 → 王五 20 元，又付了一次？" in out and "✅" not in out
    assert await payments(table) == 1
    again = await table.say("李四: 再记一次")  # he did pay twice
    # 李四 −10 + 20 = +10: paid 10 beyond his −10, so 王五 +70 − 20 = +50
    assert "付款 2：李四 → 王五 20 元" in again and "李四：+10 元" in again and "王五：+50 元" in again
    assert "⚠️" in again and "多付 10 元" in again  # beyond what the tab owed: said
    assert await payments(table) == 2
    assert "没有等着再记一次的事件" in await table.say("李四: 再记一次")  # answered once


async def test_a_repeat_dropped_records_nothing_and_the_tab_stays(table: Table) -> None:
    await table.play(NIGHT)
    await table.say("李四: 付了 王五 20")
    await table.say("李四: 付了 王五 20")
    dropped = await table.say("王五: /again q1 no")
    assert "好，不记（付款 1：李四 → 王五 20 元已经记过了）" in dropped
    assert await payments(table) == 1
    tab = await table.say("张三: 账本")
    # 张三 −30, 李四 −10, 王五 +70, 赵六 −30 (−30 − 10 + 70 − 30 = 0)
    for line in ("张三：−30 元", "李四：−10 元", "王五：+70 元", "赵六：−30 元"):
        assert line in tab, line
    assert "这个问题已经回答过了" in await table.say("王五: /again q1")  # the button pressed again


async def test_a_bare_undo_after_the_question_withdraws_the_held_line_not_the_payment(table: Table) -> None:
    await table.play(NIGHT)
    await table.say("李四: 付了 王五 20")
    await table.say("李四: 付了 王五 20")
    undone = await table.say("李四: 撤销")
    assert "收回了还没记的付款：李四 → 王五 20 元" in undone and "付款 1 还在" in undone
    assert await payments(table) == 1
    assert "李四：−10 元" in await table.say("张三: 账本")  # payment 1 stands
    assert "收回" in await table.say("李四: /again q1")  # its button, pressed later, is told so


async def test_the_same_amount_to_another_person_or_after_a_table_line_is_no_repeat(table: Table) -> None:
    await table.play(NIGHT)
    await table.say("李四: 付了 王五 20")
    other = await table.respond("赵六: 付了 王五 20")  # another payer: recorded at once
    assert other is not None and other.recorded
    await table.play("张三: 开局 张三 李四 王五 赵六 底=1\n王五: 花杠")  # a table line between
    again = await table.respond("赵六: 付了 王五 20")
    assert again is not None and again.recorded and await payments(table) == 3


async def test_the_question_expires_and_the_payment_it_repeats_undone_voids_it(table: Table) -> None:
    await table.play(NIGHT)
    await table.say("李四: 付了 王五 20")
    await table.say("李四: 付了 王五 20")
    start = table.referee.services.clock()
    table.referee.services.clock = lambda: start + 10 * 60 + 1  # 10 minutes and a second later
    assert "过期" in await table.say("李四: /again q1")
    table.referee.services.clock = lambda: start
    await table.say("李四: 付了 王五 20")  # asked again (q2)
    await table.say("李四: /paid undo 1")
    assert "付款 1 已经撤销了" in await table.say("李四: /again q2")
    assert await payments(table) == 1  # payment 1 and nothing else (its undo is no payment)


async def test_paying_someone_owed_nothing_says_what_the_tab_becomes(table: Table) -> None:
    await table.play(NIGHT)
    paid = await table.say("赵六: 付了 李四 50")
    # 李四 owed 王五, not 赵六: the tab had 赵六 owing 李四 0. 赵六 −30 + 50 = +20, 李四 −30 − 50 = −80
    assert "⚠️" in paid and "/paid undo 1" in paid
    assert "账上就变成 李四 欠 赵六 20 元" in paid


async def test_an_overpayment_with_no_debt_turned_still_says_the_balances(table: Table) -> None:
    await table.play(NIGHT)
    await table.say("张三: 付了 王五 30")  # 张三 −30 + 30 = 0, 王五 +60
    paid = await table.say("张三: 付了 王五 40")
    # 张三 owed nothing: 0 + 40 = +40, 王五 +60 − 40 = +20 (no one's debt turned the other way)
    assert "⚠️ 注意：记这笔之前账上 张三 欠 王五 0 元，付了 40 元，多付 40 元：账上变成 张三 +40 元、王五 +20 元" in paid


async def test_a_payment_within_what_was_owed_says_nothing_more(table: Table) -> None:
    await table.play(NIGHT)
    paid = await table.say("李四: 付了 王五 30")  # 李四 −30 + 30 = 0, 王五 +60: exactly what was owed
    assert "⚠️" not in paid and "王五：+60 元" in paid


async def test_english_asks_and_warns_too(table: Table) -> None:
    await table.play(NIGHT)
    await table.say("张三: /lang en")
    await table.say("李四: /paid 王五 20")
    asked = await table.say("李四: /paid 王五 20")
    assert "the same as payment 1: 李四 → 王五 20, paid once more?" in asked
    over = await table.say("张三: /again")
    # 李四 −10 + 20 = +10: 10 more than owed
    assert "Payment 2: 李四 → 王五 20" in over and "paying 20 is 10 more" in over
    assert "recorded by" not in over  # 李四 typed it, 张三 only answered: no one else wrote it


async def test_the_question_through_telegram_its_button_answers_once(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(CAROL, "花杠")  # Carol +18, the others −6 (stake 1)
        await bot.say(ALICE, "结算")
        await bot.say(ALICE, "确认")
        assert "付款 1" in await bot.say(BOB, "付了 carol 6")  # Bob −6 + 6 = 0
        asked = await bot.say(BOB, "付了 carol 6")
        assert "和付款 1 一样" in asked
        pressed = await bot.press(BOB, buttons(fake)["再记一次"])
        # Bob 0 + 6 = +6, Carol +12 − 6 = +6: 6 more than the tab owed
        assert "付款 2：bob → carol 6 元" in pressed.lower() and "多付 6 元" in pressed
        assert "已经回答过了" in await bot.press(BOB, buttons(fake)["再记一次"])


async def test_the_question_outlives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    referee = await Referee.open(path, charts_enabled=False)
    table = Table(referee, "group-1")
    await table.play(NIGHT)
    await table.say("李四: 付了 王五 20")
    assert "和付款 1 一样" in await table.say("李四: 付了 王五 20")
    await referee.close()
    referee = await Referee.open(path, charts_enabled=False)
    try:
        table = Table(referee, "group-1")
        assert "付款 2：李四 → 王五 20 元" in await table.say("王五: /again q1")
        assert await payments(table) == 2
    finally:
        await referee.close()
