"""No reply claims more than was committed: an automatic seat binding (a player seated by @username
speaking for the first time, or a seat opened by plain name claimed by the account carrying that
name) is written only in the same transaction as the event it serves.

Seats: 张三=0 (East, first dealer), 李四=1, 王五=2, 赵六=3.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.chat.service import Incoming, Referee
from bot.night.night import Night
from bot.night.seating import Speaker
from bot.store.inbox import Row
from bot.store.ledger import Ledger
from bot.store.rows import DuplicateUpdate
from bot.text.replies import Response, render_response
from locales import Translator
from tests.kit.fake_telegram import FakeTelegram, plain_user
from tests.kit.telegram import GROUP, Running, balances

CHAT = "tg:-100"
OPENER = Speaker("1", "张三", "zhang", language="zh-hans", names=("张三",))
BOB = Speaker("2", "Bob", "bob", language="zh-hans", names=("Bob",))  # seated by @bob
LI = Speaker("3", "李四", None, language="zh-hans", names=("李四",))  # claims the seat opened as 李四


def text(response: Response | None) -> str:
    assert response is not None
    return render_response(response, Translator(response.language))


async def say(referee: Referee, speaker: Speaker, line: str, key: str, **extra: object) -> Response | None:
    return await referee.handle(Incoming(CHAT, speaker, line, key, **extra))  # type: ignore[arg-type]


async def binds(ledger: Ledger) -> list[tuple[int, str]]:
    """(seat, payload) of every bind row in the ledger."""
    rows = await ledger._db.execute_fetchall("SELECT actor, payload FROM events WHERE kind = 'bind' ORDER BY id")
    return [(int(r[0]), str(r[1])) for r in rows]


async def open_with_bob(referee: Referee) -> None:
    mention = Speaker("", "bob", "bob")  # a plain @bob mention: Telegram gives only the username
    out = await say(referee, OPENER, "开局 张三 @bob 王五 赵六", "m:1", mentions=(mention,))
    assert "第 1 局开始" in text(out)


async def test_a_refused_first_line_of_a_player_seated_by_username_leaves_no_binding(referee: Referee) -> None:
    await open_with_bob(referee)
    # Bob's first line is refused (a pong of his own discard): nothing is written, not even his id
    out = await say(referee, BOB, "/pong bob", "m:2")
    assert out is not None and out.refused
    assert await binds(referee.nights.ledger) == []
    # his next line records; the binding rides in the same transaction as that event
    out = await say(referee, BOB, "罚 跟牌 赵六", "m:3")
    assert "✅" in text(out)
    rows = await referee.nights.ledger._db.execute_fetchall(
        "SELECT kind, update_key FROM events WHERE id > (SELECT MAX(id) FROM events WHERE kind = 'open')"
    )
    assert [(r[0], r[1]) for r in rows] == [("penalty", "m:3"), ("bind", None)]
    assert [seat for seat, _ in await binds(referee.nights.ledger)] == [1]


async def test_a_question_binds_a_player_seated_by_username_once_answered(referee: Referee) -> None:
    await open_with_bob(referee)
    assert "张三" in text(await say(referee, BOB, "/score", "m:2"))
    assert [seat for seat, _ in await binds(referee.nights.ledger)] == [1]  # /me finds the night later


async def test_a_refused_first_line_of_a_name_claim_binds_nobody_and_says_nothing_of_it(referee: Referee) -> None:
    await say(referee, OPENER, "开局 张三 李四 王五 赵六", "m:1")
    out = text(await say(referee, LI, "/pong 李四", "m:2"))  # his own discard: refused
    assert "李四 = 这个账号" not in out
    assert await binds(referee.nights.ledger) == []
    out = text(await say(referee, LI, "罚 跟牌 赵六", "m:3"))
    assert "李四 = 这个账号" in out and "✅" in out  # claimed with the event it served
    assert [seat for seat, _ in await binds(referee.nights.ledger)] == [1]


async def test_a_failure_before_the_commit_says_nothing_was_recorded_and_a_restart_answers_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "crash.sqlite3"
    referee = await Referee.open(path, charts_enabled=False)
    try:
        await say(referee, OPENER, "开局 张三 李四 王五 赵六", "m:1")

        async def broken(self: Night, *args: object, **kwargs: object) -> object:
            raise RuntimeError("disk gone")

        with monkeypatch.context() as patch:
            patch.setattr(Night, "record", broken)
            out = await say(referee, LI, "罚 跟牌 赵六", "m:2")
        assert out is not None and out.replies[0].key == "error.internal"  # not "recorded"
        assert await binds(referee.nights.ledger) == []
    finally:
        await referee.close()
    # a restart processes the same inbox row (the same update key) again: recorded once, with the claim
    referee = await Referee.open(path, charts_enabled=False)
    try:
        out_text = text(await say(referee, LI, "罚 跟牌 赵六", "m:2"))
        assert "李四 = 这个账号" in out_text and "✅" in out_text
        # 跟牌 (RULES §penalties): 赵六 pays 10 to each of the three others
        night = await referee.night_json(CHAT)
        assert night is not None and night["balances"] == {"张三": 10, "李四": 10, "王五": 10, "赵六": -30}
        assert [seat for seat, _ in await binds(referee.nights.ledger)] == [1]
        await say(referee, LI, "罚 跟牌 赵六", "m:2")  # a third delivery records nothing
        night = await referee.night_json(CHAT)
        assert night is not None and night["balances"]["赵六"] == -30
    finally:
        await referee.close()


async def test_a_failure_after_the_commit_still_says_recorded(
    referee: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    await say(referee, OPENER, "开局 张三 李四 王五 赵六", "m:1")
    import bot.chat.handlers.table_events as table_events

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("reply could not be built")

    monkeypatch.setattr(table_events, "recorded_response", broken)
    out = await say(referee, LI, "罚 跟牌 赵六", "m:2")
    assert out is not None and out.recorded and out.replies[0].key == "error.internal_after_recording"
    events = await referee.nights.ledger._db.execute_fetchall("SELECT kind FROM events ORDER BY id")
    assert [r[0] for r in events] == ["open", "penalty", "bind"]  # the event and its binding, together


async def test_a_write_that_fails_leaves_the_binding_unwritten_and_the_seats_as_the_ledger_has_them(
    referee: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    await say(referee, OPENER, "开局 张三 李四 王五 赵六", "m:1")

    async def refused(*args: object, **kwargs: object) -> object:
        raise DuplicateUpdate("m:1")  # the line was recorded before (a replayed update)

    night = await referee.nights.latest(CHAT)
    assert night is not None
    monkeypatch.setattr(night.ledger, "append_rows", refused)
    out = await say(referee, LI, "罚 跟牌 赵六", "m:1")
    assert out is not None and not out.replies  # a repeated update: answered the first time
    assert night.seats[1].user_id is None  # 李四's seat is nobody's account yet, in memory too
    assert await binds(referee.nights.ledger) == []


async def test_the_failure_reply_is_in_the_chats_language(referee: Referee, monkeypatch: pytest.MonkeyPatch) -> None:
    await say(referee, OPENER, "/lang en", "m:0")
    await say(referee, OPENER, "开局 张三 李四 王五 赵六", "m:1")

    async def broken(self: Night, *args: object, **kwargs: object) -> object:
        raise RuntimeError("disk gone")

    monkeypatch.setattr(Night, "record", broken)
    out = await say(referee, LI, "罚 跟牌 赵六", "m:2")
    assert out is not None and out.language == "en" and out.replies[0].key == "error.internal"


async def test_a_restart_answers_a_claimers_line_left_in_the_inbox(fake: FakeTelegram, tmp_path: Path) -> None:
    """The claimer's line was stored in the inbox, then the process died before recording it: nothing
    of it (not even the binding) is in the ledger, and the next start records it with the claim."""
    db = tmp_path / "tg.sqlite3"
    zhang, li = plain_user(201, "张三"), plain_user(202, "李四")
    async with Running(fake, db) as bot:
        await bot.say(zhang, "开局 张三 李四 王五 赵六")
    fake.message(GROUP, li, "罚 跟牌 赵六")
    ledger = await Ledger.open(db)
    update = fake.updates[-1]
    key = f"msg:{GROUP}:{update['message']['message_id']}"
    assert await ledger.inbox().add(Row(update["update_id"], GROUP, key, update))
    assert await binds(ledger) == []
    await ledger.close()
    fake.updates.clear()  # Telegram has forgotten it
    async with Running(fake, db) as bot:
        # the leftover is answered by the start's own queue: wait for its answer, not for an idle moment
        # that can come before the start has queued it
        await fake.wait_for(lambda: any("✅" in text for text in fake.texts(GROUP)), timeout=30)
        await asyncio.wait_for(bot.front.idle(), 30)
        answer = "\n".join(fake.texts(GROUP))
        assert "李四 = 这个账号" in answer and "✅ #2" in answer
    ledger = await Ledger.open(db)
    try:
        assert [seat for seat, _ in await binds(ledger)] == [1] and await ledger.inbox().pending() == []
    finally:
        await ledger.close()
    # 跟牌: 赵六 pays 10 to each of the three others
    assert await balances(db) == [10, 10, 10, -30]
