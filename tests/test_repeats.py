"""A repeat is asked, never charged silently: an event the same as one already in its hand (same
kind, actor and target, no tile to tell them apart) waits for the table's word — 再记一次 records it,
重复了 drops it — and the question lasts 10 minutes, like a guided flow. Money worked by hand
(nanjing, stake 1): an exposed gang costs its feeder 6; a flower gang costs each other player 6."""

from __future__ import annotations

import json
from pathlib import Path

from tests.kit.console import run_bot
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.telegram import ALICE, BOB, CAROL, Running, balances, buttons

OPEN = "/new A B C D"


async def test_a_gang_reported_twice_is_asked_and_recorded_only_on_again(table: Table) -> None:
    await table.say(OPEN)
    assert "✅" in await table.say("A: 杠 B")  # #2
    assert await table.balances() == {"A": 6, "B": -6, "C": 0, "D": 0}
    response = await table.respond("C: 杠 B")  # another actor: another event, recorded at once
    assert response is not None and response.recorded
    # C 杠 B: B pays C 6 → B −12
    assert await table.balances() == {"A": 6, "B": -12, "C": 6, "D": 0}
    before = await table.row_counts()
    question = await table.respond("D: A 杠 B")  # D reports A's gang too
    assert question is not None and not question.recorded
    assert [c.command for c in question.choices] == ["/again q1", "/again q1 no"]  # the question's own id
    out = await table.say("D: A 杠 B")
    assert "和 #2 一样：A 明杠 B，又一次？" in out and "✅" not in out
    assert await table.row_counts() == before  # held, not recorded
    assert "✅" in await table.say("B: 再记一次")  # the table says it happened twice
    # the second exposed gang of A on B: B pays 6 more → A 12, B −18
    assert await table.balances() == {"A": 12, "B": -18, "C": 6, "D": 0}
    assert "没有等着再记一次的事件" in await table.say("B: 再记一次")  # the answer is used once
    assert await table.balances() == {"A": 12, "B": -18, "C": 6, "D": 0}


async def test_a_repeat_dropped_moves_nothing(table: Table) -> None:
    await table.say(OPEN)
    await table.say("D: 花杠")  # #2: each other player pays D 6 → D 18
    before = await table.row_counts()
    assert "和 #2 一样：D 花杠，又一次？" in await table.say("D: 花杠")
    assert "不记（#2 已经记过了）" in await table.say("A: /again no")
    assert await table.row_counts() == before
    assert await table.balances() == {"A": -6, "B": -6, "C": -6, "D": 18}
    assert "没有等着" in await table.say("A: /again")


async def test_again_in_english_records_the_second_flower_gang(table: Table) -> None:
    await table.say(OPEN)
    await table.say("/lang en")
    await table.say("D: flower gang")
    assert "the same as #2" in await table.say("D: flower gang")
    assert "✅" in await table.say("C: again")
    # two flower gangs of D: each other player pays 6 twice → D 2 × 18 = 36, the others −12
    assert await table.balances() == {"A": -12, "B": -12, "C": -12, "D": 36}


async def test_the_question_expires_and_belongs_to_its_hand(table: Table) -> None:
    await table.say(OPEN)
    await table.say("A: 杠 B")
    await table.say("A: 杠 B")
    start = table.referee.services.clock()
    table.referee.services.clock = lambda: start + 10 * 60 + 1  # 10 minutes and a second later
    assert "过期" in await table.say("A: 再记一次")
    assert await table.balances() == {"A": 6, "B": -6, "C": 0, "D": 0}
    table.referee.services.clock = lambda: start
    await table.say("A: 杠 B")  # asked again
    await table.say("荒庄")  # the hand ends: its question with it
    assert "没有等着" in await table.say("A: 再记一次")
    assert await table.balances() == {"A": 6, "B": -6, "C": 0, "D": 0}
    # a new hand: the same gang is no repeat; 荒庄 makes hand 2 比下胡 (RULES §9: gangs ×2): B pays 6 × 2
    assert "✅" in await table.say("A: 杠 B")
    assert await table.balances() == {"A": 18, "B": -18, "C": 0, "D": 0}


async def test_a_gang_with_its_tile_is_told_apart(table: Table) -> None:
    await table.say(OPEN)
    await table.say("A: 杠 B 5s")
    assert "✅" in await table.say("A: 杠 B 7p")  # another tile: another gang, B pays 6 again
    assert await table.balances() == {"A": 12, "B": -12, "C": 0, "D": 0}
    assert "已经记过了：#2" in await table.say("A: 杠 B 5s")  # the same tile: refused as before
    assert "又一次？" in await table.say("A: 杠 B")  # no tile: which one? asked


ENGLISH = "/new Alice Bob Carol Dave"


async def test_an_english_plain_report_with_its_actor_first_is_recorded(table: Table) -> None:
    await table.say(ENGLISH)
    await table.say("/lang en")
    assert "✅ #2 Bob made an exposed gang of 9p on Alice's discard" in await table.say("Carol: Bob gang Alice 9p")
    assert "✅ #3 Bob ponged 5s on Carol's discard" in await table.say("Dave: Bob pong Carol 5s")
    # one exposed gang fed by Alice: Alice pays Bob 6; a pong moves no money
    assert await table.balances() == {"Alice": -6, "Bob": 6, "Carol": 0, "Dave": 0}


