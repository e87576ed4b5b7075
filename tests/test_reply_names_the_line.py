"""Every answer that names a line number can be replied to (issue #48, item 1; docs/players.md, "A reply
names the line" and its table of answers): `撤销` sent as a reply to it acts on the line it names as
`/undo N` does, and `改 …` as `/fix N …` does; what cannot be fixed says how to undo it.

The test walks every catalog key whose text names a line number (`#{…}`): each is a row of the docs'
table, and each answer the table says takes a reply is produced here and replied to.

Money by hand (nanjing, stake 1, docs/rules.md §4): a flower gang (花杠) takes 6 from each of the three
others; a 跟牌 costs its offender 10 to each of the three others. A win declared with 3 hard flowers on
a discard, nothing logged (门清 from the log): 跑 20 + 砸 2×3 + 门清 20 = 46, paid by the discarder;
with 跑=10, 36.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

from bot.chat.handlers.common import Replied, Upload
from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from bot.text.replies import Response, render_response
from locales import Translator
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.telegram import ALICE, BOB, CAROL, NEW, Running, balances

CHAT, TELEGRAM = "tg:-100", -100
OPEN = "A: /new A B C D"
_messages = itertools.count(1000)
DOCS = Path(__file__).resolve().parent.parent / "docs" / "players.md"
LOCALES = Path(__file__).resolve().parent.parent / "locales"


class Chat:
    """A group as Telegram has it: each answer kept by its message id, a reply acting on what it names."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.last: int = 0  # the message id of the bot's latest answer

    async def say(self, line: str, reply_to: int | None = None, upload: Upload | None = None) -> str:
        name, _, text = line.partition(": ")
        speaker = Speaker(id=name, name=name, by_name=True)
        replied = Replied(TELEGRAM, reply_to, answer=True) if reply_to is not None else None
        key = f"msg:{next(_messages)}"
        incoming = Incoming(CHAT, speaker, text, key, replied=replied, upload=upload)
        response = await self.referee.handle(incoming)
        return self.kept(response)

    def kept(self, response: Response | None) -> str:
        if response is None:
            return ""
        self.last = next(_messages)
        self.referee.remember_answer(TELEGRAM, self.last, [(response.event_id, response.recorded)])
        return render_response(response, Translator(response.language))

    async def play(self, script: str) -> str:
        return "\n".join([await self.say(line) for line in script.strip().splitlines()])

    async def balances(self) -> dict[str, int]:
        night = await self.referee.night_json(CHAT)
        assert night is not None
        return night["balances"]  # type: ignore[return-value]


@pytest.fixture
def chat(referee: Referee) -> Chat:
    return Chat(referee)


ZERO = {"A": 0, "B": 0, "C": 0, "D": 0}
GANG_D = {"A": -6, "B": -6, "C": -6, "D": 18}
GANG_C = {"A": -6, "B": -6, "C": 18, "D": -6}


# ---- the answers that report the line they recorded ----------------------------------------------


async def test_event_recorded_takes_undo_and_fix(chat: Chat) -> None:
    await chat.play(f"{OPEN}\nD: 花杠")  # ✅ #2
    answer = chat.last
    assert "✏️ #3 更正了 #2" in await chat.say("A: 改 花杠 C", reply_to=answer)  # C's flower gang
    assert await chat.balances() == GANG_C
    # #2 stands as fixed by #3 now: the reply undoes the line with its fix, as `/undo 2` does
    assert "↩️ #4 撤销了 #2（连同更正 #3）" in await chat.say("A: 撤销", reply_to=answer)
    assert await chat.balances() == ZERO
    assert "#2 已经撤销过了" in await chat.say("A: 撤销", reply_to=answer)  # once
    assert await chat.balances() == ZERO


async def test_fix_done_and_undo_done_take_a_reply(chat: Chat) -> None:
    await chat.play(f"{OPEN}\nD: 花杠\nA: 改 2 花杠 C")  # ✏️ #3 更正了 #2
    fixed = chat.last
    assert "↩️ #4 撤销了 #3" in await chat.say("A: 撤销", reply_to=fixed)  # the fix taken back: D's again
    assert await chat.balances() == GANG_D
    undone = chat.last
    out = await chat.say("A: 撤销", reply_to=undone)  # as `/undo 4` says: an undo is not undone
    assert "#4（撤销）不能撤销" in out and await chat.balances() == GANG_D


@pytest.mark.parametrize(
    ("line", "said", "kind"),
    [
        ("A: 改名 D 丁", "✅ #2 D 改名为 丁", "改名"),
        ("A: 改底 2", "✅ #2 改底", "改底"),
        ("A: 换人 D E", "✅ #2 换人", "换人"),
    ],
)
async def test_a_chores_answer_takes_undo_and_its_fix_says_how_to_undo(
    chat: Chat, line: str, said: str, kind: str
) -> None:
    await chat.say(OPEN)
    assert said in await chat.say(line)
    answer = chat.last
    cannot = await chat.say("A: 改 花杠", reply_to=answer)
    assert f"#2（{kind}）不能修改：要改就先撤销它（/undo 2，或回复 撤销）" in cannot
    assert "↩️ #3 撤销了 #2" in await chat.say("A: 撤销", reply_to=answer)


