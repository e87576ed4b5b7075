"""One answer, one question. With two repeat questions open (C's and D's flower gangs, each reported
twice), a typed `/again` records neither: it asks which, with a button per question. A button answers
its own question (its id is in the button), once; in Telegram its message loses its buttons after the
answer (editMessageReplyMarkup) and a second press gets a toast (answerCallbackQuery with
show_alert false), not an alert to dismiss.

Money by hand (docs/rules.md, nanjing, stake 1): a flower gang costs each other player 6 (the ganger +18).
After C's and D's first flower gangs: C +18 − 6 = 12, D 12, A −12, B −12."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.chat.handlers import repeats
from tests.kit.fake_telegram import Call, FakeTelegram
from tests.kit.harness import Table
from tests.kit.telegram import ALICE, BOB, CAROL, DAVE, EVE, GROUP, Running, balances

OPEN = "/new A B C D"
AFTER_FIRSTS = {"A": -12, "B": -12, "C": 12, "D": 12}


async def two_questions(table: Table) -> None:
    await table.say(OPEN)
    assert "✅ #2" in await table.say("C: 花杠")
    assert "✅ #3" in await table.say("D: 花杠")
    assert "和 #2 一样：C 花杠，又一次？" in await table.say("C: 花杠")  # question 1
    assert "和 #3 一样：D 花杠，又一次？" in await table.say("D: 花杠")  # question 2
    assert await table.balances() == AFTER_FIRSTS


async def test_a_typed_answer_with_two_questions_open_asks_which(table: Table) -> None:
    await two_questions(table)
    before = await table.row_counts()
    response = await table.respond("A: /again")
    assert response is not None and not response.recorded
    assert [c.command for c in response.choices] == ["/again q1", "/again q2"]
    out = await table.say("A: 再记一次")
    assert "有 2 个问题在等回答，这一句答的是哪一个？" in out
    assert "和 #2 一样：C 花杠" in out and "和 #3 一样：D 花杠" in out
    assert "[再记一次：C 花杠] /again q1" not in out  # the harness shows the text; the buttons are choices
    assert await table.row_counts() == before  # neither recorded
    no = await table.respond("A: /again no")
    assert no is not None and [c.command for c in no.choices] == ["/again q1 no", "/again q2 no"]
    assert await table.row_counts() == before
    # C's button: C's second flower gang, C +18, each other −6 → C 30, D 6, A −18, B −18
    assert "✅ #4 C 花杠" in await table.say("B: /again q1")
    assert await table.balances() == {"A": -18, "B": -18, "C": 30, "D": 6}
    # one question left: a typed answer now applies to it (D's: D +18, each other −6)
    assert "✅ #5 D 花杠" in await table.say("A: 再记一次")
    assert await table.balances() == {"A": -24, "B": -24, "C": 24, "D": 24}


async def test_a_button_answers_its_own_question_once(table: Table) -> None:
    await two_questions(table)
    assert "好，不记（#3 已经记过了）" in await table.say("A: /again q2 no")  # D's dropped
    before = await table.row_counts()
    assert "这个问题已经回答过了" in await table.say("A: /again q2")  # a second press of D's question
    assert await table.row_counts() == before
    assert "✅ #4 C 花杠" in await table.say("A: /again")  # the one left is C's: C +18, others −6
    assert await table.balances() == {"A": -18, "B": -18, "C": 30, "D": 6}
    assert "这个问题已经回答过了" in await table.say("A: /again q1")
    assert await table.balances() == {"A": -18, "B": -18, "C": 30, "D": 6}


async def test_a_typed_answer_may_name_the_event_it_repeats(table: Table) -> None:
    await two_questions(table)
    assert "✅ #4 D 花杠" in await table.say("A: /again 3")  # 和 #3 一样: D's. D +18, others −6
    assert await table.balances() == {"A": -18, "B": -18, "C": 6, "D": 30}
    assert "没有和 #3 一样、在等回答的事件" in await table.say("A: /again 3")
    assert "command.extra_args" not in await table.say("A: /again 2 no")
    assert await table.balances() == {"A": -18, "B": -18, "C": 6, "D": 30}  # C's dropped


async def test_the_same_report_a_third_time_is_one_question(table: Table) -> None:
    await table.say(OPEN)
    await table.say("A: 杠 B")  # #2: B pays A 6
    await table.say("C: A 杠 B")  # asked
    await table.say("D: A 杠 B")  # the same question again: it replaces the open one
    # one question open: the typed answer applies; A's second gang on B: B pays 6 more
    assert "✅" in await table.say("B: 再记一次")
    assert await table.balances() == {"A": 12, "B": -12, "C": 0, "D": 0}


async def test_in_english_the_question_which_is_asked_too(table: Table) -> None:
    await two_questions(table)
    await table.say("/lang en")
    out = await table.say("A: again")
    assert "2 questions are waiting: which one does this answer?" in out
    assert "the same as #2: C made a flower gang" in out, out


async def test_a_question_stored_by_the_earlier_version_is_still_answered(table: Table) -> None:
    await table.say(OPEN)
    await table.say("D: 花杠")  # #2: D +18, each other −6
    await table.say("D: 花杠")
    stored = json.loads(await table.referee.nights.setting("group-1", repeats.SETTING) or "{}")
    old = {key: value for key, value in stored["open"][0].items() if key != "id"}  # one question, no id
    await table.referee.nights.set_setting("group-1", repeats.SETTING, json.dumps(old, ensure_ascii=False))
    assert "✅" in await table.say("A: 再记一次")  # read as question 1: D's second flower gang
    assert await table.balances() == {"A": -12, "B": -12, "C": -12, "D": 36}


# ---- Telegram -------------------------------------------------------------------------------------


def question_message(fake: FakeTelegram, text: str) -> Call:
    return next(c for c in fake.sent() if text in str(c.params.get("text", "")) and "reply_markup" in c.params)


def data_of(call: Call) -> dict[str, str]:
    markup = call.params["reply_markup"]
    return {b["text"]: b["callback_data"] for row in markup["inline_keyboard"] for b in row}


def shows_alert(call: Call) -> bool:
    return str(call.params.get("show_alert", "false")).lower() == "true"


async def press(fake: FakeTelegram, who: dict[str, Any], message: Call, data: str) -> list[Call]:
    before = len(fake.calls)
    await fake.settle(fake.press(who, message, data))
    return fake.calls[before:]


def keyboard_left(fake: FakeTelegram, message: Call) -> str:
    return fake.shown[(GROUP, int(message.params["_result"]["message_id"]))][1]


async def test_in_telegram_each_question_is_answered_by_its_own_buttons(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        await bot.say(CAROL, "/flowergang")  # #2: carol +18, each other −6
        await bot.say(DAVE, "/flowergang")  # #3: dave +18, each other −6 (carol's binding takes no number)
        await bot.say(CAROL, "/flowergang")
        await bot.say(DAVE, "/flowergang")
        carols = question_message(fake, "和 #2 一样")
        daves = question_message(fake, "和 #3 一样")
        # carol's question, carol's button: her second flower gang (carol +18, each other −6)
        calls = await press(fake, BOB, carols, data_of(carols)["再记一次"])
        assert any(
            "✅" in str(c.params.get("text", "")) and "carol 花杠" in str(c.params.get("text", "")) for c in calls
        )
        edits = [c for c in calls if c.method == "editMessageReplyMarkup"]
        assert [int(c.params["message_id"]) for c in edits] == [carols.params["_result"]["message_id"]]
        assert "reply_markup" not in edits[0].params and keyboard_left(fake, carols) == ""  # buttons gone
        assert keyboard_left(fake, daves) != ""  # dave's question still has its own
        # a second press of carol's button: a toast, nothing recorded
        calls = await press(fake, ALICE, carols, data_of(carols)["再记一次"])
        answers = [c for c in calls if c.method == "answerCallbackQuery"]
        assert answers and "已记录 #" in str(answers[0].params.get("text")) and not shows_alert(answers[0])
        assert not any(c.method == "sendMessage" for c in calls)
        # dave's question dropped by its button: the chat sees the answer, the buttons go
        calls = await press(fake, ALICE, daves, data_of(daves)["重复了，不记"])
        assert any("好，不记（#3 已经记过了）" in str(c.params.get("text", "")) for c in calls)
        assert keyboard_left(fake, daves) == ""
        calls = await press(fake, BOB, daves, data_of(daves)["再记一次"])  # spent: a toast
        answers = [c for c in calls if c.method == "answerCallbackQuery"]
        assert answers and "这个问题已经回答过了" in str(answers[0].params.get("text"))
        assert not shows_alert(answers[0])
    # carol's two flower gangs, dave's one: carol 36 − 6 = 30, dave 18 − 12 = 6, alice and bob −18
    assert await balances(db) == [-18, -18, 30, 6]


async def test_in_telegram_a_typed_answer_with_two_open_asks_with_buttons(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        for who in (CAROL, DAVE, CAROL, DAVE):
            await bot.say(who, "/flowergang")
        out = await bot.say(ALICE, "/again")
        assert "有 2 个问题在等回答" in out and "✅" not in out
        which = question_message(fake, "有 2 个问题在等回答")
        assert set(data_of(which)) == {"再记一次：carol 花杠", "再记一次：dave 花杠"}
        calls = await press(fake, BOB, which, data_of(which)["再记一次：dave 花杠"])
        assert any(
            "✅" in str(c.params.get("text", "")) and "dave 花杠" in str(c.params.get("text", "")) for c in calls
        )
        assert keyboard_left(fake, which) == ""
        out = await bot.say(ALICE, "/again")
        assert "✅" in out and "carol 花杠" in out  # one open now: the typed answer applies
    # two flower gangs each: carol and dave 36 − 12 = 24, alice and bob −24
    assert await balances(db) == [-24, -24, 24, 24]


async def test_taking_a_question_without_its_id_takes_only_the_one_open(table: Table) -> None:
    await two_questions(table)
    services = table.referee.services
    assert await repeats.take(services, "group-1") is None  # two open: an answer must say which
    assert [q.question for q in await repeats.open_questions(services, "group-1")] == [1, 2]
    taken = await repeats.take(services, "group-1", 2)
    assert taken is not None and taken.same_id == 3
    only = await repeats.take(services, "group-1")
    assert only is not None and only.question == 1 and await repeats.open_questions(services, "group-1") == ()
    assert await table.balances() == AFTER_FIRSTS  # taking a question records nothing


async def test_in_telegram_a_strangers_press_still_gets_an_alert(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        await bot.say(CAROL, "/flowergang")
        await bot.say(CAROL, "/flowergang")
        question = question_message(fake, "和 #2 一样")
        calls = await press(fake, EVE, question, data_of(question)["再记一次"])  # not at the table
        answers = [c for c in calls if c.method == "answerCallbackQuery"]
        assert answers and shows_alert(answers[0]) and keyboard_left(fake, question) != ""
        calls = await press(fake, DAVE, question, data_of(question)["再记一次"])  # the question is still open
        assert any("✅" in str(c.params.get("text", "")) for c in calls)
    # carol's two flower gangs: carol 36, each other −12
    assert await balances(db) == [-12, -12, 36, -12]
