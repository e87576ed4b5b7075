"""What a cached night holds (#31: an event held costs under 1 KB, bench/held_bench.py): its rows'
payloads decoded once and shared with its fold, its payments in columns, what repeats held once, and
no typed text or time (read from the ledger when a view shows them)."""

from __future__ import annotations

import pytest

from bot.night.codec import SeatChange, Unreadable, decode_body, decode_seat, seat_change
from bot.night.fold import table_event
from bot.night.interner import Interner
from bot.night.payment_log import PaymentLog
from bot.store.rows import EventRow, PaymentRow
from engine.errors import EngineError
from engine.events import Notice, Pong, Win
from engine.settlement import Payment
from tests.kit.harness import Table


def test_the_payment_log_reads_back_the_rows_it_was_given() -> None:
    rows = [PaymentRow(7, 1, 0, 44, 88, "win"), PaymentRow(7, 2, 0, 44, 88, "win"), PaymentRow(9, 3, 2, 6, 12, "gang")]
    log = PaymentLog(rows)
    assert list(log) == rows and log == rows and len(log) == 3
    assert log[0] == rows[0] and log[-1] == rows[2] and log[1:] == rows[1:]
    with pytest.raises(IndexError):
        log[3]
    copy = log.copy()
    copy.append(PaymentRow(10, 0, 1, 2, 4, "penalty"))
    assert len(log) == 3 and len(copy) == 4 and copy[3] == PaymentRow(10, 0, 1, 2, 4, "penalty")


def test_equal_values_met_in_one_reading_are_one_object() -> None:
    interner = Interner()
    first, again = Pong(1, 2), Pong(1, 2)
    assert interner.one(first) is first and interner.one(again) is first
    paid = (Payment(1, 0, 2, "gang"), Payment(2, 0, 2, "gang"))
    assert interner.all(paid) is paid  # met first: kept as it is
    same = (Payment(1, 0, 2, "gang"), Payment(2, 0, 2, "gang"))
    assert interner.all(same) is paid
    # a notice holds a dict: looked up by its content, and 1 is not True (they are not shown alike)
    said = (Notice("table.next_hand", {"hand": 2, "dealer": 1}),)
    assert interner.all(said) is said
    assert interner.all((Notice("table.next_hand", {"dealer": 1, "hand": 2}),)) is said
    assert interner.all((Notice("table.next_hand", {"dealer": 1, "hand": 3}),)) is not said
    assert interner.one(Notice("k", {"x": 1})).params == {"x": 1}
    assert interner.one(Notice("k", {"x": True})).params["x"] is True
    listed = Notice("k", {"x": [1]})  # a list cannot be a key: kept as it is
    assert interner.one(listed) is listed and interner.all((listed,))[0] is listed


def test_a_payload_that_does_not_read_fails_where_it_is_read_as_it_always_did() -> None:
    assert isinstance(decode_body("join", '{"seat": 1, "name": "Eve"}'), SeatChange)
    assert decode_body("open", "{}") is None and decode_body("undo", '{"target": 3}') is None
    bad = decode_body("join", '{"seat": "one"}')
    assert bad == Unreadable('{"seat": "one"}')
    with pytest.raises(EngineError) as read:
        decode_seat('{"seat": "one"}')
    with pytest.raises(EngineError) as held:
        seat_change(bad)
    assert held.value.key == read.value.key == "ledger.bad_payload"
    # a table event that does not read counts for nothing, decoded or held as text
    for body in (decode_body("win", "{not json"), "{not json"):
        assert table_event(EventRow(5, 1, 1, "win", None, "A", None, body)) is None


async def test_a_loaded_night_holds_each_event_once_and_no_typed_text(table: Table) -> None:
    await table.play("/new Alice Bob Carol Dave\nBob: /pong Carol\n/draw\nBob: /pong Carol\nAlice: /hu self flowers=4")
    table.referee.nights.forget(table.chat_id)  # read again from the ledger, as after a restart
    night = await table.referee.nights.latest(table.chat_id)
    assert night is not None
    played = {p.event_id: p.event for p in night.whole_fold().played}
    pongs = [row for row in night.events if row.kind == "pong"]
    assert len(pongs) == 2 and all(row.body is played[row.id] for row in pongs)  # the fold plays the row's own
    assert pongs[0].body is pongs[1].body  # the same pong in two hands: one value
    win = next(row for row in night.events if row.kind == "win")
    assert isinstance(win.body, Win) and win.body is played[win.id]
    assert not hasattr(win, "raw_text") and not hasattr(win, "created_at")
    texts = await night.texts([win])
    assert texts[win.id].raw_text == "/hu self flowers=4" and texts[win.id].created_at[:2] == "20"
    assert "/hu self flowers=4" in await table.say("/history")


def test_a_bounded_table_keeps_the_newest_values_met_and_looks_up_no_dict() -> None:
    interner = Interner(bound=2, by_content=False)
    first, second, third = Pong(1, 2), Pong(2, 3), Pong(3, 0)
    assert interner.one(first) is first and interner.one(second) is second
    assert interner.one(third) is third  # the oldest (first) leaves the table
    assert interner.one(Pong(2, 3)) is second and interner.one(Pong(3, 0)) is third
    again = Pong(1, 2)
    assert interner.one(again) is again  # met again after it left: this one is kept now
    said = (Notice("table.next_hand", {"hand": 2, "dealer": 1}),)
    assert (
        interner.all(said) is said and interner.all((Notice("table.next_hand", {"hand": 2, "dealer": 1}),)) is not said
    )


async def test_a_night_played_here_holds_each_recorded_event_once(table: Table) -> None:
    await table.play("/new Alice Bob Carol Dave\nBob: /pong Carol\n/draw\nBob: /pong Carol\nAlice: /hu self flowers=4")
    night = await table.referee.nights.latest(table.chat_id)
    assert night is not None
    played = {p.event_id: p.event for p in night.whole_fold().played}
    table_rows = [row for row in night.events if row.kind in ("pong", "win", "draw")]
    assert len(table_rows) == 4 and all(row.body is played[row.id] for row in table_rows)  # the row holds the played
    pongs = [row for row in table_rows if row.kind == "pong"]
    assert pongs[0].body is pongs[1].body  # the same pong in two hands, typed twice: one value held