async def test_a_rules_set_answer_is_undone_by_a_reply_and_the_next_win_is_scored_without_it(chat: Chat) -> None:
    await chat.say(OPEN)
    assert "✅ #2 规则改了，从这一盘（第 1 盘）起" in await chat.say("A: /rules set 跑=10")
    answer = chat.last
    cannot = await chat.say("A: 改 /rules set 跑=15", reply_to=answer)
    assert "#2（改规则）不能修改：要改就先撤销它" in cannot
    assert "↩️ #3 撤销了 #2" in await chat.say("A: 撤销", reply_to=answer)
    await chat.say("B: 胡 C 花3")
    assert await chat.balances() == {"A": 0, "B": 46, "C": -46, "D": 0}  # 跑 20 again, not 10 (36)


async def test_a_rules_set_from_the_next_hand_takes_a_reply_too(chat: Chat) -> None:
    await chat.play(f"{OPEN}\nD: 花杠")
    assert "✅ #3 规则改了，从第 2 盘起" in await chat.say("A: /rules set 跑=10")
    assert "↩️ #4 撤销了 #3" in await chat.say("A: /undo", reply_to=chat.last)


async def test_a_rules_files_answer_takes_a_reply(chat: Chat) -> None:
    await chat.say(OPEN)
    text = 'base = "nanjing"\nname = "ours"\n[patterns]\npao = 10\n'
    out = await chat.say("A: /rules", upload=Upload("ours.toml", len(text.encode()), text))
    assert "✅ #2 规则改了" in out
    assert "↩️ #3 撤销了 #2" in await chat.say("A: 撤销", reply_to=chat.last)
    await chat.say("B: 胡 C 花3")
    assert await chat.balances() == {"A": 0, "B": 46, "C": -46, "D": 0}  # 跑 20: the file's 10 undone


# ---- answers that name another line: a reply acts on the line named ------------------------------


async def test_an_undo_asked_to_confirm_is_confirmed_by_a_reply(chat: Chat) -> None:
    await chat.play(f"{OPEN}\nD: 花杠\nA: /pong Q")  # #2, then a line refused, recording nothing
    asked = await chat.say("A: /undo")
    assert "/undo 会撤销 #2" in asked
    assert "↩️ #3 撤销了 #2" in await chat.say("B: 撤销", reply_to=chat.last)
    assert await chat.balances() == ZERO


async def test_already_recorded_names_the_line_a_reply_undoes(chat: Chat) -> None:
    await chat.play(f"{OPEN}\nA: 碰 B 5p")  # #2
    assert "这一条已经记过了：#2" in await chat.say("A: 碰 B 5p")
    assert "↩️ #3 撤销了 #2" in await chat.say("A: 撤销", reply_to=chat.last)


async def test_another_kinds_fix_names_the_line_a_reply_undoes(chat: Chat) -> None:
    await chat.play(f"{OPEN}\nA: 碰 B 5p")  # #2
    assert "#2 是碰" in await chat.say("A: /fix 2 花杠")
    refused = chat.last
    assert "✏️ #3 更正了 #2" in await chat.say("A: 改 碰 C 5p", reply_to=refused)  # the right kind now


@pytest.mark.parametrize(
    ("melds", "win", "said", "meld"),
    [
        ("A: 碰 B 5p", "A: 胡 C 123m 456m 11s 23s [777p] +1s 花2", "不在胡的牌里", 2),  # no [555p] typed
        ("A: 碰 B", "A: 胡 C 123m 456m 11s 23s +1s 花2", "没写是哪张牌", 2),
        ("A: 碰 B 5p", "A: 胡 C 门清 花2", "碰过就不是门清", 2),
        ("A: 碰 B 5p", "A: 胡 C 七对 花2", "有副露就不是七对", 2),
        ("A: 碰 B E", "A: 胡 C 清一色 花2", "是风牌：不能报清一色", 2),
        ("A: 碰 B 5p\nA: 碰 C 5s", "A: 胡 D 清一色 花2", "不是同一门：不能报清一色", 3),
        ("A: 碰 B 5p\nA: 碰 C 5s", "A: 胡 D 混一色 花2", "不是同一门：不能报混一色", 3),
    ],
)
async def test_a_win_refused_for_a_logged_meld_names_the_meld_a_reply_undoes(
    chat: Chat, melds: str, win: str, said: str, meld: int
) -> None:
    await chat.play(f"{OPEN}\n{melds}")
    out = await chat.say(win)
    assert f"#{meld}" in out and said in out
    # the refused win records nothing: the undo is the line after the last meld
    assert f"↩️ #{meld + 1} 撤销了 #{meld}" in await chat.say("A: 撤销", reply_to=chat.last)


