"""A near-command is answered, talk stays silent, and every command has English plain words.

A plain line that is a table event's word and grammar with exactly one piece wrong — a name one
character off a seated one (of a name of four letters or more, one dropped or added too), a tile that
cannot be — gets a short hint and records nothing; the
mended line is offered as a button that records the speaker's event. Through the command layer,
as the console runs it.
"""

from __future__ import annotations

from pathlib import Path

from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.telegram import ALICE, BOB, CAROL, Running, balances, buttons

CHINESE = "/new 张三 李四 王五 赵六"
ENGLISH = "/new Alice Bob Carol Dave"


async def test_a_name_one_character_off_is_answered_with_the_seated_name(table: Table) -> None:
    await table.say(CHINESE)
    before = await table.row_counts()
    response = await table.respond("赵六: 碰 李思 6s")
    assert response is not None and response.refused
    assert "没有 李思，是 李四 吗？" in await table.say("赵六: 碰 李思 6s")
    # the button shows the mended line and stands for it with seats: 赵六 (#3) ponged 李四 (#1)
    assert [(c.label.params["line"], c.command) for c in response.choices] == [("碰 李四 6s", "/pong #3 #1 6s")]
    assert await table.row_counts() == before
    assert "没有 王伍，是 王五 吗？" in await table.say("李四: 碰 王伍")
    assert await table.row_counts() == before
    assert "✅" in await table.say("赵六: /pong #3 #1 6s")  # the button pressed: the pong is recorded


async def test_the_button_records_the_speakers_event_whoever_presses_it(table: Table) -> None:
    await table.say(CHINESE)
    response = await table.respond("李四: 花杠 赵留")  # 赵留 for 赵六, the actor named
    assert response is not None
    assert [c.command for c in response.choices] == ["/flowergang #3"]
    await table.say(f"张三: {response.choices[0].command}")
    # 花杠 (nanjing, stake 1): each other player pays 6 to 赵六: 3 × 6 = 18
    assert await table.balances() == {"张三": -6, "李四": -6, "王五": -6, "赵六": 18}


async def test_an_impossible_tile_is_answered(table: Table) -> None:
    await table.say(CHINESE)
    before = await table.row_counts()
    out = await table.say("王五: 碰 李四 0m")
    assert "没有 0m 这张牌" in out and "✅" not in out
    assert "没有 10p 这张牌" in await table.say("王五: 杠 李四 10p")
    assert await table.row_counts() == before
    await table.say("/lang en")
    assert "there is no tile 0m" in await table.say("Carol: 碰 李四 0m")


async def test_talk_near_a_command_stays_silent(table: Table) -> None:
    await table.say(CHINESE)
    before = await table.row_counts()
    talk_lines = ("碰 李思？", "碰 李思吗", "碰 李思 谢谢", "碰 东西", "杠 李思 0m", "碰 李斯 东西")
    talk_lines += ("改 1 下", "改天再打")
    for talk in talk_lines:
        assert await table.respond(f"王五: {talk}") is None, talk
    assert await table.row_counts() == before


async def test_gai_is_a_fix_only_in_the_fix_grammar(table: Table) -> None:
    await table.say(CHINESE)
    await table.say("李四: 花杠")  # #2 (the night's opening is #1)
    assert await table.respond("李四: 改 1 下") is None
    out = await table.say("张三: 改 2 赵六 花杠")
    assert "✅" in out or "更正" in out
    # the flower gang is now 赵六's: each other pays 6 to him, 李四's is gone: 3 × 6 = 18
    assert await table.balances() == {"张三": -6, "李四": -6, "王五": -6, "赵六": 18}


async def test_english_plain_words_for_every_command(table: Table) -> None:
    await table.say(ENGLISH)
    assert "✅" in await table.say("Bob: flower gang")
    # 花杠 (nanjing, stake 1): each other player pays 6 to Bob: 3 × 6 = 18
    assert await table.balances() == {"Alice": -6, "Bob": 18, "Carol": -6, "Dave": -6}
    await table.say("Bob: undo")
    assert await table.balances() == {"Alice": 0, "Bob": 0, "Carol": 0, "Dave": 0}
    assert "✅" in await table.say("Bob: penalty four Carol")
    # 四张 (nanjing): the offender pays 10 to each other player: Carol 3 × −10 = −30
    assert await table.balances() == {"Alice": 10, "Bob": 10, "Carol": -30, "Dave": 10}
    assert "📋" in await table.say("Bob: score")
    history = await table.say("Bob: history")
    assert "#" in history
    assert "✅" in await table.say("Dave: draw")
    hand = await table.referee.current_hand(table.chat_id)
    assert hand is not None and hand[1] == 2  # the draw ended hand 1: the next events go into hand 2
    assert await table.say("Bob: summary")


