"""A night's state has one owner: `Night`, the fold of its effective events through engine/table.py.

The ledger holds every event ever typed; a night's *effective* history is the events that are still
active (not reversed by an active undo or fix), each fix standing in the place of the event it
corrects. Folding that history through `engine.table.apply` gives the table now (hand, dealer, 连庄,
比下胡, melds, chips) and every event's derived payments. `Nights` loads and caches a chat's latest
night; every write goes through its `Night`, which appends to the ledger and updates itself, so no
other cache exists.

Payments are booked when an event is recorded. A correction (undo or fix of any past event) re-folds
the corrected history and books the difference between the newly derived payments and everything
booked so far as the correction's own payments: the ledger stays append-only, the booked totals
always equal the derived ones, and every correction's payments sum to zero."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from bot.night import checkpoint as checkpoints
from bot.night.codec import (
    SEAT_KINDS,
    STAKE,
    SeatChange,
    StakeChange,
    decode_body,
    encode_event,
    encode_seat,
    encode_stake,
    event_kind,
)
from bot.night.correction import (
    Corrected,
    plan_correction,
    settle_correction,
)
from bot.night.fold import (
    PENDING_ID,
    Line,
    actor_of,
    is_closed,
)
from bot.night.people import Occupancy, occupancy
from bot.night.played import Played
from bot.night.reading import NightReading
from bot.night.running import RunningTally, added_up, sitting_of, tally_from
from bot.night.seating import seats_from
from bot.night.tally import (
    TALLY_VERSION,
    Figures,
    Tally,
    TallyBuilder,
    decode_figures,
    encode_figures,
    hand_rows,
)
from bot.store.heap import free_off_loop
from bot.store.rows import (
    EventRow,
    NewEvent,
    PaymentRow,
    Seat,
    StoredTally,
    TallyUpdate,
)
from bot.threads import in_thread
from engine.errors import EngineError
from engine.events import Event, Win
from engine.settlement import Payment
from engine.table import TableState

# A night holds at most this many rows (events, chores and corrections): past it, a table event is
# refused with "start a new night" (README: a bounded night keeps a correction's re-fold under half
# a second, and no real table comes near it). Chores and corrections still go through for
# ROW_MARGIN rows more, then get the same answer; /close always does (and a binding, which rides
# on a line already answered). A line an /undo took out does not count: typed again, it fits.
MAX_NIGHT_EVENTS = 5_000
INTEGER_MOST = 2**63 - 1  # SQLite's INTEGER: what a payment's flowers and money must fit


def check_fits(news: Sequence[NewEvent], stake: int) -> None:
    """EngineError, nothing written, when a payment would not fit the ledger: only rules a ledger held
    before the bounds of docs/rules.md 20 can make one (the doors refuse such rules and stakes)."""
    for new in news:
        cents = new.stake_cents or stake
        if any(abs(p.amount) * max(cents, 1) > INTEGER_MOST for p in new.payments):
            raise EngineError("room.payment_too_big")


ROW_MARGIN = 100


Answered = TypeVar("Answered")  # what a line's answer is (Night.answer_bound)


@dataclass(frozen=True)
class Recorded:
    event_id: int
    played: Played
    payments: tuple[PaymentRow, ...]


class Night(NightReading):
    """The night's one owner: it writes every line to the ledger and folds it in, and keeps the
    running tally. What it answers without writing is `NightReading`'s (bot/night/reading.py)."""

    # ---- what /summary and its chart show (bot/night/tally.py) --------------------------------------

    async def tally(self) -> Tally:
        """The night's running tally: as stored with the last closed hand, and what the night added
        since (the hand being played); or, where none is stored or it cannot be added to (stored by
        older code; a correction stored after it never came), the whole night tallied from its fold,
        off the event loop, and stored for the next time."""
        stored = await self.ledger.tallies.tally(self.id)
        running = await self._running_tally(stored)
        if running is None or stored is None or stored.last_event_id != running.stored_at:
            await self.load_history()
            await self.folded()
            tally = (await in_thread(self.whole_tally)).tally()
            await self._store_tally(tally)
            return tally
        return await in_thread(added_up, running, stored.hands)  # a long night's hands: off the event loop

    def whole_tally(self) -> TallyBuilder:
        """The whole night's tally from its fold (a long night's takes a while: from a worker thread)."""
        return tally_from(self.whole_fold(), self.events, self.payment_rows, sitting_of(self.seating()))

    async def start_tally(self) -> None:
        """A night just opened: its running tally starts empty."""
        await self._store_tally(Tally())

    async def _store_tally(self, tally: Tally) -> None:
        """Store the whole tally (after a correction; a night stored without one): the hands' rows
        and the figures, as of the newest event."""
        at = self.log_size()
        figures = encode_figures(tally.figures)
        stored = await self.ledger.tallies.store_tally(self.id, at, TALLY_VERSION, figures, hand_rows(tally.hands))
        self._running = RunningTally(at, tally.figures) if stored else None
        self._running_read = True

    async def _running_tally(self, read: StoredTally | None = None) -> RunningTally | None:
        """The running tally: the stored one (`read` already, or read now) the first time it is
        needed, and the events after it."""
        if not self._running_read:
            self._running_read = True
            stored = read or await self.ledger.tallies.tally(self.id, hands=False)
            figures = decode_figures(stored.figures) if stored is not None else None
            if stored is not None and stored.version == TALLY_VERSION and figures is not None:
                self._running = self._running_from(stored.last_event_id, figures)
        return self._running

    def _running_from(self, at: int, figures: Figures) -> RunningTally | None:
        """The tally stored after event `at` and what the events after it add; None where they cannot
        be added from here: a correction after it (the whole tally it stores never came: a crash),
        or events after it this night does not hold or has not folded (a fold from a later
        checkpoint: the whole night is tallied instead). Read from the end: it costs what came after
        the stored tally (a hand's events), not the night."""
        if at > self.log_size() or at < self._from:
            return None
        if self._head is not None and self._checkpoint is not None and at < self._checkpoint[0]:
            return None
        events, payments = self._events, self._payment_rows
        first = len(events)
        while first and events[first - 1].id > at:
            first -= 1
        after = events[first:]
        if any(event.reverses is not None for event in after):
            return None
        paid = len(payments)
        while paid and payments[paid - 1].event_id > at:
            paid -= 1
        if any(event.kind in SEAT_KINDS for event in after):  # someone sat down or left since: who sat where
            seating = self.seating() if self._head is None else self._head_occupancy(self._head)
            sitting = sitting_of(seating)
        else:
            now = self._seating().now
            sitting = lambda place: now  # noqa: E731 (no one moved since: everyone sits as now)
        return RunningTally.of(at, tally_from(self._fold, after, payments[paid:], sitting, figures, at))

    def _head_occupancy(self, head: checkpoints.Head) -> Occupancy:
        """Who sat where at each event after a checkpoint's head, from the head on."""
        return occupancy(head.seats, self._events, self._active, (head.names, head.now))

    def _head_after(self, played: Played) -> checkpoints.Head:
        """The checkpoint's head once `played` (about to be appended) and its payments are in."""
        seating = self._seating()
        amounts, money = list(seating.amounts), list(seating.money)
        stake = self.stake_at(played.hand_no)
        for p in played.payments:  # booked at this hand's stake, to whoever sits there now
            for seat, sign in ((p.payer, -1), (p.payee, 1)):
                amounts[seating.now[seat]] += sign * p.amount
                money[seating.now[seat]] += sign * p.amount * stake
        assert self._schedule is not None  # stake_at keeps the night's schedule
        schedule = self._schedule[1]
        return checkpoints.Head(
            self.seats,
            seating.names,
            seating.now,
            tuple(amounts),
            tuple(money),
            tuple(schedule),
            self.closed,
            self.last_number() + 1,  # `played` is a line of its own
        )

    async def _append(
        self,
        line: Line,
        chat_id: str,
        news: Sequence[NewEvent],
        hand: int | None = None,
        checkpoint: tuple[TableState, checkpoints.Head] | None = None,
        held: Sequence[object] = (),
        tally: TallyUpdate | None = None,
    ) -> list[EventRow]:
        """Append the line's rows (and a binding waiting for a write); `held`: the values the first
        rows' payloads say, as the night holds them already (a recorded event, played): a row read
        back holds that very value when it reads as it, so the value is held once. `tally`: what a
        closed hand adds to the stored running tally, in the same transaction as its checkpoint."""
        stake = self.stake_at(hand if hand is not None else self.state.hand_no)
        check_fits(news, stake)
        saved = (self.version, checkpoints.encode(*checkpoint, self.opening_preset)) if checkpoint is not None else None
        bind, self._unwritten_bind = self._unwritten_bind, None
        if bind is not None:  # after the line's own rows: the first one keeps the update key
            news = [*news, NewEvent(self.state.hand_no, "bind", bind.seat, encode_seat(bind))]
        try:
            rows = await self.ledger.append_rows(
                chat_id,
                self.id,
                line.speaker,
                line.text,
                line.update_key,
                stake,
                news,
                saved,
                decode_body,
                tally,
            )
        except BaseException:
            self._unwritten_bind = bind  # not written: still to be dropped (the seats restored) or retried
            raise
        for at, value in enumerate(held[: len(rows)]):
            if rows[at].body == value:
                rows[at] = replace(rows[at], body=value)
        self._events.extend(rows)  # from a checkpoint's head too: a table event needs no older history
        if self._rows is not None:
            self._rows += len(rows)
        if bind is not None:
            self._active.add(rows[-1].id)
            rows = rows[:-1]
        return rows

    def bind_with_next_write(self, change: SeatChange) -> None:
        """Seat an account in memory only: its `bind` row is written by this night's next write, in
        that write's transaction (the event it serves), or forgotten by `drop_unwritten_bind`. So a
        refused line leaves no binding behind."""
        self._unwritten_bind = change
        seats = list(self.seats)
        seats[change.seat] = Seat(change.name, change.user_id, change.username)
        self.seats = tuple(seats)

    def drop_unwritten_bind(self) -> SeatChange | None:
        """Forget a binding no write carried (the seats as the ledger has them); returns it."""
        bind, self._unwritten_bind = self._unwritten_bind, None
        if bind is not None:
            self.seats = seats_from(self.row, self.events, self.active)
        return bind

    async def answer_bound(
        self, change: SeatChange, alone: Line | None, answer: Callable[[], Awaitable[Answered]]
    ) -> tuple[Answered, bool]:
        """Answer a line with an account bound to its seat, in one step: the binding is written with the
        line's first write (the event it serves); a line that writes nothing drops it, the seats as the
        ledger has them, unless `alone` is given (an account already seated, by @username): then it is
        written on its own row once the line is answered without refusal. Returns the answer and
        whether the binding was written."""
        self.bind_with_next_write(change)
        try:
            answered = await answer()
        finally:
            unwritten = self.drop_unwritten_bind()
        if unwritten is not None and alone is not None:
            await self.record_seat(alone, "bind", unwritten)
            return answered, True
        return answered, unwritten is None

    def _booked_rows(self, event_id: int, payments: Sequence[Payment], hand: int) -> tuple[PaymentRow, ...]:
        stake = self.stake_at(hand)
        rows = tuple(PaymentRow(event_id, p.payer, p.payee, p.amount, p.amount * stake, p.reason) for p in payments)
        self._payment_rows.extend(rows)
        if self._booked is not None:
            self._booked.add(rows)
        return rows

    async def record(self, line: Line, event: Event) -> Recorded:
        """Apply a table event, append it with its payments, and fold it in; raises EngineError
        (nothing written) if the table refuses it, or if the night is full (MAX_NIGHT_EVENTS). A claim
        joining the last win (一炮多响) is settled with it, from the whole night's fold."""
        if await self._row_count() >= MAX_NIGHT_EVENTS and not await self._room_for_a_line():
            raise EngineError("night.full", limit=MAX_NIGHT_EVENTS)
        if isinstance(event, Win) and event.joins is not None:
            await self.folded()
        event = self._interner.event(event)  # a seat's pong, a win's flags: as met before tonight
        fold = self._fold.then(PENDING_ID, PENDING_ID, event, interner=self._interner)
        played = fold.last
        new = NewEvent(played.hand_no, event_kind(event), actor_of(event), encode_event(event), played.payments)
        closes_hand = fold.state.hand_no != self.state.hand_no
        saved = (fold.state, self._head_after(played)) if closes_hand else None
        running = await self._running_tally()
        adding = running.with_played(played, self._seating().now, self._fold.last_or_none()) if running else None
        update = running.stored_with(adding) if running and adding and closes_hand else None
        (row,) = await self._append(line, self.row.chat_id, [new], played.hand_no, saved, (played.event,), update)
        if running is not None and adding is not None:  # once stored with the hand, it runs on from there
            self._running = (
                RunningTally(self.log_size(), adding.figures())
                if update
                else RunningTally.of(running.stored_at, adding)
            )
        played = replace(played, event_id=row.id, place=row.id)
        self._fold = self._fold.plus(fold.state, played, fold.before_last)  # shares the fold's history: no copy
        self._active.add(row.id)
        rows = self._booked_rows(row.id, played.payments, played.hand_no)
        return Recorded(row.id, played, rows)

    async def _row_count(self) -> int:
        if self._rows is None:  # from a checkpoint's head: counted in the ledger once
            self._rows = await self.ledger.event_count(self.id)
        return self._rows

    async def _room_for_a_line(self) -> bool:
        """Past the bound, whether a table event still fits: while the lines in force are fewer
        (an /undo at the bound took one out: typing it corrected is no dead end), within the margin."""
        if await self._row_count() >= MAX_NIGHT_EVENTS + ROW_MARGIN:
            return False
        await self.load_history()  # at the bound only: the lines in force are the whole night's
        return self._index.in_force(self._events) < MAX_NIGHT_EVENTS

    async def _refuse_past_the_margin(self, rows: int = 1) -> None:
        """A chore or correction that would take the night past its bound and margin is refused
        (nothing written): a correction's re-fold grows with the night (0.7 s of CPU at 5,000 rows)."""
        if await self._row_count() + rows > MAX_NIGHT_EVENTS + ROW_MARGIN:
            raise EngineError("night.full", limit=MAX_NIGHT_EVENTS)

    async def record_seat(self, line: Line, kind: str, change: SeatChange) -> int:
        """A join, bind, unseat, rename or 换人 (a bind rides on a line already answered: never refused)."""
        if kind != "bind":
            await self._refuse_past_the_margin()
        (row,) = await self._append(
            line, self.row.chat_id, [NewEvent(self.state.hand_no, kind, change.seat, encode_seat(change))]
        )
        self.active.add(row.id)
        self.seats = seats_from(self.row, self.events, self.active)
        return row.id

    async def record_stake(self, line: Line, change: StakeChange) -> int:
        """改底 from a hand on."""
        await self._refuse_past_the_margin()
        (row,) = await self._append(
            line, self.row.chat_id, [NewEvent(self.state.hand_no, STAKE, None, encode_stake(change))]
        )
        self.active.add(row.id)
        return row.id

    async def record_mark(self, line: Line, kind: str) -> int:
        """close or reopen (a full night always closes)."""
        if kind != "close":
            await self._refuse_past_the_margin()
        (row,) = await self._append(line, self.row.chat_id, [NewEvent(self.state.hand_no, kind, None, "{}")])
        self.active.add(row.id)
        self.closed = is_closed(self.events)
        return row.id

    async def correct(self, line: Line, target: EventRow, replacement: Event | None) -> Corrected:
        """Undo (`replacement` None) or fix any past event: re-derive the night and book the difference.
        What grows with the night (the re-fold, the money per place, the players' totals after it)
        is worked out off the event loop on a snapshot of the log, so other chats are answered
        meanwhile; the night takes the outcome in one step, after the ledger has it. Refused
        (EngineError, nothing written) past the night's bound and margin."""
        await self._refuse_past_the_margin()  # before the re-fold: a full night's costs 0.7 s
        before = await self.folded()  # the night before the correction, for the hands it moves
        events, payments = list(self.events), self.payment_rows.copy()  # the log as of now
        plan = await in_thread(plan_correction, self.row, self.start(), events, payments, target, replacement)
        await self._refuse_past_the_margin(len(plan.news))  # with the rows it books at other places
        rows_written = await self._append(line, self.row.chat_id, plan.news, plan.target_hand)
        written = list(self._events)
        after = await in_thread(settle_correction, self.row, plan, before, written, payments, rows_written)
        # the night takes the outcome at once: a reader sees it before or after, never half of it
        self._fold, self._from = after.fold, 0
        self.active, self.seats = after.active, after.seats
        self.payment_rows.extend(after.rows)
        if self._booked is not None:  # summed already: keep it in step
            self._booked.add(after.rows)
        self._people, self._schedule = after.seating, (len(self._events), after.schedule)
        await self._store_tally(after.tally)  # the night's tally as corrected, worked out off the loop
        spent: list[object] = [before, plan]  # the night as it was folded: only these hold it now
        del before, plan
        free_off_loop(spent)
        row = rows_written[0]
        return Corrected(row.id, target, after.rows, after.changes, after.moved, after.replacement)
