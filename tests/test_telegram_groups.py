"""What a real Telegram group does to the referee, through PTB's real stack against a fake Bot API that
behaves like Telegram's: forwards, edits, captions, channels, anonymous admins, the General topic,
privacy mode, migrations, Telegram's refusals."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from tests.kit.fake_telegram import CHANNEL_BOT, GROUP_ANONYMOUS_BOT, FakeTelegram, plain_user, user
from tests.kit.messages import rendered, says
from tests.kit.telegram import GROUP, Running, balances, buttons

ALICE, BOB, CAROL, DAVE, EVE = (user(i, n) for i, n in enumerate(("Alice", "Bob", "Carol", "Dave", "Eve"), start=1))
OPEN = "/new @alice @bob @carol @dave"


async def quiet(bot: Running, update_id: int) -> list[str]:
    """Wait until the bot has taken the update and gone quiet; what it sent meanwhile."""
    before = len(bot.fake.calls)
    await bot.fake.settle(update_id)
    return [str(c.params.get("text", "")) for c in bot.fake.calls[before:] if c.method == "sendMessage"]


async def test_forwards_via_bot_and_automatic_forwards_record_nothing(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, OPEN)
        origin = {"type": "user", "date": 1700000000, "sender_user": DAVE}
        channel = {"id": -100900, "title": "News", "type": "channel"}
        via = {"id": 4242, "is_bot": True, "first_name": "Inline", "username": "inline_bot"}
        for extra in (
            {"forward_origin": origin},
            {"via_bot": via},
            {
                "is_automatic_forward": True,
                "sender_chat": channel,
                "forward_origin": {"type": "channel", "chat": channel, "message_id": 5, "date": 1700000000},
            },
        ):
            assert await quiet(bot, fake.message(GROUP, ALICE, "/penalty follow dave", **extra)) == []
    assert await balances(db) == [0, 0, 0, 0]


async def test_a_command_in_a_caption_is_read_like_text(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, OPEN)
        out = await bot.say(ALICE, "", caption="罚 跟牌 dave")
        assert "✅" in out
    # 跟牌: Dave pays 10 to each of the three others
    assert await balances(db) == [10, 10, 10, -30]


async def test_an_edit_of_a_recorded_line_is_a_fix(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, OPEN)
        await bot.say(ALICE, "罚 跟牌 dave")
        penalty = fake.last_message
        before = len(fake.calls)
        edit = fake.edit(penalty, "罚 跟牌 carol")
        await fake.settle(edit)
        out = "\n".join(fake.texts()[-3:])
        assert says(out, "fix.done"), out
        # the same edit delivered again (same update id) is answered once, recorded once
        fake.raw(dict(fake.updates[-1]))
        await fake.settle(edit)
        assert len([c for c in fake.calls[before:] if says(str(c.params.get("text", "")), "fix.done")]) == 1
        # a second edit of the same line corrects it again: the line as it reads now is what counts
        await fake.settle(fake.edit(penalty, "罚 跟牌 bob"))
        assert says("\n".join(fake.texts()[-3:]), "fix.done")
    # Bob is the one who 跟牌 in the end: Bob pays 10 to each of the other three (RULES: 跟牌 10 each)
    assert await balances(db) == [10, -30, 10, 10]


async def test_an_edit_of_a_refused_line_is_read_as_a_new_line(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, OPEN)
        await bot.say(ALICE, "/penalty follow zed")  # nobody called zed: refused, nothing recorded
        await fake.settle(fake.edit(fake.last_message, "/penalty follow dave"))
        assert "✅" in fake.texts()[-1] or any("✅" in t for t in fake.texts()[-2:])
    # 跟牌: Dave pays 10 to each of the three others
    assert await balances(db) == [10, 10, 10, -30]


async def test_channels_are_their_own_senders_and_anonymous_admins_are_admins(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    db = tmp_path / "tg.sqlite3"
    news = {"id": -100801, "title": "News", "type": "channel"}
    other = {"id": -100802, "title": "Other", "type": "channel"}
    group = {"id": GROUP, "title": "Table", "type": "supergroup"}
    async with Running(fake, db) as bot:
        await bot.say(CHANNEL_BOT, OPEN, sender_chat=news)  # a channel opened the night
        out = await bot.say(CHANNEL_BOT, "/penalty follow dave", sender_chat=other)
        assert says(out, "permission.not_at_table")  # another channel is not the opener
        assert "✅" in await bot.say(CHANNEL_BOT, "/penalty follow dave", sender_chat=news)
        assert says(await bot.say(GROUP_ANONYMOUS_BOT, "/undo", sender_chat=group), "undo.done")
    assert await balances(db) == [0, 0, 0, 0]


async def test_a_reply_in_the_general_topic_is_the_chats_one_table(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    forum: dict[str, Any] = {"chat_extra": {"is_forum": True}}
    async with Running(fake, db) as bot:
        await bot.say(ALICE, OPEN, **forum)
        opened = fake.sent()[0].params["_result"]
        # a reply in General: message_thread_id of the replied message, no is_topic_message
        out = await bot.say(
            ALICE, "罚 跟牌 dave", message_thread_id=opened["message_id"], reply_to_message=opened, **forum
        )
        assert "✅" in out
    # 跟牌: Dave pays 10 to each of the three others, at the chat's one table
    assert await balances(db) == [10, 10, 10, -30]


async def test_privacy_mode_is_explained(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.privacy = True
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        out = await quiet(bot, fake.member(GROUP, ALICE))
        assert any("/setprivacy" in text for text in out)
        assert "/setprivacy" in await bot.say(ALICE, OPEN)


async def test_the_privacy_note_offers_new_as_a_button(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.privacy = True
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        await quiet(bot, fake.member(GROUP, ALICE))
        assert buttons(fake) == {rendered("telegram.new_button"): "-:*:/new"}  # a button of no night
        # `/new` as a plain line is never seen under privacy; the button is: a night opens, seats to join
        assert says(await bot.press(ALICE, "-:*:/new"), "night.opened", night=1)


async def test_privacy_turned_off_mid_night_is_acknowledged_once(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.privacy = True
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        assert any("/setprivacy" in t for t in await quiet(bot, fake.member(GROUP, ALICE)))
        await bot.say(ALICE, OPEN)
        await fake.settle(fake.message(GROUP, BOB, "碰 carol 7p"))
        assert fake.withheld  # not seen yet
        fake.turn_privacy_off()  # /setprivacy at BotFather, then the bot is removed and re-added
        await quiet(bot, fake.member(GROUP, ALICE, "left", before="member"))
        out = await quiet(bot, fake.member(GROUP, ALICE))
        assert out == [rendered("telegram.privacy_off_no_pin")]  # not an admin: it cannot pin, and says how to let it
        assert "✅" in await bot.say(BOB, "碰 carol 7p")  # plain words reach it now
        assert "/setprivacy" not in await bot.say(BOB, "/score")
        assert await quiet(bot, fake.member(GROUP, ALICE)) == []  # said once
    assert await balances(db) == [0, 0, 0, 0]  # a 碰 moves no money


async def test_made_an_admin_it_reads_plain_words_and_says_the_board_will_be_pinned(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    fake.privacy = True
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        await quiet(bot, fake.member(GROUP, ALICE))
        await bot.say(ALICE, OPEN)
        out = await quiet(bot, fake.promote(GROUP, ALICE))
        assert out == [rendered("telegram.privacy_off")]
        assert "✅" in await bot.say(BOB, "碰 carol 7p")  # an administrator receives every message


async def test_added_as_an_admin_under_privacy_it_does_not_warn(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.privacy = True
    fake.pinners.add(GROUP)
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        assert await quiet(bot, fake.member(GROUP, ALICE, "administrator")) == []
        assert "/setprivacy" not in await bot.say(ALICE, OPEN)  # it reads every message here


async def test_with_privacy_on_a_plain_line_never_reaches_the_bot(fake: FakeTelegram, tmp_path: Path) -> None:
    # as in Telegram: only commands, replies to the bot and mentions of it are delivered
    fake.privacy = True
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        await bot.say(ALICE, OPEN)
        sent = len(fake.sent())
        await fake.settle(fake.message(GROUP, BOB, "碰 carol 7p"))
        assert len(fake.sent()) == sent  # no reply: the bot never saw it
        assert fake.withheld and fake.withheld[-1]["text"] == "碰 carol 7p"
        assert "✅ #2" in await bot.say(BOB, "/pong carol 7p")  # the command is delivered, and is #2


async def test_no_privacy_note_when_the_bot_reads_everything(fake: FakeTelegram, tmp_path: Path) -> None:
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        assert await quiet(bot, fake.member(GROUP, ALICE)) == []
        assert "/setprivacy" not in await bot.say(ALICE, OPEN)


async def test_a_deep_link_start_answers_like_help(fake: FakeTelegram, tmp_path: Path) -> None:
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        assert await bot.say(ALICE, "/start table-7", chat=ALICE["id"]) == await bot.say(
            ALICE, "/help", chat=ALICE["id"]
        )


async def test_a_queued_reply_follows_a_migration(fake: FakeTelegram, tmp_path: Path) -> None:
    old, new = -4001, -1004001
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        fake.migrated[old] = new  # the group became a supergroup before the reply went out
        await quiet(bot, fake.message(old, ALICE, "/help"))
        assert fake.sent(chat_id=new) and not fake.sent(chat_id=old)


async def test_a_double_tap_on_a_flow_step_logs_no_error(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        await bot.say(ALICE, OPEN)
        await bot.say(BOB, "/pong")
        keyboard = [c for c in fake.calls if "reply_markup" in c.params][-1]
        data = next(b["callback_data"] for row in keyboard.params["reply_markup"]["inline_keyboard"] for b in row)
        with caplog.at_level(logging.WARNING):
            fake.press(BOB, keyboard, data)
            await fake.settle(fake.press(BOB, keyboard, data))
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def test_a_board_over_4096_characters_is_split(fake: FakeTelegram, tmp_path: Path) -> None:
    long_names = [user(10 + i, ("龙" * 1200) + str(i)) for i in range(4)]
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        names = " ".join(f"@{u['username']}" for u in long_names)
        await bot.say(long_names[0], f"/new {names}")
        await bot.say(long_names[0], f"罚 跟牌 @{long_names[3]['username']}")
        await fake.settle(fake.message(GROUP, long_names[0], "/score"))
        assert not [why for _, why in fake.refused if "too long" in why], fake.refused


async def test_a_slow_admin_lookup_in_one_chat_never_blocks_another(fake: FakeTelegram, tmp_path: Path) -> None:
    slow, other = GROUP, -100777
    fake.slow_admins.add(slow)
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        stuck = fake.message(slow, ALICE, OPEN)
        answered = await bot.say(ALICE, OPEN, chat=other)
        assert says(answered, "night.opened", night=1)  # answered while the slow chat waits
        assert not fake.sent(chat_id=slow)
        fake.release_admins.set()
        await fake.settle(stuck)
        assert any(says(text, "night.opened", night=1) for text in fake.texts(slow))


async def test_a_failed_admin_lookup_is_not_repeated_on_every_line(fake: FakeTelegram, tmp_path: Path) -> None:
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        fake.fail_next("getChatAdministrators", fake.bad_gateway())
        await bot.say(ALICE, OPEN)
        await bot.say(EVE, "/score")
        await bot.say(BOB, "/score")
        lookups = [c for c in fake.failed + fake.calls if c.method == "getChatAdministrators"]
        assert len(lookups) == 1  # failed once, then the (empty) list is used until retried later


async def test_a_question_is_answered_without_looking_up_the_admins(fake: FakeTelegram, tmp_path: Path) -> None:
    """Anyone may ask /score or 查分: the first line of a chat after a restart does not wait for a
    getChatAdministrators round trip when it is a question; a line that records looks the list up."""
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        await bot.say(EVE, "/score")
        await bot.say(EVE, "/help")
        assert not fake.sent("getChatAdministrators")
        await bot.say(ALICE, OPEN)
        assert len(fake.sent("getChatAdministrators")) == 1
        await bot.say(BOB, "/summary")
        await bot.say(BOB, "罚 跟牌 alice")
        assert len(fake.sent("getChatAdministrators")) == 1  # one list a chat, kept


async def test_the_readme_headline_by_players_without_usernames(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    zhang, li = plain_user(201, "张三"), plain_user(202, "李四")
    async with Running(fake, db) as bot:
        assert says(await bot.say(zhang, "开局 张三 李四 王五 赵六 底=2"), "night.opened", night=1)
        out = await bot.say(li, "碰 王五")
        assert says(out, "telegram.claimed", name="李四") and not says(
            out, "permission.not_at_table"
        )  # claimed by the one matching name
        out = await bot.say(li, "胡 王五 11p 567s 79s [EEE] [444p] +8s 花4")
        assert not says(out, "telegram.claimed", name="李四")  # said once
        # 跑 20 + 硬花 4×2 = 8 + 风碰 2 + 缺一门 2 + 压档 2 = 34 花; at 底=2 that is 68
        flowers = rendered("unit_name.flowers")
        assert says(out, "score.total", total=34)
        assert says(out, "quiet.pay", payer="王五", payee="李四", amount=34, unit=flowers, money=68)
    assert await balances(db) == [0, 34, -34, 0]


async def test_first_and_last_name_claim_a_seat_opened_by_that_name(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    alex_chen, alex_wang = plain_user(301, "Alex", "Chen"), plain_user(302, "Alex", "Wang")
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice AlexChen AlexWang Dave")
        assert says(await bot.say(alex_chen, "罚 跟牌 dave"), "telegram.claimed", name="AlexChen")  # first + last name
        out = await bot.say(alex_wang, "/penalty follow alice")
        assert says(out, "telegram.claimed", name="AlexWang")
    # two 跟牌: Dave pays 10 to each of three (+10,+10,+10,-30); Alice pays 10 to each (-30,+10,+10,+10)
    assert await balances(db) == [-20, 20, 20, -20]


async def test_a_seat_is_claimed_with_its_button(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    zhang, wang, wang_impostor = plain_user(201, "张三"), plain_user(203, "Wu"), plain_user(204, "Mallory")
    async with Running(fake, db) as bot:
        claim_li, claim_wang = (rendered("telegram.claim", name=name) for name in ("李四", "王五"))
        await bot.say(zhang, "开局 张三 李四 王五 赵六")
        choices = buttons(fake)
        assert {rendered("telegram.claim", name=name) for name in ("李四", "王五", "赵六")} <= set(choices)
        assert says(await bot.press(wang, choices[claim_wang]), "telegram.claimed", name="王五")
        assert "✅" in await bot.say(wang, "罚 跟牌 赵六")  # the account now holds 王五's seat
        out = await bot.press(wang_impostor, choices[claim_wang])  # taken: nothing changes
        assert not says(out, "telegram.claimed", name="王五")
        # an account with no seat is offered the seats still unclaimed, not 王五's
        assert says(await bot.say(wang_impostor, "罚 跟牌 王五"), "claim.which_seat")
        assert claim_li in buttons(fake) and claim_wang not in buttons(fake)
        await bot.say(zhang, "/score")  # the board offers the seats still unclaimed
        assert claim_li in buttons(fake) and claim_wang not in buttons(fake)
    # 跟牌: 赵六 pays 10 to each of the three others
    assert await balances(db) == [10, 10, 10, -30]


async def test_two_players_with_the_same_first_name_both_join(fake: FakeTelegram, tmp_path: Path) -> None:
    chen, wang, solo = plain_user(301, "Alex", "Chen"), plain_user(302, "Alex", "Wang"), plain_user(303, "Alex")
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        await bot.say(ALICE, "/new @alice")
        assert not says(await bot.say(chen, "/join"), "new.duplicate_name")
        out = await bot.say(wang, "/join")
        assert not says(out, "new.duplicate_name") and "AlexWang" in out
        out = await bot.say(solo, "/join")
        assert not says(out, "new.duplicate_name") and "Alex2" in out


async def test_a_stranger_cannot_take_the_openers_seat_and_a_claim_by_another_name_is_undone(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Alice opens by plain names; Mallory (no username, not at the table) types a penalty and is
    offered the seats: not Alice's, which is Alice's account from /new. Her tap on 我是 Bob records the
    penalty and says, on that one reply, that Mallory is not Bob, with a button only another seated
    player or an admin may use; Alice's press takes back the claim and the penalty (docs/rules.md 17c)."""
    db = tmp_path / "tg.sqlite3"
    mallory, eve = plain_user(66, "Mallory"), plain_user(67, "Eve")
    async with Running(fake, db) as bot:
        claim_alice, claim_bob = (rendered("telegram.claim", name=name) for name in ("Alice", "Bob"))
        await bot.say(ALICE, "/new Alice Bob Carol Dave")
        assert claim_alice not in buttons(fake) and claim_bob in buttons(fake)
        assert says(await bot.say(mallory, "/penalty Bob 10"), "claim.which_seat")
        choices = buttons(fake)
        assert claim_alice not in choices and {
            rendered("telegram.claim", name=n) for n in ("Bob", "Carol", "Dave")
        } <= set(choices)
        before = len(fake.calls)
        out = await bot.press(mallory, choices[claim_bob])
        assert says(out, "telegram.claimed", name="Bob") and "✅" in out
        assert says(out, "claim.unmatched_line", account="Mallory", name="Bob")
        sent = [c for c in fake.calls[before:] if c.method == "sendMessage" and "📌" not in c.params["text"]]
        assert len(sent) == 1 and "✅" in sent[0].params["text"]  # the line's reply carries it all, and the button
        undo = buttons(fake)[rendered("button.undo_claim", name="Bob")]
        _, hand, line = undo.split(":", 2)
        assert hand == "*" and line.startswith("/undo claim=")  # good in any hand of the night
        # a custom penalty (RULES §4): Bob pays 10 to each of the three others
        assert await balances(db) == [10, -30, 10, 10]
        for presser in (mallory, eve):  # the claimer and a stranger: told so, alone; nothing changes
            assert says(await bot.press(presser, undo), "claim.undo_not_allowed")
        assert await balances(db) == [10, -30, 10, 10]
        out = await bot.press(ALICE, undo)
        assert says(out, "claim.undone", name="Bob") and "/penalty Bob 10" in out
        assert await balances(db) == [0, 0, 0, 0]
        out = await bot.say(ALICE, "罚 跟牌 dave")  # Alice's own line: hers without a claim
        assert "✅" in out and not says(out, "telegram.claimed")
        await bot.say(ALICE, "/score")
        assert claim_bob in buttons(fake)  # Bob's seat is offered again
    # 跟牌 (RULES §4): Dave pays 10 to each of the three others
    assert await balances(db) == [10, 10, 10, -30]
