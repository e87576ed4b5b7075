"""/history pages: a long night is shown 15 lines a page, the latest first, each page saying where it is.

Every line recorded here is a custom penalty of 5 on Bob; the tests are about the log, not the money.
"""

from __future__ import annotations

from bot.telegram.delivery import MESSAGE_LIMIT
from tests.kit.harness import Table

OPEN = "/new Alice Bob Carol Dave"


async def record_penalties(table: Table, count: int) -> None:
    for _ in range(count):
        assert "#" in await table.say("/penalty Bob 5")


async def test_a_long_history_is_paged_latest_first(table: Table) -> None:
    table.language = "en"
    await table.say(OPEN)
    await record_penalties(table, 30)  # #1 the opening, #2..#31 the penalties: pages #17-#31, #2-#16, #1
    first = await table.say("/history")
    assert "page 1 of 3 — /history 2 for more" in first
    assert "#31 " in first and "#17 " in first and "#16 " not in first
    second = await table.say("/history 2")
    assert "page 2 of 3 — /history 3 for more" in second
    assert "#16 " in second and "#2 " in second and "#17 " not in second and "#1 " not in second
    last = await table.say("/history 3")
    assert "page 3 of 3" in last and "for more" not in last and "#1 " in last and "#2 " not in last


async def test_a_page_stays_well_under_a_telegram_message(table: Table) -> None:
    await table.say(OPEN)
    await record_penalties(table, 20)
    assert len(await table.say("/history")) < MESSAGE_LIMIT // 2


async def test_a_short_history_has_no_page_line(table: Table) -> None:
    table.language = "en"
    await table.say(OPEN)
    await record_penalties(table, 3)
    assert "page" not in await table.say("/history")


async def test_the_plain_word_takes_a_page_too(table: Table) -> None:
    await table.say(OPEN)
    await record_penalties(table, 15)  # #1 the opening and 15 penalties: page 2 is #1 alone
    assert "第 2 页，共 2 页" in await table.say("记录 2")
    table.language = "zh-Hant"
    assert "第 1 頁，共 2 頁 — 發 /history 2 看更早的" in await table.say("記錄")


async def test_a_page_past_the_end_or_not_a_number_is_refused_with_the_right_form(table: Table) -> None:
    table.language = "en"
    await table.say(OPEN)
    await record_penalties(table, 3)
    before = await table.row_counts()
    assert "there is no page 2: the history has 1" in await table.say("/history 2")
    refused = await table.say("/history all")
    assert "history takes a page number, e.g. /history 2: all" in refused and "how to write it" in refused
    assert "history takes a page number" in await table.say("/history 0")
    assert await table.row_counts() == before
