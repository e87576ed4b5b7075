"""A group's language belongs to its table: `/lang` needs the right to record (seated players, the
opener, chat admins); before a group's first night, and in a private chat, anyone may set it."""

from __future__ import annotations

from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from tests.kit.harness import Table


async def language(referee: Referee, chat: str = "group-1") -> str | None:
    return await referee.chat_setting(chat, "language")


async def test_a_stranger_cannot_switch_the_groups_language(table: Table) -> None:
    await table.say("/new A B C D")
    out = await table.say("Eve: /lang en")
    assert "只有在座的玩家、开局的人和群管理员可以改这个群的语言" in out and "（A, B, C, D）" in out
    assert await language(table.referee) is None
    assert (await table.respond("Eve: 语言 繁体")).refused  # type: ignore[union-attr]
    assert await language(table.referee) is None


async def test_seated_players_the_opener_and_admins_may(table: Table, referee: Referee) -> None:
    await table.say("Opener: /new A B C D")
    await table.say("B: /lang en")
    assert await language(referee) == "en"
    await table.say("Opener: /lang zh-Hant")
    assert await language(referee) == "zh-Hant"
    admin = Speaker("42", "Admin", is_admin=True)
    await referee.handle(Incoming("group-1", admin, "/lang zh-Hans"))
    assert await language(referee) == "zh-Hans"


async def test_the_right_stays_with_the_table_after_closing(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("A: /summary")
    await table.say("A: yes")
    assert (await table.respond("Eve: /lang en")).refused  # type: ignore[union-attr]
    await table.say("C: /lang en")
    assert await language(table.referee) == "en"


async def test_before_the_first_night_and_in_private_anyone_may(table: Table, referee: Referee) -> None:
    await table.say("Eve: /lang en")  # no table yet: whoever sets the group up
    assert await language(referee) == "en"
    stranger = Speaker("7", "Eve")
    await referee.handle(Incoming("private-7", stranger, "/lang zh-Hant", private=True))
    assert await language(referee, "private-7") == "zh-Hant"
