"""A night that reads in one glance (issue #41 item 2): with the board pinned, an 8-hand night puts at
most 80 lines in the group; a win is at most three lines in every language (what the pinned board
shows — the next dealer, 连庄 — is not said again); the summary's caption is who pays whom; the 🔗
line is said once per person in a chat, not every night; and no trigger is named twice.

Money, worked by hand from docs/rules.md (nanjing: 跑 20, 砸 2 a flower, 门清 20, 大杠开花 40, each
gang the winner made 2 soft flowers; §8 一炮多响: the discarder pays each winner his own total):
- B wins on C's discard with `11s 234m 567m 345p 88p +8p` and 4 hard flowers: all three suits, a
  two-way wait (1s or 8p): 20 + 2 × 4 + 门清 20 = 48 from C.
- D wins on the same discard with `123m 456m 789s 99s 67p +8p` and 2: a two-sided wait (5p or 8p),
  all three suits: 20 + 2 × 2 + 20 = 44 from C. The hand makes the next one 比下胡, so the dealer A
  stays (§8): the pinned board says so, the reply does not.
- B's exposed gang of 6p on C's discard, then B wins on the tile drawn after it (大杠开花) with
  `123s 456s 78m 99p [6666p] +9m` and 4 hard flowers: 20 + 2 × (4 + gang 2) + 门清 20 (an exposed
  gang keeps it) + 40 = 92; C fed the gang, so C pays all three shares (包牌): 3 × 92 = 276.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.text.replies import Response, render
from locales import Translator
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.messages import rendered, says
from tests.kit.night_lines import CHEN, EN_NIGHT, LI, WANG, ZH_NIGHT, ZHANG, night_in_process
from tests.kit.telegram import Running

MOST_LINES = 80  # the whole night, setup and end included
MOST_WIN_LINES = 3


def live_lines(response: Response | None) -> list[str]:
    """A recorded line's reply where the chat's board is pinned (Telegram's `live` form), its lines."""
    assert response is not None and response.live is not None
    translator = Translator(response.language)
    return [line for reply in response.live for line in render(reply, translator).splitlines() if line.strip()]


def render_all(response: Response) -> list[str]:
    translator = Translator(response.language)
    return [line for reply in response.replies for line in render(reply, translator).splitlines()]


def board_sum(board: str) -> int:
    """The flowers of every line of a board (`  东 张伟：40 花（40 元）`, `  East Ben: 40 flowers (…)`)."""
    return sum(int(m) for m in re.findall(r"[：:] (-?\d+) (?:花|flowers)", board))


@pytest.mark.parametrize("night", [ZH_NIGHT, EN_NIGHT], ids=["zh-Hans", "en"])
async def test_an_eight_hand_night_with_the_board_pinned_is_at_most_80_lines(night: tuple, tmp_path: Path) -> None:
    tally = await night_in_process(night, tmp_path / "night.sqlite3")
    assert not tally.refused, tally.refused  # every button the table tapped was there
    assert tally.total <= MOST_LINES, (dict(tally.lines), "\n\n".join(text for _, _, text in tally.messages))
    for step in night:  # every line of a hand recorded (a 🔗 line may come first)
        if step.part == "hands" and step.who is not None:
            assert any(text.startswith("✅ #") or "\n✅ #" in text for text in tally.answers(step.line)), step
    wins = tally.wins(night)
    assert len(wins) == 8  # eight hands: seven won (one by two players on one discard: two lines), one drawn
    assert all(len(win.split("\n")) <= MOST_WIN_LINES for win in wins), wins
    assert board_sum(tally.board) == 0  # money never appears or vanishes
    language = "en" if night is EN_NIGHT else "zh-Hans"
    (summary,) = [text for _, typed, text in tally.messages if typed in ("结算", "summary")]
    assert Translator(language).n("summary.transfers_header", 3) in summary  # 3 transfers settle four balances
    assert says(summary, "summary.confirm", language)
    assert not says(summary, "summary.rank", language)  # the pinned board shows the standing


async def test_a_second_winner_is_three_lines_and_leaves_the_next_dealer_to_the_board(table: Table) -> None:
    await table.play("/new A B C D\n/lang en")
    await table.say("B: hu C 11s 234m 567m 345p 88p +8p flowers=4")
    second = await table.respond("D: hu C 123m 456m 789s 99s 67p +8p flowers=2 also")
    assert live_lines(second) == [
        "✅ #3 D won on C's discard · same discard as #2 · a mistake? /fix N <corrected line>",
        "  base 20, hard flowers ×2 4, concealed hand 20 = 44 flowers",
        "  C → D: 44 flowers (44) · ⚠️ next hand is doubled (×2): #2 B, D several winners",
    ]
    assert second is not None and any(reply.key == "table.dealer_stays" for reply in second.replies)  # unpinned: said
    # B 48, D 44, both from C
    assert await table.balances() == {"A": 0, "B": 48, "C": -92, "D": 44}


@pytest.mark.parametrize("language", ["zh-Hans", "zh-Hant", "en"])
async def test_a_win_is_at_most_three_lines_in_every_language(table: Table, language: str) -> None:
    await table.play(f"/new A B C D\n/lang {language}\nB: /gang C 6p")
    gang_win = await table.respond("B: /hu self after-gang 123s 456s 78m 99p [6666p] +9m flowers=4")
    assert len(live_lines(gang_win)) <= MOST_WIN_LINES
    await table.say("C: /hu D 11s 234m 567m 345p 88p +8p flowers=4")  # hand 2 (doubled): one winner …
    second = await table.respond("A: /hu D 123m 456m 789s 99s 67p +8p flowers=2 also")  # … and a second
    assert len(live_lines(second)) <= MOST_WIN_LINES
    assert live_lines(second)[0].endswith(rendered("compact.merged", language, id=4))


async def test_a_gang_win_names_its_trigger_once_and_its_liability_once(table: Table) -> None:
    await table.play("/new A B C D\nB: /gang C 6p")
    gang_win = await table.respond("B: 杠开 123s 456s 78m 99p [6666p] +9m 花4")
    assert live_lines(gang_win) == [
        "✅ #3 B 自摸 · " + rendered("compact.fix_tip"),
        "  跑20 硬花×4 8 明杠×1 4 门清20 大杠开花40 = 92 花 · 包牌：C 付三家",  # one 明杠: 2 soft, 砸 ×2
        "  C → B：276 花（276） · ⚠️ 下一盘比下胡（×2）：#3 B 大杠开花、包牌",
    ]
    assert gang_win is not None  # where the board is not pinned, the warning names each once too
    warning = [line for line in render_all(gang_win) if "⚠️" in line]
    assert warning == ["⚠️ 下一盘比下胡（×2）：#3 B 大杠开花、包牌"]
    # B: gang money 6 from C, then 276 from C: 282; C −282
    assert await table.balances() == {"A": 0, "B": 282, "C": -282, "D": 0}


async def test_where_the_board_is_pinned_the_summary_is_who_pays_whom_in_money(table: Table) -> None:
    """A night of two stakes (docs/rules.md 17d): the transfers are money, the header names each stake."""
    await table.say("/lang en")
    await table.play(
        "/new Alice Bob Carol Dave stake=2\n"
        "Bob: /hu Carol 11p 567s 79s [EEE] [444p] +8s flowers=4\n"  # 34 flowers from Carol, at 2: 68
        "/stake 1\n"
        "Carol: /hu Dave 123m 456m 789m 234p 5p +5p flowers=2"  # 46 from Dave, at 1: 46
    )
    response = await table.respond("/summary")
    assert response is not None and response.live is not None
    shown = [render(reply, Translator("en")) for reply in response.live]
    # money: Bob 68, Alice 0, Carol −68 + 46 = −22, Dave −46: Dave pays Bob 46, Carol pays Bob 22
    assert shown[0] == "🏁 night 1: 2 hands, preset nanjing, stake 2 (hand 1), 1 (from hand 2)"
    assert sorted(shown[2:4]) == ["  Carol → Bob: 22", "  Dave → Bob: 46"]
    assert len(shown) == 5 and shown[1] == Translator("en").n("summary.transfers_header", 2)
    assert says(shown[4], "summary.confirm", "en")
    assert len(response.replies) == 5 + 4 + 4  # the console (no pinned board): the standing and each one's figures


async def test_the_seat_is_said_once_per_person_in_a_chat_across_nights(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "chat.sqlite3"
    async with Running(fake, db, board_interval=0.0) as bot:
        await bot.say(ZHANG, "/new 张伟 李娜 王芳 陈静")
        first = await bot.say(LI, "碰 王芳 7p")
        assert says(first, "telegram.claimed", name="李娜")  # her first line: the account took her seat
        assert not says(await bot.say(LI, "碰 陈静 8p"), "telegram.claimed")
        await bot.say(ZHANG, "结算")
        await bot.say(ZHANG, "确认")
    async with Running(fake, db, board_interval=0.0) as bot:  # another night, after a restart
        await bot.say(ZHANG, "/new 张伟 李娜 王芳 陈静")
        again = await bot.say(LI, "碰 王芳 7p")
        assert not says(again, "telegram.claimed") and "✅ #2 李娜 碰 王芳 7p" in again  # bound, not said
        assert says(await bot.say(WANG, "杠 陈静 5s"), "telegram.claimed", name="王芳")  # his first time here
        tapped = await bot.say(CHEN, "我是 陈静")  # asked for: answered every time
        assert says(tapped, "telegram.claimed", name="陈静")
