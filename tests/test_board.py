"""One live board, a quiet chat (issue #24 item 2): an event's reply is one line, the board comes at
the end of a hand and on /score (or after every event with `/board each`), and in Telegram one
pinned board per night is edited in place, coalesced within Telegram's limits."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from telegram.error import BadRequest

from bot.chat.service import Referee
from bot.telegram.delivery import Outgoing, coalesce
from bot.text.replies import Reply, Response
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.messages import says
from tests.kit.replies import lines
from tests.kit.telegram import ALICE, BOB, CAROL, DAVE, EVE, GROUP, NEW, Running, board_texts

# ---- the quiet reply (command layer: console and Telegram alike) ----------------------------------


async def test_an_event_is_one_line_with_its_payments(table: Table) -> None:
    table.default_speaker = "甲"
    await table.say("开局 甲 乙 丙 丁")
    # nanjing at 1 a flower: an exposed gang is 6 from the feeder; a concealed gang 3 from each other
    # player; a flower gang 6 from each; 跟牌 costs the offender 10 to each other player
    assert lines(await table.say("丁: 杠 甲 9p")) == ["✅ #2 丁 明杠 甲 9p · 甲 → 丁：6 花（6）"]
    assert lines(await table.say("丙: 暗杠 3s")) == ["✅ #3 丙 暗杠 3s · 丁、甲、乙 → 丙：各 3 花（3）"]
    assert lines(await table.say("乙: 花杠")) == ["✅ #4 乙 花杠 · 丙、丁、甲 → 乙：各 6 花（6）"]
    assert lines(await table.say("罚 跟牌 乙")) == ["✅ #5 罚 跟牌：乙 · 乙 → 丙、丁、甲：各 10 花（10）"]
    assert lines(await table.say("乙: 碰 丙 7p")) == ["✅ #6 乙 碰 丙 7p"]
    # 甲 −6 −3 −6 +10 = −5; 乙 −3 +18 −30 = −15; 丙 +9 −6 +10 = 13; 丁 +6 −3 −6 +10 = 7
    assert await table.balances() == {"甲": -5, "乙": -15, "丙": 13, "丁": 7}


async def test_the_board_comes_at_the_end_of_a_hand_with_its_warnings(table: Table) -> None:
    table.default_speaker = "甲"
    await table.say("开局 甲 乙 丙 丁")
    await table.say("乙: 花杠")
    out = await table.say("荒庄")
    # a draw after a flower gang: the next hand is doubled (比下胡), the warning stays in the reply
    assert "⚠️" in out and "比下胡" in out
    assert "📋 第 2 盘" in out and "乙：18 花（18 元）" in out  # 6 from each of three
    assert "📋" in await table.say("查分")


async def test_board_each_brings_back_the_board_after_every_event(table: Table) -> None:
    await table.say("/new A B C D")
    assert "one line" in await table.say("/lang en") + await table.say("/board")
    assert "board follows every event" in await table.say("B: /board each")
    out = await table.say("B: /gang C 5s")
    # the full reply as before: the event, its payment line, then the board (C pays B 6)
    assert lines(out)[:2] == ["✅ #2 B made an exposed gang of 5s on C's discard", "  C → B: 6 flowers (6)"]
    assert "📋 hand 1" in out and "B: 6 flowers (money 6)" in out
    assert "after every event" in await table.say("/board")
    await table.say("C: /board hand")
    assert "📋" not in await table.say("B: /gang D 6s")
    assert await table.balances() == {"A": 0, "B": 12, "C": -6, "D": -6}  # the setting never moves money


async def test_the_board_setting_in_plain_words_and_its_errors(table: Table, referee: Referee) -> None:
    table.default_speaker = "甲"
    await table.say("开局 甲 乙 丙 丁")
    assert says(await table.say("乙: 记分板 每次"), "board.set_each")
    assert await referee.chat_setting("group-1", "board") == "each"
    assert await table.respond("乙: 记分板 真好看") is None  # talk about the board: no reply
    wrong = await table.respond("乙: /board 大声")
    assert wrong is not None and wrong.refused
    assert "没有「大声」这个选项" in await table.say("乙: /board 大声")
    assert "记分板 每次|每盘" in await table.say("乙: /board 大声")  # the right form follows
    refused = await table.respond("路人: 记分板 每盘")  # not at the table: the right /lang needs
    assert refused is not None and refused.refused
    assert says(await table.say("路人: /board 每盘"), "permission.board")
    assert await referee.chat_setting("group-1", "board") == "each"  # nothing changed
    assert "記分板" in await table.say("乙: /lang 繁体") + await table.say("乙: 記分板 每盤")
    assert await referee.chat_setting("group-1", "board") == "hand"


async def test_a_quiet_reply_keeps_its_warnings(table: Table) -> None:
    """RULES §8: three mouths from C, C feeds the fourth: the reply to the pong carries the prompt."""
    await table.say("/new A B C D")
    for line in ("B: 碰 C 1m", "B: 碰 C E", "B: 碰 C 9p"):
        await table.say(line)
    out = lines(await table.say("B: 碰 C 5s"))
    assert out[0].startswith("✅ #") and any("B 自摸 对对胡 全球独钓 花N" in line for line in out[1:])
    repeat = await table.say("B: 花杠")
    again = await table.say("B: 花杠")  # the same event twice in a hand: the question is asked, not hidden
    assert "✅" in repeat and "和 #6 一样" in again


def test_a_backlog_shows_the_latest_board_once() -> None:
    """Coalesced answers: one line per event and, when one of them ended a hand, the latest board once."""
    board_one, board_two = Reply("board.doubled"), Reply("board.streak", {"streak": 1})
    ended = Response((Reply("what.draw"), board_one), recorded=True, scoreboard=board_one, night_id=1)
    later = Response((Reply("what.flower_gang", {"actor": "B"}),), recorded=True, scoreboard=board_two, night_id=1)
    batch = [Outgoing(-1, None, "k", ended), Outgoing(-1, None, "k", later)]
    text = coalesce(batch).splitlines()
    assert text == ["荒庄", "B 花杠", " · 连庄 1"]  # the board as it stands after the last event
    assert coalesce([Outgoing(-1, None, "k", later), Outgoing(-1, None, "k", later)]).count("连庄") == 0


# ---- the pinned live board in Telegram ---------------------------------------------------------


def edits_of(fake: FakeTelegram, message_id: int) -> list[str]:
    return [str(c.params["text"]) for c in fake.sent("editMessageText") if int(c.params["message_id"]) == message_id]


async def test_the_pinned_board_is_edited_not_resent_across_a_hand(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.pinners.add(GROUP)
    async with Running(fake, tmp_path / "tg.sqlite3", board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "杠 carol 5s")
        await fake.wait_for(lambda: bool(fake.sent("pinChatMessage")))
        pin = fake.sent("pinChatMessage")[0]
        board_id = int(pin.params["message_id"])
        assert pin.params["disable_notification"] in (True, "true")  # no "pinned a message" notification for everyone
        assert fake.pinned[GROUP] == [board_id]
        out = await bot.say(CAROL, "暗杠 3m")
        (line,) = lines(out)  # the quiet reply: one line
        assert line.startswith("✅ #") and line.endswith("carol 暗杠 3m · dave、alice、bob → carol：各 3 花（3）")
        await bot.say(DAVE, "花杠")
        await bot.say(ALICE, "罚 跟牌 dave")
        await bot.front.idle()
        # carol −6 +9 −6 +10 = 7 after the gang on her, her concealed gang, dave's flower gang, his 跟牌
        assert "carol：7 花" in fake.shown[(GROUP, board_id)][0]
        assert len(fake.sent("pinChatMessage")) == 1 and len(board_texts(fake)) == 1  # sent once, pinned once
        assert len(edits_of(fake, board_id)) == 3  # then edited in place after each event
        await bot.say(BOB, "胡 carol 11p 567s 79s [EEE] [444p] +8s 花4")
        await bot.front.idle()
        score = await bot.say(EVE, "/score")
        assert fake.shown[(GROUP, board_id)][0] == score  # the pinned board is the board /score shows
        assert not [why for _, why in fake.refused if "not found" in why or "rights" in why]


async def test_a_burst_of_events_edits_the_board_once_with_the_latest(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.pinners.add(GROUP)
    async with Running(fake, tmp_path / "tg.sqlite3", board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "花杠")
        await fake.wait_for(lambda: bool(fake.sent("pinChatMessage")))
        board_id = int(fake.sent("pinChatMessage")[0].params["message_id"])
        fake.hold_edits = asyncio.Event()  # Telegram is slow: the first edit hangs while events come in
        try:
            for _ in range(6):
                fake.message(GROUP, ALICE, "/penalty bob 5")
            await fake.wait_for(lambda: sum(t.count("罚 bob 5") for t in fake.texts(GROUP)) == 6)
        finally:
            fake.hold_edits.set()
        await bot.front.idle()
        edits = edits_of(fake, board_id)
        assert 1 <= len(edits) <= 2  # the one under way, then one with the latest board: not six
        # bob: 18 from his flower gang, then six fines of 5 to each of the other three → 18 − 6 × 15 = −72
        assert "bob：-72 花" in edits[-1] and edits[-1] == fake.shown[(GROUP, board_id)][0]


async def test_a_429_on_an_edit_waits_and_sends_the_latest_board(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.pinners.add(GROUP)
    fake.edit_limit, fake.edit_window = 1, 1.0  # one edit a second in this chat, then 429
    async with Running(fake, tmp_path / "tg.sqlite3", board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "花杠")
        await bot.say(CAROL, "花杠")
        await bot.say(DAVE, "花杠")
        await bot.front.idle()
        board_id = int(fake.sent("pinChatMessage")[0].params["message_id"])
        # three flower gangs, 6 from each other player: each of bob, carol, dave +18 −12 = 6, alice −18
        assert "alice：-18 花" in fake.shown[(GROUP, board_id)][0]
        assert "dave：6 花" in fake.shown[(GROUP, board_id)][0]
        assert any("Too Many Requests" in why for _, why in fake.refused)  # the limit was hit, and waited out


async def test_an_unchanged_board_is_not_edited(fake: FakeTelegram, tmp_path: Path) -> None:
    """An edit that changes nothing is refused by Telegram ("message is not modified") and costs one of
    the group's 20 messages a minute all the same: it is never sent (#48 item 9)."""
    fake.pinners.add(GROUP)
    async with Running(fake, tmp_path / "tg.sqlite3", board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "花杠")
        await bot.front.idle()
        board_id = int(fake.sent("pinChatMessage")[0].params["message_id"])
        edits = len(edits_of(fake, board_id))
        await bot.say(BOB, "碰 carol 7p")  # no money moves: the same board
        await bot.say(DAVE, "碰 alice 8p")
        await bot.front.idle()
        assert not any("not modified" in why for _, why in fake.refused)
        assert len(edits_of(fake, board_id)) == edits  # nothing to change: no edit
        assert len(fake.sent("pinChatMessage")) == 1 and len(board_texts(fake)) == 1  # not sent again


