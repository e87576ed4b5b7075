"""Undo undoes one thing (#47 item 3): an undo or a fix of what is already undone is refused, saying
what is in force, and records nothing; `撤销 N` of the line first typed at N takes that line back
whole, whatever correction of it stands (docs/rules.md 16).

Money, worked by hand from docs/rules.md (docs/rules.md §4: a custom penalty, the named player pays the
amount to each other player; stake 1): 罚 王五 10 is 张三 +10, 李四 +10, 王五 −30, 赵六 +10; 罚 王五 20 is
+20, +20, −60, +20; 罚 王五 30 is +30, +30, −90, +30.
"""

from __future__ import annotations

from pathlib import Path

from tests.kit.fake_telegram import FakeTelegram, plain_user
from tests.kit.harness import Table
from tests.kit.messages import says
from tests.kit.telegram import Running, balances

OPEN = "开局 张三 李四 王五 赵六"
TEN = {"张三": 10, "李四": 10, "王五": -30, "赵六": 10}
TWENTY = {"张三": 20, "李四": 20, "王五": -60, "赵六": 20}
THIRTY = {"张三": 30, "李四": 30, "王五": -90, "赵六": 30}
ZERO = {"张三": 0, "李四": 0, "王五": 0, "赵六": 0}


async def penalty_fixed(table: Table) -> None:
    """#2 罚 王五 10, #3 its fix to 20."""
    await table.play(f"{OPEN}\n张三: 罚 王五 10\n张三: 改 2 罚 王五 20")
    assert await table.balances() == TWENTY


async def test_undoing_an_undone_fix_again_is_refused_and_the_penalty_stays(table: Table) -> None:
    await penalty_fixed(table)
    assert "撤销了 #3" in await table.say("张三: /undo 3")  # #4: the fix taken back, #2 stands
    assert await table.balances() == TEN
    before = await table.row_counts()
    again = await table.say("张三: /undo 3")
    assert "#3 已经撤销过了" in again and "撤销了" not in again
    assert "现在算的是 #2：罚 王五 10" in again  # what is in force, said
    assert await table.balances() == TEN  # the original penalty never vanishes
    assert await table.row_counts() == before  # nothing recorded
    history = await table.say("张三: /history")
    assert "已由 #3 更正" not in history


async def test_a_fix_of_an_undone_fix_is_refused(table: Table) -> None:
    await penalty_fixed(table)
    await table.say("张三: /undo 3")
    before = await table.row_counts()
    refused = await table.say("张三: 改 3 罚 王五 30")
    assert "#3 已经撤销过了" in refused and "现在算的是 #2" in refused
    assert await table.balances() == TEN
    assert await table.row_counts() == before
    assert "更正了 #2" in await table.say("张三: 改 2 罚 王五 30")  # the line in force is fixed by its number
    assert await table.balances() == THIRTY


async def test_undoing_the_line_first_typed_takes_it_back_whole(table: Table) -> None:
    """`撤销 2` after `改 2 …`: the table means line 2's penalty did not happen, whatever it was fixed to
    (not: take back the fix, one at a time)."""
    await penalty_fixed(table)
    out = await table.say("张三: 撤销 2")
    assert "#4 撤销了 #2" in out
    assert await table.balances() == ZERO
    before = await table.row_counts()
    again = await table.say("张三: 撤销 2")
    assert "#2 已经撤销过了" in again and "这一条现在不算" in again
    assert "#3 已经撤销过了" in await table.say("张三: 撤销 3")
    assert await table.balances() == ZERO
    assert await table.row_counts() == before
    history = await table.say("张三: /history")
    assert "已由 #3 更正" not in history
    assert "#2 [第1盘] 罚：罚 王五 10（张三）— 已撤销" in history


async def test_undoing_a_fix_that_was_fixed_again_names_the_version_in_force(table: Table) -> None:
    await penalty_fixed(table)
    await table.say("张三: 改 3 罚 王五 30")  # #4: the fix fixed again
    assert await table.balances() == THIRTY
    before = await table.row_counts()
    refused = await table.say("张三: /undo 3")
    assert "#3 已由 #4 更正" in refused and "现在算的是 #4" in refused
    assert await table.balances() == THIRTY
    assert await table.row_counts() == before
    assert "撤销了 #4" in await table.say("张三: /undo 4")  # back to #3's 20
    assert await table.balances() == TWENTY


