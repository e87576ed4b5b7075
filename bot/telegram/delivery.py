"""Replies are delivery, not outcome: the ledger has decided and committed before anything is sent.

Each chat has an outbox and one sender. Recording never waits for it: the chat's worker pushes the
answer and moves on to the next update. The sender waits for the chat's turn (bot/telegram/pace.py:
never more than Telegram allows, an answer at most one turn away), and only then makes the message,
of everything that waits: one line per recorded event, the latest scoreboard once, and the buttons
of the one answer that has some, in the order the answers came (a backlog is coalesced, never
reordered, never lost). A guided flow's step or result is written over its message, and of several
edits of one message waiting only the latest is made. The sender retries what fails (a 429 waits as
long as Telegram asks, a 5xx or dropped connection backs off); a message that still cannot be sent
leaves a short "recorded #N …" note that goes out with the chat's next message or after a pause, and
an answer that recorded nothing is dropped (a later question supersedes it). Texts over Telegram's
4,096 characters are split at line breaks. `LiveBoards` keeps each chat's pinned board up to date
apart from the replies: the latest board wins, at most one edit per chat every few seconds, and only
in a turn no answer is waiting for.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from bot.telegram.pace import BOARD_TURN, Pacer
from bot.text.replies import Response, render, render_response
from locales import Translator

log = logging.getLogger(__name__)
MESSAGE_LIMIT = 4096
KEYBOARD_LIMIT = 100  # buttons in one message's keyboard
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
    pressed: str | None = None  # the button whose press this answers (whose part of a shared message it is)

    @property
    def plain(self) -> bool:
        """Only text (and a scoreboard): can share a message with its neighbours."""
        return not self.response.choices and not self.response.attachments and self.edit is None

    @property
    def joins(self) -> bool:
        """Can share a message with other answers: not a photo or a file, nor an edit (a message of its
        own, written over an earlier one)."""
        return not self.response.attachments and self.edit is None

    @property
    def shows_board(self) -> bool:
        """The chat sees the scoreboard in this answer (the end of a hand, or `/board each`)."""
        board = self.response.scoreboard
        return board is not None and board in self.response.replies

    def short(self) -> str:
        """The first line of a recorded answer ("✅ recorded #12: …"): what a backlog or a late note shows."""
        translator = Translator(self.response.language)
        return render(self.response.replies[0], translator) if self.response.replies else ""

    def full(self, board: bool = True) -> str:
        """The answer's text; `board=False`: without the scoreboard it shows (a coalesced message shows
        the latest one once)."""
        response = self.response
        if not board and self.shows_board:
            response = replace(response, replies=tuple(r for r in response.replies if r != response.scoreboard))
        return render_response(response, Translator(response.language))

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
    """One text for several answers, in the order they came: each in full, and the latest scoreboard
    once at the end when any of the events showed one. A backlog too long for one message (a restart's
    hundreds of lines) has its recorded events as one line each ("✅ #12 …")."""
    if len(batch) == 1:
        return batch[0].full()
    shown = [item for item in batch if item.response.recorded and item.shows_board]
    board: list[str] = []
    if shown:
        latest = [item for item in batch if item.response.recorded and item.response.scoreboard is not None][-1]
        assert latest.response.scoreboard is not None
        board = [render(latest.response.scoreboard, Translator(latest.response.language))]
    whole = "\n".join([*(item.full(board=False) for item in batch), *board])
    if len(whole) <= MESSAGE_LIMIT:
        return whole
    return "\n".join([*(item.short() if item.response.recorded else item.full() for item in batch), *board])


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


async def until_done(tasks: Mapping[Any, asyncio.Task[None]]) -> None:
    """Until every task is done, those started while waiting too (each takes itself out when done)."""
    while tasks:
        await asyncio.gather(*tasks.values(), return_exceptions=True)


async def cancel_all(tasks: Mapping[Any, asyncio.Task[None]]) -> None:
    for task in list(tasks.values()):
        task.cancel()
    await asyncio.gather(*tasks.values(), return_exceptions=True)


# chat, batch (empty: late notes alone), text, and the answers the text shows (the late notes first)
Sender = Callable[[int, list[Outgoing], str, tuple[Note, ...]], Awaitable[None]]


@dataclass
class Outbox:
    """Per-chat queues of answers, each drained by its own sender task."""

    send_batch: Sender  # sends one coalesced batch with its text, retrying; raises if the text never went out
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    classify: Classify = unclassified
    pacer: Pacer = field(default_factory=Pacer.unlimited)  # whose turn it is in each chat
    _queues: dict[int, deque[Outgoing]] = field(default_factory=dict)
    _pushed: dict[int, dict[int, float]] = field(default_factory=dict)  # chat -> answer (by id) -> when it came
    _late: dict[int, list[Note]] = field(default_factory=dict)
    _senders: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    _wake: dict[int, asyncio.Event] = field(default_factory=dict)  # a sender waiting with late notes

    def push(self, item: Outgoing) -> None:
        self._queues.setdefault(item.chat, deque()).append(item)
        self._pushed.setdefault(item.chat, {})[id(item)] = asyncio.get_running_loop().time()
        if item.chat in self._wake:
            self._wake[item.chat].set()
        if item.chat not in self._senders:
            self._senders[item.chat] = asyncio.create_task(self._drain(item.chat))

    def waiting(self) -> int:
        return sum(len(q) for q in self._queues.values())

    async def idle(self) -> None:
        """Wait until every answer so far has been sent (or given up)."""
        await until_done(self._senders)

    async def stop(self) -> None:
        await cancel_all(self._senders)

    def _next_batch(self, queue: deque[Outgoing]) -> list[Outgoing]:
        """The next message's answers, the oldest first. An edit goes alone (of several edits of one
        message waiting, only the latest; a recorded result is never skipped). Otherwise every answer
        waiting that can share a message goes in it, in the order they came, with their buttons (up to
        Telegram's 100): past the edits waiting (an edit puts no message before another), never past a
        message of its own (a photo, another topic's answer)."""
        first = queue.popleft()
        if first.edit is not None:
            while not first.response.recorded:
                later = next((item for item in queue if item.edit == first.edit), None)
                if later is None:
                    break
                queue.remove(later)
                first = later
            return [first]
        batch, edits = [first], []
        buttons = len(first.response.choices)
        while first.joins and queue:
            item = queue.popleft()
            if item.edit is not None:
                edits.append(item)
                continue
            buttons += len(item.response.choices)
            if not item.joins or item.thread != first.thread or buttons > KEYBOARD_LIMIT:
                queue.appendleft(item)
                break
            batch.append(item)
        queue.extendleft(reversed(edits))
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
                # the message is made in its turn, of all that waits
                async with self.pacer.ready(chat, lambda: self._oldest(chat)):
                    await self._send_next(chat, queue)
        finally:
            del self._senders[chat]
            self._wake.pop(chat, None)
            if not queue:
                self._queues.pop(chat, None)
                self._pushed.pop(chat, None)

    def _oldest(self, chat: int) -> float | None:
        """When the oldest answer waiting in `chat` came (the queue's first)."""
        queue = self._queues.get(chat)
        return self._pushed.get(chat, {}).get(id(queue[0])) if queue else None

    async def _send_next(self, chat: int, queue: deque[Outgoing]) -> None:
        batch = self._next_batch(queue)
        waiting = {id(item) for item in queue}
        self._pushed[chat] = {key: at for key, at in self._pushed.get(chat, {}).items() if key in waiting}
        late = self._late.pop(chat, [])
        together = bool(late) and batch[0].joins  # the late notes go first in the same message
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

    async def _send_late(self, chat: int) -> None:
        if not self._late.get(chat):
            return
        async with self.pacer.ready(chat):
            await self._send_notes(chat)

    async def _send_notes(self, chat: int) -> None:
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


Tidier = Callable[[int, int, frozenset[str | None]], Awaitable[None]]  # (chat, message, the buttons pressed)


@dataclass
class Tidy:
    """Buttons taken off the messages whose question was answered (a win's pad, a yes/no): later, in
    a turn no answer waits for (`Pacer.free`), oldest first. It is an edit, which Telegram counts
    against the group's 20 messages a minute, and nothing the table waits for: a press on buttons
    not yet taken off is answered to the presser alone (recorded already, or stale)."""

    take_off: Tidier
    pacer: Pacer = field(default_factory=Pacer.unlimited)
    # chat -> message -> the buttons pressed on it (None: all of its buttons), oldest first
    _waiting: dict[int, dict[int, set[str | None]]] = field(default_factory=dict)
    _tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)

    def push(self, chat: int, message: int, pressed: str | None = None) -> None:
        self._waiting.setdefault(chat, {}).setdefault(message, set()).add(pressed)
        if chat not in self._tasks:
            self._tasks[chat] = asyncio.create_task(self._run(chat))

    def pending(self) -> int:
        return sum(len(waiting) for waiting in self._waiting.values())

    async def idle(self) -> None:
        await until_done(self._tasks)

    async def stop(self) -> None:
        await cancel_all(self._tasks)

    async def _run(self, chat: int) -> None:
        waiting = self._waiting[chat]
        try:
            while waiting:
                await self.pacer.free(chat)
                message = next(iter(waiting))
                try:
                    await self.take_off(chat, message, frozenset(waiting.pop(message)))
                except Exception:
                    log.exception("chat %s: buttons not taken off", chat)
        finally:
            del self._tasks[chat]
            if not waiting:
                self._waiting.pop(chat, None)


Publisher = Callable[[Outgoing], Awaitable[bool]]  # True: it called Telegram (an edit, a send and pin)


BOARD_DUE_SECONDS = 18.0  # a change not shown this long: the answers gather, the board's token grows (within 30 s)


@dataclass
class LiveBoards:
    """The pinned live board of each chat, edited in place, at most once every `interval` seconds.

    A burst of events leaves one pending board per chat (the last one wins), so the chat's board is
    edited once with the latest state instead of once per event. Edits count against the group's 20
    messages a minute, shared with the answers: the board goes in a turn no answer waits for
    (`Pacer.free`), and is chosen only then, so the latest goes. A 429 keeps the board pending until
    Telegram's `retry_after` has passed; then the latest board, not the one refused, goes out. A
    board waiting goes before an answer that can still be in time, and once a change has not been shown
    for `due_after` seconds the answers gather into fewer messages (each still within 5 s) until the
    board has had a turn (`Pacer.due`): at a table whose answers take every turn the board still
    shows each change within 30 s (#48 item 5).
    """

    publish: Publisher  # edits (or sends and pins) one board; a failure that asks to wait: wait and try again
    interval: float = 10.0
    classify: Classify = unclassified
    attempts: int = 3  # a board that meets a network failure this many times in a row waits for the next event
    pacer: Pacer = field(default_factory=Pacer.unlimited)
    due_after: float = BOARD_DUE_SECONDS
    _pending: dict[tuple[int, str], Outgoing] = field(default_factory=dict)
    _since: dict[tuple[int, str], float] = field(default_factory=dict)  # the oldest change not shown yet
    _tasks: dict[tuple[int, str], asyncio.Task[None]] = field(default_factory=dict)
    _next: dict[tuple[int, str], float] = field(default_factory=dict)  # when the chat may be edited again

    def push(self, item: Outgoing) -> None:
        key = (item.chat, item.chat_key)
        self._pending[key] = item
        self._since.setdefault(key, self.clock())
        if key not in self._tasks:
            self._tasks[key] = asyncio.create_task(self._run(key))

    def pending(self) -> int:
        return len(self._pending)

    @staticmethod
    def clock() -> float:
        return asyncio.get_running_loop().time()

    async def idle(self) -> None:
        await until_done(self._tasks)

    async def stop(self) -> None:
        await cancel_all(self._tasks)

    async def _run(self, key: tuple[int, str]) -> None:
        failures = 0
        try:
            while key in self._pending:
                wait = self._next.get(key, 0.0) - self.clock()
                if wait > 0:
                    await asyncio.sleep(wait)
                self.pacer.due(key[0], self._waits(key))  # the board waits for its turn from now
                token = BOARD_TURN.set(True)  # the pacer's turns for the board, not for tidying
                item, since = None, None
                try:
                    await self.pacer.free(key[0])
                    item = self._pending.pop(key)
                    since = self._since.pop(key, None)
                    if await self.publish(item):
                        self._next[key] = self.clock() + self.interval
                    failures = 0
                except Exception as error:
                    if item is None:
                        raise
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
                    if key in self._pending and since is not None:  # still to show: it has waited since then
                        self._since[key] = min(since, self._since.get(key, since))
                finally:
                    BOARD_TURN.reset(token)
                    self.pacer.due(key[0], None)  # no board waits now: the answers have every turn
        finally:
            del self._tasks[key]

    def _waits(self, key: tuple[int, str]) -> tuple[float, float]:
        """(from, at the latest): the board waits from the chat's oldest change not shown (another
        topic's board may be older), and has the next turn before any answer `due_after` after it."""
        since = min((at for (chat, _), at in self._since.items() if chat == key[0]), default=self.clock())
        return since, since + self.due_after
