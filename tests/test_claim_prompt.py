"""An account the table does not know yet (no seat, a name that matches none) whose line names no seat
is offered the unclaimed seats as buttons (`我是 李四`) instead of a bare refusal; nothing is recorded.
A claim is undone by /undo like a join, and /unseat frees a claimed seat. Money by hand (nanjing,
stake 1): a 跟牌 costs the offender 10 to each of the three others.

Seats: 张三 East, 李四 South, 王五 West, 赵六 North, opened by plain name.
"""

from __future__ import annotations

from pathlib import Path

from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from bot.text.replies import Response, render
from locales import Translator
from tests.kit.fake_telegram import FakeTelegram, plain_user
from tests.kit.telegram import Running, balances, buttons

CHAT = "tg:-100"
ZHANG = Speaker("201", "张三", names=("张三",))
MIKE = Speaker("205", "Mike", names=("Mike",))  # 李四's account: a name that matches no seat


async def say(referee: Referee, speaker: Speaker, line: str) -> Response | None:
    return await referee.handle(Incoming(CHAT, speaker, line))


def labels(response: Response | None) -> dict[str, str]:
    assert response is not None
    translator = Translator(response.language)
    return {render(c.label, translator): c.command for c in response.choices}


def text(response: Response | None) -> str:
    assert response is not None
    return "\n".join(render(r, Translator(response.language)) for r in response.replies)


async def rows(referee: Referee) -> int:
    found = await referee.nights.ledger._db.execute_fetchall("SELECT COUNT(*) FROM events")
    return int(next(iter(found))[0])


async def test_an_unknown_account_is_offered_the_unclaimed_seats(referee: Referee) -> None:
    await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    before = await rows(referee)
    response = await say(referee, MIKE, "罚 跟牌 赵六")
    assert response is not None and response.refused and not response.recorded
    assert "这个账号还没有座位。你是哪一位？" in text(response)
    assert labels(response) == {  # 张三's seat is the opener's own account (its name) from /new on
        "我是 李四": "/join 李四",
        "我是 王五": "/join 王五",
        "我是 赵六": "/join 赵六",
    }
    assert await rows(referee) == before  # nothing recorded
    claimed = text(await say(referee, MIKE, "/join 李四"))
    assert "李四 = 这个账号" in claimed and "✅" in claimed  # the line kept is recorded with the claim
    night = await referee.night_json(CHAT)
    assert night is not None and night["balances"] == {"张三": 10, "李四": 10, "王五": 10, "赵六": -30}
    # the seat claimed is no longer offered
    response = await say(referee, Speaker("206", "Nina", names=("Nina",)), "罚 跟牌 张三")
    assert "我是 李四" not in labels(response) and "我是 王五" in labels(response)


async def test_the_opener_without_a_seat_of_their_name_is_offered_them_too(referee: Referee) -> None:
    opener = Speaker("300", "Zhang San", names=("Zhang", "Zhang San"))
    await say(referee, opener, "开局 张三 李四 王五 赵六")
    before = await rows(referee)
    response = await say(referee, opener, "碰 王五")  # whose pong? the opener sits nowhere yet
    assert response is not None and response.refused and "我是 张三" in labels(response)
    assert await rows(referee) == before
    assert "✅" in text(await say(referee, opener, "李四 碰 王五"))  # naming the player records for them


async def test_an_undo_right_after_a_claim_undoes_the_claim_not_the_last_event(referee: Referee) -> None:
    await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    assert "✅" in text(await say(referee, ZHANG, "罚 跟牌 赵六"))  # 张三 claims by name with this line
    await say(referee, MIKE, "/join 王五")  # Mike pressed the wrong seat
    out = text(await say(referee, MIKE, "/undo"))
    assert "/join 王五" in out and "余额不变" in out
    # the fine stands: 赵六 −30, each other +10
    night = await referee.night_json(CHAT)
    assert night is not None and night["balances"] == {"张三": 10, "李四": 10, "王五": 10, "赵六": -30}
    response = await say(referee, MIKE, "罚 跟牌 赵六")  # 王五's seat is free to claim again
    assert "我是 王五" in labels(response) and "我是 李四" in labels(response)
    # an undo after a line that claimed by name undoes that line's event, as always
    assert "✅" in text(await say(referee, Speaker("207", "李四", names=("李四",)), "罚 跟牌 王五"))
    out = text(await say(referee, ZHANG, "/undo"))
    assert "罚 跟牌 王五" in out
    night = await referee.night_json(CHAT)
    assert night is not None and night["balances"] == {"张三": 10, "李四": 10, "王五": 10, "赵六": -30}


async def test_unseat_frees_a_claimed_seat(referee: Referee) -> None:
    await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    await say(referee, MIKE, "/join 李四")
    out = text(await say(referee, ZHANG, "/unseat 李四"))
    assert "李四" in out and "/join" in out
    assert "Mike" in text(await say(referee, MIKE, "/join"))  # now he joins under his own name
    response = await say(referee, Speaker("208", "Olga", names=("Olga",)), "罚 跟牌 赵六")
    assert "我是 李四" not in labels(response)  # the seat is Mike's now


