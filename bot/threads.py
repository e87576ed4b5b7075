"""Work handed to a worker thread from the event loop, so that other chats are answered meanwhile (a
long night's fold, a chart, a database call). A thread helper, not storage: every layer may use it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


async def in_thread(work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`work(*args, **kwargs)` in a worker thread, its result handed back outside the futures that carried it.
    `asyncio.to_thread` leaves the result in a pair of futures that refer to each other, so a night
    or a fold came back held by a cycle: freed only by a full collection, and never if that cycle
    was frozen while the work was under way (bot/heap.py freezes during exactly such work)."""
    box: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            box.append(work(*args, **kwargs))
        except BaseException as error:  # raised here, on the loop, not kept by the futures either
            failed.append(error)

    await asyncio.to_thread(run)
    if failed:
        raise failed.pop()
    return box.pop()