async def test_a_self_draw_in_the_words_the_reply_uses(table: Table) -> None:
    """The reply says "Bob self-drew": a player who types it back as `self-draw` or `self draw` is
    understood, and a sentence that only starts with it stays talk."""
    await table.say(ENGLISH)
    await table.say("Alice: /lang en")
    assert await table.respond("Bob: self drawing is no fun") is None
    out = await table.say("Bob: self-draw 123m 456m 789m 12p 55s +3p flowers=1")
    # nanjing (docs/rules.md): 20 + 2 × (1 hard flower + 边张 1) = 24, and 门清 20: 44 from each of three
    assert "Bob self-drew" in out and "total 44 flowers" in out
    assert await table.balances() == {"Alice": -44, "Bob": 132, "Carol": -44, "Dave": -44}
    assert "Carol self-drew" in await table.say("Carol: self draw 123s 456s 789s 12m 55p +3m flowers=1")


async def test_in_telegram_the_hint_carries_the_mended_line_as_a_button(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        out = await bot.say(BOB, "花杠 alise")
        assert "没有 alise，是 alice 吗？" in out
        [(label, data)] = buttons(fake).items()
        assert label == "花杠 alice" and data.endswith(":1:/flowergang #0")  # night:hand:line
        await bot.press(CAROL, data)
    # 花杠 is alice's (the line named her): each other player pays her 6: 3 × 6 = 18
    assert await balances(db) == [18, -6, -6, -6]


async def test_a_missing_tile_where_one_is_needed_is_answered(table: Table) -> None:
    await table.say("/new 张三 李四 王五 赵六 preset=changkaitou")
    before = await table.row_counts()
    assert "请说明架哪张牌" in await table.say("李四: 架")  # 敞开头 架 names its tile
    assert "请说明架哪张牌" in await table.say("李四: 架 王五")
    assert await table.row_counts() == before


async def test_a_penalty_of_part_of_a_flower_is_answered_not_recorded(table: Table) -> None:
    await table.say(CHINESE)
    before = await table.row_counts()
    for line, typed in (("李四: 罚 王五 1.5", "1.5"), ("李四: 罚 王五 -5", "-5")):
        response = await table.respond(line)
        assert response is not None and response.refused
        assert f"罚分数目不对：{typed}（要写整数花数" in await table.say(line)  # penalty.bad_amount
    assert await table.row_counts() == before
    assert await table.respond("李四: 罚 王五 1.5 吗") is None  # a question stays talk


async def test_a_penalty_of_part_of_a_flower_in_english(table: Table) -> None:
    await table.say("/lang en")
    await table.say(ENGLISH)
    assert "bad penalty amount: 1.5" in await table.say("Alice: penalty Bob 1.5")


async def test_two_letters_swapped_are_read_as_a_slip(table: Table) -> None:
    await table.say("/lang en")
    await table.say(ENGLISH)
    before = await table.row_counts()
    assert "did you mean Bob?" in await table.say("Dave: pong Bbo 2m")
    assert await table.row_counts() == before
    assert await table.respond("Dave: pong Bbbo 2m") is None  # a letter added to a short name: as likely talk


# A letter dropped, added, swapped or wrong in "Carol" (five letters): each is the slip of one seat
SLIPS_OF_CAROL = (
    ("pong Carl E", "pong Carol E", "/pong #1 #2 E"),  # dropped
    ("pong Crol 4p", "pong Carol 4p", "/pong #1 #2 4p"),  # dropped
    ("pong Carrol 5p", "pong Carol 5p", "/pong #1 #2 5p"),  # added
    ("pong Caro 6p", "pong Carol 6p", "/pong #1 #2 6p"),  # dropped at the end
    ("pong Craol 7p", "pong Carol 7p", "/pong #1 #2 7p"),  # two neighbours swapped
)


async def test_a_long_name_with_a_letter_dropped_or_added_gets_the_hint_and_the_button(table: Table) -> None:
    await table.say("/lang en")
    await table.say(ENGLISH)
    before = await table.row_counts()
    for line, mended, command in SLIPS_OF_CAROL:
        response = await table.respond(f"Bob: {line}")
        assert response is not None and response.refused and not response.recorded, line
        typed = line.split()[1]
        assert f"no {typed} at the table: did you mean Carol?" in await table.say(f"Bob: {line}"), line
        # the button: Bob (#1) ponged Carol (#2), the tile as typed
        assert [(c.label.params["line"], c.command) for c in response.choices] == [(mended, command)], line
    assert await table.row_counts() == before
    assert "✅" in await table.say("Bob: /pong #1 #2 E")  # the first button pressed: the pong is recorded


async def test_a_slip_of_a_long_name_in_chinese_gets_the_chinese_hint(table: Table) -> None:
    await table.say(ENGLISH)
    before = await table.row_counts()
    assert "没有 Carl，是 Carol 吗？" in await table.say("Bob: 碰 Carl 6s")
    assert "没有 Dav，是 Dave 吗？" in await table.say("Bob: 花杠 Dav")
    assert await table.row_counts() == before


# Talk with pong in it, at a table of Alice Bob Carol Dave: no hint, nothing recorded
ENGLISH_TALK = (
    "pong with Carl",  # two words that are no piece of a pong
    "pong Carl please",
    "pong Carl?",
    "pong Carol later",  # later is no one's slip
    "pong with Dave",
    "pong is Carol's game",
    "pong Caroline 5p",  # three letters added: someone else
    "pong Bobb 7p",  # Bob is short: a letter added is as likely someone else
    "pong Bo 7p",
    "did Carl pong",
    "Carl pong Carol",
    "I said pong Carl",
    "pongs are fun Carl",
    "ping pong Carl",
)


async def test_english_talk_with_pong_in_it_stays_silent(table: Table) -> None:
    await table.say("/lang en")
    await table.say(ENGLISH)
    before = await table.row_counts()
    for talk in ENGLISH_TALK:
        assert await table.respond(f"Bob: {talk}") is None, talk
    assert await table.row_counts() == before


async def test_a_slip_two_seats_are_close_to_stays_silent(table: Table) -> None:
    await table.say("/new Alice Bob Dave Davy")
    before = await table.row_counts()
    assert await table.respond("Bob: pong Dav 7p") is None  # Dave or Davy with a letter dropped: no guess
    assert await table.respond("Bob: pong Davey 7p") is None  # Dave or Davy with a letter added
    assert "没有 Davvy，是 Davy 吗？" in await table.say("Bob: pong Davvy 7p")  # a letter off Davy only
    assert await table.row_counts() == before


async def test_an_english_win_without_its_flowers_is_asked_for_them_in_english(table: Table) -> None:
    await table.say("/lang en")
    await table.say(ENGLISH)
    before = await table.row_counts()
    response = await table.respond("Bob: hu Carol")  # a seated discarder: a report, like 胡 李四
    assert response is not None and not response.recorded
    assert [c.command for c in response.choices][:3] == [
        "hu Carol flowers=0",
        "hu Carol flowers=1",
        "hu Carol flowers=2",
    ]
    assert "give the hard-flower count" in await table.say("Bob: hu Carol")
    assert await table.row_counts() == before


async def test_an_impossible_tile_in_a_slash_command_is_named_as_a_tile(table: Table) -> None:
    """`/gang Carol 0m` said "no player 0m": the tile's form with no such tile is refused as a tile."""
    await table.say(ENGLISH)
    await table.say("Alice: /lang en")
    before = await table.row_counts()
    for line in ("Bob: /gang Carol 0m", "Bob: /pong Carol 10p", "Bob: /range Carol 0s"):
        out = await table.say(line)
        assert "there is no tile" in out and "no player" not in out, line
    assert "command does not take 6s" in await table.say("Bob: /pong Carol 5s 6s")  # a second tile: extra
    assert await table.row_counts() == before
