"""The Telegram inbox in the ledger's file: an update is done in the same transaction that records
its events; an update that records nothing is marked done by the next transaction, before any later
update can record."""

from __future__ import annotations

from pathlib import Path

from bot.inbox import Row
from bot.ledger import Ledger, NewEvent, Seat

SEATS = tuple(Seat(name) for name in ("alice", "bob", "carol", "dave"))


def row(update_id: int, key: str) -> Row:
    return Row(update_id, -1, key, {"update_id": update_id})


async def pending(ledger: Ledger) -> list[int]:
    return [r.update_id for r in await ledger.inbox().pending()]


async def test_an_update_is_stored_once(tmp_path: Path) -> None:
    ledger = await Ledger.open(tmp_path / "inbox.sqlite3")
    inbox = ledger.inbox()
    assert await inbox.add(row(1, "msg:-1:10"))
    assert not await inbox.add(row(1, "msg:-1:10"))  # delivered again by Telegram
    assert await pending(ledger) == [1]
    await ledger.close()


async def test_recording_the_events_marks_the_update_done_in_the_same_transaction(tmp_path: Path) -> None:
    ledger = await Ledger.open(tmp_path / "inbox.sqlite3")
    inbox = ledger.inbox()
    await inbox.add(row(1, "msg:-1:10"))
    await inbox.add(row(2, "msg:-1:10"))  # the same message a second time: stays pending until handled
    night = await ledger.open_night("tg:-1", SEATS, "nanjing", "{}", 100, 0, "alice", "/new", None)
    ids = await ledger.append("tg:-1", night, "bob", "/flowergang", "msg:-1:10", 100, [NewEvent(1, "x", 1, "{}")])
    assert await pending(ledger) == [2]
    assert await inbox.is_done(1)
    await ledger.close()
    reopened = await Ledger.open(tmp_path / "inbox.sqlite3")  # and it is on disk
    assert await pending(reopened) == [2]
    assert ids
    await reopened.close()


async def test_a_button_used_once_answers_with_its_event(tmp_path: Path) -> None:
    ledger = await Ledger.open(tmp_path / "inbox.sqlite3")
    inbox = ledger.inbox()
    key = "cb:-1:50:1:1:/penalty follow #1"
    for update_id in (1, 2, 3):  # three presses
        await inbox.add(row(update_id, key))
    night = await ledger.open_night("tg:-1", SEATS, "nanjing", "{}", 100, 0, "alice", "/new", None)
    ids = await ledger.append("tg:-1", night, "bob", "/penalty", key, 100, [NewEvent(1, "penalty", 1, "{}")])
    assert await inbox.earlier(key, 1) is None
    assert await inbox.earlier(key, 2) == ids[0]
    assert await inbox.earlier(key, 3) == ids[0]
    await ledger.close()


async def test_a_mark_for_an_update_that_recorded_nothing_rides_with_the_next_transaction(tmp_path: Path) -> None:
    ledger = await Ledger.open(tmp_path / "inbox.sqlite3")
    inbox = ledger.inbox()
    await inbox.add(row(1, "msg:-1:10"))
    inbox.mark_done(1)  # a /score: nothing recorded
    assert await pending(ledger) == [1]  # not written yet
    await inbox.add(row(2, "msg:-1:11"))  # the next transaction carries it
    assert await pending(ledger) == [2]
    inbox.mark_done(2)
    await inbox.flush()  # at shutdown
    assert await pending(ledger) == []
    await ledger.close()
