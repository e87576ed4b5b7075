"""Undo (a correction is a new event): the last event, by number, and never an undo itself."""

from __future__ import annotations

from tests.kit.harness import Table

NEW = "/new Alice Bob Carol Dave preset=nanjing stake=2"
ZERO = {"Alice": 0, "Bob": 0, "Carol": 0, "Dave": 0}


async def test_an_undo_cannot_be_undone_and_the_next_undo_reaches_past_it(table: Table) -> None:
    # #1 the night, #2 Carol's concealed gang (3 from each: Carol +9), #3 Alice's flower gang (6 from
    # each: Alice +18), #4 the undo of #3.
    await table.play(f"{NEW}\nCarol: /gang self 3m\nAlice: /flowergang")
    assert "#3" in await table.say("Alice: /undo")
    after_gang = {"Alice": -3, "Bob": -3, "Carol": 9, "Dave": -3}
    assert await table.balances() == after_gang
    refused = await table.say("Alice: /undo 4")
    assert "#4（撤销）不能撤销" in refused  # undo.not_undoable
    assert await table.balances() == after_gang
    assert "#3 已经撤销过了" in await table.say("Alice: /undo 3")  # undo.already_undone
    assert await table.balances() == after_gang
    # The next plain undo would take the last event still standing: the gang #2, not the undo #4. The
    # line before it recorded nothing (a refusal), so it names #2 and asks; its button undoes #2.
    asked = await table.respond("Alice: /undo")
    assert asked is not None and not asked.recorded and [c.command for c in asked.choices] == ["/undo 2"]
    assert await table.balances() == after_gang
    assert "撤销了 #2" in await table.say(f"Alice: {asked.choices[0].command}")
    assert await table.balances() == ZERO
    assert "没有可以撤销的记录" in await table.say("Alice: /undo")  # undo.nothing
    assert await table.balances() == ZERO
