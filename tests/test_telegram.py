"""The referee in a (fake) Telegram group, end to end through PTB's real HTTP stack, no network."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.kit.bot_process import bot_against_fake
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.messages import rendered, says
from tests.kit.telegram import ALICE, BOB, CAROL, DAVE, EVE, GROUP, OTHER_GROUP, Running, balances, buttons


async def test_a_whole_night_in_a_group(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        assert fake.sent("setMyCommands")
        out = await bot.say(ALICE, "/new@referee_bot @alice @bob @carol @dave preset=nanjing")
        assert says(out, "night.opened", night=1)
        # a pong by buttons: /pong, then tap the feeder
        assert says(await bot.say(BOB, "/pong"), "pong.who_fed")
        assert "✅" in await bot.press(BOB, buttons(fake)["carol"])
        await bot.say(BOB, "碰 dave")
        await bot.say(CAROL, "暗杠 3m")
        await bot.say(ALICE, "罚 跟牌 dave")
        out = await bot.say(BOB, "胡 carol 11p 567s 79s [EEE] [444p] +8s 花4")
        assert says(out, "score.total", total=34) and "📋" in out  # the hand is over: its reply ends with the board
        board = await bot.say(EVE, "/score")
        bob = rendered("balance.both", amount=41, unit=rendered("unit_name.flowers"), money=41)  # stake 1
        assert says(board, "board.person", name="bob", balance=bob)
        assert says(board, "board.doubled")
        undo = await bot.say(ALICE, "/undo")
        assert says(undo, "undo.done")
        summary = await bot.say(DAVE, "/summary")
        assert says(summary, "summary.header", night=1) and fake.sent("sendPhoto")
        # the chart as Telegram reads the upload: a JPEG of 800 × 450 (the fake refuses what it could not open)
        assert fake.sent("sendPhoto")[-1].params["photo"]["image"] == ("JPEG", 800, 450) and not fake.refused
        # no right to pin here: no live board message at all, and one note saying how to give the right
        assert not fake.sent("pinChatMessage") and sum(says(t, "telegram.pin_ask") for t in fake.texts(GROUP)) == 1
    # after undoing the win: 暗杠 3 each to Carol, 跟牌 Dave pays 10 to each
    assert await balances(db) == [10 - 3, 10 - 3, 10 + 9, -30 - 3]


async def test_an_outsider_cannot_record_and_nothing_changes(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        out = await bot.say(EVE, "/hu self 123m456m789m234p5p+5p flowers=2")
        assert says(out, "permission.not_at_table")
        assert "📋" in await bot.say(EVE, "/score")  # anyone may ask
    assert await balances(db) == [0, 0, 0, 0]


async def test_a_chat_admin_may_record_for_the_table(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    fake.admins[GROUP] = [5]
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        assert "✅" in await bot.say(EVE, "/gang carol bob 5s")
    assert await balances(db) == [0, -6, 6, 0]


async def test_two_groups_in_parallel_and_a_repeated_update(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        await bot.say(ALICE, "/new @alice @bob @carol @dave", chat=OTHER_GROUP)
        first = fake.message(GROUP, CAROL, "/gang self")
        fake.message(OTHER_GROUP, BOB, "/flowergang")
        repeated = next(u for u in fake.updates if u["update_id"] == first)
        fake.raw({**repeated, "update_id": fake.next_update_id})  # the same message delivered again
        fake.next_update_id += 1
        await fake.settle(fake.next_update_id - 1)
    assert await balances(db) == [-3, -3, 9, -3]
    assert await balances(db, f"tg:{OTHER_GROUP}") == [-6, 18, -6, -6]


async def test_a_stale_button_is_refused(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        await bot.say(BOB, "/pong")
        stale = buttons(fake)["carol"]
        await bot.say(ALICE, "/draw")  # the hand moves on
        keyboard = [c for c in fake.calls if "reply_markup" in c.params][-1]
        await fake.settle(fake.press(BOB, keyboard, stale))
        answers = fake.sent("answerCallbackQuery")
        assert answers and says(str(answers[-1].params.get("text")), "button.stale")
    assert await balances(db) == [0, 0, 0, 0]


async def test_a_restarted_bot_continues_the_night(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        await bot.say(BOB, "/pong carol 7p")
    async with Running(fake, db) as bot:
        await bot.say(BOB, "补杠 7p")
    assert await balances(db) == [0, 6, -6, 0]


async def test_private_chat_never_touches_a_group(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        await bot.say(CAROL, "/gang self 3m")
        assert says(await bot.say(ALICE, "/new @alice @bob @carol @dave", chat=1), "night.private_chat")
        mine = await bot.say(CAROL, "/me", chat=3)
        # Carol spoke in the group, so her seat knows her id
        assert says(mine, "stats.player", name="carol", nights=1, money=9)
        assert not any(name in mine for name in ("alice", "bob", "dave"))
        assert says(await bot.say(EVE, "/me", chat=5), "me.nothing")
    assert await balances(db) == [-3, -3, 9, -3]


def test_python_m_bot_runs_against_the_fake_server_and_stops_on_sigint(tmp_path: Path) -> None:
    import asyncio

    log = tmp_path / "bot.log"

    async def scenario() -> list[str]:
        async with bot_against_fake(tmp_path / "sub.sqlite3", log) as (fake, bot):
            fake.message(GROUP, ALICE, "/new @alice @bob @carol @dave")
            await fake.wait_for(lambda: bool(fake.sent("sendMessage")), timeout=30)
            status = await bot.stop()  # SIGINT
        assert status == 0, log.read_text(encoding="utf-8")
        return fake.texts()

    texts = asyncio.run(scenario())
    assert any(says(t, "night.opened", night=1) for t in texts)


async def test_a_group_upgraded_to_a_supergroup_keeps_its_ledger(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    old, new = -555, -100555
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave", chat=old)
        await bot.say(CAROL, "/gang self 3m", chat=old)
        chat = {"id": old, "type": "group", "title": "Table"}
        migrated = {"message_id": 1, "date": 0, "chat": chat, "from": ALICE, "migrate_to_chat_id": new}
        await fake.settle(fake.raw({"update_id": fake.next_update_id, "message": migrated}))
        fake.next_update_id += 1
        assert "carol：9" in await bot.say(ALICE, "/score", chat=new)
        await bot.say(CAROL, "/gang self 4m", chat=new)
    assert await balances(db, f"tg:{old}") == [-6, -6, 18, -6]


async def test_an_internal_error_is_reported_and_the_bot_keeps_running(
    fake: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        referee = bot.application.bot_data["front"].referee
        original = referee.handle

        async def broken(incoming: Any) -> Any:
            if "boom" in incoming.text:
                raise RuntimeError("simulated failure")
            return await original(incoming)

        monkeypatch.setattr(referee, "handle", broken)
        assert says(await bot.say(BOB, "/pong boom"), "error.internal")
        assert "✅" in await bot.say(BOB, "/pong carol")


async def test_each_forum_topic_holds_its_own_table(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    forum: dict[str, Any] = {"chat_extra": {"is_forum": True}, "is_topic_message": True}
    async with Running(fake, db) as bot:
        out = await bot.say(ALICE, "/new @alice @bob @carol @dave", message_thread_id=7, **forum)
        assert says(out, "night.opened", night=1)
        assert fake.sent("sendMessage")[-1].params.get("message_thread_id") in (7, "7")
        assert says(await bot.say(ALICE, "/score", message_thread_id=9, **forum), "night.none")
        assert "📋" in await bot.say(ALICE, "/score", message_thread_id=7, **forum)


async def test_free_seats_are_taken_with_join_and_the_join_button(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        out = await bot.say(ALICE, "/new @alice @bob")
        assert says(out, "night.free_seat") and rendered("button.join") in buttons(fake)
        assert says(await bot.say(ALICE, "/flowergang"), "night.seats_free")  # four players are needed to record
        assert says(await bot.say(CAROL, "/join"), "join.done", name="carol", seat=rendered("seat.west"))
        join_button = buttons(fake)[rendered("button.join")]
        assert says(await bot.press(DAVE, join_button), "join.done", name="dave", seat=rendered("seat.north"))
        assert "✅" in await bot.say(DAVE, "/flowergang")
    assert await balances(db) == [-6, -6, -6, 18]