# ---- through Telegram: a reply to the ✏️ answer, twice; a reply-fix edited ---------------------------

ZHANG, LI = plain_user(201, "张三"), plain_user(202, "李四")
RUNNING_ZERO = [0, 0, 0, 0]


def the_answer(fake: FakeTelegram, key: str, **params: object) -> dict[str, object]:
    for call in reversed(fake.sent()):
        if says(str(call.params.get("text", "")), key, **params):
            result: dict[str, object] = call.params["_result"]
            return result
    raise AssertionError(f"no answer {key} {params}")


async def test_undo_replied_twice_to_a_fix_answer_undoes_one_thing(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ZHANG, OPEN)
        await bot.say(ZHANG, "罚 王五 10")
        assert says(await bot.say(ZHANG, "改 2 罚 王五 20"), "fix.done", id=3, target=2)
        fixed = the_answer(fake, "fix.done", id=3, target=2)
        assert says(await bot.say(LI, "撤销", reply_to=fixed), "undo.done", id=4, target=3)
        again = await bot.say(LI, "撤销", reply_to=fixed)
        assert says(again, "undo.already_undone", id=3) and "撤销了" not in again
        assert await balances(db) == [10, 10, -30, 10]


async def test_an_edited_reply_fix_corrects_as_an_edited_line_does(fake: FakeTelegram, tmp_path: Path) -> None:
    """An edit is the message as it should have been typed: `改 罚 王五 20` replied to ✅ #2, edited to
    `改 罚 王五 30`, is that fix (of #2, whose version in force is the fix); edited to `撤销`, the undo of #2."""
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ZHANG, OPEN)
        await bot.say(ZHANG, "罚 王五 10")
        recorded = the_answer(fake, "event.recorded", id=2)
        assert says(await bot.say(ZHANG, "改 罚 王五 20", reply_to=recorded), "fix.done", id=3, target=2)
        fix_line = fake.last_message
        assert await balances(db) == [20, 20, -60, 20]
        await bot.fake.settle(fake.edit(fix_line, "改 罚 王五 30"))  # the reply-fix, edited: #4 fixes #3
        assert await balances(db) == [30, 30, -90, 30]
        assert not any(says(str(c.params.get("text", "")), "fix.usage") for c in fake.sent())
        # edited into an undo: the message now says 撤销 to ✅ #2, so line 2 is taken back whole
        await bot.fake.settle(fake.edit(fix_line, "撤销"))
        assert await balances(db) == RUNNING_ZERO
        assert not any(says(str(c.params.get("text", "")), "fix.usage") for c in fake.sent())


async def test_a_plain_line_edited_into_a_correction_corrects_that_line(fake: FakeTelegram, tmp_path: Path) -> None:
    """`罚 王五 10` (#2) edited to `撤销`: line 2 is taken back, not the latest line (#3)."""
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ZHANG, OPEN)
        await bot.say(ZHANG, "罚 王五 10")
        line = fake.last_message
        await bot.say(ZHANG, "罚 张三 10")  # #3: 张三 −30, the others +10
        await bot.fake.settle(fake.edit(line, "撤销"))
        assert await balances(db) == [-30, 10, 10, 10]


async def test_a_corrections_answer_is_short(table: Table) -> None:
    """What it corrected, what it moved, the hand now: no `/fix` reminder under every correction
    (#48 item 9). 10 → 20: each of the three others +10, 王五 −30."""
    await table.play(f"{OPEN}\n张三: 罚 王五 10")
    out = await table.say("张三: 改 2 罚 王五 20")
    moved = "变动：张三 +10 花（+10 元） · 李四 +10 花（+10 元） · 王五 −30 花（−30 元） · 赵六 +10 花（+10 元）"
    assert out.splitlines() == ["✏️ #3 更正了 #2：罚 王五 20", moved, "现在是第 1 盘"]
    undone = await table.say("张三: 撤销 3")
    assert "/fix" not in undone and len(undone.splitlines()) == 3