async def test_the_claim_buttons_through_telegram(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    zhang, mike = plain_user(201, "张三"), plain_user(205, "Mike")
    async with Running(fake, db) as bot:
        await bot.say(zhang, "开局 张三 李四 王五 赵六")
        out = await bot.say(mike, "罚 跟牌 赵六")
        assert "这个账号还没有座位" in out and "只有在座的玩家" not in out
        choices = buttons(fake)
        assert {"我是 李四", "我是 王五", "我是 赵六"} <= set(choices)
        pressed = await bot.press(mike, choices["我是 李四"])
        assert "李四 = 这个账号" in pressed and "✅" in pressed  # one tap: seated, and the line recorded
        # sent again out of habit, it is a repeat and is asked about, never recorded twice
        assert "又一次" in await bot.say(mike, "罚 跟牌 赵六")
    # 跟牌 once: 赵六 pays 10 to each of the three others
    assert await balances(db) == [10, 10, 10, -30]


async def test_typing_the_buttons_words_claims_the_seat(referee: Referee) -> None:
    """`我是 李四`, typed as the button reads, claims the seat as `/join 李四` does; `我是谁` is talk."""
    await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    assert await say(referee, MIKE, "我是谁") is None
    claimed = await say(referee, MIKE, "我是 李四")
    assert claimed is not None and claimed.recorded
    assert "李四" in text(claimed)
    penalty = await say(referee, MIKE, "罚 跟牌 赵六")  # now 李四's line: 赵六 pays 10 to each of the others
    assert penalty is not None and penalty.recorded


async def test_a_typed_claim_is_undone_like_a_pressed_one(referee: Referee) -> None:
    await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    assert "✅" in text(await say(referee, ZHANG, "罚 跟牌 赵六"))  # 赵六 −30, each other +10
    await say(referee, MIKE, "我是 王五")  # the wrong seat, typed
    out = text(await say(referee, MIKE, "/undo"))
    assert "我是 王五" in out and "余额不变" in out
    night = await referee.night_json(CHAT)
    assert night is not None and night["balances"] == {"张三": 10, "李四": 10, "王五": 10, "赵六": -30}
    response = await say(referee, MIKE, "罚 跟牌 赵六")  # 王五's seat is free to claim again
    assert "我是 王五" in labels(response)


async def test_one_tap_seats_a_newcomer_and_records_her_line(referee: Referee) -> None:
    """静静, a substitute with no seat, types `碰 李四 北`: one tap on 我是 王五 seats her and records it."""
    jing = Speaker("207", "静静", names=("静静",))
    await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    prompt = await say(referee, jing, "碰 李四 北")
    assert prompt is not None and prompt.refused and "这一行随即记下" in text(prompt)
    assert labels(prompt)["我是 王五"] == "/join 王五"
    done = await say(referee, jing, "/join 王五")  # the button's line
    assert done is not None and done.recorded
    assert "王五 = 这个账号" in text(done) and "碰" in text(done) and "✅" in text(done)
    again = await say(referee, jing, "/score")
    assert again is not None
    night = await referee.night_json(CHAT)
    assert night is not None and night["balances"] == {"张三": 0, "李四": 0, "王五": 0, "赵六": 0}  # a 碰: no money
    # the pong is 王五's: a second line of hers is hers without asking
    assert "✅" in text(await say(referee, jing, "罚 跟牌 赵六"))


async def test_a_kept_line_is_not_sent_again_in_a_later_hand(referee: Referee) -> None:
    jing = Speaker("207", "静静", names=("静静",))
    await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    await say(referee, jing, "碰 李四 北")
    await say(referee, ZHANG, "荒庄")  # the hand is over
    done = await say(referee, jing, "/join 王五")
    assert done is not None and done.recorded and "碰" not in text(done)


async def test_one_named_seat_is_offered_without_an_example_naming_another(referee: Referee) -> None:
    """`/new 张三` by an account of another name seats 张三 alone (#47 item 6: the prompt's example named
    another seated player and found none). Every line of an account without a seat is answered: the one
    seat to claim, and the free seats to join; nothing is recorded."""
    opener = Speaker("300", "Opener", names=("Opener",))
    await say(referee, opener, "/new 张三")
    before = await rows(referee)
    for speaker in (opener, MIKE):
        for line in ("碰 张三", "罚 跟牌 张三", "/pong 张三 4p", "/penalty 张三 10", "胡"):
            response = await say(referee, speaker, line)
            if response is None:  # talk stays silent
                continue
            assert response.refused and not response.recorded
            if "这个账号还没有座位" in text(response):
                assert labels(response) == {"我是 张三": "/join 张三", "加入": "/join"}
                assert "替别人记" not in text(response)  # no example naming a second player
    assert "这个账号还没有座位" in text(await say(referee, MIKE, "碰 张三"))
    assert await rows(referee) == before
    for language in ("en", "zh-Hant"):
        await say(referee, opener, f"/language {language}")
        assert "{" not in text(await say(referee, MIKE, "碰 张三"))
