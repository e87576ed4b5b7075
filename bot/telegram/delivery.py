"""Replies are delivery, not outcome: the ledger has decided and committed before anything is sent.

Each chat has an outbox and one sender. Recording never waits for it: the chat's worker pushes the
answer and moves on to the next update. The sender retries what fails (a 429 waits as long as
Telegram asks, a 5xx or dropped connection backs off); a message that still cannot be sent leaves a
short "recorded #N …" note that goes out with the chat's next message or after a pause, and an
answer that recorded nothing is dropped (a later question supersedes it). When a chat has a backlog,
everything waiting is coalesced into as few messages as possible (one line per recorded event, the
latest scoreboard once), which keeps a busy table within Telegram's 20 messages a minute per group; texts over
Telegram's 4,096 characters are split at line breaks. `LiveBoards` keeps each chat's pinned board up
to date apart from the replies: the latest board wins, at most one edit per chat every few seconds.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from bot.text.replies import Response, render, render_response
from locales import Translator

log = logging.getLogger(__name__)
MESSAGE_LIMIT = 4096
T = TypeVar("T")


@dataclass(frozen=True)
class Note:
    """An answer as a sent message shows it, kept for a reply to that message: its first line (what
    a backlog or a late note shows: "✅ #12 …"), the ledger row that line reports, and whether the
    answer recorded anything."""

    text: str
    event_id: int | None
    recorded: bool


@dataclass(frozen=True)
class Outgoing:
    """One answer for one chat (and forum topic), as decided by the command layer."""

    chat: int
    thread: int | None
    chat_key: str
    response: Response
    clear_keyboard: int | None = None  # the message whose buttons this result replaces
    edit: int | None = None  # the message this answer is written over (a guided flow's next step)

    @property
    def plain(self) -> bool:
        """Only text (and a scoreboard): can share a message with its neighbours."""
        return not self.response.choices and not self.response.attachments and self.edit is None

    @property
    def shows_board(self) -> bool:
        """The chat sees the scoreboard in this answer (the end of a hand, or `/board each`)."""
        board = self.response.scoreboard
        return board is not None and board in self.response.replies

    def short(self) -> str:
        """The first line of a recorded answer ("✅ recorded #12: …"): what a backlog or a late note shows."""
        translator = Translator(self.response.language)
        return render(self.response.replies[0], translator) if self.response.replies else ""

    def full(self) -> str:
        return render_response(self.response, Translator(self.response.language))

    def note(self) -> Note:
        return Note(self.short(), self.response.event_id, self.response.recorded)


def split_text(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Pieces of at most `limit` characters, cut at line breaks where possible."""
    pieces: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:  # one line longer than a message: cut it
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            pieces.append(current)
            current = line
        else:
            current = candidate
    if current:
        pieces.append(current)
    return pieces


def coalesce(batch: list[Outgoing]) -> str:
    """One text for several answers: recorded events as one line each, other answers in full, and
    the latest scoreboard once at the end when any of the events showed one."""
    if len(batch) == 1:
        return batch[0].full()
    lines = [item.short() if item.response.recorded else item.full() for item in batch]
    shown = [item for item in batch if item.response.recorded and item.shows_board]
    if shown:
        latest = [item for item in batch if item.response.recorded and item.response.scoreboard is not None][-1]
        assert latest.response.scoreboard is not None
        lines.append(render(latest.response.scoreboard, Translator(latest.response.language)))
    return "\n".join(lines)


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 6
    first_backoff: float = 0.5  # doubled after each network failure
    late_note_pause: float = 30.0  # before a failed answer's short note is tried again
    late_note_attempts: int = 5


@dataclass(frozen=True)
class Failure:
    """A failed call as delivery sees it, whatever the transport said (the front end classifies its
    own errors: bot/telegram/sending.py `telegram_failure`)."""

    retry: bool = True  # worth trying again (a 5xx, a dropped connection, a 429); False: the request is wrong
    wait: float | None = None  # seconds the server asked to wait first (a 429)
    maybe_delivered: bool = False  # the request went out and no answer came (a read timeout): it may have arrived


