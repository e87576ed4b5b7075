"""A reply that corrects (#43 item 3): `/undo`, `撤销`, `/fix …` or `改 …` sent as a Telegram reply to the
bot's `✅ #N …` answer, or to the player's line that recorded #N, acts on #N as `/undo N` and `/fix N …`
do; a reply to a message that recorded nothing says so and changes nothing.

Money, worked by hand from docs/rules.md (跟牌 is a fixed penalty of 10 at stake 1): a
跟牌 penalty costs the offender 10 to each of the three others. Seats: Alice East, Bob South, Carol
West, Dave North. So 罚 跟牌 dave is [10, 10, 10, −30]; 罚 跟牌 carol is [10, 10, −30, 10]; 罚 跟牌 bob
is [10, −30, 10, 10]; balances are their sums.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

from bot.chat.handlers.reply_to import typed_correction, with_number
from bot.telegram.input import Input, read_update
from tests.kit.bot_process import bot_against_fake, count, wait_until
from tests.kit.fake_telegram import BOT_USER, FakeTelegram, bad_request, plain_user, topic_root
from tests.kit.messages import rendered, says
from tests.kit.telegram import ALICE, BOB, CAROL, DAVE, GROUP, NEW, Running, balances, buttons

ON_DAVE = [10, 10, 10, -30]
ON_CAROL = [10, 10, -30, 10]
ON_BOB = [10, -30, 10, 10]


def total(*rows: list[int]) -> list[int]:
    return [sum(column) for column in zip(*rows, strict=True)]


def answer(fake: FakeTelegram, number: int, thread: int | None = None) -> dict[str, Any]:
    """The bot's message that shows `✅ #number`, as Telegram returned it to the bot."""
    for call in reversed(fake.sent()):
        if says(str(call.params.get("text", "")), "event.recorded", id=number):
            result: dict[str, Any] = call.params["_result"]
            assert thread is None or result.get("message_thread_id") == thread
            return result
    raise AssertionError(f"no answer shows #{number}")


