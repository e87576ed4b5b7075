"""An event loop on a simulated clock: when nothing is ready to run and no thread is working for the
loop, the clock jumps to the next timer. A busy table's ten minutes (`asyncio.sleep`, Telegram's
limits, the pacer's turns: everything on `loop.time()`) run in a moment and come out the same every
run, while the ledger's threads (aiosqlite's, the writer's) still take the real time they need:
the clock waits for them, so no timer fires early while a line is being recorded.

`run(coroutine)` runs one on a fresh loop (a test's or the bench's own, outside pytest-asyncio's).
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any, TypeVar

import aiosqlite

T = TypeVar("T")
REAL_WAIT = 0.05  # seconds of real time a loop waiting for a thread sleeps between looks


class VirtualClockLoop(asyncio.SelectorEventLoop):
    def __init__(self, start: float = 1000.0) -> None:
        super().__init__()
        self.now = start
        self.threads = 0  # calls running in a thread for this loop: the clock waits for them
        self._selector = JumpingSelector(self._selector, self)  # type: ignore[has-type]

    def time(self) -> float:
        return self.now

    def run_in_executor(self, executor: Executor | None, func: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        future = super().run_in_executor(executor, func, *args)
        self.threads += 1
        future.add_done_callback(lambda _: self.thread_done())
        return future

    def thread_done(self) -> None:
        self.threads -= 1


class JumpingSelector(selectors.BaseSelector):
    """The loop's selector: real I/O is looked at, never waited for while a timer is due; with nothing
    to wait for, the loop's clock moves to the next timer."""

    def __init__(self, real: selectors.BaseSelector, loop: VirtualClockLoop) -> None:
        self.real = real
        self.loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = self.real.select(0)
        if ready or timeout == 0:
            return ready
        if self.loop.threads or timeout is None:  # a thread will wake the loop (or real I/O will)
            return self.real.select(REAL_WAIT)
        self.loop.now += timeout
        return []

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self.real.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self.real.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self.real.modify(fileobj, events, data)

    def get_key(self, fileobj: Any) -> selectors.SelectorKey:
        return self.real.get_key(fileobj)

    def get_map(self) -> Any:
        return self.real.get_map()

    def close(self) -> None:
        self.real.close()


@contextmanager
def threads_counted() -> Iterator[None]:
    """aiosqlite hands each call to its connection's own thread (not an executor): counted too."""
    original = aiosqlite.core.Connection._execute

    async def counted(self: aiosqlite.Connection, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        virtual = isinstance(loop, VirtualClockLoop)
        if virtual:
            loop.threads += 1
        try:
            return await original(self, fn, *args, **kwargs)
        finally:
            if virtual:
                loop.threads -= 1

    aiosqlite.core.Connection._execute = counted  # type: ignore[method-assign]
    try:
        yield
    finally:
        aiosqlite.core.Connection._execute = original  # type: ignore[method-assign]


def run(coroutine: Coroutine[Any, Any, T] | Awaitable[T]) -> T:
    """Run to the end on a fresh loop with a simulated clock."""
    loop = VirtualClockLoop()
    try:
        with threads_counted():
            return loop.run_until_complete(coroutine)
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()