Classify = Callable[[BaseException], Failure | None]  # None: not a transport failure (a bug), raised as it is


def unclassified(error: BaseException) -> Failure | None:
    """No transport: every error is raised as it is."""
    return None


async def with_retries(
    send: Callable[[], Awaitable[T]], policy: RetryPolicy, classify: Classify = unclassified, resend: bool = True
) -> T:
    """Call `send` until it succeeds, or raise its last error: a wrong request is not retried, a 429
    waits as long as asked, a network failure backs off. `resend=False` for a call that creates
    something (a new message): once it may have been delivered (sent, then no answer) it is not sent
    again, since Telegram may already show it; the caller says so another way (the outbox's short
    "✅ #N" note)."""
    backoff = policy.first_backoff
    for attempt in range(1, policy.attempts + 1):
        try:
            return await send()
        except Exception as error:
            failure = classify(error)
            if failure is None or not failure.retry or attempt == policy.attempts:
                raise
            if failure.maybe_delivered and not resend:
                raise
            if failure.wait is not None:
                await asyncio.sleep(failure.wait)
            else:
                await asyncio.sleep(backoff)
                backoff *= 2
    raise AssertionError("unreachable")


# chat, batch (empty: late notes alone), text, and the answers the text shows (the late notes first)
Sender = Callable[[int, list[Outgoing], str, tuple[Note, ...]], Awaitable[None]]


@dataclass
class Outbox:
    """Per-chat queues of answers, each drained by its own sender task."""

    send_batch: Sender  # sends one coalesced batch with its text, retrying; raises if the text never went out
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    classify: Classify = unclassified
    _queues: dict[int, deque[Outgoing]] = field(default_factory=dict)
    _late: dict[int, list[Note]] = field(default_factory=dict)
    _senders: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    _wake: dict[int, asyncio.Event] = field(default_factory=dict)  # a sender waiting with late notes

    def push(self, item: Outgoing) -> None:
        self._queues.setdefault(item.chat, deque()).append(item)
        if item.chat in self._wake:
            self._wake[item.chat].set()
        if item.chat not in self._senders:
            self._senders[item.chat] = asyncio.create_task(self._drain(item.chat))

    def waiting(self) -> int:
        return sum(len(q) for q in self._queues.values())

    async def idle(self) -> None:
        """Wait until every answer so far has been sent (or given up)."""
        while self._senders:
            await asyncio.gather(*self._senders.values(), return_exceptions=True)

    async def stop(self) -> None:
        for task in list(self._senders.values()):
            task.cancel()
        await asyncio.gather(*self._senders.values(), return_exceptions=True)

    def _next_batch(self, queue: deque[Outgoing]) -> list[Outgoing]:
        batch = [queue.popleft()]
        # a flow's steps queued for one message: only the latest is worth showing (taps came faster
        # than the edits land); a recorded result is never skipped
        while batch[0].edit is not None and not batch[0].response.recorded and queue and queue[0].edit == batch[0].edit:
            batch = [queue.popleft()]
        if not batch[0].plain:
            return batch
        while queue and queue[0].plain and queue[0].thread == batch[0].thread:
            batch.append(queue.popleft())
        return batch

    async def _drain(self, chat: int) -> None:
        queue = self._queues[chat]
        try:
            late_tries = 0
            while queue or self._late.get(chat):
                if not queue:  # only late notes left: they go with the next answer, or alone after a pause
                    if late_tries >= self.policy.late_note_attempts:
                        log.error("chat %s: giving up on late notes %r", chat, [n.text for n in self._late.pop(chat)])
                        break
                    late_tries += 1
                    wake = self._wake.setdefault(chat, asyncio.Event())
                    wake.clear()
                    try:
                        await asyncio.wait_for(wake.wait(), self.policy.late_note_pause)
                    except TimeoutError:
                        await self._send_late(chat)
                    continue
                batch = self._next_batch(queue)
                late = self._late.pop(chat, [])
                together = bool(late) and batch[0].plain  # the late notes go first in the same message
                text = "\n".join([*(n.text for n in late), coalesce(batch)]) if together else coalesce(batch)
                shown = tuple(late if together else ()) + tuple(item.note() for item in batch)
                if late and not together:
                    self._late[chat] = late
                try:
                    await self.send_batch(chat, batch, text, shown)
                except Exception:
                    log.exception("chat %s: an answer could not be delivered", chat)
                    notes = [item.note() for item in batch if item.response.recorded]
                    if together:
                        notes = late + notes
                    if notes:
                        self._late.setdefault(chat, []).extend(notes)
        finally:
            del self._senders[chat]
            self._wake.pop(chat, None)
            if not queue:
                self._queues.pop(chat, None)

    async def _send_late(self, chat: int) -> None:
        notes = self._late.pop(chat, [])
        if not notes:
            return
        try:
            await self.send_batch(chat, [], "\n".join(n.text for n in notes), tuple(notes))
        except Exception as error:
            failure = self.classify(error)
            if failure is not None and failure.maybe_delivered:  # it may be in the chat: not sent twice
                log.warning("chat %s: late note may not have been delivered (%s)", chat, error)
                return
            log.warning("chat %s: late note not delivered yet", chat)
            self._late.setdefault(chat, [])[:0] = notes