async def test_without_the_right_to_pin_it_asks_once(fake: FakeTelegram, tmp_path: Path) -> None:
    async with Running(fake, tmp_path / "tg.sqlite3", board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        for line in ("花杠", "花杠", "罚 跟牌 carol"):
            await bot.say(BOB, line)
        await bot.front.idle()
        asks = [t for t in fake.texts(GROUP) if "置顶消息" in t]
        assert len(asks) == 1 and not fake.sent("pinChatMessage") and not fake.sent("editMessageText")
        assert not board_texts(fake)  # no live board: the board comes at the end of the hand
        assert "📋" in await bot.say(ALICE, "荒庄")
        # the bot is made an admin allowed to pin: the next event pins the board, no more asking
        fake.pinners.add(GROUP)
        await fake.settle(fake.member(GROUP, ALICE, "administrator"))
        await bot.say(BOB, "花杠")
        await bot.front.idle()
        assert len(fake.sent("pinChatMessage")) == 1
        assert len([t for t in fake.texts(GROUP) if "置顶消息" in t]) == 1


async def test_the_right_is_asked_for_once_per_chat_not_every_night(fake: FakeTelegram, tmp_path: Path) -> None:
    # a group that chose not to let the bot pin is not reminded each week, nor after a restart
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db, board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "花杠")
        await bot.say(ALICE, "/summary")
        await bot.say(ALICE, "/close")
        await bot.front.idle()
    async with Running(fake, db, board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "花杠")
        await bot.front.idle()
    assert "第 2 局" in "".join(fake.texts(GROUP))  # the second night did open
    assert len([t for t in fake.texts(GROUP) if "置顶消息" in t]) == 1


