"""Numbers are the lines people typed (issue #29, item 3): the number a player sees (`✅ #3`,
`撤销 3`, `/fix 3`, /history, the CSV, an edit read as a fix, a button's 已记录 #3) counts the
lines the table typed tonight, the opening being #1. A seat claim (我是 李四, the Join button, an
account bound with its first line) and a row the bot writes itself (the re-pricing row a correction
books at another place) take no number and are not in /history; numbers start again each night.

Seats: 张三 East (the first dealer), 李四 South, 王五 West, 赵六 North. No money figure is asserted
here: only which number each line gets (money by hand is asserted where the rules are tested).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from bot.text.replies import Response, render
from locales import Translator
from tests.kit.fake_telegram import FakeTelegram, plain_user
from tests.kit.harness import Table
from tests.kit.telegram import Running

CHAT = "tg:-100"
OPEN = "开局 张三 李四 王五 赵六"
NUMBER = re.compile(r"^#(\d+) ", re.MULTILINE)


def numbers_in(history: str) -> list[int]:
    return [int(n) for n in NUMBER.findall(history)]


async def kinds(table: Table) -> list[str]:
    rows = await table.referee.nights.ledger._db.execute_fetchall("SELECT kind FROM events ORDER BY id")
    return [str(row[0]) for row in rows]


# ---- a correction's re-pricing row takes no number ------------------------------------------------


REPRICED = """
    /new 张三 李四 王五 赵六
    荒庄
    王五: 胡 李四 123m 456m 789m 234p 5p +5p 花2
    撤销 2