async def test_a_fix_that_voids_a_later_declared_win_names_the_win(chat: Chat) -> None:
    # #2 A's pong of 5p from C; #3 B's win declared 门清; making #2 B's pong would void #3's 门清
    await chat.play(f"{OPEN}\nA: 碰 C 5p\nB: 胡 C 门清 花3")
    assert "#3 B 报了门清" in await chat.say("A: 改 2 B 碰 C 5p")
    assert "↩️ #4 撤销了 #3" in await chat.say("A: 撤销", reply_to=chat.last)


async def test_a_fix_naming_who_was_not_seated_then_names_the_line(chat: Chat) -> None:
    await chat.play(f"{OPEN}\nD: 花杠\nA: 换人 D E")  # #2 D's flower gang, #3 E takes D's seat
    assert "#2 那时 E 还不在桌上" in await chat.say("A: 改 2 E 花杠")
    assert "↩️ #4 撤销了 #2" in await chat.say("A: 撤销", reply_to=chat.last)


async def test_a_fix_that_breaks_a_later_line_names_it(chat: Chat) -> None:
    # #2 A's pong of 5p from B, #3 A's added gang of it; a fix of #2 to a pong of 6p breaks #3
    await chat.play(f"{OPEN}\nA: 碰 B 5p\nA: 补杠 5p")
    assert "#3 就不成立了" in await chat.say("A: 改 2 碰 B 6p")
    assert "↩️ #4 撤销了 #3" in await chat.say("A: 撤销", reply_to=chat.last)


async def test_an_undo_of_a_superseded_version_names_the_one_in_force(chat: Chat) -> None:
    await chat.play(f"{OPEN}\nD: 花杠\nA: 改 2 花杠 C\nA: 改 3 花杠 B")  # #2 D's, #3 C's, #4 B's (in force)
    out = await chat.say("A: /undo 3")
    assert "#3 已由 #4 更正" in out and "现在算的是 #4" in out
    assert "↩️ #5 撤销了 #4" in await chat.say("A: 撤销", reply_to=chat.last)
    assert await chat.balances() == GANG_C  # #3 stands again: C's flower gang


# ---- a question names the line it is about: a reply acts on that line ------------------------------


async def test_a_repeat_question_names_the_line_it_repeats(chat: Chat) -> None:
    await chat.play(f"{OPEN}\nD: 花杠")  # #2
    assert "和 #2 一样：D 花杠，又一次？" in await chat.say("D: 花杠")
    out = await chat.say("A: 撤销", reply_to=chat.last)  # the flower gang was never: #2 goes
    assert "↩️ #3 撤销了 #2" in out and await chat.balances() == ZERO
    assert "#2 已经撤销了" in await chat.say("A: /again q1")  # and the question with it


async def test_a_same_discard_question_names_the_win(chat: Chat) -> None:
    await chat.play(f"{OPEN}\nB: 胡 C 花3")  # #2: C pays B 46
    assert "和 #2 同一张牌吗" in await chat.say("D: 胡 C 花3")
    assert "✏️ #3 更正了 #2" in await chat.say("A: 改 B 胡 C 花4", reply_to=chat.last)
    # #2 with 4 hard flowers: 20 + 2×4 + 门清 20 = 48 from C; D's claim still held, nothing of it paid
    assert await chat.balances() == {"A": 0, "B": 48, "C": -48, "D": 0}


async def test_a_retyped_win_question_names_the_win(chat: Chat) -> None:
    await chat.play(f"{OPEN}\nB: 胡 C 清一色 花3")  # #2: 20 + 6 + 门清 20 + 清一色 60 = 106 from C
    assert "这一条是改 #2" in await chat.say("B: 胡 C 花3")
    assert "↩️ #3 撤销了 #2" in await chat.say("C: 撤销", reply_to=chat.last)
    assert await chat.balances() == ZERO


# ---- the docs' table: every answer naming a line number, answer by answer -------------------------

