"""A group that comes back is known (issue #48, item 3; docs/players.md, At the table).

Four friends whose Telegram names are not their seats' (敏敏 plays 周敏, 娜娜 李娜, 强子 王强, 静静 陈静)
play a first night, each tapping `我是 …`. A week later the same four names are typed: each account
holds the name it played, with no tap, no claim line and no ⚠️ about its own name; the group's setup
is the /new answer alone. Money by hand (nanjing, stake 1, docs/rules.md §4): a flower gang takes 6
from each of the three others.
"""

from __future__ import annotations

from pathlib import Path

from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from bot.text.replies import Response, render
from locales import Translator
from tests.kit.fake_telegram import FakeTelegram, plain_user
from tests.kit.telegram import GROUP, Running, balances, buttons

SEATS = "开局 周敏 李娜 王强 陈静"
MIN, NA, QIANG, JING = (plain_user(301 + i, n) for i, n in enumerate(("敏敏", "娜娜", "强子", "静静")))
FIRST_NIGHT = ((NA, "李娜"), (QIANG, "王强"), (JING, "陈静"))  # 敏敏 opens and taps 我是 周敏 first


def group_messages(fake: FakeTelegram, since: int) -> list[str]:
    """What the bot put in the group since call `since` (every message counts against its budget)."""
    return [
        str(c.params.get("text", c.params.get("caption", "")))
        for c in fake.calls[since:]
        if c.method in ("sendMessage", "sendPhoto", "sendDocument") and int(c.params.get("chat_id", 0)) == GROUP
    ]


async def first_night(bot: Running, fake: FakeTelegram) -> None:
    await bot.say(MIN, SEATS)
    opened = buttons(fake)
    await bot.press(MIN, opened["我是 周敏"])
    for account, name in FIRST_NIGHT:
        assert "⚠️" in await bot.press(account, opened[f"我是 {name}"])  # the account's name is another
    await bot.say(NA, "花杠")  # 李娜 +18, the others −6
    await bot.say(MIN, "结算")
    await bot.say(MIN, "确认")


async def test_the_second_night_seats_each_account_by_the_name_it_played(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await first_night(bot, fake)
        since = len(fake.calls)
        opened = await bot.say(MIN, SEATS)
        assert "我是" not in str(buttons(fake))  # every seat is held already: no claim buttons
        lines = []
        for account, line in ((MIN, "花杠"), (NA, "花杠"), (QIANG, "花杠"), (JING, "花杠")):
            lines.append(await bot.say(account, line))
        setup = group_messages(fake, since)[: -len(lines)]  # what came before the first line's answer
        assert len(setup) <= 2, setup  # measured: 1, the /new answer
        assert "周敏" in opened and all("✅" in line for line in lines)
        said = "\n".join(lines)
        assert "⚠️" not in said and "这个账号" not in said and "我是" not in said
    # night 2: four flower gangs, one each: every player +18 − 3 × 6 = 0
    assert await balances(db) == [0, 0, 0, 0]


async def test_the_first_nights_claims_cost_what_the_second_saves(fake: FakeTelegram, tmp_path: Path) -> None:
    """Night 1's setup for the same group: the /new answer and a claim answer per tap (4 messages)."""
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        since = len(fake.calls)
        await bot.say(MIN, SEATS)
        opened = buttons(fake)
        await bot.press(MIN, opened["我是 周敏"])
        for account, name in FIRST_NIGHT:
            await bot.press(account, opened[f"我是 {name}"])
        assert len(group_messages(fake, since)) == 5  # /new + 4 claims


CHAT = "tg:-7"
MIN_SPEAKER = Speaker("301", "敏敏", names=("敏敏",))
OTHER = Speaker("309", "周敏", names=("周敏",))  # another account whose own name is 周敏


async def say(referee: Referee, speaker: Speaker, line: str) -> Response | None:
    return await referee.handle(Incoming(CHAT, speaker, line))


def text(response: Response | None) -> str:
    assert response is not None
    return "\n".join(render(r, Translator(response.language)) for r in response.replies)


async def test_a_name_two_accounts_played_is_claimed_again(referee: Referee) -> None:
    """周敏 was played by 敏敏's account one night and by another account the next: nobody is guessed."""
    await say(referee, MIN_SPEAKER, SEATS)
    await say(referee, MIN_SPEAKER, "我是 周敏")
    await say(referee, MIN_SPEAKER, "结算")
    await say(referee, MIN_SPEAKER, "确认")
    opened = await say(referee, OTHER, SEATS)  # 周敏's own name: the opener's seat (its name) from /new on
    assert opened is not None and opened.recorded
    await say(referee, OTHER, "结算")
    await say(referee, OTHER, "确认")
    third = await say(referee, MIN_SPEAKER, SEATS)
    assert third is not None and "我是 周敏" in {render(c.label, Translator("zh-Hans")) for c in third.choices}


async def test_a_returning_seat_is_freed_by_unseat(referee: Referee) -> None:
    await say(referee, MIN_SPEAKER, SEATS)
    await say(referee, MIN_SPEAKER, "我是 周敏")
    await say(referee, MIN_SPEAKER, "结算")
    await say(referee, MIN_SPEAKER, "确认")
    await say(referee, MIN_SPEAKER, SEATS)
    assert "周敏" in text(await say(referee, MIN_SPEAKER, "/unseat 周敏"))
    freed = await say(referee, MIN_SPEAKER, "花杠")  # no seat now: which one is yours?
    assert freed is not None and not freed.recorded


async def test_a_name_seated_by_a_swap_is_held_by_the_account_that_played_it(referee: Referee) -> None:
    await say(referee, MIN_SPEAKER, SEATS)
    await say(referee, MIN_SPEAKER, "我是 周敏")
    await say(referee, MIN_SPEAKER, "结算")
    await say(referee, MIN_SPEAKER, "确认")
    await say(referee, OTHER, "开局 张三 李四 王五 赵六")  # another night, without 周敏
    await say(referee, OTHER, "换人 赵六 周敏")
    out = await say(referee, MIN_SPEAKER, "花杠")  # 周敏's account records at once, no claim asked
    assert out is not None and out.recorded and "这个账号" not in text(out)
    night = await referee.night_json(CHAT)
    # 周敏's flower gang: 6 from each of the three others (赵六 left with nothing: not listed)
    assert night is not None and night["balances"] == {"张三": -6, "李四": -6, "王五": -6, "周敏": 18}