async def test_an_english_plain_repeat_with_its_tile_is_answered_like_the_chinese_one(table: Table) -> None:
    await table.say(ENGLISH)
    await table.say("/lang en")
    assert "✅ #2" in await table.say("Bob: /gang Alice 9p")
    before = await table.row_counts()
    out = await table.say("Carol: Bob gang Alice 9p")
    assert out == "already recorded as #2 (to change it: /fix 2; to remove it: /undo 2)"
    assert await table.say("Carol: /gang Bob Alice 9p") == out
    assert await table.row_counts() == before
    # the one gang only: Alice pays Bob 6
    assert await table.balances() == {"Alice": -6, "Bob": 6, "Carol": 0, "Dave": 0}


async def test_an_english_plain_repeat_without_a_tile_is_asked(table: Table) -> None:
    await table.say(ENGLISH)
    await table.say("/lang en")
    await table.say("Bob: /gang Alice")
    before = await table.row_counts()
    out = await table.say("Carol: Bob gang Alice")
    assert "the same as #2: Bob made an exposed gang on Alice's discard, once more?" in out
    assert await table.row_counts() == before
    assert "✅" in await table.say("Alice: again")
    # two exposed gangs fed by Alice: 2 × 6 = 12
    assert await table.balances() == {"Alice": -12, "Bob": 12, "Carol": 0, "Dave": 0}


async def test_a_chinese_repeat_by_latin_names_is_answered_too(table: Table) -> None:
    await table.say(OPEN)
    await table.say("A: 杠 B 5s")
    assert "已经记过了：#2" in await table.say("D: A 杠 B 5s")  # starts with a Latin name, still a report


async def test_english_talk_around_a_report_stays_silent(table: Table) -> None:
    await table.say(ENGLISH)
    await table.say("/lang en")
    await table.say("Bob: /gang Alice 9p")
    before = await table.row_counts()
    for line in ("Bob said gang", "did Bob gang Alice?", "Bob gang Alice 9p?", "dealer wins"):
        assert await table.respond(f"Carol: {line}") is None, line
    assert await table.row_counts() == before


def test_in_the_console_the_repeat_is_asked_and_again_records_it(tmp_path: Path) -> None:
    script = tmp_path / "night.txt"
    lines = "/new A B C D\nA: 杠 B\nA: 杠 B\nD: 花杠\nD: 花杠\nC: 再记一次\nC: /again q2\n"
    script.write_text(lines, encoding="utf-8")
    db = str(tmp_path / "c.sqlite3")
    night = json.loads(run_bot(tmp_path, "console", "--db", db, "--script", str(script), "--json"))
    # two questions open: 再记一次 asks which (records nothing); `/again q2` (its button) answers D's.
    # A's gang once (its question left open): B −6, A +6; D's flower gang twice: D 2 × 18 = 36, each other −12
    assert night["balances"] == {"A": 6 - 12, "B": -6 - 12, "C": -12, "D": 36}
    out = run_bot(tmp_path, "console", "--db", str(tmp_path / "d.sqlite3"), stdin="/new A B C D\nA: 杠 B\nA: 杠 B\n")
    assert "和 #2 一样：A 明杠 B，又一次？" in out and "[再记一次] /again q1" in out


async def test_in_telegram_the_repeat_is_recorded_by_its_button(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        await bot.say(BOB, "/flowergang")
        assert "又一次？" in await bot.say(BOB, "/flowergang")
        choices = buttons(fake)
        assert set(choices) == {"再记一次", "重复了，不记"}
        await bot.press(CAROL, choices["再记一次"])
        await bot.press(CAROL, choices["重复了，不记"])  # the question is answered once
    # bob's two flower gangs: each other player pays him 6 twice → bob 36, the others −12
    assert await balances(db) == [-12, 36, -12, -12]


async def test_a_win_sent_twice_is_asked_not_charged_twice(table: Table) -> None:
    """The same win right after it, nothing typed between (a line sent twice, or the next hand won the
    same way): asked. RULES §11 ex. 2: B wins 34 on C's discard; the hand after it is not doubled."""
    win = "B: /hu C 11p 567s 79s [EEE] [444p] +8s flowers=4"
    await table.play(f"{OPEN}\n{win}")
    assert await table.balances() == {"A": 0, "B": 34, "C": -34, "D": 0}
    before = await table.row_counts()
    out = await table.say(win)
    assert "和 #2 一样：B 胡 C 的炮，又一次？" in out and "✅" not in out
    assert await table.row_counts() == before  # held, not recorded
    assert "不记（#2 已经记过了）" in await table.say("C: /again no")  # a line sent twice: dropped
    assert await table.balances() == {"A": 0, "B": 34, "C": -34, "D": 0}
    await table.say(win)  # asked again
    assert "✅" in await table.say("B: 再记一次")  # it happened twice: the next hand's win, 34 more
    assert await table.balances() == {"A": 0, "B": 68, "C": -68, "D": 0}
    await table.say("D: /pong A 7p")  # something typed between: a win of the next hand, not asked
    assert "✅" in await table.say(win)
