"""Every slip is answered, command words too (#48 item 4): a line whose command word is one slip away —
a letter dropped, doubled, swapped or replaced, or a character a pinyin input method offers for the same
sound — gets the hint and the button a name slip gets, and records nothing; `撤消` and `结帐` are words of
their own (撤销, 结算). Talk with a word near a command stays silent.

Money by hand (docs/rules.md §4, nanjing, stake 1): a 花杠 is paid 6 by each other player to its maker;
an exposed gang 直杠 on B's discard is paid 6 by B.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.chat import homophones
from bot.chat.homophones import HOMOPHONES
from bot.chat.word_slips import letter_slip, plain_command_words, sound_slip
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.homophones import module, table
from tests.kit.telegram import ALICE, BOB, CAROL, GROUP, Running, balances, buttons

CHINESE = "/new 张三 李四 王五 赵六"
ENGLISH = "/new Alice Bob Carol Dave"


def test_the_homophone_table_is_derived_from_the_command_words() -> None:
    assert dict(HOMOPHONES) == table()  # what `python -m tests.kit.homophones` prints
    assert Path(homophones.__file__).read_text(encoding="utf-8") == module()
    assert "装" in HOMOPHONES["庄"] and "刚" in HOMOPHONES["杠"] and "消" in HOMOPHONES["销"]
    assert "唐" not in HOMOPHONES["庄"] and "钱" not in HOMOPHONES["杠"]


def test_each_kind_of_slip_of_each_english_command_word() -> None:
    for word, _ in plain_command_words():
        if not word.isascii() or len(word) < 4:
            continue
        dropped, doubled = word[:1] + word[2:], word[:2] + word[1] + word[2:]
        swapped = word[0] + word[2] + word[1] + word[3:] if word[1] != word[2] else None
        for typed in (dropped, doubled, swapped):
            if typed is not None and len(typed) >= 4:
                assert letter_slip(word, typed, alone=True), (word, typed)
        replaced = word[:-1] + ("x" if word[-1] != "x" else "y")
        assert letter_slip(word, replaced, alone=False), (word, replaced)
        assert not letter_slip(word, word, alone=True)
    assert not letter_slip("gang", "hang", alone=True)  # a word of its own, alone on its line
    assert not letter_slip("draw", "drawn", alone=True)  # a letter added is no slip unless it doubles one
    assert not letter_slip("hu", "uh", alone=True)  # too short to tell from a word


def test_a_chinese_slip_is_one_character_of_the_same_sound() -> None:
    assert sound_slip("荒庄", "荒装") and sound_slip("花杠", "花刚") and sound_slip("撤销", "彻销")
    assert not sound_slip("荒庄", "荒唐") and not sound_slip("花杠", "花钱") and not sound_slip("荒庄", "慌装")


@pytest.mark.parametrize(
    ("line", "hint", "button"),
    [
        ("Bob: gnag Dave 3s", "no command gnag: did you mean “gang Dave 3s”?", "/gang #1 Dave 3s"),
        ("Bob: Bob gnag Dave 3s", "no command gnag: did you mean “Bob gang Dave 3s”?", "/gang Bob Dave 3s"),
        ("Bob: drwa", "no command drwa: did you mean “draw”?", "/draw"),
        ("Bob: undoo", "no command undoo: did you mean “undo”?", "/undo"),
        ("Bob: sumary", "no command sumary: did you mean “summary”?", "/summary"),
        ("Bob: pnog Dave", "no command pnog: did you mean “pong Dave”?", "/pong #1 Dave"),
    ],
)
async def test_an_english_command_word_slip_is_answered(table: Table, line: str, hint: str, button: str) -> None:
    await table.say(ENGLISH)
    await table.say("/lang en")
    before = await table.row_counts()
    response = await table.respond(line)
    assert response is not None and response.refused and not response.recorded
    assert hint in await table.say(line)
    assert [c.command for c in response.choices] == [button]
    assert await table.row_counts() == before


@pytest.mark.parametrize(
    ("line", "hint", "button"),
    [
        ("李四: 花刚", "没有 花刚 这个说法，是「花杠」吗？", "/flowergang #1"),
        ("李四: 荒装", "没有 荒装 这个说法，是「荒庄」吗？", "/draw"),
        ("李四: 花刚 4p", None, None),  # 花杠 takes no tile: no command once mended, so talk
    ],
)
async def test_a_chinese_command_word_slip_is_answered(
    table: Table, line: str, hint: str | None, button: str | None
) -> None:
    await table.say(CHINESE)
    response = await table.respond(line)
    if hint is None:
        assert response is None
        return
    assert response is not None and response.refused and hint in await table.say(line)
    assert [c.command for c in response.choices] == [button]


async def test_the_slips_button_records_the_speakers_event_whoever_presses_it(table: Table) -> None:
    await table.say(CHINESE)
    response = await table.respond("李四: 花刚")
    assert response is not None
    await table.say(f"张三: {response.choices[0].command}")
    # 花杠 (docs/rules.md §4, nanjing, stake 1): each other player pays 6 to 李四: 3 × 6 = 18
    assert await table.balances() == {"张三": -6, "李四": 18, "王五": -6, "赵六": -6}


async def test_a_slash_command_one_slip_away_names_it_with_a_button(table: Table) -> None:
    await table.say(ENGLISH)
    said = {
        "zh-Hans": "没有 /gnag 这个命令，是「/gang Dave 3s」吗？",
        "zh-Hant": "沒有 /gnag 這個命令，是「/gang Dave 3s」嗎？",
        "en": "unknown command /gnag: did you mean “/gang Dave 3s”?",
    }
    for language, hint in said.items():
        await table.say(f"/lang {language}")
        assert hint in await table.say("Bob: /gnag Dave 3s")
    response = await table.respond("Bob: /gnag Dave 3s")
    assert response is not None and [c.command for c in response.choices] == ["/gang #1 Dave 3s"]
    await table.say(f"Carol: {response.choices[0].command}")
    # an exposed gang on Dave's discard (docs/rules.md §4): Dave pays 6 to Bob
    assert await table.balances() == {"Alice": 0, "Bob": 6, "Carol": 0, "Dave": -6}
    assert "/gang" not in await table.say("Bob: /foo")  # no command near: the unknown command alone


async def test_variant_spellings_are_words_of_their_own(table: Table) -> None:
    await table.say(CHINESE)
    assert "✅" in await table.say("李四: 罚 跟牌 王五")
    assert "撤销" in await table.say("李四: 撤消")  # 撤消, a common spelling of 撤销, undoes
    assert await table.balances() == {"张三": 0, "李四": 0, "王五": 0, "赵六": 0}
    assert "结算" in await table.say("李四: 结帐") and "结算" in await table.say("李四: 结账")


@pytest.mark.parametrize(
    "line",
    [
        "drawn out",
        "sure",
        "hang on",
        "hang",
        "I think we should draw",
        "the gang is all here",
        "undone already?",
        "summery weather today",
        "drew a blank",
        "sumary?",
        "花钱了",
        "荒唐",
        "结束了吗",
        "荒装了吗",
        "花刚才说什么",
        "慌张",
        "撤了撤了",
    ],
)
async def test_talk_near_a_command_word_stays_silent(table: Table, line: str) -> None:
    await table.say(ENGLISH)
    assert await table.respond(f"Bob: {line}") is None


async def test_in_telegram_a_word_slip_is_answered_with_its_button(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        assert "没有 gnag 这个说法，是「gang dave 3s」吗？" in await bot.say(BOB, "gnag dave 3s")
        [(label, data)] = buttons(fake).items()
        assert label == "gang dave 3s" and data.endswith(":1:/gang #1 dave 3s")  # night:hand:line
        await bot.press(CAROL, data)  # whoever presses it, the gang is Bob's
        before = len(fake.calls)
        fake.message(GROUP, BOB, "hang on")  # talk: no answer, so /score's is the one message the bot sends
        board = await bot.say(ALICE, "/score")
        assert [c.params.get("text") for c in fake.calls[before:] if c.method == "sendMessage"] == [board]
    # an exposed gang of 3s on dave's discard (docs/rules.md §4): dave pays bob 6
    assert await balances(db) == [0, 6, 0, -6]
