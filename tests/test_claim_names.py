"""Seats and accounts (docs/rules.md 17c): the seat named like the opener's account is the opener's
at /new; a claim by an account whose name is not the seat's is recorded, said so on its own reply,
and undone with the line it recorded by a button that another seated player or an admin may press.

Money by hand (nanjing, stake 1, RULES §4): a 跟牌 costs the offender 10 to each of the three others.
Seats: 张三 East, 李四 South, 王五 West, 赵六 North, opened by plain name.
"""

from __future__ import annotations

from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker, names_match
from bot.text.replies import Response, render
from locales import Translator
from tests.kit.messages import changes

CHAT = "tg:-100"
ZHANG = Speaker("201", "张三", names=("张三",))  # the opener, whose account is named like a seat
MIKE = Speaker("205", "Mike", names=("Mike",))  # a name that matches no seat
NINA = Speaker("206", "Nina", names=("Nina",))  # a stranger in the group
WANG = Speaker("203", "王五", names=("王五",))  # 王五's own account, not bound yet
ADMIN = Speaker("299", "Admin", names=("Admin",), is_admin=True)


async def say(referee: Referee, speaker: Speaker, line: str, key: str | None = None) -> Response | None:
    return await referee.handle(Incoming(CHAT, speaker, line, key))


def text(response: Response | None) -> str:
    assert response is not None
    return "\n".join(render(r, Translator(response.language)) for r in response.replies)


def labels(response: Response | None) -> dict[str, str]:
    assert response is not None
    translator = Translator(response.language)
    return {render(c.label, translator): c.command for c in response.choices}


async def kinds(referee: Referee) -> list[str]:
    found = await referee.nights.ledger._db.execute_fetchall("SELECT kind FROM events ORDER BY id")
    return [str(row[0]) for row in found]


async def balances(referee: Referee) -> dict[str, object]:
    night = await referee.night_json(CHAT)
    assert night is not None
    balances = night["balances"]
    assert isinstance(balances, dict)
    return balances


async def mike_claims_li_with_a_line(referee: Referee) -> str:
    """Mike's 跟牌 line is kept, his tap on 我是 李四 claims the seat and records it; the button's line."""
    await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    prompt = await say(referee, MIKE, "罚 跟牌 赵六")
    assert prompt is not None and prompt.refused
    claimed = await say(referee, MIKE, "/join 李四")
    assert claimed is not None and claimed.recorded
    said = text(claimed)
    assert "李四 = 这个账号" in said and "✅" in said
    assert "账号 Mike 的名字不是 李四" in said and "撤销这次认座和这一行" in said
    return labels(claimed)["↩️ 不是 李四"]


def test_what_matches_a_seat() -> None:
    chen = Speaker("1", "alexc", "alexc", names=("Alex", "AlexChen", "Alex Chen"))
    assert names_match("Alex", chen) and names_match("alexchen", chen) and names_match("Alex Chen", chen)
    assert names_match("ALEXC", chen) and names_match("ＡＬＥＸ", chen)  # the username; full width
    assert not names_match("Al", chen) and not names_match("Chen", chen) and not names_match("", chen)
    assert names_match("張三", ZHANG)  # Traditional folds to Simplified
    assert not names_match("李四", MIKE) and not names_match("Li Si", Speaker("7", "李四", names=("李四",)))


async def test_the_opener_holds_the_seat_of_their_own_name_from_new(referee: Referee) -> None:
    opened = await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    assert "我是 张三" not in labels(opened) and "我是 李四" in labels(opened)
    prompt = await say(referee, MIKE, "罚 跟牌 赵六")
    assert "我是 张三" not in labels(prompt)
    refused = await say(referee, MIKE, "/join 张三")  # typed, the button's words: not his seat to take
    assert refused is not None and not refused.recorded
    line = text(await say(referee, ZHANG, "罚 跟牌 赵六"))
    assert "✅" in line and "这个账号" not in line  # the opener's line: no claim, nothing to say of one
    assert "bind" not in await kinds(referee)
    assert await balances(referee) == {"张三": 10, "李四": 10, "王五": 10, "赵六": -30}
    await say(referee, ZHANG, "/summary")
    await say(referee, ZHANG, "yes")
    # /me finds the night by the opener's account: 张三's 跟牌 income, 10 from 赵六
    mine = await referee.handle(Incoming("tg:201", ZHANG, "/me", private=True))
    assert "张三：1 局，净 10 元" in text(mine)  # at stake 1
    assert "1 局" not in text(await referee.handle(Incoming("tg:205", MIKE, "/me", private=True)))


async def test_the_opener_is_matched_across_scripts_and_by_first_and_last_name(referee: Referee) -> None:
    traditional = Speaker("210", "張三", names=("張三",))
    await say(referee, traditional, "开局 张三 李四 王五 赵六")
    assert "我是 张三" not in labels(await say(referee, MIKE, "罚 跟牌 赵六"))
    chen = Speaker("211", "Alex", names=("Alex", "AlexChen", "Alex Chen"))
    other = "tg:-200"  # a night of his own, in another chat
    opened = await referee.handle(Incoming(other, chen, "/new AlexChen Bob Carol Dave"))
    assert opened is not None and "我是 AlexChen" not in labels(opened) and "我是 Bob" in labels(opened)


