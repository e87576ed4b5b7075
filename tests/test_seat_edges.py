"""A seat freed by /unseat: the night can still be closed, and the summary lists no nameless player.
Money by hand (nanjing, stake 1): a 跟牌 costs the offender 10 to each of the three others."""

from __future__ import annotations

from tests.kit.harness import Table


async def test_a_night_with_a_freed_seat_can_be_closed_and_reads_without_a_nameless_row(table: Table) -> None:
    table.language = "en"
    await table.say("Alice: /new Alice Bob Carol Dave")
    await table.say("Alice: /penalty follow Dave")  # Dave −30, each other +10
    await table.say("Alice: /draw")  # hand 2: nobody has played in it
    assert "the South seat is free" in await table.say("Alice: /unseat Bob")
    summary = await table.say("Alice: /summary")
    assert "\n: " not in summary and "  : " not in summary  # no row for the empty seat
    assert "Bob: 10 flowers" in summary  # Bob keeps what he made before he left
    assert "closed" in await table.say("Alice: yes")
    assert await table.balances() == {"Alice": 10, "Bob": 10, "Carol": 10, "Dave": -30}


async def test_a_fix_names_who_sat_at_the_corrected_place(table: Table) -> None:
    table.language = "en"
    await table.play("A: /new A B C D\nB: /flowergang\nA: /swap A E")  # #2: 6 from each of three, B +18
    out = await table.say("A: /fix 2 /flowergang E")
    assert "E was not at the table at #2 (that seat was A's)" in out
    assert "✏️" in await table.say("A: /fix 2 /flowergang C")  # C sat there then: C +18, B −6
    assert await table.balances() == {"A": -6, "B": -6, "C": 18, "D": -6, "E": 0}
