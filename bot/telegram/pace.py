"""Pacing: every message the bot sends or edits in a chat waits for the chat's turn, so the bot stays
inside Telegram's limits on its own instead of meeting them as 429s.

Telegram lets a bot send 20 messages a minute in one group (an edit counts like a send; a press's
answer, `answerCallbackQuery`, does not), about one a second in a private chat, and 30 a second in
all. Met as a wall, a limit costs dearly: a bot that sent its 20 in the first seconds of a minute
is told to wait out the rest of it, and the table's answers trail by the minute (#41). So each chat
has a token bucket (`Budget`): `burst` messages at once, then one every `every` seconds. A bucket of
3 refilled at 16 a minute never sends more than 3 + 16 = 19 in any minute, one under the limit for
the moment a request takes on the way, and when the table is busy it sends every 3.75 s: an answer
waits for the next turn, and everything that came meanwhile goes in the same message
(bot/telegram/delivery.py `Outbox`).

A turn is urgent (an answer to a line or a tap) or not (the pinned board, buttons taken off a
message already answered). One that is not never takes the token an answer has been promised
(`ready`), and goes before a waiting answer only if that answer can still have the next turn within
ANSWER_WITHIN seconds of its line: so an answer waits at most one turn more for the board, the board
still moves at a busy table, and no answer comes more than ANSWER_WITHIN (+ the request's own time)
after its line. When answers take every turn all the same (a line every 4 s against a turn every
3.75 s), the board would never have one. So a board that waits (`due`, set by the live board,
bot/telegram/delivery.py) has the chat's token whenever the oldest answer waiting still has the
next one within DUE_ANSWER_WITHIN of its line (counted on the bucket's fraction of a token, not a
whole turn), the answer leaving it that token; and once its change has waited long, the answers
gather: one takes the chat's last token only `HOLD` seconds after its line, carrying all that came
meanwhile, so the answers' messages come less often than the turns and the bucket grows the
board's. No answer waits a turn behind the board past 5 s, and the board shows every change within
30 s (#48 item 5; at 40 lines a minute answers p99 4.5 s, max 4.8 s, the board at most 28 s behind,
bench/table_speed_bench.py). Tidying (buttons taken off) lets a board waiting go first. A 429 from
Telegram all the same (another program with the same token, limits changed) empties the chat's
bucket for as long as Telegram asked.

The clock is the event loop's: a simulated loop (bench/table_speed_bench.py) runs a busy table's
minutes in a moment.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Budget:
    """A token bucket: `burst` messages at once, then one every `every` seconds. In any `window`
    seconds it sends at most `burst + window / every`."""

    burst: int
    every: float

    def most_in(self, window: float) -> int:
        return self.burst + int(window / self.every)


GROUP_BUDGET = Budget(burst=3, every=60 / 16)  # 19 in any minute: Telegram allows 20 per group
PRIVATE_BUDGET = Budget(burst=3, every=1.0)  # about one a second in a private chat
OVERALL_BUDGET = Budget(burst=10, every=1 / 19)  # 29 in any second: Telegram allows 30 in all
ANSWER_WITHIN = 4.5  # seconds from a line to its answer's turn, at the latest (#41: within 5 s)
DUE_ANSWER_WITHIN = 4.6  # the same when the board waits: an answer still within 5 s of its line
HOLD = 4.3  # seconds an answer waits, gathering, while a board has waited long (`Pacer.due`): within 5 s
# set by the live board's task while it takes its turn (bot/telegram/delivery.py `LiveBoards`): a turn
# the board is due goes to the board's own requests, never to other tidying
BOARD_TURN: ContextVar[bool] = ContextVar("board_turn", default=False)


@dataclass
class Bucket:
    budget: Budget
    tokens: float
    at: float  # when `tokens` was counted
    promised: int = 0  # tokens an answer was told it may have (`Pacer.ready`)
    held: float = float("-inf")  # nothing before this moment: Telegram said wait (`hold`)

    def fill(self, now: float) -> None:
        if now > self.at:
            self.tokens = min(float(self.budget.burst), self.tokens + (now - self.at) / self.budget.every)
            self.at = now

    def wait(self, now: float, spare: int = 0) -> float:
        """Seconds until a token is free (beyond `spare` kept for others); 0: now. Only a hold makes
        it wait for a moment to come: `at` a hair past `now` (counted on a later reading of the clock,
        as `spare` may be) is not a wait, or an answer would wait a microsecond at a time for ever."""
        self.fill(now)
        short = 1 + spare - self.tokens
        held = max(self.held - now, 0.0)
        if short <= 1e-9 and held == 0:
            return 0.0
        return held + max(short, 0.0) * self.budget.every

    def take(self, now: float) -> None:
        self.fill(now)
        self.tokens -= 1

    def hold(self, now: float, seconds: float) -> None:
        """Telegram said wait: nothing until then (a token is counted from then on)."""
        self.tokens = min(self.tokens, 0.0)
        self.at = max(self.at, now + seconds)
        self.held = max(self.held, now + seconds)


@dataclass
class Pacer:
    """Turns per chat and overall. `group`/`private`/`overall` None: no limit of that kind (the tests'
    fake Telegram, which enforces no limit unless told to)."""

    group: Budget | None = GROUP_BUDGET
    private: Budget | None = PRIVATE_BUDGET
    overall: Budget | None = OVERALL_BUDGET
    answer_within: float = ANSWER_WITHIN
    _buckets: dict[int, Bucket] = field(default_factory=dict)
    _all: Bucket | None = None
    _urgent: dict[int, int] = field(default_factory=dict)  # answers waiting for a turn, per chat
    _quiet: dict[int, asyncio.Event] = field(default_factory=dict)  # set: no answer waits in the chat
    _oldest: dict[int, Callable[[], float | None]] = field(default_factory=dict)  # when the oldest came
    _due: dict[int, tuple[float, float]] = field(default_factory=dict)  # a board waits: (from, at the latest)

    @classmethod
    def unlimited(cls) -> Pacer:
        return cls(None, None, None)

    @staticmethod
    def now() -> float:
        return asyncio.get_running_loop().time()

    def bucket(self, chat: int) -> Bucket | None:
        budget = self.group if chat < 0 else self.private
        if budget is None:
            return None
        if chat not in self._buckets:
            self._buckets[chat] = Bucket(budget, float(budget.burst), self.now())
        return self._buckets[chat]

    def everyone(self) -> Bucket | None:
        if self._all is None and self.overall is not None:
            self._all = Bucket(self.overall, float(self.overall.burst), self.now())
        return self._all

    @asynccontextmanager
    async def ready(self, chat: int, oldest: Callable[[], float | None] = lambda: None) -> AsyncIterator[None]:
        """For an answer: wait until the chat may send, and keep that turn for the answer's first
        message (what it says is made only now, with everything that came while it waited).
        `oldest`: when the oldest answer waiting came (None: not known, it is not kept waiting)."""
        bucket = self.bucket(chat)
        self._waiting(chat, +1)
        self._oldest[chat] = oldest
        try:
            if bucket is not None:  # a board waiting may have the token first if the answer stays in time
                while True:
                    spare = bucket.promised + self._kept_for_board(chat, bucket)  # (reads the clock: before `now`)
                    if (wait := bucket.wait(self.now(), spare=spare)) <= 0:
                        break
                    await asyncio.sleep(min(wait, self._look_again(chat)))
                bucket.promised += 1
            try:
                yield
            finally:
                if bucket is not None and bucket.promised > 0:  # the answer sent nothing: the turn is free
                    bucket.promised -= 1
        finally:
            self._waiting(chat, -1)
            if self._oldest.get(chat) is oldest:
                del self._oldest[chat]

    async def turn(self, chat: int, urgent: bool = True) -> None:
        """Wait for one message's turn in `chat` and count it. An answer takes the turn `ready` kept
        for it; anything else lets a waiting answer go first unless it can wait (`may_go_first`)."""
        bucket = self.bucket(chat)
        if bucket is not None:
            if urgent and bucket.promised > 0:
                bucket.promised -= 1
            else:
                await self._chat_turn(chat, bucket, urgent)
            bucket.take(self.now())
        everyone = self.everyone()
        if everyone is not None:
            while (wait := everyone.wait(self.now())) > 0:
                await asyncio.sleep(wait)
            everyone.take(self.now())

    async def free(self, chat: int) -> None:
        """Wait until something that is not an answer may go in `chat` now (taking nothing): the
        pinned board chooses what it shows only then, so it shows the latest."""
        bucket = self.bucket(chat)
        if bucket is not None:
            await self._chat_turn(chat, bucket, urgent=False)

    async def _chat_turn(self, chat: int, bucket: Bucket, urgent: bool) -> None:
        if urgent:
            self._waiting(chat, +1)
        try:
            while True:
                wait = bucket.wait(self.now(), spare=bucket.promised)
                if wait > 0:
                    await asyncio.sleep(wait)
                elif urgent or self.may_go_first(chat, bucket):
                    return
                elif not self._urgent.get(chat):  # tidying behind a board waiting: look again a little later
                    await asyncio.sleep(bucket.budget.every / 4)
                else:  # an answer is due: it has this turn; look again when it has gone, or at the next
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._quiet[chat].wait(), bucket.budget.every)
        finally:
            if urgent:
                self._waiting(chat, -1)

    def due(self, chat: int, waits: tuple[float, float] | None) -> None:
        """The chat's board waits for its turn now, for a change made at `waits[0]`: it goes before an
        answer that can still be within DUE_ANSWER_WITHIN, and from `waits[1]` on it has the next free
        turn before any answer (None: no board waits; set only while it does, so no turn is kept
        for a board that is not there to take it)."""
        if waits is None:
            self._due.pop(chat, None)
        else:
            self._due[chat] = waits

    def _kept_for_board(self, chat: int, bucket: Bucket) -> int:
        """1 when an answer waiting for a turn leaves the chat's next token to the board: the board
        waits, no answer holds a turn already (behind one, it would hold up the answers after it as
        well), and the answer stays in time without it — it can have the token after (`in_time`), or,
        once the board's change has waited `pressing` long, it may still wait (`HOLD`) and gather what
        comes meanwhile into its message, while the bucket grows a token for the board."""
        if bucket.promised or not self.board_due(chat, pressing=False):
            return 0
        since = self._since(chat)
        if since is None:
            return 0
        if self.board_due(chat) and self.now() < since + HOLD - 1e-6:  # (the clock's rounding: not past it)
            return 1
        return int(self.in_time(bucket, since, DUE_ANSWER_WITHIN))

    def _look_again(self, chat: int) -> float:
        """Seconds until an answer waiting may stop leaving its token to the board: when the oldest
        answer can no longer be in time after the board's turn, or its `HOLD` is up."""
        since = self._since(chat)
        bucket = self._buckets.get(chat)
        if since is None or bucket is None:
            return 1.0
        now = self.now()
        moments = [since + HOLD, since + DUE_ANSWER_WITHIN - bucket.budget.every, self._due.get(chat, (now, now))[1]]
        later = [at - now for at in moments if at > now + 1e-6]
        return max(min(later, default=1.0), 0.05)

    def _since(self, chat: int) -> float | None:
        oldest = self._oldest.get(chat)
        return oldest() if oldest is not None else None

    def in_time(self, bucket: Bucket, since: float, within: float) -> bool:
        """Whether the oldest answer waiting (come at `since`) still has a token within `within` of its
        line if the chat's token now goes to something else: a whole token is left over, or the next
        grows before then."""
        now = self.now()
        bucket.fill(now)
        left = bucket.tokens - 1 - bucket.promised
        return now + max(0.0, 1 - left) * bucket.budget.every <= since + within

    def board_due(self, chat: int, pressing: bool = True) -> bool:
        """Whether the chat's board waits (`pressing`: has waited so long that the answers hold)."""
        waits = self._due.get(chat)
        return waits is not None and self.now() >= waits[1 if pressing else 0]

    def may_go_first(self, chat: int, bucket: Bucket) -> bool:
        """Whether something that is not an answer may have the turn now: no answer waits, or the
        oldest answer waiting still has a token in time after this one (`answer_within`,
        DUE_ANSWER_WITHIN for the board). Tidying lets a board waiting go first."""
        board = BOARD_TURN.get()
        if not board and self.board_due(chat, pressing=False):
            return False
        if not self._urgent.get(chat):
            return True
        since = self._since(chat)
        return since is not None and self.in_time(bucket, since, DUE_ANSWER_WITHIN if board else self.answer_within)

    def _waiting(self, chat: int, change: int) -> None:
        count = self._urgent.get(chat, 0) + change
        quiet = self._quiet.setdefault(chat, asyncio.Event())
        if count:
            self._urgent[chat] = count
            quiet.clear()
        else:
            self._urgent.pop(chat, None)
            quiet.set()

    def hold(self, chat: int, seconds: float) -> None:
        """Telegram answered 429 with `retry_after`: the chat sends nothing more until then."""
        bucket = self.bucket(chat)
        if bucket is not None:
            bucket.hold(self.now(), seconds)
