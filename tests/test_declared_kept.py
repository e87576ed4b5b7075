"""The declared-pattern check (decision 6a) runs where a line is new — a typed win, a /fix — and when a
correction would contradict a later declared win, which refuses the correction and names that win. It
never runs when a stored night is folded again: a stored win is never dropped. Money by hand from
docs/rules.md (nanjing, stake 1). Seats: A East (first dealer), B, C, D."""

from __future__ import annotations

from bot.chat.service import Referee
from bot.night.codec import Fix, encode_fix
from bot.store.rows import NewEvent
from engine.events import Pong, Win
from engine.notation import parse_tile
from tests.kit.harness import Table

# A wins on D's discard, declared 清一色 with 2 hard flowers, after two pongs of 筒:
# 20 + 清一色 60 + 2×2 = 84 from D (pongs break 门清; the dealer's win doubles nothing this hand).
WIN = "A: 胡 D 清一色 花2"


async def test_a_correction_that_contradicts_a_later_declared_win_is_refused_and_names_it(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("A: 碰 B 7p")  # #2
    await table.say("A: 碰 C 8p")  # #3
    await table.say(WIN)  # #4
    assert await table.balances() == {"A": 84, "B": 0, "C": 0, "D": -84}
    before = await table.row_counts()
    out = await table.say("A: 改 3 碰 C 6s")  # a 条 pong would void the 清一色 declared at #4
    assert "#4 A 报了清一色，这样改了以后不成立（碰 6s）：先撤销或更正 #4。什么都没有记录。" in out
    assert await table.row_counts() == before
    assert await table.balances() == {"A": 84, "B": 0, "C": 0, "D": -84}
    # a correction the win survives goes through: 9p keeps one suit
    assert "✏️" in await table.say("A: 改 3 碰 C 9p")
    assert await table.balances() == {"A": 84, "B": 0, "C": 0, "D": -84}


async def test_in_english_too(table: Table) -> None:
    await table.say("/lang en")
    await table.say("/new A B C D")
    await table.say("A: /pong B 7p")  # #2
    await table.say("A: /hu D 清一色 flowers=2")  # #3
    out = await table.say("A: /fix 2 /pong B E")
    assert "#3: A declared full flush, which this correction would contradict (pong E)" in out


async def test_a_new_line_is_still_checked(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("A: 碰 B E")  # #2, a wind pong
    out = await table.say(WIN)
    assert "#2 碰 东 是风牌：不能报清一色" in out
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}


async def test_a_stored_declared_win_is_kept_when_the_night_is_folded_again(table: Table, referee: Referee) -> None:
    await table.say("/new A B C D")
    await table.say("A: 碰 B")  # #2, no tile: says nothing about suits
    await table.say(WIN)  # #3: 20 + 60 + 2×2 = 84 from D (the tile-less pong breaks 门清)
    # An older ledger corrected the pong to a wind pong without the check (written here directly)
    night = await referee.nights.latest(table.chat_id)
    assert night is not None
    fix = NewEvent(2, "fix", 0, encode_fix(Fix(Pong(0, 1, parse_tile("E")))), (), 2)
    await referee.nights.ledger.append(table.chat_id, night.id, "A", "old fix", None, 100, [fix])
    referee.nights.forget(table.chat_id)  # as a restart: the night is folded again from the ledger
    night = await referee.nights.latest(table.chat_id)
    assert night is not None
    wins = [p for p in night.whole_fold().played if isinstance(p.event, Win)]
    assert len(wins) == 1 and wins[0].place == 3  # the win is still played, not dropped
    assert night.state.hand_no == 2  # and its hand closed
    assert "第 2 盘" in await table.say("/score")
    assert await table.balances() == {"A": 84, "B": 0, "C": 0, "D": -84}