async def test_an_opener_matching_no_seat_or_two_holds_none(referee: Referee) -> None:
    alex = Speaker("212", "Alex", names=("Alex", "AlexChen", "Alex Chen"))
    opened = await say(referee, alex, "/new Alex AlexChen Carol Dave")  # which is his? not guessed
    assert {"我是 Alex", "我是 AlexChen"} <= set(labels(opened))
    other = "tg:-200"
    latin = Speaker("213", "Zhang", names=("Zhang", "Zhang San", "ZhangSan"))
    opened = await referee.handle(Incoming(other, latin, "开局 张三 李四 王五 赵六"))
    assert opened is not None and "我是 张三" in labels(opened)  # 张三 is not `Zhang San`: no match


async def test_a_claim_by_its_own_name_says_nothing_more(referee: Referee) -> None:
    await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    claimed = await say(referee, WANG, "我是 王五")
    assert "王五 = 这个账号" in text(claimed) and "名字不是" not in text(claimed)
    assert claimed is not None and claimed.choices == ()


async def test_another_seated_player_undoes_a_claim_by_another_name_and_its_line(referee: Referee) -> None:
    button = await mike_claims_li_with_a_line(referee)
    assert await balances(referee) == {"张三": 10, "李四": 10, "王五": 10, "赵六": -30}
    undone = await say(referee, ZHANG, button, "cb:1")
    assert undone is not None and undone.recorded
    said = text(undone)
    assert "撤销了 李四 这个座位的认领" in said and "罚 跟牌 赵六" in said
    # the 跟牌 taken back: 赵六 gets his 30, each of the others gives back 10
    assert (
        changes(("张三", "−10", "−10"), ("李四", "−10", "−10"), ("王五", "−10", "−10"), ("赵六", "+30", "+30")) in said
    )
    assert await balances(referee) == {"张三": 0, "李四": 0, "王五": 0, "赵六": 0}
    assert (await kinds(referee))[-2:] == ["undo", "undo"]  # the line's undo, then the claim's
    # 李四's seat is free to claim again, and the button is spent
    assert "我是 李四" in labels(await say(referee, NINA, "罚 跟牌 赵六"))
    again = await say(referee, ZHANG, button, "cb:2")
    assert again is not None and not again.recorded and "已经撤销过了" in text(again)


async def test_neither_the_claimer_nor_a_stranger_may_press_it(referee: Referee) -> None:
    button = await mike_claims_li_with_a_line(referee)
    before = await kinds(referee)
    for presser in (MIKE, NINA):
        refused = await say(referee, presser, button)
        assert refused is not None and refused.refused and not refused.recorded
        assert "只有其他在座的玩家或群管理员" in text(refused)
        assert "你是哪一位" not in text(refused)  # a stranger is not offered a seat for pressing it
    assert await kinds(referee) == before
    assert await balances(referee) == {"张三": 10, "李四": 10, "王五": 10, "赵六": -30}


async def test_an_admin_not_at_the_table_may_press_it(referee: Referee) -> None:
    button = await mike_claims_li_with_a_line(referee)
    assert (await say(referee, ADMIN, button)) is not None
    assert await balances(referee) == {"张三": 0, "李四": 0, "王五": 0, "赵六": 0}


async def test_a_player_whose_name_matches_a_seat_is_seated_by_pressing_it(referee: Referee) -> None:
    button = await mike_claims_li_with_a_line(referee)
    undone = await say(referee, WANG, button)
    assert undone is not None and undone.recorded
    assert await balances(referee) == {"张三": 0, "李四": 0, "王五": 0, "赵六": 0}
    # 王五's account took his own seat with the press (a seated player): his next line is his
    assert "✅" in text(await say(referee, WANG, "罚 跟牌 赵六"))
    assert (await kinds(referee)).count("bind") == 2  # Mike's claim (undone) and 王五's


async def test_a_claim_with_no_line_undoes_the_claim_alone(referee: Referee) -> None:
    await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    claimed = await say(referee, MIKE, "/join 李四")  # the 我是 李四 button under /new
    assert "账号 Mike 的名字不是 李四" in text(claimed) and "和这一行" not in text(claimed)
    button = labels(claimed)["↩️ 不是 李四"]
    assert "," not in button
    assert "✅" in text(await say(referee, MIKE, "罚 跟牌 赵六"))  # a later line is the seat's, and stays
    undone = await say(referee, ZHANG, button)
    assert undone is not None and undone.recorded and "撤销了 李四 这个座位的认领" in text(undone)
    assert await balances(referee) == {"张三": 10, "李四": 10, "王五": 10, "赵六": -30}
    assert "我是 李四" in labels(await say(referee, NINA, "罚 跟牌 张三"))


async def test_a_forged_button_reaches_no_other_line(referee: Referee) -> None:
    button = await mike_claims_li_with_a_line(referee)
    bind, _, line = button.removeprefix("/undo claim=").partition(",")
    await say(referee, ZHANG, "罚 跟牌 王五")  # another line, recorded after the claim
    later = int(line) + 1
    before = await kinds(referee)
    for forged in (f"/undo claim={bind},{later}", f"/undo claim={line}", f"/undo claim={bind},{int(bind) - 1}"):
        refused = await say(referee, ZHANG, forged)
        assert refused is not None and not refused.recorded and "已经撤销过了" in text(refused), forged
    assert await kinds(referee) == before
