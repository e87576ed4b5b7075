"""Hardening: a name that looks like another, turns the screen around or is a spreadsheet formula."""

from __future__ import annotations

import csv
import io

from tests.kit.harness import Table


async def test_a_formula_name_is_exported_as_text(table: Table) -> None:
    evil = '=HYPERLINK("http://evil.example/")'
    await table.play(f"/new A B C {evil}\nA: /gang #3 5s")
    response = await table.respond("/export")
    assert response is not None
    rows = list(csv.DictReader(io.StringIO(response.attachments[0].data.decode("utf-8-sig"))))
    gang = [row for row in rows if row["payer"]][-1]
    # a leading quote: the spreadsheet shows the text and evaluates nothing (A ganged the north
    # discard: the newcomer pays)
    assert gang["payer"] == "'" + evil and gang["payee"] == "A"
    assert not any(value.startswith(("=", "+", "@", "\t")) for row in rows for value in row.values() if value)


async def test_a_leading_minus_or_plus_in_a_text_cell_is_neutralised_but_amounts_stay_numbers(table: Table) -> None:
    await table.play("/new A B C D\n换人 D -1+1\n-1+1: /gang A 5s")
    response = await table.respond("/export")
    assert response is not None
    rows = [r for r in csv.DictReader(io.StringIO(response.attachments[0].data.decode("utf-8-sig"))) if r["payer"]]
    # an exposed gang is 6 from the discarder: A pays the newcomer 6
    assert rows[-1]["payee"] == "'-1+1" and rows[-1]["amount"] == "6"


async def test_a_zero_width_space_does_not_make_a_second_player(table: Table) -> None:
    out = await table.say("/new Bob Bob\u200b C D")
    assert "名字重复了" in out  # Bob and Bob + U+200B are one name


async def test_a_zero_width_name_refers_to_the_seated_player(table: Table) -> None:
    await table.play("/new Bob Carol Dave Eve")
    await table.say("Bob\u200b: /gang Carol 5s")
    balances = await table.balances()
    # Bob's exposed gang on Carol's discard: Carol pays Bob 6
    assert balances["Bob"] == 6 and balances["Carol"] == -6


async def test_a_right_to_left_override_is_stripped_from_a_name(table: Table) -> None:
    await table.play("/new A B C D\n换人 D \u202eEve")
    night = await table.night()
    assert "\u202e" not in str(night) and "Eve" in str(night)


async def test_a_name_empty_after_stripping_is_refused_in_every_language(table: Table) -> None:
    await table.play("/new A B C D")
    out = await table.say("换人 D \u200b\u202e")
    assert "U+200B" in out and "空的" in out and "什么都没记" in out
    assert "\u202e" not in out
    await table.say("/lang en")
    out = await table.say("/swap D \u200b")
    assert "empty once invisible characters are removed" in out
    assert "D" in (await table.balances())  # nothing changed: D still sits
