"""A night's rows stay within its bound and a small margin, corrections included (issue #39, item 5).

Past the bound (MAX_NIGHT_EVENTS rows) a table event is refused with "this night is full"; a
correction or a chore still goes through for ROW_MARGIN rows more, then gets the same answer, and
nothing is written. A line an /undo took out does not count: typed again, it fits. Both are set
small here (the night's rows after its opening, plus one) so the night stays short.

Money (docs/rules.md §4): a 花杠 is paid 6 by each other player.
"""

from __future__ import annotations

import pytest

from bot.chat.service import Referee
from bot.night import night as night_module
from bot.night.log_index import LogIndex
from bot.store.rows import EventRow
from tests.kit.harness import Table

OPENING = "张三: 开局 张三 李四 王五 赵六"
MARGIN = 2


async def events_in_ledger(table: Table) -> int:
    return (await table.row_counts())[1]


async def opened_with_room_for_one(table: Table, monkeypatch: pytest.MonkeyPatch) -> int:
    """Open the night and bound it one row past its opening; the bound."""
    await table.play(OPENING)
    bound = await events_in_ledger(table) + 1  # the opening's own rows count too
    monkeypatch.setattr(night_module, "MAX_NIGHT_EVENTS", bound)
    monkeypatch.setattr(night_module, "ROW_MARGIN", MARGIN)
    return bound


async def test_corrections_past_the_margin_are_refused_as_a_full_night(
    referee: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(referee, "fixes")
    bound = await opened_with_room_for_one(table, monkeypatch)
    assert "✅ #2 王五 花杠" in await table.say("王五: 花杠")  # the bound's last row
    assert "满了" in await table.say("李四: 花杠")  # a table event past it
    # fixes of #2 (each replaces the version in force) go on for the margin's two rows …
    assert "✏️ #3 更正了 #2" in await table.say("张三: 改 2 李四 花杠")
    assert "✏️ #4 更正了" in await table.say("张三: 改 2 赵六 花杠")
    assert await events_in_ledger(table) == bound + MARGIN
    # … and then are answered as a table event is, nothing written
    refused = await table.say("张三: 改 2 张三 花杠")
    assert "满了" in refused and "/new" in refused
    assert "满了" in await table.say("张三: 撤销 2")
    assert "满了" in await table.say("张三: 改底 2")  # a chore too
    assert await events_in_ledger(table) == bound + MARGIN
    assert await table.balances() == {"张三": -6, "李四": -6, "王五": -6, "赵六": 18}  # 赵六's 花杠
    referee.nights.forget("fixes")  # after a restart: the rows counted in the ledger
    assert "满了" in await table.say("张三: 改 2 张三 花杠")
    await table.play("张三: 结算\n张三: 确认")  # a full night still closes
    assert "/reopen" in await table.say("张三: /score")


async def test_after_an_undo_at_the_bound_the_line_typed_again_is_recorded(
    referee: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(referee, "undo")
    bound = await opened_with_room_for_one(table, monkeypatch)
    await table.say("王五: 花杠")  # meant 李四's: the night is at its bound
    assert "满了" in await table.say("李四: 花杠")
    assert "撤销了 #2" in await table.say("张三: 撤销 2")  # the correction takes the margin's first row
    assert "✅ #4 李四 花杠" in await table.say("李四: 花杠")  # no dead end: the undone line is out
    assert await table.balances() == {"张三": -6, "李四": 18, "王五": -6, "赵六": -6}
    assert "满了" in await table.say("赵六: 花杠")  # the lines in force are at the bound again
    assert await events_in_ledger(table) == bound + MARGIN


async def test_a_table_event_past_the_margin_is_refused_however_many_lines_were_undone(
    referee: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(referee, "cycle")
    bound = await opened_with_room_for_one(table, monkeypatch)
    monkeypatch.setattr(night_module, "ROW_MARGIN", 1)
    await table.say("王五: 花杠")
    await table.say("张三: 撤销 2")  # bound + 1: the margin is used up
    assert "满了" in await table.say("李四: 花杠")  # a line in force is free, the rows are not
    assert await events_in_ledger(table) == bound + 1


def row(event_id: int, kind: str, reverses: int | None = None) -> EventRow:
    return EventRow(event_id, 1, 1, kind, None, "Alice", reverses)


def test_the_lines_in_force_leave_out_corrections_and_undone_places() -> None:
    rows = [row(1, "open"), row(2, "pong"), row(3, "gang"), row(4, "undo", 2), row(5, "fix", 3)]
    assert LogIndex().in_force(rows) == 2  # the opening and the gang's place (its fix in force)
    rows += [row(6, "undo", 5), row(7, "correction", 3), row(8, "hu")]  # the gang back, a re-pricing row
    assert LogIndex().in_force(rows) == 3
    rows.append(row(9, "undo", 1))
    assert LogIndex().in_force(rows) == 2