"""
# #2 the draw doubles hand 2 (比下胡), #3 王五's win is paid doubled; #4 undoes the draw, so the win
# is no longer doubled: its difference is booked on a `correction` row at the win's place.


async def test_a_re_pricing_row_takes_no_number_and_the_next_line_takes_the_next(table: Table) -> None:
    await table.play(REPRICED)
    assert (await kinds(table)).count("correction") == 1  # the bug's row is there (the bot wrote it)
    assert "✅ #5 李四 碰 张三" in await table.say("李四: 碰 张三")  # not #6
    history = await table.say("/history")
    assert numbers_in(history) == [1, 2, 3, 4, 5]
    assert "更正" not in history
    # 撤销 5 undoes the line typed as #5, the pong (it named the re-pricing row before)
    assert "撤销了 #5：碰 张三" in await table.say("撤销 5")


async def test_earlier_numbers_never_shift_when_a_correction_is_added_later(table: Table) -> None:
    await table.play("/new 张三 李四 王五 赵六\n李四: 碰 张三\n王五: 碰 李四")
    before = await table.say("/history")
    await table.say("/fix 2 李四 碰 赵六")
    after = await table.say("/history")
    assert numbers_in(before) == [1, 2, 3] and numbers_in(after) == [1, 2, 3, 4]
    assert "#3 [第1盘] 碰：碰 李四（王五）" in before and "#3 [第1盘] 碰：碰 李四（王五）" in after


# ---- numbered per night -------------------------------------------------------------------------


async def test_each_night_numbers_from_one(table: Table) -> None:
    await table.play("/new 张三 李四 王五 赵六\n李四: 碰 张三\n/close")
    out = await table.say("/new 张三 李四 王五 赵六")
    assert "第 2 局" in out
    assert "✅ #2 李四 碰 张三" in await table.say("李四: 碰 张三")  # not the ledger's row 5
    history = await table.say("/history")
    assert history.startswith("第 2 局的记录（每局单独编号，从开局起")
    assert numbers_in(history) == [1, 2]
    assert "撤销了 #2：碰 张三" in await table.say("撤销 2")
    assert "本局没有 #9 这条记录" in await table.say("撤销 9")


async def test_the_history_says_it_is_numbered_per_night_in_english(table: Table) -> None:
    await table.say("/lang en")
    await table.say("/new A B C D")
    assert "numbered per night" in await table.say("/history")
    assert "numbered per night" in await table.say("/help")


# ---- seat claims take no number (accounts without @username) ------------------------------------


ZHANG = Speaker("201", "张三", names=("张三",))
LI = Speaker("202", "Li", names=("Li",))
WANG = Speaker("203", "Wu", names=("Wu",))
ZHAO = Speaker("204", "Zed", names=("Zed",))


async def say(referee: Referee, speaker: Speaker, line: str) -> str:
    response: Response | None = await referee.handle(Incoming(CHAT, speaker, line))
    assert response is not None
    return "\n".join(render(r, Translator(response.language)) for r in response.replies)


async def test_three_claims_take_no_number_the_first_pong_is_2(referee: Referee) -> None:
    await say(referee, ZHANG, OPEN)
    for speaker, line in ((LI, "我是 李四"), (WANG, "/join 王五"), (ZHAO, "我是 赵六")):
        assert "= 这个账号" in await say(referee, speaker, line)
    assert "✅ #2 李四 碰 张三" in await say(referee, LI, "碰 张三")  # 张三 claims by name with it
    history = await say(referee, ZHANG, "/history")
    assert numbers_in(history) == [1, 2]
    assert "我是" not in history and "/join" not in history
    assert "撤销了 #2：碰 张三" in await say(referee, ZHANG, "撤销 2")
    assert "✅ #4 王五 碰 李四" in await say(referee, WANG, "碰 李四")  # #3 was the undo


async def test_a_plain_undo_right_after_a_claim_undoes_the_claim_and_numbers_nothing(referee: Referee) -> None:
    await say(referee, ZHANG, OPEN)
    assert "✅ #2" in await say(referee, ZHANG, "罚 跟牌 赵六")
    await say(referee, WANG, "我是 李四")  # Wu pressed the wrong seat
    assert "已撤销认座：我是 李四" in await say(referee, WANG, "/undo")
    history = await say(referee, ZHANG, "/history")
    assert numbers_in(history) == [1, 2]  # neither the claim nor its undo is a line of the table
    assert "= 这个账号" in await say(referee, WANG, "我是 王五")
    assert "✅ #3 王五 碰 张三" in await say(referee, WANG, "碰 张三")


async def test_a_claim_cannot_be_named_by_a_number(referee: Referee) -> None:
    await say(referee, ZHANG, OPEN)
    await say(referee, LI, "我是 李四")
    refused = await say(referee, ZHANG, "撤销 2")  # #2 is no line yet: the claim has no number
    assert "#2" in refused and "#1" in refused  # no #2 tonight; the latest is #1


# ---- after a restart ----------------------------------------------------------------------------


async def test_numbers_go_on_after_a_restart_from_a_checkpoint(tmp_path: Path) -> None:
    db = tmp_path / "n.sqlite3"
    referee = await Referee.open(db, charts_enabled=False)
    try:
        await say(referee, ZHANG, OPEN)
        await say(referee, LI, "我是 李四")
        await say(referee, ZHANG, "荒庄")  # #2 closes hand 1: a checkpoint after it
        assert "✅ #3 李四 碰 张三" in await say(referee, LI, "碰 张三")
    finally:
        await referee.close()
    referee = await Referee.open(db, charts_enabled=False)
    try:
        night = await referee.nights.latest(CHAT, history=False)
        assert night is not None and night.partial  # only what came after the checkpoint is read
        assert "✅ #4 王五 碰 李四" in await say(referee, ZHANG, "王五 碰 李四")  # the head counts #1-#2
        assert night.partial
        assert numbers_in(await say(referee, ZHANG, "/history")) == [1, 2, 3, 4]
    finally:
        await referee.close()


# ---- the CSV ------------------------------------------------------------------------------------


async def test_the_csv_numbers_lines_as_history_does(table: Table) -> None:
    await table.play(REPRICED)
    response = await table.respond("/export")
    assert response is not None
    rows = list(csv.DictReader(io.StringIO(response.attachments[0].data.decode("utf-8-sig"))))
    numbered = [(row["number"], row["kind"], row["undoes"]) for row in rows if row["number"]]
    assert numbered == [("1", "open", ""), ("2", "draw", ""), ("3", "win", ""), ("4", "undo", "2")]
    repriced = [row for row in rows if row["kind"] == "correction"]
    assert repriced and all(row["number"] == "" for row in repriced)  # listed, its money counts


# ---- Telegram: claims, an edit read as a fix ----------------------------------------------------


async def test_in_telegram_the_first_event_after_three_claims_is_2(fake: FakeTelegram, tmp_path: Path) -> None:
    zhang, li, wang, zhao = (plain_user(201 + i, n) for i, n in enumerate(("张三", "Li", "Wu", "Zed")))
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        await bot.say(zhang, OPEN)
        for who, seat in ((li, "李四"), (wang, "王五"), (zhao, "赵六")):
            assert "= 这个账号" in await bot.say(who, f"我是 {seat}")
        assert "✅ #2 李四 碰 张三" in await bot.say(li, "碰 张三")  # it was #5
        pong = fake.last_message
        await fake.settle(fake.edit(pong, "碰 王五"))  # an edit corrects #2, not row 5
        assert "更正了 #2" in "\n".join(fake.texts()[-3:])
        assert numbers_in(await bot.say(zhang, "/history")) == [1, 2, 3]


async def test_an_edit_of_a_claim_line_corrects_nothing_and_says_so(fake: FakeTelegram, tmp_path: Path) -> None:
    zhang, li = plain_user(201, "张三"), plain_user(202, "Li")
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        await bot.say(zhang, OPEN)
        assert "李四 = 这个账号" in await bot.say(li, "我是 李四")
        claim = fake.last_message
        await fake.settle(fake.edit(claim, "我是 王五"))  # the claim has no number: no /fix of a row id
        assert "改它不改任何记录" in fake.texts()[-1]
        assert "✅ #2 李四 碰 张三" in await bot.say(li, "碰 张三")  # still 李四's seat, and the next number