Publisher = Callable[[Outgoing], Awaitable[bool]]  # True: it called Telegram (an edit, a send and pin)


@dataclass
class LiveBoards:
    """The pinned live board of each chat, edited in place, at most once every `interval` seconds.

    A burst of events leaves one pending board per chat (the last one wins), so the chat's board is
    edited once with the latest state instead of once per event: a table of four that records an
    event every few seconds stays far inside Telegram's edit limits (edits count against the 20
    messages a minute per group, shared with the replies). A 429 keeps the board pending until
    Telegram's `retry_after` has passed; then the latest board, not the one refused, goes out.
    """

    publish: Publisher  # edits (or sends and pins) one board; a failure that asks to wait: wait and try again
    interval: float = 10.0
    classify: Classify = unclassified
    attempts: int = 3  # a board that meets a network failure this many times in a row waits for the next event
    clock: Callable[[], float] = time.monotonic
    _pending: dict[tuple[int, str], Outgoing] = field(default_factory=dict)
    _tasks: dict[tuple[int, str], asyncio.Task[None]] = field(default_factory=dict)
    _next: dict[tuple[int, str], float] = field(default_factory=dict)  # when the chat may be edited again

    def push(self, item: Outgoing) -> None:
        key = (item.chat, item.chat_key)
        self._pending[key] = item
        if key not in self._tasks:
            self._tasks[key] = asyncio.create_task(self._run(key))

    def pending(self) -> int:
        return len(self._pending)

    async def idle(self) -> None:
        while self._tasks:
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def stop(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def _run(self, key: tuple[int, str]) -> None:
        failures = 0
        try:
            while key in self._pending:
                wait = self._next.get(key, 0.0) - self.clock()
                if wait > 0:
                    await asyncio.sleep(wait)
                item = self._pending.pop(key)
                try:
                    if await self.publish(item):
                        self._next[key] = self.clock() + self.interval
                    failures = 0
                except Exception as error:
                    failure = self.classify(error)
                    if failure is None or not failure.retry:
                        log.exception("chat %s: the live board was not updated", key[0])
                    elif failure.wait is not None:
                        self._pending.setdefault(key, item)  # a newer board, if one came meanwhile, wins
                        self._next[key] = self.clock() + max(failure.wait, self.interval)
                    else:  # tried again a little later, a few times (an edit may be: it changes nothing twice)
                        failures += 1
                        if failures < self.attempts:
                            self._pending.setdefault(key, item)
                            self._next[key] = self.clock() + max(self.interval, 1.0)
                        else:
                            log.warning("chat %s: the live board was not updated (%s)", key[0], error)
        finally:
            del self._tasks[key]