# what a reply does to each answer naming a line number, as the docs' table says it
TAKES_A_REPLY = {
    "event.recorded": test_event_recorded_takes_undo_and_fix,
    "fix.done": test_fix_done_and_undo_done_take_a_reply,
    "undo.done": test_fix_done_and_undo_done_take_a_reply,
    "undo.done_whole": test_event_recorded_takes_undo_and_fix,
    "undo.superseded": test_an_undo_of_a_superseded_version_names_the_one_in_force,
    "rename.done": test_a_chores_answer_takes_undo_and_its_fix_says_how_to_undo,
    "stake.done": test_a_chores_answer_takes_undo_and_its_fix_says_how_to_undo,
    "swap.done": test_a_chores_answer_takes_undo_and_its_fix_says_how_to_undo,
    "house.set_done": test_a_rules_set_from_the_next_hand_takes_a_reply_too,
    "house.set_done_now": test_a_rules_set_answer_is_undone_by_a_reply_and_the_next_win_is_scored_without_it,
    "undo.confirm": test_an_undo_asked_to_confirm_is_confirmed_by_a_reply,
    "event.already_recorded": test_already_recorded_names_the_line_a_reply_undoes,
    "fix.other_kind": test_another_kinds_fix_names_the_line_a_reply_undoes,
    "fix.not_fixable_undo": test_a_chores_answer_takes_undo_and_its_fix_says_how_to_undo,
    "win.logged_meld_missing": test_a_win_refused_for_a_logged_meld_names_the_meld_a_reply_undoes,
    "win.logged_meld_tile_unknown": test_a_win_refused_for_a_logged_meld_names_the_meld_a_reply_undoes,
    "win.declared_menqing": test_a_win_refused_for_a_logged_meld_names_the_meld_a_reply_undoes,
    "win.declared_seven_pairs": test_a_win_refused_for_a_logged_meld_names_the_meld_a_reply_undoes,
    "win.declared_qingyise_wind": test_a_win_refused_for_a_logged_meld_names_the_meld_a_reply_undoes,
    "win.declared_qingyise_suits": test_a_win_refused_for_a_logged_meld_names_the_meld_a_reply_undoes,
    "win.declared_hunyise_suits": test_a_win_refused_for_a_logged_meld_names_the_meld_a_reply_undoes,
    "fix.breaks_declared": test_a_fix_that_voids_a_later_declared_win_names_the_win,
    "fix.not_seated_then": test_a_fix_naming_who_was_not_seated_then_names_the_line,
    "repeat.ask": test_a_repeat_question_names_the_line_it_repeats,
    "hu.same_discard": test_a_same_discard_question_names_the_win,
    "hu.retyped": test_a_retyped_win_question_names_the_win,
    "fix.breaks_later": test_a_fix_that_breaks_a_later_line_names_it,
}


def catalog_keys_naming_a_line() -> set[str]:
    """The chat's answers that name a line. The Mini App page's words (pad.po, `app.pad.*`) are shown
    in the page, never sent into the chat, so there is no message of theirs to reply to."""
    keys: set[str] = set()
    for path in LOCALES.glob("*/LC_MESSAGES/*.po"):  # every language: a key naming a number in any
        if path.stem == "pad":
            continue
        with path.open("rb") as file:
            keys |= {str(m.id) for m in read_po(file) if m.id and re.search(r"#\{\w+\}", str(m.string))}
    return keys


def docs_table() -> dict[str, str]:
    """The table of answers under "A reply names the line": key → what a reply to it does."""
    text = DOCS.read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([\w.]+)` \| [^|]* \| ([^|]*) \|$", text, re.MULTILINE)
    return {key: does.strip() for key, does in rows}


def test_every_answer_naming_a_line_number_is_in_the_docs_table() -> None:
    table = docs_table()
    assert sorted(catalog_keys_naming_a_line() - set(table)) == []
    assert sorted(set(table) - catalog_keys_naming_a_line()) == []


def test_each_answer_the_table_says_takes_a_reply_is_tested() -> None:
    takes = {key for key, does in docs_table().items() if does.startswith("acts on")}
    assert takes == set(TAKES_A_REPLY)


# ---- through Telegram: the answer kept by its message id, the reply read from the update ------------


def bot_message(fake: FakeTelegram, shows: str) -> dict[str, Any]:
    """The bot's latest message showing `shows`, as Telegram returned it to the bot."""
    call = next(c for c in reversed(fake.sent()) if shows in str(c.params.get("text", "")))
    result: dict[str, Any] = call.params["_result"]
    return result


async def test_a_reply_to_a_rules_change_and_to_a_refusal_through_telegram(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        assert "✅ #2 规则改了" in await bot.say(ALICE, "/rules set 跑=10")
        rules = bot_message(fake, "规则改了")  # the bot's answer, not Alice's line
        assert "↩️ #3 撤销了 #2" in await bot.say(ALICE, "撤销", reply_to=rules)
        await bot.say(ALICE, "碰 bob 5p")  # #4
        assert "已经记过了：#4" in await bot.say(ALICE, "碰 bob 5p")
        refusal = bot_message(fake, "已经记过了")
        assert "↩️ #5 撤销了 #4" in await bot.say(BOB, "/undo", reply_to=refusal)
        await bot.say(CAROL, "胡 dave 花3")  # 跑 20 again: 20 + 2×3 + 门清 20 = 46 from Dave
    assert await balances(db) == [0, 0, 46, -46]
