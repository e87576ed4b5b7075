"""A night read from its log: its table (the fold), its lines and their numbers, its players, stakes and
totals. `Night` (bot/night/night.py) adds what writes to the ledger and the running tally it keeps."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from bot.night import checkpoint as checkpoints
from bot.night.codec import (
    EVENT_KINDS,
    SeatChange,
)
from bot.night.flows import Totals
from bot.night.fold import (
    PENDING_ID,
    Fold,
    active_ids,
    claim_joins_across,
    current_hand,
    effective_events,
    fold_events,
    fold_whole_night,
    hand_in,
    is_closed,
)
from bot.night.interner import Interner
from bot.night.log_index import LogIndex
from bot.night.payment_log import PaymentLog
from bot.night.people import (
    Occupancy,
    Person,
    PlayerTotals,
    index_totals,
    merged_people,
    no_hand,
    occupancy,
    player_totals,
    stake_at,
)
from bot.night.played import Played
from bot.night.running import RunningTally
from bot.night.schedule import hand_begun, placed_changes, placed_schedule
from bot.night.seating import Former, former_names, seats_from
from bot.store.ledger import Ledger
from bot.store.rows import (
    EventRow,
    LineText,
    NightRow,
    PaymentRow,
    Seat,
)
from bot.text.vocabulary import fold
from bot.threads import in_thread
from engine.events import Event, Gang, Pong, Win
from engine.hand import MeldKind
from engine.preset import Preset, preset_from_dict
from engine.table import TableState, new_table
from engine.tiles import Tile

LIVE_SHARED = 1_024  # values a night being played looks the next ones up among (the newest met)


class NightReading:
    """A night as folded from its log and what it answers; `Night` (bot/night/night.py) writes."""

    def __init__(
        self,
        ledger: Ledger,
        row: NightRow,
        events: Sequence[EventRow],
        payments: Sequence[PaymentRow],
        checkpoint: tuple[int, str] | None = None,
        head: checkpoints.Head | None = None,
        preset: Preset | None = None,
    ):
        """`events` and `payments` are the whole night's; or, with a checkpoint's `head`, only those
        after the checkpoint (a restart's first /score): the older history is read when first needed.
        `preset`: the night's preset as read already (another night's of the same rules)."""
        self.ledger = ledger
        self.row = row
        # the rules the night was opened with; a 改规则 makes others from a hand on (`preset`)
        self.opening_preset: Preset = (
            preset if preset is not None else preset_from_dict(json.loads(row.preset_json), bounded=False)
        )
        self._events: list[EventRow] = list(events)
        self._index = LogIndex(row.ids_through)  # questions by id, kind and place, folded once per appended row
        self._booked: Totals | None = None  # summed from the payments when first asked for
        self._payment_rows = PaymentLog(payments)  # in columns: a night holds thousands
        self._people: PlayerTotals | None = None
        self._schedule: tuple[int, list[tuple[int, int]]] | None = None
        self._active: set[int] = set()
        # tonight's former names, kept while the log and its active events stay as they were: every
        # talk line asks for them (a near-miss naming an old name), and they change only at a write
        self._former: tuple[tuple[int, int, int], dict[str, Former]] | None = None
        self.seats: tuple[Seat, ...] = row.seats
        self.closed = False
        self.version = checkpoints.version(row.preset_json)
        self._unwritten_bind: SeatChange | None = None  # see `bind_with_next_write`
        # what repeats among the events recorded here (a night read from the ledger shares it as it
        # is read): a bounded table, since the night keeps it as long as it is played
        self._interner = Interner(bound=LIVE_SHARED, by_content=False)
        self._checkpoint = checkpoint
        self._head = head
        # the running tally (bot/night/tally.py): the stored one and what the night added since,
        # read when first needed (None: none to add to, the whole night is tallied when asked)
        self._running: RunningTally | None = None
        self._running_read = False
        self._rows: int | None = None if head is not None else len(self._events)  # the night's rows
        # The fold in memory starts after event `_from` (a checkpoint's) or at the start (0); the
        # whole night's fold is folded from the start the first time something asks for it.
        self._fold = Fold(self.start())
        self._from = 0
        if head is None:
            self._derive(checkpoint)
        else:
            self._derive_head(head)

    @property
    def partial(self) -> bool:
        """Whether only the events after the checkpoint are in memory (see `load_history`)."""
        return self._head is not None

    def _whole(self) -> None:
        if self._head is not None:
            raise RuntimeError("the night's older history is not loaded (await Night.load_history() first)")

    @property
    def events(self) -> list[EventRow]:
        self._whole()
        return self._events

    @property
    def payment_rows(self) -> PaymentLog:
        self._whole()
        return self._payment_rows

    @property
    def active(self) -> set[int]:
        self._whole()
        return self._active

    @active.setter
    def active(self, value: set[int]) -> None:
        self._active = value

    async def load_history(self) -> None:
        """Read the whole night (a restart loaded only what came after its checkpoint)."""
        if self._head is None:
            return
        self._events = await self.ledger.events(self.id, decode=Interner().decode)
        self._payment_rows = await in_thread(PaymentLog, await self.ledger.payments(self.id))  # columns: off the loop
        self._rows = len(self._events)
        self._head = None  # `_derive` builds the players, totals and stakes from the whole log
        await in_thread(self._derive, self._checkpoint)  # a long night folds off the event loop

    def held(self) -> int:
        """Events (and payments) held in memory: what a night costs the cache (Nights.budget)."""
        return 1 + len(self._events) + len(self._payment_rows) // 4

    def log_size(self) -> int:
        """The id of the newest event in the ledger (changes with every write)."""
        if self._events:
            return self._events[-1].id
        return self._checkpoint[0] if self._head is not None and self._checkpoint is not None else 0

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def number(self) -> int:
        """What the chat calls this night ("第 2 局"): its own count, not the global id."""
        return self.row.number

    @property
    def state(self) -> TableState:
        return self._fold.state

    @property
    def preset(self) -> Preset:
        """The rules of the hand being played: the night's own, or those a 改规则 made."""
        return self._fold.state.preset

    @property
    def next_preset(self) -> Preset:
        """The rules of the next hand: a 改规则 typed during this one waits for it."""
        return self._fold.state.next_preset or self._fold.state.preset

    @property
    def booked(self) -> Totals:
        """Sums of every payment booked tonight (a restart sums them when a correction or the stats
        first need them, not before the first /score)."""
        if self._booked is None:
            self._booked = Totals()
            self._booked.add(self.payment_rows)
        return self._booked

    def whole_fold(self) -> Fold:
        """The whole night's fold, every effective event played. After a restart from a checkpoint
        only its end was folded: this folds it from the start, on the event loop, and keeps it (once,
        when first needed: a correction, a summary, the stats; `folded` does it off the loop)."""
        if self._from:
            self._fold = fold_events(self.start(), effective_events(self.events, self.active), None)
            self._from = 0
        return self._fold

    async def folded(self) -> Fold:
        """The whole night's fold, folded again off the event loop when only its end is in memory (a
        long night takes seconds: other chats are answered meanwhile)."""
        if self._from:
            events, active, start = self.events, self.active, self.start()
            self._fold = await in_thread(fold_whole_night, start, events, active)
            self._from = 0
        return self._fold

    def start(self) -> TableState:
        return new_table(self.opening_preset, self.row.dealer)

    def _derive(self, checkpoint: tuple[int, str] | None = None) -> None:
        self.active = active_ids(self.events)
        self.seats = seats_from(self.row, self.events, self.active)
        self.closed = is_closed(self.events)
        start, after = self.start(), 0
        if checkpoint is not None and not claim_joins_across(self.events, self.active, checkpoint[0]):
            try:
                start, after = checkpoints.decode(checkpoint[1], self.opening_preset)[0], checkpoint[0]
            except checkpoints.CheckpointMismatch:
                start, after = self.start(), 0  # another engine wrote it: fold the whole night
        self._fold = fold_events(start, effective_events(self.events, self.active, after), None)
        self._fold.played.build_index()  # here, off the event loop when the night is long (Nights.load)
        self._index.catch_up(self._events)
        self._from = after
        # players and totals too: from a whole log they take a long night's 100 ms, not the loop's
        self._people, schedule = player_totals(self.row, self.events, self.active, self.payment_rows, self.whole_fold)
        self._schedule = (len(self._events), schedule)

    def _derive_head(self, head: checkpoints.Head) -> None:
        """The night from a checkpoint's head and the events after it (Nights.load checked they fit)."""
        assert self._checkpoint is not None
        events = self._events
        self._active = active_ids(events)
        self.seats = seats_from(replace(self.row, seats=head.seats), events, self._active)
        marks = [e for e in events if e.kind in ("close", "reopen")]
        self.closed = is_closed(marks) if marks else head.closed
        start, after = checkpoints.decode(self._checkpoint[1], self.opening_preset)[0], self._checkpoint[0]
        self._fold = fold_events(start, effective_events(events, self._active, after), None)
        self._from = after
        self._people = self._seating_from_head(head)

    def _schedule_now(self) -> list[tuple[int, int]]:
        """(from hand, stake) of the night: from the opening stake, or from a checkpoint's head."""
        if self._head is None:
            return placed_schedule(self.row.stake_cents, self.events, self.active, self.whole_fold)
        # the 改底 after the checkpoint, placed in its fold as the whole night's fold places them
        return [*self._head.schedule, *placed_changes(self._events, self._active, self._fold)]

    def hand_begun(self) -> bool:
        """Whether the hand being played has begun (`hand_begun`): a 改底 now waits for the next one."""
        played = self._fold.played
        return hand_begun(played, len(played), self.state.hand_no)

    def _seating_from_head(self, head: checkpoints.Head) -> PlayerTotals:
        """Players and totals: the head's, and the payments of the events after its checkpoint."""
        events = self._events
        schedule = self._schedule_now()
        seating = occupancy(head.seats, events, self._active, (head.names, head.now))
        hand_of = self._fold.hand_of if len(schedule) > 1 else no_hand
        base = (head.amounts, head.money)
        amounts, money = index_totals(seating, events, self._payment_rows, schedule, hand_of, base)
        return PlayerTotals((len(events), len(self._payment_rows)), seating.names, seating.now, amounts, money)

    # ---- questions -----------------------------------------------------------------------------

    def event(self, event_id: int) -> EventRow | None:
        return self._index.event(self.events, event_id)

    # ---- the numbers players see (bot/night/log_index.py): every number shown or typed goes through these

    def _number_base(self, before: int | None = None) -> int:
        """The number of the last line before the rows in memory; `before`: a row id or line number asked
        about, which needs the older history when a restart left it unread."""
        if self._head is None:
            return 0
        if before is not None and self._checkpoint is not None and before <= self._checkpoint[0]:
            self._whole()  # raises: the caller loads the history first
        return self._head.numbers

    def number_of(self, event_id: int) -> int | None:
        """The number tonight's players know this row by (`✅ #3`, /history), None for a row no
        one typed as a line (a seat claim, a correction's re-pricing row)."""
        return self._index.number_of(self._events, event_id, self._number_base(event_id))

    def shown(self, event_id: int) -> int | str:
        """The row's number as shown, or `?` for an unnumbered row (callers name numbered ones)."""
        number = self.number_of(event_id)
        return "?" if number is None else number

    def numbered(self, number: int) -> EventRow | None:
        """The row typed as line #number tonight: how every number a player types is read."""
        if self._head is not None and number <= self._head.numbers:
            self._whole()  # raises: the caller loads the history first
        return self._index.numbered(self._events, number, self._number_base())

    def lines(self) -> list[EventRow]:
        """The night's lines, #1 (the opening) first: what /history lists."""
        return self._index.lines(self.events)

    def last_number(self) -> int:
        """The latest line's number (the opening is #1)."""
        return self._index.last_number(self._events, self._number_base())

    def current_version(self, place: int) -> EventRow | None:
        """The row in force at this place in the night, None once it is undone."""
        current = self._index.current(self.events, place)
        return self.event(current) if current is not None else None

    def standing(self, place: int) -> tuple[int, ...]:
        """The versions standing at this place, oldest first: the last is in force, the others are
        fixed since; a version undone is not among them (bot/night/versions.py)."""
        return self._index.versions(self.events, place)

    def last_active(self, kinds: Sequence[str]) -> EventRow | None:
        return self.last_row(kinds, lambda e: e.id in self.active)

    def last_row(self, kinds: Sequence[str], counts: Callable[[EventRow], bool]) -> EventRow | None:
        """The newest row of these kinds that `counts`."""
        return self._index.last(self.events, kinds, counts)

    def place_of(self, event_id: int) -> int:
        return self._index.place(self.events, event_id)

    def hand_in_log(self, event: EventRow) -> int:
        """The hand an event belongs to as the corrected night has it: /history and the CSV both say
        it. A replaced version of a corrected event (a fix later fixed again, a joined win) belongs to
        its place's hand, not to the hand it was typed in."""
        return hand_in(self.whole_fold(), event, self.place_of)

    def state_before(self, event_id: int) -> TableState:
        """The table as it was just before this event (a fix is built against it)."""
        place = self.place_of(event_id)
        fold = Fold(self.start())
        for played in self.whole_fold().played:
            if played.place >= place:
                break
            fold = fold.then(played.event_id, played.place, played.event)
        return fold.state

    def meld_events(self, seat: int, hand: int) -> list[int]:
        """The events behind `seat`'s logged melds in `hand`, in the table's meld order (an added
        gang takes the place of the pong it upgrades, as engine.table does)."""
        melds: list[tuple[int, MeldKind, Tile | None]] = []
        for played in self.whole_fold().played:
            event = played.event
            if played.hand_no != hand or not isinstance(event, Pong | Gang) or event.actor != seat:
                continue
            if isinstance(event, Gang) and event.kind is MeldKind.ADDED_GANG:
                pongs = [
                    i
                    for i, (_, kind, tile) in enumerate(melds)
                    if kind is MeldKind.PONG and (event.tile is None or tile in (None, event.tile))
                ]
                exact = [i for i in pongs if melds[i][2] == event.tile]
                if pongs:
                    at = (exact or pongs)[0]
                    melds[at] = (played.event_id, MeldKind.ADDED_GANG, event.tile or melds[at][2])
                continue
            kind = MeldKind.PONG if isinstance(event, Pong) else event.kind
            melds.append((played.event_id, kind, event.tile))
        return [event_id for event_id, _, _ in melds]

    def check(self, event: Event) -> None:
        """Raise EngineError if the table refuses `event` now (nothing is written)."""
        joins = isinstance(event, Win) and event.joins is not None  # settled from before the win it joins
        (self.whole_fold() if joins else self._fold).then(PENDING_ID, PENDING_ID, event)

    def played_in(self, hand: int) -> tuple[Played, ...]:
        """The events of `hand` as played, read from the end of the fold in memory (a hand that just
        closed is there whole: a checkpoint is written only when a hand closes)."""
        found: list[Played] = []
        for played in reversed(self._fold.played):
            if played.hand_no < hand:
                break
            if played.hand_no == hand:
                found.append(played)
        return tuple(found[::-1])

    def in_hand(self) -> tuple[Played, ...]:
        """The current hand's events as played (a hand closes with a checkpoint, so they are all in
        memory, after a restart too)."""
        return tuple(current_hand(self._fold))

    def hands_played(self) -> int:
        return self.state.hand_no - 1

    def player_names(self) -> tuple[str, ...]:
        """Everyone who sat tonight, by occupancy index (bot/night/people.py): the tally's players."""
        return self._seating().names

    async def texts(self, rows: Iterable[EventRow] | None = None) -> dict[int, LineText]:
        """What was typed for these rows (every row of the night when None) and when each was
        recorded, by row id, read from the ledger: the night holds neither (a view shows them:
        /history, /export, an undo's echo)."""
        ids = None if rows is None else [row.id for row in rows]
        if ids == []:
            return {}
        return await self.ledger.line_texts(self.id, ids)

    async def texts_of_kind(self, kind: str) -> dict[int, LineText]:
        """`texts` of the night's rows of one kind (a handler reads its fixes' or bindings' lines again)."""
        return await self.ledger.line_texts(self.id, kind=kind)

    # ---- stakes and players ---------------------------------------------------------------------

    def stake_at(self, hand: int) -> int:
        """Money per flower in `hand` (minor units): the opening stake, or a later 改底 (the schedule
        is kept until the next event is appended)."""
        cached, size = self._schedule, len(self._events)
        if cached is not None and cached[0] != size and self._only_payments_since((cached[0], 0)):
            cached = self._schedule = (size, cached[1])  # plain table events since: no stake moved
        if cached is None or cached[0] != size:
            cached = self._schedule = (size, self._schedule_now())
        return stake_at(cached[1], hand)

    def stake_schedule(self) -> list[tuple[int, int]]:
        """(from hand, stake) of the night, each 改底 where it sits in the (corrected) log: what
        /summary prices hands at, so the CSV and the chart price them the same."""
        self.stake_at(self.state.hand_no)  # brings the kept schedule up to date
        assert self._schedule is not None
        return self._schedule[1]

    def people(self) -> list[Person]:
        """Everyone who played tonight (more than four after a 换人) and their net."""
        seating = self._seating()
        return merged_people(seating.names, seating.now, seating.amounts, seating.money)

    def seating(self) -> Occupancy:
        """Who sat where at each event (renames and swaps folded in)."""
        return occupancy(self.row.seats, self.events, self.active)

    def former_names(self) -> dict[str, Former]:
        """Names seats answered to earlier tonight (renamed away, or left at a 换人), by their key."""
        key = (len(self._events), id(self._active), len(self._active))
        if self._former is None or self._former[0] != key:
            self._former = (key, former_names(self.row, self.events, self.active))
        return self._former[1]

    def seat_totals(self) -> tuple[list[int], list[int]]:
        """(flowers, money) of the player now in each seat, for the scoreboard."""
        seating = self._seating()
        by_name = {fold(p.name): p for p in self.people()}
        found = [by_name.get(fold(seating.names[index])) for index in seating.now]
        return [p.amount if p else 0 for p in found], [p.money_cents if p else 0 for p in found]

    def _seating(self) -> PlayerTotals:
        """Players by index and their totals, kept until the next write. Every write appends events
        or payments here, so their counts key it; a write that only adds a table event's payments
        extends it, anything that moves seats, stakes or the past folds it again. (From a
        checkpoint's head it is built once, in `_derive_head`, and no write happens before the whole
        history is loaded.)"""
        cached = self._people
        version = (len(self._events), len(self._payment_rows))
        if cached is not None and cached.version == version:
            return cached
        if cached is not None and self._only_payments_since(cached.version):
            amounts, money = list(cached.amounts), list(cached.money)
            for row in self._payment_rows[cached.version[1] :]:  # booked at their hand's stake already
                for seat, sign in ((row.payer, -1), (row.payee, 1)):
                    amounts[cached.now[seat]] += sign * row.amount
                    money[cached.now[seat]] += sign * row.money_cents
            self._people = PlayerTotals(version, cached.names, cached.now, amounts, money)
            return self._people
        if self._head is not None:
            self._people = self._seating_from_head(self._head)
            return self._people
        self._people = player_totals(self.row, self.events, self.active, self.payment_rows, self.whole_fold)[0]
        return self._people

    def _only_payments_since(self, version: tuple[int, int]) -> bool:
        """Whether every event since `version` is a plain table event (no seat, stake or correction)."""
        return all(e.kind in EVENT_KINDS and e.reverses is None for e in self._events[version[0] :])
