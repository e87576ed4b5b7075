"""A correction has one meaning: each place in the night (a place) has versions, the newest is current.

An event first typed opens a place (its own id) with itself as the only version. A fix appends a
version to the place of the row it reverses (so a fix of a fix replaces the current version, and the
original never comes back by accident); an undo removes the version it reverses (undoing a fix brings
back the version before it, which can be undone or fixed again; undoing the only version empties the
place). An undo of the line first typed at a place while a fix of it stands takes the line back whole
(`撤销 2` after `改 2 …`: the table means line 2 did not happen, docs/rules.md 16): the place is
emptied. The effective night is the current version of every non-empty place, in place order. This is
a pure fold of the log, so any sequence of corrections means what replaying it says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.store.rows import EventRow

CORRECTIONS = ("fix", "undo")
BOOKING = "correction"  # a correction's difference in another hand's stake or players: a mark


@dataclass(frozen=True)
class Versions:
    place_of: dict[int, int]  # every row -> its place (a correction's is the place it corrects)
    stacks: dict[int, tuple[int, ...]]  # place -> its versions, oldest first (empty: undone)

    def current(self, place: int) -> int | None:
        stack = self.stacks.get(place, ())
        return stack[-1] if stack else None

    def place(self, event_id: int) -> int:
        return self.place_of.get(event_id, event_id)

    def active(self, events: Sequence[EventRow]) -> set[int]:
        """Rows that count: each place's current version, and the undo rows (marks, never versions)."""
        return {
            e.id
            for e in events
            if (e.kind == "undo" and e.reverses is not None) or self.current(self.place(e.id)) == e.id
        }


class Replay:
    """The fold behind `versions`, one row at a time: a night's rows are only ever appended, so the
    night's index (bot/night/log_index.py) adds each new row once instead of reading the log again.

    It is held as long as its night, so it keeps what a row says only where it says something: a
    row typed first stands for its own place (no entry in `moved`) and is that place's one version
    until a correction comes (no entry in `stacks` either: most of a night's rows are never
    corrected, and an entry a row held 30 bytes of every event)."""

    __slots__ = ("moved", "stacks", "undone_by")

    def __init__(self) -> None:
        self.moved: dict[int, int] = {}  # a correction's or booking's row -> the place it stands for
        self.stacks: dict[int, list[int]] = {}  # a corrected place -> its versions, oldest first
        self.undone_by: dict[int, int] = {}  # an undo row -> the version it removed

    def add(self, event: EventRow) -> None:
        if event.kind == BOOKING and event.reverses is not None:  # money booked at another place
            self.moved[event.id] = self.place(event.reverses)
            return
        if event.kind not in CORRECTIONS or event.reverses is None:
            return  # a row typed first: its own place's one version, held as nothing
        place = self.place(event.reverses)
        self.moved[event.id] = place
        stack = self.stacks.setdefault(place, [place])  # corrected for the first time: its one version
        if event.kind == "fix":
            stack.append(event.id)
        elif event.reverses in self.undone_by:  # an undo of an undo (older ledgers): the version returns
            stack.append(self.undone_by[event.reverses])
        elif event.reverses == place and len(stack) > 1:  # the line itself, under its fixes: all of it
            self.undone_by[event.id] = stack[-1]
            stack.clear()
        elif event.reverses in stack:
            stack.remove(event.reverses)
            self.undone_by[event.id] = event.reverses

    def place(self, event_id: int) -> int:
        return self.moved.get(event_id, event_id)

    def current(self, place: int) -> int | None:
        stack = self.stacks.get(place)
        if stack is None:  # never corrected: the row itself (a correction's own row is no place)
            return None if place in self.moved else place
        return stack[-1] if stack else None

    def emptied(self) -> int:
        """How many places in the night are undone (no version in force)."""
        return sum(1 for stack in self.stacks.values() if not stack)

    def versions(self, place: int) -> tuple[int, ...]:
        stack = self.stacks.get(place)
        if stack is None:
            return () if place in self.moved else (place,)
        return tuple(stack)


def versions(events: Sequence[EventRow]) -> Versions:
    replay = Replay()
    for event in events:
        replay.add(event)
    stacks = {event.id: replay.versions(event.id) for event in events if event.id not in replay.moved}
    stacks.update((place, tuple(stack)) for place, stack in replay.stacks.items())
    return Versions({e.id: replay.place(e.id) for e in events}, stacks)
