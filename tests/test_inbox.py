"""The Telegram inbox in the ledger's file: an update is done in the same transaction that records
its events; an update that records nothing is marked done by the next transaction, before any later
update can record."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.store.inbox import Row
from bot.store.ledger import Ledger
from bot.store.rows import NewEvent, Seat

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


async def test_an_update_and_its_events_are_one_commit(tmp_path: Path) -> None:
    """A quiet chat's update is queued while its row waits: the events' transaction carries the row
    (and marks it done), and `add` returns only once that transaction has committed."""
    ledger = await Ledger.open(tmp_path / "inbox.sqlite3")
    inbox = ledger.inbox()
    night = await ledger.open_night("tg:-1", SEATS, "nanjing", "{}", 100, 0, "alice", "/new", None)
    recorded: list[list[int]] = []

    async def record() -> None:  # what the chat's worker does with the update
        ids = await ledger.append("tg:-1", night, "bob", "/flowergang", "msg:-1:10", 100, [NewEvent(1, "x", 1, "{}")])
        recorded.append(ids)

    tasks = []
    before = ledger._writer.commits
    assert await inbox.add(row(1, "msg:-1:10"), lambda: tasks.append(asyncio.create_task(record())))
    await asyncio.gather(*tasks)
    assert ledger._writer.commits - before == 1  # the row and its event: one commit
    assert recorded and await inbox.is_done(1) and await pending(ledger) == []
    assert not await inbox.add(row(1, "msg:-1:10"), lambda: tasks.append(asyncio.create_task(record())))
    assert len(tasks) == 1  # delivered again by Telegram: stored before, not queued again
    await ledger.close()
    reopened = await Ledger.open(tmp_path / "inbox.sqlite3")  # both on disk
    assert await reopened.inbox().is_done(1)
    await reopened.close()


async def test_an_update_that_records_nothing_commits_its_row_when_answered(tmp_path: Path) -> None:
    ledger = await Ledger.open(tmp_path / "inbox.sqlite3")
    inbox = ledger.inbox()
    before = ledger._writer.commits
    assert await inbox.add(row(1, "msg:-1:10"), lambda: inbox.mark_done(1))  # a /score, answered at once
    assert ledger._writer.commits - before == 1 and await pending(ledger) == []
    # nothing answers it: committed on its own, still before `add` returns
    assert await inbox.add(row(2, "msg:-1:11"), lambda: None)
    assert await pending(ledger) == [2]
    await ledger.close()


def test_only_a_failure_of_the_storage_itself_is_tried_again(tmp_path: Path) -> None:
    """Issue #39: a lock held by another connection (SQLITE_BUSY), directly or as the cause of
    another error, is the storage failing for now; a write that is wrong (a constraint, a table
    that does not exist) is not, nor is an error SQLite did not raise."""
    import sqlite3

    import pytest

    from bot.store.writer import storage_unavailable

    db = tmp_path / "busy.sqlite3"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
    holder.execute("BEGIN EXCLUSIVE")
    other = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        with pytest.raises(sqlite3.OperationalError) as locked:
            other.execute("BEGIN IMMEDIATE")
        assert storage_unavailable(locked.value)
        wrapped = RuntimeError("a write failed")
        wrapped.__cause__ = locked.value
        assert storage_unavailable(wrapped)
        holder.execute("INSERT INTO t VALUES (1)")
        with pytest.raises(sqlite3.IntegrityError) as twice:
            holder.execute("INSERT INTO t VALUES (1)")
        assert not storage_unavailable(twice.value)
        with pytest.raises(sqlite3.OperationalError) as nowhere:
            holder.execute("SELECT * FROM nowhere")
        assert not storage_unavailable(nowhere.value)
        assert not storage_unavailable(sqlite3.OperationalError("database is locked"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        other.close()
