"""The night's log index (bot/night/log_index.py) answers as reading the whole log would: the place a row
stands for, the version in force there (bot/night/versions.py), a row by id, the newest row of a kind."""

from __future__ import annotations

import random

from bot.night.log_index import LogIndex
from bot.night.versions import versions
from bot.store.rows import EventRow


def row(event_id: int, kind: str, reverses: int | None = None) -> EventRow:
    return EventRow(event_id, 1, 1, kind, None, "Alice", reverses)


def random_log(seed: int, size: int) -> list[EventRow]:
    """Table events, fixes and undos of any earlier row (a fix of a fix, an undo of a fix, ...),
    and correction bookings, with ids that grow with gaps (other nights' rows in between)."""
    pick = random.Random(seed)
    rows: list[EventRow] = []
    next_id = 1
    for _ in range(size):
        next_id += pick.randint(1, 3)
        kind = pick.choice(("pong", "gang", "hu", "fix", "undo", "correction", "bind"))
        reverses = pick.choice(rows).id if rows and kind in ("fix", "undo", "correction") else None
        rows.append(row(next_id, kind, reverses))
    return rows


def test_the_index_answers_as_the_whole_log_does_after_every_row() -> None:
    for seed in range(20):
        log = random_log(seed, 60)
        rows: list[EventRow] = []
        index = LogIndex()
        for new in log:
            rows.append(new)  # the night appends to its list; the index catches up when asked
            whole = versions(rows)
            for r in rows:
                assert index.place(rows, r.id) == whole.place(r.id)
                assert index.current(rows, whole.place(r.id)) == whole.current(whole.place(r.id))
                assert index.event(rows, r.id) is r
            active = whole.active(rows)
            newest = next((r for r in reversed(rows) if r.kind in ("pong", "hu") and r.id in active), None)
            assert index.last(rows, ("pong", "hu"), lambda r, a=active: r.id in a) is newest


def test_an_id_not_in_the_log_is_none() -> None:
    rows = [row(2, "pong"), row(5, "gang"), row(9, "hu")]
    index = LogIndex()
    assert [index.event(rows, n) for n in (1, 3, 10)] == [None, None, None]
    assert index.event(rows, 5) is rows[1]


def test_a_log_read_anew_is_indexed_anew() -> None:
    index = LogIndex()
    first = [row(1, "pong"), row(2, "undo", 1)]
    assert index.current(first, 1) is None
    again = [row(1, "pong")]  # another list (a night that read its log again): nothing carried over
    assert index.current(again, 1) == 1


def test_rows_the_older_code_numbered_by_id_keep_their_ids_and_later_lines_go_on_from_the_last() -> None:
    # ids 1-8 numbered by the older code: a claim (2) and a re-pricing row (6) took ids, not lines;
    # other chats' rows took 9 and 10, then today's code appended 11 and 12.
    rows = [row(1, "open"), row(2, "join"), row(3, "hu"), row(4, "draw"), row(5, "undo", 4)]
    rows += [row(6, "correction", 3), row(8, "pong"), row(11, "gang"), row(12, "undo", 8)]
    index = LogIndex(ids_through=8)
    assert [index.number_of(rows, r.id) for r in rows] == [1, None, 3, 4, 5, None, 8, 9, 10]
    assert [index.numbered(rows, n) for n in (2, 6, 7, 11)] == [None, None, None, None]
    assert [index.numbered(rows, n) for n in (1, 8, 9, 10)] == [rows[0], rows[6], rows[7], rows[8]]
    assert index.last_number(rows) == 10
    assert [r.id for r in index.lines(rows)] == [1, 3, 4, 5, 8, 11, 12]
    # from a checkpoint after row 8 (its head: the last number was 8), the rows after it
    after = [row(11, "gang"), row(13, "pong")]
    assert (index.number_of(after, 13, base=8), index.numbered(after, 10, base=8)) == (10, after[1])
    assert (index.numbered(after, 8, base=8), index.last_number(after, base=8)) == (None, 10)


def test_a_night_numbered_by_id_to_its_last_row_goes_on_from_that_row() -> None:
    rows = [row(4, "open"), row(7, "pong")]
    index = LogIndex(ids_through=7)
    assert (index.last_number(rows), index.numbered(rows, 8)) == (7, None)
    rows.append(row(20, "gang"))
    assert (index.number_of(rows, 20), index.numbered(rows, 8)) == (8, rows[2])