async def test_a_restart_keeps_editing_the_same_pinned_board(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.pinners.add(GROUP)
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db, board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "花杠")
        await bot.front.idle()
    board_id = int(fake.sent("pinChatMessage")[0].params["message_id"])
    async with Running(fake, db, board_interval=0.0) as bot:
        await bot.say(CAROL, "花杠")
        await bot.front.idle()
        assert len(fake.sent("pinChatMessage")) == 1  # no second board after the restart
        assert edits_of(fake, board_id)  # the stored one is edited
        # two flower gangs: bob and carol +18 −6 = 12 each, alice and dave −12
        assert "carol：12 花" in fake.shown[(GROUP, board_id)][0]


async def test_a_new_night_pins_a_new_board_and_unpins_the_old(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.pinners.add(GROUP)
    async with Running(fake, tmp_path / "tg.sqlite3", board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "花杠")
        await bot.front.idle()
        first = int(fake.sent("pinChatMessage")[0].params["message_id"])
        await bot.say(ALICE, "/summary")
        await bot.say(ALICE, "yes")
        await bot.say(ALICE, NEW)
        await bot.say(CAROL, "花杠")
        await bot.front.idle()
        second = int(fake.sent("pinChatMessage")[1].params["message_id"])
        assert second != first and fake.pinned[GROUP] == [second]
        assert "bob：18 花" in fake.shown[(GROUP, first)][0]  # the old board keeps the last night's standing
        assert "carol：18 花" in fake.shown[(GROUP, second)][0] and "bob：-6 花" in fake.shown[(GROUP, second)][0]


async def test_the_fake_refuses_what_telegram_refuses(fake: FakeTelegram, tmp_path: Path) -> None:
    """No right, no pin; a message that is not there can be neither pinned nor edited."""
    async with Running(fake, tmp_path / "tg.sqlite3", board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        message_id = int(fake.sent("sendMessage")[-1].params["_result"]["message_id"])
        with pytest.raises(BadRequest, match=r"(?i)not enough rights"):
            await bot.front.bot.pin_chat_message(GROUP, message_id, disable_notification=True)
        fake.pinners.add(GROUP)
        with pytest.raises(BadRequest, match=r"(?i)message to pin not found"):
            await bot.front.bot.pin_chat_message(GROUP, 123456, disable_notification=True)
        with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
            await bot.front.bot.edit_message_text("x", chat_id=GROUP, message_id=123456)
        with pytest.raises(BadRequest, match=r"(?i)is not modified"):
            text = str(fake.sent("sendMessage")[-1].params["text"])
            await bot.front.bot.edit_message_text(text, chat_id=GROUP, message_id=message_id)
        assert await bot.front.bot.pin_chat_message(GROUP, message_id, disable_notification=True)
        assert fake.pinned[GROUP] == [message_id]


async def test_a_deleted_board_is_pinned_again(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.pinners.add(GROUP)
    async with Running(fake, tmp_path / "tg.sqlite3", board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "花杠")
        await bot.front.idle()
        first = int(fake.sent("pinChatMessage")[0].params["message_id"])
        del fake.shown[(GROUP, first)]  # someone deleted the pinned board
        await bot.say(CAROL, "花杠")
        await bot.front.idle()
        assert any("message to edit not found" in why for _, why in fake.refused)
        assert len(fake.sent("pinChatMessage")) == 2 and fake.pinned[GROUP][-1] != first


async def test_board_each_in_telegram_puts_the_board_in_every_reply(fake: FakeTelegram, tmp_path: Path) -> None:
    async with Running(fake, tmp_path / "tg.sqlite3", board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        assert "📋" not in await bot.say(BOB, "花杠")
        await bot.say(BOB, "/board each")
        out = await bot.say(CAROL, "花杠")
        # two flower gangs, 6 from each: bob and carol 18 − 6 = 12, alice and dave −12
        assert "📋" in out and "carol：12 花" in out


async def test_after_a_swap_the_pinned_board_follows_people(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.pinners.add(GROUP)
    async with Running(fake, tmp_path / "tg.sqlite3", board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(DAVE, "花杠")
        await bot.front.idle()
        board_id = int(fake.sent("pinChatMessage")[0].params["message_id"])
        assert "dave：18 花" in fake.shown[(GROUP, board_id)][0]  # 6 from each of three
        await bot.say(ALICE, "/swap dave eve")
        await bot.front.idle()
        shown = fake.shown[(GROUP, board_id)][0]
        assert "北 eve：0 花" in shown  # eve starts from 0 in dave's seat
        # dave keeps his 18 and stays on the board, marked as left, until the night closes:
        # alice, bob, carol −6 each, eve 0, dave +18 → the board sums to 0
        assert "dave（已离座）：18 花（18 元）" in shown
        await bot.say(BOB, "花杠")  # bob's flower gang: 6 from each of alice, carol, eve
        await bot.front.idle()
        shown = fake.shown[(GROUP, board_id)][0]
        # alice −12, bob −6 + 18 = 12, carol −12, eve −6, dave still +18: −12 + 12 − 12 − 6 + 18 = 0
        assert "北 eve：-6 花" in shown and "dave（已离座）：18 花" in shown and "南 bob：12 花" in shown


async def test_a_failed_edit_is_tried_again(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.pinners.add(GROUP)
    async with Running(fake, tmp_path / "tg.sqlite3", board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "花杠")
        await bot.front.idle()
        board_id = int(fake.sent("pinChatMessage")[0].params["message_id"])
        fake.fail_next("editMessageText", fake.bad_gateway())
        await bot.say(CAROL, "花杠")
        await bot.front.idle()
        assert [c.method for c in fake.failed] == ["editMessageText"]
        assert "carol：12 花" in fake.shown[(GROUP, board_id)][0]  # 18 − 6, as bob: the retry got through


async def test_after_a_swap_the_board_lists_who_left_and_sums_to_zero(table: Table) -> None:
    """A person is not a seat (issue #30 item 4): 丁 stands up with his 18; the board keeps him, marked."""
    table.default_speaker = "甲"
    await table.say("开局 甲 乙 丙 丁")
    await table.say("丁: 花杠")  # nanjing at 1: a flower gang is 6 from each of the other three → 丁 +18
    await table.say("换人 丁 戊")
    board = lines(await table.say("查分"))
    # 甲 −6, 乙 −6, 丙 −6, 戊 0 (new in 丁's seat), 丁 +18 (left): −18 + 0 + 18 = 0
    assert board[1:] == [
        "  东 甲：-6 花（-6 元）",
        "  南 乙：-6 花（-6 元）",
        "  西 丙：-6 花（-6 元）",
        "  北 戊：0 花（0 元）",
        "  丁（已离座）：18 花（18 元）",
    ]
