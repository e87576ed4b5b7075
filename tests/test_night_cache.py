"""The night cache is bounded: nights leave it least recently used first, a closed night leaves it
once answered, and a night read again from the ledger is the same night (the ledger is the truth)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.chat.service import Referee
from bot.night import night as night_module
from bot.store.ledger import Ledger
from bot.views import plot
from tests.kit.harness import Table

# docs/rules.md §settlement: a 花杠 by A — each other seat pays A 6 flowers. 底 1: 1 元 a flower.
OPENING = "张三: 开局 张三 李四 王五 赵六"


async def test_the_cache_holds_at_most_its_budget_and_keeps_the_chat_in_use(referee: Referee) -> None:
    referee.nights.budget = 10  # events held: about three short nights
    tables = [Table(referee, f"chat-{n}") for n in range(6)]
    for table in tables:
        await table.play(f"{OPENING}\n王五: 花杠")
    assert referee.nights.held() <= 10
    assert referee.nights.cached("chat-5")  # the chat used last stays
    assert not referee.nights.cached("chat-0")  # the least recently used left first
    # chat-0 speaks again: its night is read from the ledger, and the oldest other one leaves
    await tables[0].say("张三: /score")
    assert referee.nights.cached("chat-0") and referee.nights.held() <= 10


async def test_a_night_evicted_and_read_again_answers_the_same(referee: Referee) -> None:
    table = Table(referee, "chat")
    # 王五 花杠: +6 from each of three = +18; 李四 花杠: +18, and 6 of it from 王五:
    # 王五 18 − 6 = +12, 李四 −6 + 18 = +12, 张三 and 赵六 −6 − 6 = −12 each
    await table.play(f"{OPENING}\n王五: 花杠\n李四: 花杠")
    questions = ("张三: /score", "张三: /history", "张三: /me")
    cached = [await table.say(q) for q in questions]
    money = await table.balances()
    assert money == {"张三": -12, "李四": 12, "王五": 12, "赵六": -12}
    referee.nights.forget("chat")
    assert not referee.nights.cached("chat")
    assert [await table.say(q) for q in questions] == cached
    assert await table.balances() == money
    # and a night evicted by the budget (another chat used since) too
    referee.nights.budget = 1
    await Table(referee, "other").play(OPENING)
    assert not referee.nights.cached("chat")
    assert [await table.say(q) for q in questions] == cached
    assert await table.balances() == money


async def test_nights_read_again_share_their_rules_even_when_none_is_cached(referee: Referee) -> None:
    """A restart reads every chat's night anew: one preset of the same rules for all of them (reading
    one costs a millisecond and holds 13 KB), not one each."""
    for chat in ("chat-0", "chat-1"):
        await Table(referee, chat).play(f"{OPENING}\n王五: 花杠")
        referee.nights.forget(chat)
    first = await referee.nights.latest("chat-0", history=False)
    referee.nights.forget("chat-0")  # nothing cached plays these rules now
    second = await referee.nights.latest("chat-1", history=False)
    assert first is not None and second is not None and first is not second
    assert second.preset is first.preset and second.row.preset_json is first.row.preset_json


async def test_a_closed_night_leaves_the_cache(referee: Referee) -> None:
    table = Table(referee, "chat")
    await table.play(f"{OPENING}\n王五: 花杠")
    assert referee.nights.cached("chat")
    before = await table.say("张三: /score")
    await table.play("张三: 结算\n张三: 确认")
    assert not referee.nights.cached("chat")
    # asked again, it is read from the ledger and leaves again: 王五 +18 (6 from each of three)
    after = await table.say("张三: /score")
    assert "王五：18 花" in after and not referee.nights.cached("chat")
    assert after.split("\n")[-5:] == before.split("\n")[-5:]


async def test_a_chart_is_drawn_once_a_version(ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[int] = []

    def draw(chart: plot.LineChart, image_format: str) -> bytes:
        drawn.append(len(chart.xs))
        return f"chart {len(drawn)}".encode()

    monkeypatch.setattr(plot, "draw", draw)
    table = Table(Referee(ledger, rules_dir=tmp_path, charts_enabled=True), "chart-chat")
    await table.play(f"{OPENING}\n王五: 花杠")

    async def chart() -> bytes:
        response = await table.respond("张三: /summary")
        assert response is not None
        return response.attachments[0].data

    first = await chart()
    assert await chart() == first and len(drawn) == 1  # nothing recorded since: the same chart
    await table.say("李四: 花杠")
    assert await chart() != first and len(drawn) == 2  # a new event: drawn again


async def test_a_full_night_refuses_table_events_and_still_closes(
    referee: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(night_module, "MAX_NIGHT_EVENTS", 3)  # the opening's join rows count too
    table = Table(referee, "full")
    await table.play(OPENING)
    rows = (await table.row_counts())[1]
    monkeypatch.setattr(night_module, "MAX_NIGHT_EVENTS", rows + 1)
    assert "✅" in await table.say("王五: 花杠")  # the last row it takes: 王五 +18
    refused = await table.say("李四: 花杠")
    assert "满了" in refused and "/new" in refused
    assert (await table.row_counts())[1] == rows + 1  # nothing written
    referee.nights.forget("full")  # from its checkpoint after a restart: counted in the ledger
    assert "满了" in await table.say("李四: 花杠")
    assert await table.balances() == {"张三": -6, "李四": -6, "王五": 18, "赵六": -6}
    await table.play("张三: 结算\n张三: 确认")  # closing still goes through
    assert "/reopen" in await table.say("张三: /score")
