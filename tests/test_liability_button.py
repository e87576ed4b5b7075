"""快照's fourth mouth ends the hand at once: the prompt gives the line to send, and a button sends it;
the hard flowers are asked next, one button per count (RULES §8 快照). Nanjing, A deals.

B takes three mouths from C (1m, E, 9p), then C feeds the fourth (5s): B wins at once as 对对胡 +
全球独钓 and C pays all three. With 1 hard flower and the log's 风碰 1 (the E pong):
20 + 对对胡 40 + 全球独钓 60 + 2×(1 + 1) = 124; C pays 3 × 124 = 372."""

from __future__ import annotations

from pathlib import Path

from bot.text.replies import Response, render
from locales import Translator
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.telegram import ALICE, BOB, Running, balances, buttons


def labels(response: Response | None) -> dict[str, str]:
    assert response is not None
    translator = Translator(response.language)
    return {render(c.label, translator): c.command for c in response.choices}


async def fourth_mouth(table: Table) -> Response | None:
    await table.say("/new A B C D")
    for line in ("B: 碰 C 1m", "B: 碰 C E", "B: 碰 C 9p"):
        await table.say(line)
    return await table.respond("B: 碰 C 5s")


async def test_the_prompt_has_a_button_that_sends_its_line(table: Table) -> None:
    prompt = await fourth_mouth(table)
    assert prompt is not None and prompt.recorded
    line = labels(prompt)["记下 B 这一把"]
    counts = await table.respond(f"B: {line}")  # pressing it: the count is all that is missing
    assert counts is not None and counts.refused and not counts.recorded
    assert list(labels(counts)) == [str(n) for n in range(9)]
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}  # nothing recorded before the count
    out = await table.say(f"B: {labels(counts)['1']}")
    assert "✅" in out and "C → B：372 花（372）" in out
    assert await table.balances() == {"A": 0, "B": 372, "C": -372, "D": 0}
    # /history shows the event the button's line stands for, not its seat token
    history = await table.say("A: /history")
    assert "#6 [第1盘] 胡：B 自摸（B）" in history and "#1" not in history.split("#6", 1)[1]


async def test_in_english(table: Table) -> None:
    await table.say("/lang en")
    prompt = await fourth_mouth(table)
    button = labels(prompt)["Record B's win"]
    counts = await table.respond(f"B: {button}")
    await table.say(f"B: {labels(counts)['1']}")
    assert await table.balances() == {"A": 0, "B": 372, "C": -372, "D": 0}


async def test_any_win_typed_without_its_count_is_offered_the_counts(table: Table) -> None:
    await table.say("/new A B C D")
    counts = await table.respond("B: 胡 自摸 清一色")
    assert counts is not None and counts.refused
    assert labels(counts)["2"] == "胡 自摸 清一色 花2"
    await table.say(f"B: {labels(counts)['2']}")
    # 20 + 2×2 + 门清 20 + 清一色 60 = 104 from each of three
    assert await table.balances() == {"A": -104, "B": 312, "C": -104, "D": -104}


async def test_the_buttons_through_telegram(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        for tile in ("1m", "E", "9p"):
            await bot.say(BOB, f"/pong carol {tile}")
        await bot.say(BOB, "/pong carol 5s")
        await bot.press(BOB, buttons(fake)["记下 bob 这一把"])
        await bot.press(BOB, buttons(fake)["1"])
    # as above: carol pays bob 372
    assert await balances(db) == [0, 372, -372, 0]
