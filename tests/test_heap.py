"""A long night never makes another chat wait on Python's collector (bot/store/heap.py): what a slow full
collection kept is frozen out of later walks, which is safe only because a night's objects form no
cycles (reference counting alone frees them), and an old fold is let go off the event loop."""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref
from collections.abc import Iterator

import pytest

from bot.chat.service import Referee
from bot.store.heap import keep_collections_short, let_go_gradually
from tests.kit.harness import Table

NIGHT = """/new Alice Bob Carol Dave preset=nanjing stake=2
Bob: /pong Carol
Dave: /gang self 9s
Alice: /hu self 123m456m789m234p5p+5p flowers=2
Carol: /penalty Bob 1
Dave: /fix 3 /gang self 8s
Bob: /undo"""


@pytest.fixture
def no_collector() -> Iterator[None]:
    """Only reference counting frees anything while the test looks."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


async def let_go(held: list[weakref.ref[object]]) -> None:
    """Wait (2 s at most) for the worker thread that frees a correction's old fold."""
    for _ in range(200):
        if all(ref() is None for ref in held):
            return
        await asyncio.sleep(0.01)


def ours(objects: list[object]) -> list[str]:
    return sorted({type(o).__qualname__ for o in objects if type(o).__module__.split(".")[0] in ("bot", "engine")})


async def test_a_night_is_freed_by_reference_counting_alone(table: Table, no_collector: None) -> None:
    await table.play(NIGHT)
    night = await table.referee.nights.latest(table.chat_id)
    assert night is not None and len(night.whole_fold().played) >= 3
    held = [weakref.ref(night), weakref.ref(night.whole_fold()), weakref.ref(night.whole_fold().state)]
    table.referee.nights.forget(table.chat_id)
    del night
    await let_go(held)
    assert [ref() for ref in held] == [None] * len(held)  # a frozen night would be freed all the same


async def test_a_night_leaves_no_cycles_behind(table: Table, no_collector: None) -> None:
    """What a night made and let go of is never only the cycle collector's to free: frozen, it
    would stay for good."""
    await table.play(NIGHT)
    await table.say("Alice: /score")
    table.referee.nights.forget(table.chat_id)
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        assert ours(gc.garbage) == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


async def test_a_correction_lets_the_old_fold_go(table: Table, no_collector: None) -> None:
    await table.play(NIGHT)
    night = await table.referee.nights.latest(table.chat_id)
    assert night is not None
    old = weakref.ref(night.whole_fold())
    await table.say("Carol: /undo")
    assert night.whole_fold() is not old()
    await let_go([old])
    assert old() is None


def test_a_slow_full_collection_freezes_what_it_kept() -> None:
    gc.unfreeze()
    remove = keep_collections_short(slow_ms=0.0)  # every full collection counts as slow
    try:
        kept = [[n] for n in range(1000)]  # tracked objects that survive
        gc.collect(1)
        assert gc.get_freeze_count() == 0  # a young collection freezes nothing
        gc.collect()
        assert gc.get_freeze_count() >= len(kept)
    finally:
        remove()
        gc.unfreeze()


def test_a_quick_full_collection_freezes_nothing() -> None:
    gc.unfreeze()
    remove = keep_collections_short(slow_ms=60_000.0)
    try:
        gc.collect()
        assert gc.get_freeze_count() == 0
    finally:
        remove()
        gc.unfreeze()


def test_installing_twice_keeps_one_pacer() -> None:
    first = keep_collections_short()
    second = keep_collections_short()
    try:
        assert sum(type(c).__name__ == "_Pacer" for c in gc.callbacks) == 1
    finally:
        first()
        second()
    assert not any(type(c).__name__ == "_Pacer" for c in gc.callbacks)


async def answered_while(table: Table, other: Table, line: str, blocked: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`line` in one chat is held inside its worker thread (at `blocked`, a function bot/night/night.py calls
    or bot/chat/handlers/questions.py); another chat's /score must be answered meanwhile."""
    import bot.chat.handlers.questions as questions
    import bot.night.night as night_module

    module = night_module if hasattr(night_module, blocked) else questions
    real = getattr(module, blocked)
    entered, release = threading.Event(), threading.Event()

    def held(*args: object, **kwargs: object) -> object:
        entered.set()
        assert release.wait(5), "never released"
        return real(*args, **kwargs)

    monkeypatch.setattr(module, blocked, held)
    running = asyncio.create_task(table.respond(line))
    try:
        while not entered.is_set():
            await asyncio.sleep(0.005)
        assert "Alice" in await asyncio.wait_for(other.say("Bob: /score"), 2)  # not behind the other chat
        assert not running.done()
    finally:
        release.set()
    response = await running
    assert response is not None and not response.refused


@pytest.mark.parametrize(
    ("line", "blocked"),
    [
        ("Carol: /undo", "plan_correction"),
        ("Carol: /fix 2 /pong Carol", "settle_correction"),
        ("Carol: /summary", "summary_replies"),
        ("Carol: /export", "night_csv"),
    ],
)
async def test_another_chat_is_answered_while_a_night_is_worked_out(
    referee: Referee, line: str, blocked: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, other = Table(referee, "chat-a"), Table(referee, "chat-b")
    await table.play(NIGHT)
    await other.play("/new Alice Bob Carol Dave\nBob: /pong Carol")
    await answered_while(table, other, line, blocked, monkeypatch)


class Part:
    """Something weakly referable, as a night's rows and folds are."""


class Holder:
    def __init__(self, items: list[Part]) -> None:
        self.items = items


class Slotted:
    __slots__ = ("__weakref__", "holder")

    def __init__(self, holder: Holder) -> None:
        self.holder = holder


def test_what_only_the_spent_list_holds_is_freed_and_what_others_hold_stays_whole(no_collector: None) -> None:
    owned = [Part() for _ in range(5_000)]  # longer than a slice: emptied in slices
    freed = [weakref.ref(owned[0]), weakref.ref(owned[-1])]
    shared = [Part() for _ in range(5_000)]
    spent: list[object] = [Slotted(Holder(owned)), Slotted(Holder(shared))]
    del owned
    let_go_gradually(spent)
    assert spent == [] and [ref() for ref in freed] == [None, None]
    assert len(shared) == 5_000  # still held here: left whole

    outer = Holder(shared)
    let_go_gradually([Holder(shared)])  # the same list, another holder: left whole
    assert len(outer.items) == 5_000