async def two_penalties(bot: Running, **extra: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """#2 罚 跟牌 dave and #3 罚 跟牌 carol, both typed by Alice: her two messages."""
    await bot.say(ALICE, NEW, **extra)
    assert says(await bot.say(ALICE, "罚 跟牌 dave", **extra), "event.recorded", id=2)
    first = bot.fake.last_message
    assert says(await bot.say(ALICE, "罚 跟牌 carol", **extra), "event.recorded", id=3)
    return first, bot.fake.last_message


# ---- the line read with the replied line's number -------------------------------------------------


def test_the_number_goes_right_after_the_command_word() -> None:
    names = ["Alice", "Bob", "Carol", "Dave"]
    assert with_number("/undo", 5, names) == "/undo 5"
    assert with_number("/undo@referee_bot", 5, names) == "/undo@referee_bot 5"
    assert with_number("撤销", 5, names) == "撤销 5"
    assert with_number("/fix 碰 Bob", 5, names) == "/fix 5 碰 Bob"
    assert with_number("改 碰 Bob", 12, names) == "改 12 碰 Bob"
    assert with_number("更正 碰 Bob", 12, names) == "更正 12 碰 Bob"
    assert with_number("碰 Bob", 5, names) is None  # no correction's word first


def test_only_an_undo_or_a_fix_is_a_correction() -> None:
    names = ["Alice", "Bob", "Carol", "Dave"]
    assert typed_correction("/undo", names) == ("undo", None)
    assert typed_correction("撤销", names) == ("undo", None)
    assert typed_correction("/undo 4", names) == ("undo", 4)
    assert typed_correction("/fix 碰 Bob", names) == ("fix", None)
    assert typed_correction("改 碰 Bob", names) == ("fix", None)
    assert typed_correction("改 3 碰 Bob", names) == ("fix", 3)
    for talk in ("改天再打", "改天再打吧", "碰 Bob", "哈哈", "撤销吗"):
        assert typed_correction(talk, names) is None


def test_which_message_a_line_replies_to() -> None:
    """Bot API: `reply_to_message` is the replied message in this chat and thread; in a forum topic a
    line that is no reply carries the topic's first message there; `external_reply`: another chat's."""
    forum = {"id": GROUP, "type": "supergroup", "title": "Table", "is_forum": True}

    def read(**fields: Any) -> Input:
        body = {"message_id": 50, "date": 1700000000, "chat": forum, "from": BOB, "text": "/undo", **fields}
        return read_update({"update_id": 1, "message": body})

    bots = {"message_id": 41, "date": 1700000000, "chat": forum, "from": BOT_USER, "text": "✅ #2 …"}
    topic = {"message_thread_id": 7, "is_topic_message": True}
    assert read().reply_to is None
    assert read(reply_to_message=topic_root(GROUP, 7), **topic).reply_to is None  # the topic itself
    assert read(reply_to_message=topic_root(GROUP, 7), **topic).replied_to is None  # nor its creator named
    in_topic = read(reply_to_message={**bots, "message_thread_id": 7, "is_topic_message": True}, **topic)
    assert in_topic.reply_to == 41 and in_topic.replied_to is not None and in_topic.replied_to.is_bot
    general = read(reply_to_message=bots, message_thread_id=41)  # in General: the replied message's id
    assert general.reply_to == 41 and general.topic is None
    elsewhere = read(external_reply={"origin": {"type": "hidden_user", "sender_user_name": "X", "date": 1}})
    assert elsewhere.reply_to is None and elsewhere.replies_elsewhere


# ---- through Telegram ------------------------------------------------------------------------------


async def test_a_reply_undo_to_an_answer_undoes_its_line(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await two_penalties(bot)
        out = await bot.say(BOB, "/undo", reply_to=answer(fake, 2))
        assert says(out, "undo.done", id=4, target=2)
    # #2 (Dave's penalty) undone; a bare /undo would have undone #3 (Carol's)
    assert await balances(db) == ON_CAROL


async def test_a_reply_undo_to_the_players_own_line_undoes_what_it_recorded(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        first, _ = await two_penalties(bot)
        out = await bot.say(DAVE, "撤销", reply_to=first)
        assert says(out, "undo.done", id=4, target=2)
    assert await balances(db) == ON_CAROL


async def test_a_reply_fix_to_an_answer_and_to_a_line(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        _, second = await two_penalties(bot)
        out = await bot.say(ALICE, "/fix 罚 跟牌 bob", reply_to=answer(fake, 2))
        assert says(out, "fix.done", id=4, target=2)
        assert await balances(db) == total(ON_BOB, ON_CAROL)  # #2 is Bob's penalty now
        out = await bot.say(BOB, "改 罚 跟牌 dave", reply_to=second)
        assert says(out, "fix.done", id=5, target=3)
    assert await balances(db) == total(ON_BOB, ON_DAVE)  # and #3 Dave's
    # the ledger keeps the line as it acted: the number the reply named is in it
    assert count(db, "SELECT COUNT(*) FROM events WHERE kind = 'fix' AND raw_text = '改 3 罚 跟牌 dave'") == 1


async def test_a_reply_to_an_edited_line_acts_on_its_latest_version(fake: FakeTelegram, tmp_path: Path) -> None:
    """As `/undo 4` does: the edit (#4, the fix of #2) is taken back, and #2 stands as first typed."""
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        first, _ = await two_penalties(bot)
        await bot.fake.settle(fake.edit(first, "罚 跟牌 bob"))  # the edit fixed #2: #4
        assert await balances(db) == total(ON_BOB, ON_CAROL)
        out = await bot.say(CAROL, "撤销", reply_to=first)
        assert says(out, "undo.done", id=5, target=4)
    assert await balances(db) == total(ON_DAVE, ON_CAROL)


async def test_a_reply_to_a_guided_flows_message_acts_on_what_it_recorded(fake: FakeTelegram, tmp_path: Path) -> None:
    """The flow's question is written over with its result (`✅ #2 …`): a reply to that message."""
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(ALICE, "/penalty")  # kind, then who: one message, edited
        flow = fake.sent()[-1].params["_result"]
        assert await bot.say(DAVE, "/undo", reply_to=flow) == rendered("reply_to.nothing_recorded")
        await bot.press(ALICE, buttons(fake)["跟牌"])
        await bot.press(ALICE, buttons(fake)["dave"])
        edited = [c for c in fake.calls if c.method == "editMessageText" and "✅" in str(c.params.get("text"))]
        assert int(edited[-1].params["message_id"]) == flow["message_id"]
        assert await balances(db) == ON_DAVE
        assert says(await bot.say(BOB, "/undo", reply_to=flow), "undo.done", id=3, target=2)
    assert await balances(db) == [0, 0, 0, 0]


async def test_a_line_kept_for_a_seat_claim_stands_for_what_it_recorded(fake: FakeTelegram, tmp_path: Path) -> None:
    """Wu (no seat) types a penalty: it is kept while he claims 王五's seat, and recorded then (#2).
    His message recorded nothing when sent, and #2 once the claim recorded it: a reply says #2."""
    db = tmp_path / "tg.sqlite3"
    zhang, wu = plain_user(201, "张三"), plain_user(203, "Wu")
    async with Running(fake, db) as bot:
        await bot.say(zhang, "开局 张三 李四 王五 赵六")
        assert says(await bot.say(wu, "罚 跟牌 赵六"), "claim.which_seat")
        kept = fake.last_message
        assert says(await bot.press(wu, buttons(fake)["我是 王五"]), "event.recorded", id=2)
        assert await balances(db) == ON_DAVE  # 赵六 sits North
        assert says(await bot.say(zhang, "撤销", reply_to=kept), "undo.done", id=3, target=2)
    assert await balances(db) == [0, 0, 0, 0]


async def test_a_reply_to_what_recorded_nothing_says_so_and_changes_nothing(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    nothing = rendered("reply_to.nothing_recorded")
    async with Running(fake, db) as bot:
        await two_penalties(bot)
        fake.message(GROUP, CAROL, "今天手气不好")  # talk: no answer
        talk = fake.last_message
        assert await bot.say(DAVE, "撤销", reply_to=talk) == nothing
        assert await bot.say(DAVE, "/fix 罚 跟牌 bob", reply_to=talk) == nothing
        assert "📋" in await bot.say(ALICE, "/score")  # the bot's answer that records nothing
        assert await bot.say(DAVE, "/undo", reply_to=fake.sent()[-1].params["_result"]) == nothing
        await bot.say(ALICE, "/pong Zed")  # refused: no Zed at the table
        assert await bot.say(DAVE, "/undo", reply_to=fake.last_message) == nothing
    assert await balances(db) == total(ON_DAVE, ON_CAROL)
    assert count(db, "SELECT COUNT(*) FROM events WHERE kind = 'undo'") == 0


async def test_a_reply_that_is_no_correction_is_read_as_ever(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await two_penalties(bot)
        out = await bot.say(BOB, "罚 跟牌 bob", reply_to=answer(fake, 2))  # a new line, not a correction
        assert says(out, "event.recorded", id=4)
        fake.message(GROUP, BOB, "改天再打", reply_to=answer(fake, 3))  # talk: silence
        await bot.say(ALICE, "/score")
        assert not any(says(text, "reply_to.nothing_recorded") for text in fake.texts(GROUP))
    assert await balances(db) == total(ON_DAVE, ON_CAROL, ON_BOB)


async def test_a_players_text_that_looks_like_an_answer_is_not_one(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    nothing = rendered("reply_to.nothing_recorded")
    async with Running(fake, db) as bot:
        await two_penalties(bot)
        forged = answer(fake, 2)["text"]
        fake.message(GROUP, CAROL, forged)  # Carol pastes the bot's ✅ #2 line as her own message
        assert await bot.say(DAVE, "/undo", reply_to=fake.last_message) == nothing
        # another bot's message that says the same: not this bot's, so not its answer either
        other_bot = {"id": 4242, "is_bot": True, "first_name": "Echo", "username": "echo_bot"}
        echoed = {**answer(fake, 2), "message_id": 5555, "from": other_bot}
        assert await bot.say(DAVE, "/undo", reply_to=echoed) == nothing
        # and an answer of this bot's that it does not know (not kept): it says it cannot tell
        unknown = {**answer(fake, 2), "message_id": 6666, "from": BOT_USER}
        assert await bot.say(DAVE, "/undo", reply_to=unknown) == rendered("reply_to.unknown")
        # a reply to a message of another chat (Bot API `external_reply`): nothing here to act on
        elsewhere = {"origin": {"type": "user", "sender_user": CAROL, "date": 1700000000}, "message_id": 2}
        assert await bot.say(DAVE, "/undo", external_reply=elsewhere) == rendered("reply_to.unknown")
    assert await balances(db) == total(ON_DAVE, ON_CAROL)


async def test_a_number_typed_must_be_the_replied_lines(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await two_penalties(bot)
        out = await bot.say(BOB, "/undo 3", reply_to=answer(fake, 2))
        assert says(out, "reply_to.mismatch_undo", replied="#2", typed=3)
        assert set(buttons(fake)) == {rendered("button.undo", id=2), rendered("button.undo", id=3)}
        out = await bot.say(BOB, "/fix 3 罚 跟牌 bob", reply_to=answer(fake, 2))
        assert says(out, "reply_to.mismatch_fix", replied="#2", typed=3)
        assert await balances(db) == total(ON_DAVE, ON_CAROL)  # nothing guessed
        out = await bot.say(BOB, "/undo 2", reply_to=answer(fake, 2))  # the same line: done
        assert says(out, "undo.done", id=4, target=2)
    assert await balances(db) == ON_CAROL


async def test_an_answer_that_carried_two_lines_asks_which(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    fake.pinners.add(GROUP)  # the board is pinned: no other message goes between the two answers
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        fake.fail_next("sendMessage", bad_request("chat not available just now"))
        await fake.settle(fake.message(GROUP, ALICE, "罚 跟牌 dave"))  # #2: its answer not delivered
        out = await bot.say(ALICE, "罚 跟牌 carol")  # #3: its answer carries #2's late note first
        assert says(out, "event.recorded", id=2) and says(out, "event.recorded", id=3)
        both = fake.sent()[-1].params["_result"]
        out = await bot.say(BOB, "/undo", reply_to=both)
        assert says(out, "reply_to.several_undo", ids="#2、#3")
        assert await bot.press(BOB, buttons(fake)[rendered("button.undo", id=2)]) != ""
        out = await bot.say(BOB, "改 罚 跟牌 bob", reply_to=both)
        assert says(out, "reply_to.several_fix", ids="#2、#3", example=3)
    assert await balances(db) == ON_CAROL  # the button undid #2; the fix asked, and changed nothing


async def test_a_reply_to_a_line_of_an_earlier_or_closed_night(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await two_penalties(bot)
        await bot.say(ALICE, "/summary")
        await bot.say(ALICE, "yes")
        # the night is closed: as /undo 2 is answered there
        assert says(await bot.say(BOB, "/undo", reply_to=answer(fake, 2)), "night.none_open")
        await bot.say(ALICE, NEW)
        out = await bot.say(BOB, "/undo", reply_to=answer(fake, 2))
        assert out == rendered("reply_to.other_night")
    assert await balances(db) == [0, 0, 0, 0]  # the new night: nothing in it


async def test_a_reply_in_a_forum_topic(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    forum: dict[str, Any] = {"chat_extra": {"is_forum": True}, "is_topic_message": True}
    async with Running(fake, db) as bot:
        await two_penalties(bot, message_thread_id=7, **forum)
        # a line in a topic carries the topic's first message as its reply: that is no reply
        assert says(await bot.say(BOB, "/undo", message_thread_id=7, **forum), "undo.done", id=4, target=3)
        assert fake.last_message["reply_to_message"] == topic_root(GROUP, 7)
        out = await bot.say(BOB, "/undo", reply_to=answer(fake, 2, thread=7), message_thread_id=7, **forum)
        assert says(out, "undo.done", id=5, target=2)
    assert await balances(db, f"tg:{GROUP}:topic:7") == [0, 0, 0, 0]


def test_the_answers_kept_survive_a_sigkill(tmp_path: Path) -> None:
    db, log = tmp_path / "kill.sqlite3", tmp_path / "bot.log"

    async def scenario() -> None:
        async with bot_against_fake(db, log) as (fake, bot):
            fake.message(GROUP, ALICE, NEW)
            fake.message(GROUP, ALICE, "罚 跟牌 dave")
            fake.message(GROUP, ALICE, "罚 跟牌 carol")
            await fake.wait_for(lambda: any(says(t, "event.recorded", id=3) for t in fake.texts(GROUP)), timeout=60)
            await wait_until(lambda: count(db, "SELECT COUNT(*) FROM answers WHERE event_id IS NOT NULL") == 2)
            bot.kill()  # SIGKILL
            bot.restart()
            before = len(fake.texts(GROUP))
            fake.message(GROUP, BOB, "/undo", reply_to=answer(fake, 2))
            # after the restart the bot may say other things first (the pinned board's notice): wait
            # for the undo's answer among the messages sent since, not for the next message
            await fake.wait_for(
                lambda: any(says(t, "undo.done", id=4, target=2) for t in fake.texts(GROUP)[before:]), timeout=60
            )
            assert await bot.stop(signal.SIGTERM) == 0
        assert await balances(db) == ON_CAROL  # the penalty on Dave undone, Carol's kept

    asyncio.run(scenario())
