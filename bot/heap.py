"""Python's collector walks every tracked object the process holds in a full collection. A long
night holds hundreds of thousands of them (its rows, its fold, its payments), so a full collection
late in a 50,000-event night held the event loop 200 ms, and a correction (which builds a second
fold) set off several of them: every chat waited.

So the survivors of a slow full collection are frozen (`gc.freeze`): later collections walk only
what was made since, and a pause stays near `slow_ms` however long the nights grow. A frozen object
is still freed by reference counting when its last reference goes, as every row and fold of a night
is (they form no cycles: tests/test_heap.py holds the night to that); only frozen objects that later
die inside a cycle are never collected, and freezing only after a slow collection keeps those few.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SLOW_MS = 10.0  # a full collection slower than this freezes what it kept
OLDEST = len(gc.get_threshold()) - 1  # the generation a full collection is of


@dataclass
class _Pacer:
    slow_ms: float
    started: float = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
            return
        if info["generation"] == OLDEST and (time.perf_counter() - self.started) * 1000 >= self.slow_ms:
            gc.freeze()  # what a full collection kept is alive: leave it out of later walks


def keep_collections_short(slow_ms: float = SLOW_MS) -> Callable[[], None]:
    """Install the pacing for this process (once is enough; again replaces it); returns how to
    take it away (tests)."""
    for callback in list(gc.callbacks):
        if isinstance(callback, _Pacer):
            gc.callbacks.remove(callback)
    pacer = _Pacer(slow_ms)
    gc.callbacks.append(pacer)

    def remove() -> None:
        if pacer in gc.callbacks:
            gc.callbacks.remove(pacer)

    return remove


def free_off_loop(spent: list[object]) -> None:
    """Let go of what only `spent` holds in a worker thread: freeing a long night's old fold is
    half a million deallocations, 80 ms the event loop would otherwise spend before the next chat."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # no event loop to keep free (a script, a test): let go here
        spent.clear()
        return
    loop.run_in_executor(None, let_go_gradually, spent)


SLICE = 2_000  # items freed between two chances for the interpreter to switch threads
_DEPTH = 4  # a night, its fold, the fold's history, its store: deep enough for every long list


def let_go_gradually(spent: list[object]) -> None:
    """Free what only `spent` holds, the long lists inside it a slice at a time. Freeing one big
    structure is a single call the interpreter never switches out of: a 50,000-event night held
    every other thread 170 ms even from a worker. A list is emptied only when nothing else holds it
    (its reference count says so, and nobody can take a new reference to what nobody can reach)."""
    while spent:
        thing = spent.pop()
        _take_apart(thing, 2, 0)  # held by `thing` here and the parameter
        del thing


def _take_apart(thing: object, holders: int, depth: int) -> None:
    """`holders`: the references this walk itself holds on `thing`; any other means someone else
    can still reach it, and it is left whole (freed as usual when they let go)."""
    if depth > _DEPTH or sys.getrefcount(thing) - 1 > holders:  # getrefcount counts its argument
        return
    if type(thing) is list:
        while thing:
            del thing[-SLICE:]
        return
    for name in _attributes(thing):
        part = getattr(thing, name, None)
        if part is not None:
            _take_apart(part, 3, depth + 1)  # the attribute, `part` here, the parameter
            del part


def _attributes(thing: object) -> list[str]:
    """The names of an object's own fields: its __dict__'s and its classes' __slots__."""
    names = list(getattr(thing, "__dict__", {}))
    for kind in type(thing).__mro__:
        slots = kind.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    return names
