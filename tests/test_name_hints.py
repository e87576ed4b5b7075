"""A name one slip from a seated one is answered with a button, however the line is typed (#48 item 9):
before the speaker's account is bound to its seat (the seat it would claim by its name is named on
the button), and in a /command (`/pong Carl 8p`: no player Carl — did you mean Carol?), in each of
the three languages: the refusal stands, and the mended line is asked. Money by hand (docs/rules.md
§4, nanjing, stake 1): an exposed gang 直杠 on B's discard is paid 6 by B."""

from __future__ import annotations

import pytest

from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from bot.text.replies import Response, render
from locales import Translator
from tests.kit.harness import Table

CHAT = "tg:-100"
ZHANG = Speaker("201", "张三", names=("张三",))  # opens the night: his seat is his account's from then on
LI = Speaker("202", "李四", names=("李四",))  # 李四's account, not bound yet: its first recorded line binds it


async def say(referee: Referee, speaker: Speaker, line: str) -> Response | None:
    return await referee.handle(Incoming(CHAT, speaker, line))


def text(response: Response | None) -> str:
    assert response is not None
    return "\n".join(render(r, Translator(response.language)) for r in response.replies)


async def test_a_name_hint_before_the_speakers_seat_is_bound_has_its_button(referee: Referee) -> None:
    await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    hint = await say(referee, LI, "杠 王伍 3s")
    assert hint is not None and hint.refused and "没有 王伍，是 王五 吗？" in text(hint)
    # 李四's seat (#1), which his account claims by its name, made the gang on 王五's (#2) discard
    assert [c.command for c in hint.choices] == ["/gang #1 #2 3s"]
    pressed = await say(referee, LI, hint.choices[0].command)
    assert pressed is not None and pressed.recorded
    night = await referee.night_json(CHAT)
    assert night is not None and night["balances"] == {"张三": 0, "李四": 6, "王五": -6, "赵六": 0}


async def test_an_account_no_seat_is_named_after_gets_no_button(referee: Referee) -> None:
    await say(referee, ZHANG, "开局 张三 李四 王五 赵六")
    hint = await say(referee, Speaker("205", "Mike", names=("Mike",)), "杠 王伍 3s")
    assert hint is not None and "没有 王伍，是 王五 吗？" in text(hint) and hint.choices == ()  # whose gang?


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("zh-Hans", "没有这个玩家：Carl。在座的有：Alice, Bob, Carol, Dave\n是「/pong Carol 8p」吗？"),
        ("zh-Hant", "是「/pong Carol 8p」嗎？"),
        ("en", "did you mean “/pong Carol 8p”?"),
    ],
)
async def test_a_slash_command_naming_a_slip_of_a_seated_name(table: Table, language: str, said: str) -> None:
    await table.say("/new Alice Bob Carol Dave")
    await table.say(f"/lang {language}")
    before = await table.row_counts()
    response = await table.respond("Bob: /pong Carl 8p")
    assert response is not None and response.refused
    assert said in await table.say("Bob: /pong Carl 8p")
    assert [c.command for c in response.choices] == ["/pong #1 #2 8p"]  # Bob ponged Carol's 8p
    assert await table.row_counts() == before
    assert "✅" in await table.say("Alice: /pong #1 #2 8p")  # pressed by anyone, it is Bob's pong
    # a name near none is refused as before, with the command's right form
    assert "Carol" not in (await table.say("Bob: /pong Xyzzy 8p")).split("\n")[-1]
    assert await table.respond("Bob: /pong Xyzzy 8p") is not None
