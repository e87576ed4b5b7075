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
always equal the derived ones, and every correction's payments sum to zero.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace

from bot.night import checkpoint as checkpoints
from bot.night.appended import Appended
from bot.night.codec import (
    EVENT_KINDS,
    SEAT_KINDS,
    STAKE,
    Fix,
    SeatChange,
    StakeChange,
    Unreadable,
    decode_body,
    decode_event,
    decode_fix,
    encode_event,
    encode_fix,
    encode_seat,
    encode_stake,
    encode_undo,
    event_kind,
    payload_text,
    seat_change,
    stake_change,
)
from bot.night.log_index import LogIndex
from bot.night.payment_log import PaymentLog
from bot.night.people import Occupancy, Person, index_totals, merged_people, occupancy, stake_at, stake_schedule
from bot.night.sharing import Sharing
from bot.night.tally import (
    NO_FIGURES,
    TALLY_VERSION,
    Figures,
    HandNets,
    Tally,
    Tallying,
    decode_figures,
    encode_figures,
    hand_rows,
    hands_of,
    tallied,
)
from bot.night.versions import versions
from bot.store.heap import free_off_loop, in_thread
from bot.store.inbox import Inbox
from bot.store.ledger import Ledger
from bot.store.rows import (
    EventRow,
    LineText,
    NewEvent,
    NightMarks,
    NightRow,
    PaymentRow,
    Seat,
    StoredFigures,
    StoredTally,
    TabEventRow,
    TallyRows,
    TallyUpdate,
)
from bot.text.vocabulary import fold
from engine.checks import check_flower_gangs, check_meld, check_penalty_amount, check_soft, check_win_copies
from engine.claims import check_declared
from engine.errors import EngineError
from engine.hand import MeldKind
from engine.preset import Preset, preset_from_dict
from engine.scoring import WinScore
from engine.settlement import Factor, Payment
from engine.table import Event, FlowerGang, Gang, Notice, Penalty, Pong, SetDealer, TableState, Win, apply, new_table
from engine.tiles import Tile

SEATS = 4
PENDING_ID = -1
# The night cache's bounds (Nights): events held in memory by the cached nights (about 1 KB each),
# and chats; the chat used last always stays, however long its night.
CACHE_EVENTS = 30_000
CACHE_CHATS = 500
PRESETS_KEPT = 16  # house rules read lately, by their text: most groups play a handful of presets
# A night holds at most this many rows (events, chores and corrections): past it, a table event is
# refused with "start a new night" (README: a bounded night keeps a correction's re-fold under half
# a second, and no real table comes near it). Chores and corrections still go through for
# ROW_MARGIN rows more, then get the same answer; /close always does (and a binding, which rides
# on a line already answered). A line an /undo took out does not count: typed again, it fits.
MAX_NIGHT_EVENTS = 5_000
ROW_MARGIN = 100
LIVE_SHARED = 1_024  # values a night being played looks the next ones up among (the newest met)


@dataclass(frozen=True)
class Line:
    """Who typed which line: recorded with every event the line writes."""

    speaker: str
    text: str
    update_key: str | None = None


@dataclass(frozen=True, slots=True)
class Played:
    """One effective table event as the (corrected) history has it."""

    event_id: int  # the ledger row whose content this is (a fix row for a corrected event)
    slot: int  # its place in the night: the id of the event first typed there
    hand_no: int
    event: Event
    payments: tuple[Payment, ...]
    scores: tuple[tuple[int, WinScore], ...]
    doubled: bool  # played in a 比下胡 hand
    notices: tuple[Notice, ...]
    factors: tuple[Factor, ...] = ()  # the multipliers applied (比下胡, 垒宝塔, 包牌, ...)


def _played_keys(played: Played) -> tuple[int, int]:
    return played.event_id, played.slot


@dataclass(frozen=True, eq=False)
class Fold:
    """The table after the effective events, and each event as played. `played` is shared between
    a fold and the folds that extend it (bot/night/appended.py): one more event costs the same late in a
    long night as early on, and a fold held by a reader never changes."""

    state: TableState
    played: Appended[Played] = field(default_factory=lambda: Appended(keys=_played_keys))
    # the table before the last event played, or before the first claim of the last win when more
    # claims joined it (一炮多响): a claim joined later is settled with the others from there
    before_last: TableState | None = None

    @staticmethod
    def of(state: TableState, played: Iterable[Played], before_last: TableState | None = None) -> Fold:
        return Fold(state, Appended(played, keys=_played_keys), before_last)

    def then(
        self, event_id: int, slot: int, event: Event, checked: bool = False, sharing: Sharing | None = None
    ) -> Fold:
        """The fold with one more event; raises EngineError (nothing changes) if it is not legal.
        A line being recorded (or a corrected one), or one `checked`, is first checked as if typed.
        `sharing`: a night folded whole holds the payments and scores that repeat once."""
        if isinstance(event, Win) and event.joins is not None:
            group = self.joined_group(event.joins)
            if group:
                return self._joined(event_id, slot, event, group, checked, sharing or Sharing())
            if self.played.first(event.joins) is not None:
                raise EngineError("win.joined_apart", id=event.joins)
            # the win it joined is undone: this claim is a win of its own, where it stands
        event = with_dealer(event, self.state.dealer)
        if checked or event_id == PENDING_ID:
            check_against_table(self, event)
        outcome = apply(self.state, event)
        before = self.state
        share = sharing or Sharing()
        played = Played(
            event_id,
            slot,
            before.hand_no,
            event,
            share.all(outcome.payments),
            share.scores(outcome.scores),
            before.doubled,
            share.all(outcome.notices),
            share.all(outcome.factors),
        )
        return Fold(outcome.state, self.played.plus(played), before)

    def joined_group(self, root: int) -> list[Played]:
        """The last events played if they are the win at place `root` and the claims joined to it."""
        group: list[Played] = []
        for played in reversed(self.played):
            event = played.event
            if not isinstance(event, Win) or (played.slot != root and event.joins != root):
                break
            group.append(played)
        return group[::-1]

    def _joined(self, event_id: int, slot: int, event: Win, group: list[Played], checked: bool, share: Sharing) -> Fold:
        """Another winner on the discard of the win just played (RULES §8 一炮多响): the claims are
        settled together from the table before the first, as one win; this claim's payments are what
        that adds to the money already booked for the others."""
        before = self.before_last
        first = group[0].event
        assert before is not None and isinstance(first, Win)
        if event.discarder != first.discarder:
            raise EngineError("win.joined_other_discard", id=group[0].slot)
        event = win_with_dealer(event, before.dealer)
        if checked or event_id == PENDING_ID:
            check_win_at(before, event)  # this claim as if typed at the discard: its own hand
        claims = tuple(c for p in group if isinstance(p.event, Win) for c in p.event.claims)
        outcome = apply(before, Win((*claims, *event.claims), first.discarder))
        derived: Flows = {}
        booked: Flows = {}
        for p in outcome.payments:
            _add_pair(derived, p.payer, p.payee, p.amount, p.reason)
        for p in (payment for played in group for payment in played.payments):
            _add_pair(booked, p.payer, p.payee, p.amount, p.reason)
        mine = {claim.winner for claim in event.claims}
        played = Played(
            event_id,
            slot,
            before.hand_no,
            event,
            share.all(tuple(difference(derived, booked))),
            share.scores(tuple(score for score in outcome.scores if score[0] in mine)),
            before.doubled,
            share.all(tuple(n for n in outcome.notices if n.params.get("winner", next(iter(mine))) in mine)),
            share.all(outcome.factors),
        )
        return Fold(outcome.state, self.played.plus(played), before)

    def plus(self, state: TableState, played: Played, before_last: TableState | None = None) -> Fold:
        """This fold and an event already played against it (a recorded line, with its ledger id)."""
        return Fold(state, self.played.plus(played), before_last)

    @property
    def last(self) -> Played:
        return self.played[-1]

    def last_or_none(self) -> Played | None:
        return self.played[-1] if self.played else None

    def hand_of(self, event_id: int) -> int | None:
        """Hand of a played event, by ledger id or by slot (the first match wins, as in order); the
        index behind it is shared and extended, since a night's money looks up every event."""
        played = self.played.first(event_id)
        return played.hand_no if played is not None else None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Fold):
            return NotImplemented
        return self.state == other.state and self.played == other.played

    __hash__ = None  # type: ignore[assignment]


def check_against_table(fold: Fold, event: Event) -> None:
    """Refuse what the table makes impossible before it costs anyone money (engine.checks)."""
    state = fold.state
    in_hand = current_hand(fold)
    if isinstance(event, Pong | Gang) and event.tile is not None:
        same = next((p for p in in_hand if p.event == event), None)
        if same is not None:
            raise EngineError("event.already_recorded", id=same.event_id)
    if isinstance(event, Pong):
        check_meld(state.melds, event.actor, MeldKind.PONG, event.tile)
    elif isinstance(event, Gang):
        check_meld(state.melds, event.actor, event.kind, event.tile)
    elif isinstance(event, FlowerGang):
        check_flower_gangs(sum(isinstance(p.event, FlowerGang) for p in in_hand))
    elif isinstance(event, Penalty):
        check_penalty_amount(event.amount)
    elif isinstance(event, Win):
        check_win_at(state, event)


def check_win_at(state: TableState, event: Win) -> None:
    """A win's claims against the table they are won at: declared patterns, soft flowers, copies."""
    check_declared_win(state, event)
    for claim in event.claims:
        check_soft(claim.soft)
        if claim.winning is not None:
            robbed = event.discarder if claim.flags.robbing_gang else None
            check_win_copies(state.melds, claim.winner, claim.concealed, claim.melds, claim.winning, robbed)


def check_declared_win(state: TableState, event: Event) -> None:
    """A pattern named without tiles (清一色, 混一色, 门清, 七对) against the winner's melds logged in the
    hand (decision 6a): for a new line or a corrected one, and for a stored win after a correction
    (which is refused if it contradicts it). Folding the stored night never checks it: a stored win
    is never dropped on re-derivation."""
    if isinstance(event, Win):
        for claim in event.claims:
            if claim.declared is not None:
                check_declared(claim.declared, state.melds[claim.winner], state.preset, claim.winner)


def current_hand(fold: Fold) -> list[Played]:
    """The events of the hand being played, in order: read from the end of the fold, since hands
    come in order, so the check costs the same late in a long night as early on."""
    hand = fold.state.hand_no
    found: list[Played] = []
    for played in reversed(fold.played):
        if played.hand_no != hand:
            break
        found.append(played)
    return found[::-1]


def with_dealer(event: Event, dealer: int) -> Event:
    """A win's dealer flags as the (possibly re-derived) table has them, not as they were typed."""
    return win_with_dealer(event, dealer) if isinstance(event, Win) else event


def win_with_dealer(event: Win, dealer: int) -> Win:
    if all(c.flags.dealer == (c.winner == dealer) for c in event.claims):
        return event  # as typed: the row's own event is the one played (held once)
    claims = tuple(replace(c, flags=replace(c.flags, dealer=c.winner == dealer)) for c in event.claims)
    return replace(event, claims=claims)


class LaterEventBreaks(EngineError):
    """A correction would make a later event impossible (e.g. undoing the pong an added gang needs)."""

    def __init__(self, slot: int, cause: EngineError) -> None:
        super().__init__("fix.breaks_later", id=slot)
        self.slot = slot
        self.cause = cause


@dataclass
class Totals:
    """Sums of the payments booked so far: per seat, per (seat, reason), and net per pair and reason."""

    amounts: list[int] = field(default_factory=lambda: [0] * SEATS)
    money: list[int] = field(default_factory=lambda: [0] * SEATS)
    by_reason: dict[tuple[int, str], int] = field(default_factory=dict)
    pairs: dict[tuple[int, int, str], int] = field(default_factory=dict)

    def add(self, payments: Iterable[PaymentRow]) -> None:
        for p in payments:
            self.amounts[p.payer] -= p.amount
            self.amounts[p.payee] += p.amount
            self.money[p.payer] -= p.money_cents
            self.money[p.payee] += p.money_cents
            self.by_reason[(p.payer, p.reason)] = self.by_reason.get((p.payer, p.reason), 0) - p.amount
            self.by_reason[(p.payee, p.reason)] = self.by_reason.get((p.payee, p.reason), 0) + p.amount
            _add_pair(self.pairs, p.payer, p.payee, p.amount, p.reason)


Flows = dict[tuple[int, int, str], int]


def _add_pair(pairs: dict[tuple[int, int, str], int], payer: int, payee: int, amount: int, reason: str) -> None:
    """Net flow per unordered pair and reason: positive means the lower seat pays the higher."""
    low, high = min(payer, payee), max(payer, payee)
    sign = 1 if payer == low else -1
    pairs[(low, high, reason)] = pairs.get((low, high, reason), 0) + sign * amount


def difference(derived: dict[tuple[int, int, str], int], booked: dict[tuple[int, int, str], int]) -> list[Payment]:
    """Payments that bring the booked flows to the derived ones (they sum to zero by construction)."""
    payments: list[Payment] = []
    for low, high, reason in sorted(derived.keys() | booked.keys()):
        delta = derived.get((low, high, reason), 0) - booked.get((low, high, reason), 0)
        if delta > 0:
            payments.append(Payment(low, high, delta, reason))
        elif delta < 0:
            payments.append(Payment(high, low, -delta, reason))
    return payments


# ---- reading the log ----------------------------------------------------------------------------


def active_ids(events: Sequence[EventRow]) -> set[int]:
    """Each slot's current version and the correction marks (bot/night/versions.py)."""
    return versions(events).active(events)


def slots(events: Sequence[EventRow]) -> dict[int, int]:
    """Each row's place in the night: a fix or undo has the place of what it corrects."""
    return versions(events).slot_of


_TABLE_EVENTS = tuple(EVENT_KINDS.values())


def table_event(event: EventRow) -> Event | None:
    """The table event a row stands for: its own, or a fix's corrected one; None for other rows."""
    body = event.body
    if event.kind in EVENT_KINDS and isinstance(body, _TABLE_EVENTS):
        return body
    if event.kind == "fix" and isinstance(body, Fix):
        return body.event
    if not isinstance(body, str | Unreadable):
        return None
    try:  # a payload held undecoded: read as ever
        if event.kind in EVENT_KINDS:
            return decode_event(event.kind, payload_text(body))
        if event.kind == "fix":
            return decode_fix(payload_text(body)).event
    except (EngineError, KeyError, TypeError, ValueError):
        return None  # an unreadable row counts for nothing rather than stopping the night
    return None


def entries(events: Sequence[EventRow], active: set[int], after: int = 0) -> list[tuple[int, int, Event]]:
    """(event id, slot, event) of the effective table events in slots after `after`, in the night's order."""
    places = slots(events)
    found = [(e.id, places[e.id], table_event(e)) for e in events if e.id in active and places[e.id] > after]
    return sorted(((i, s, ev) for i, s, ev in found if ev is not None), key=lambda entry: entry[1])


def joins_back(events: Sequence[EventRow], active: set[int], after: int) -> bool:
    """Whether a claim after event `after` joins a win at or before it (一炮多响): a checkpoint there
    holds the table after that win alone, so the night is folded from further back."""
    for event in reversed(events):  # in the order written: only those after the checkpoint are read
        if event.id <= after:
            break
        if event.id in active and event.kind in ("win", "fix"):
            joined = table_event(event)
            if isinstance(joined, Win) and joined.joins is not None and joined.joins <= after:
                return True
    return False


def _whole_fold(start: TableState, events: Sequence[EventRow], active: set[int]) -> Fold:
    """The night folded from its start, indexed (off the event loop: a long night takes seconds)."""
    fold = fold_entries(start, entries(events, active), None)
    fold.played.build_index()
    return fold


def fold_entries(start: TableState, items: Iterable[tuple[int, int, Event]], strict_after: int | None) -> Fold:
    """Fold events in order. Events that no longer apply are skipped (older ledgers) unless they come
    after `strict_after`: then the correction that made them impossible is refused. Those later
    events are checked as if typed again, so a corrected night is one its lines could have made
    (a fix must not turn a later pong into a second pong of the same tile)."""
    folded, sharing = Fold(start), Sharing()  # what repeats along the night is held once
    for event_id, slot, event in items:
        later = strict_after is not None and slot > strict_after
        try:  # a line being recorded is checked against its hand's earlier events (Fold.then)
            folded = folded.then(event_id, slot, event, later, sharing)  # later: declared wins too
        except EngineError as error:
            if strict_after is None or slot < strict_after:
                continue
            if event_id == PENDING_ID:
                raise  # the corrected line itself is wrong: say why, as if it had been typed
            raise LaterEventBreaks(slot, _named_at(error, strict_after)) from error
    return folded


def _named_at(error: EngineError, place: int) -> EngineError:
    """The error with the corrected line (not yet in the ledger) named by its place in the night."""
    if error.params.get("id") != PENDING_ID:
        return error
    return EngineError(error.key, **{**error.params, "id": place})


def seats_from(row: NightRow, events: Iterable[EventRow], active: set[int]) -> tuple[Seat, ...]:
    seats = list(row.seats)
    for event in events:
        if event.kind in SEAT_KINDS and event.id in active:
            change = seat_change(event.body)
            seats[change.seat] = Seat(change.name, change.user_id, change.username)
    return tuple(seats)


def placed_schedule(
    opening_cents: int, events: Sequence[EventRow], active: set[int], fold: Callable[[], Fold]
) -> list[tuple[int, int]]:
    """(from hand, stake) with each 改底 where it sits in the log (`placed_changes`) after the opening
    stake. The fold is asked for only when the stake changed."""
    schedule = [(1, opening_cents)]
    if any(e.kind == STAKE and e.id in active for e in events):
        schedule.extend(placed_changes(events, active, fold()))
    return schedule


def placed_changes(events: Sequence[EventRow], active: set[int], fold: Fold) -> list[tuple[int, int]]:
    """(from hand, stake) of each 改底 among `events`, where it sits in the log (`fold`: the night's,
    or after a checkpoint the events after it): it takes effect from the first hand that starts
    after its place — the hand it was typed in if that hand had not begun (`hand_begun`) — whatever
    the hands are numbered after a correction."""
    changes = [(e.id, stake_change(e.body).stake_cents) for e in events if e.kind == STAKE and e.id in active]
    if not changes:
        return []
    played = fold.played
    places = [p.slot for p in played]
    placed: list[tuple[int, int]] = []
    for place, cents in changes:
        at = bisect_right(places, place)  # played[at] is the first event after the change
        hand = played[at].hand_no if at < len(played) else fold.state.hand_no
        placed.append((hand + 1 if hand_begun(played, at, hand) else hand, cents))
    return placed


def hand_begun(played: Sequence[Played], before: int, hand: int) -> bool:
    """Whether `hand` had begun before the event at index `before` of `played`: a 改底 typed then
    waits for the next hand (its payments so far stay at the stake they were booked at). Every
    table event begins its hand but the choice of its dealer, a chore before the first tile."""
    at = before
    while at and played[at - 1].hand_no == hand:
        if not isinstance(played[at - 1].event, SetDealer):
            return True
        at -= 1
    return False


def is_closed(events: Iterable[EventRow]) -> bool:
    closed = False
    for event in events:
        if event.kind in ("close", "reopen"):
            closed = event.kind == "close"
    return closed


def actor_of(event: Event) -> int | None:
    actor = getattr(event, "actor", getattr(event, "offender", None))
    return actor if isinstance(actor, int) else None


def hand_in(fold: Fold, event: EventRow, slot_of: Callable[[int], int]) -> int:
    """The hand an event belongs to as the corrected night has it (/history, the CSV, the tally): a
    replaced version of a corrected event (a fix later fixed again, a joined win) belongs to its
    place's hand, not to the hand it was typed in."""
    hand = fold.hand_of(event.id)
    if hand is None and event.kind == "fix":
        hand = fold.hand_of(slot_of(event.id))
    return hand or event.hand_no


def tally_from(
    fold: Fold,
    events: Sequence[EventRow],
    payments: Iterable[PaymentRow],
    sitting: Callable[[int], Sequence[int]],
    base: Figures = NO_FIGURES,
    after: int = 0,
) -> Tallying:
    """`base` (the tally's figures stored after event `after`, or none) and what `fold` played after
    it, with the payments booked after it (`events` and `payments`: at least those after it): each at
    its place, with the players who sat there (`sitting`: a place's player index in each seat), in
    the place's hand (bot/night/tally.py). From no base, the whole night's."""
    places = versions(events).slot_of
    by_id = {event.id: event for event in events}
    booked: list[tuple[PaymentRow, int, int]] = []
    for payment in payments:
        event = by_id.get(payment.event_id)
        if event is None or event.id <= after:
            continue
        source = by_id.get(places.get(event.id, event.id), event)  # its slot's first row
        booked.append((payment, source.id, hand_in(fold, source, lambda i: places.get(i, i))))
    played = fold.played
    first = len(played)
    while first and played[first - 1].slot > after:  # the events after it, read from the end
        first -= 1
    previous = played[first - 1] if first else None
    return tallied(Tallying(base), played[first:], booked, sitting, previous)


def sitting_of(seating: Occupancy) -> Callable[[int], Sequence[int]]:
    """A place's player index in each seat, as `seating` has it."""
    return lambda place: seating.at.get(place, seating.now)


# ---- results ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    event_id: int
    played: Played
    payments: tuple[PaymentRow, ...]


@dataclass(frozen=True)
class Corrected:
    event_id: int
    target: EventRow
    payments: tuple[PaymentRow, ...]  # the correction's own payments (the difference)
    changes: tuple[tuple[str, int], ...]  # per person (not seat), what the correction moved
    moved_hands: tuple[int, ...]  # later hands whose payments or numbers changed
    replacement: Played | None  # the corrected event as now played (fix)


@dataclass(frozen=True)
class _Running:
    """A night's running tally: the one stored after event `stored_at` (with the newest closed hand)
    and what the events after it added: `figures`, those figures now, and `hands`, the nets those
    events moved in their hands (added to the stored hands' rows). Held frozen, small."""

    stored_at: int
    figures: Figures
    hands: tuple[HandNets, ...] = ()

    @staticmethod
    def of(stored_at: int, since: Tallying) -> _Running:
        return _Running(stored_at, since.figures(), since.hands())

    def with_played(self, played: Played, sitting: Sequence[int], previous: Played | None) -> Tallying:
        """The figures with `played` added, a new event (played by whoever sits there now: `sitting`)."""
        adding = Tallying(self.figures, self.hands)
        adding.played(played, sitting, previous)
        for payment in played.payments:
            adding.paid(payment, sitting, played.hand_no)
        return adding

    def stored_with(self, adding: Tallying) -> TallyUpdate:
        """What a closed hand stores: the figures now, and the hands' nets since the stored tally."""
        return TallyUpdate(TALLY_VERSION, self.stored_at, encode_figures(adding.figures()), hand_rows(adding.hands()))


# ---- the owner ----------------------------------------------------------------------------------


def _added(running: _Running, stored: TallyRows) -> Tally:
    """The tally: the running figures, and the stored hands with the hand being played."""
    since = hand_rows(running.hands)
    return Tally(running.figures, hands_of(TallyRows(stored.nets + since.nets, stored.doubled + since.doubled)))


class Night:
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
        self.preset: Preset = preset if preset is not None else preset_from_dict(json.loads(row.preset_json))
        self._events: list[EventRow] = list(events)
        self._index = LogIndex(row.ids_through)  # questions by id, kind and place, folded once per appended row
        self._booked: Totals | None = None  # summed from the payments when first asked for
        self._payment_rows = PaymentLog(payments)  # in columns: a night holds thousands
        self._people: _Seating | None = None
        self._schedule: tuple[int, list[tuple[int, int]]] | None = None
        self._active: set[int] = set()
        self.seats: tuple[Seat, ...] = row.seats
        self.closed = False
        self.version = checkpoints.version(row.preset_json)
        self._unwritten_bind: SeatChange | None = None  # see `bind_with_next_write`
        # what repeats among the events recorded here (a night read from the ledger shares it as it
        # is read): a bounded table, since the night keeps it as long as it is played
        self._sharing = Sharing(bound=LIVE_SHARED, by_content=False)
        self._checkpoint = checkpoint
        self._head = head
        # the running tally (bot/night/tally.py): the stored one and what the night added since,
        # read when first needed (None: none to add to, the whole night is tallied when asked)
        self._running: _Running | None = None
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
        self._events = await self.ledger.events(self.id, decode=Sharing().decode)
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
            self._fold = fold_entries(self.start(), entries(self.events, self.active), None)
            self._from = 0
        return self._fold

    async def folded(self) -> Fold:
        """The whole night's fold, folded again off the event loop when only its end is in memory (a
        long night takes seconds: other chats are answered meanwhile)."""
        if self._from:
            events, active, start = self.events, self.active, self.start()
            self._fold = await in_thread(_whole_fold, start, events, active)
            self._from = 0
        return self._fold

    def start(self) -> TableState:
        return new_table(self.preset, self.row.dealer)

    def _derive(self, checkpoint: tuple[int, str] | None = None) -> None:
        self.active = active_ids(self.events)
        self.seats = seats_from(self.row, self.events, self.active)
        self.closed = is_closed(self.events)
        start, after = self.start(), 0
        if checkpoint is not None and not joins_back(self.events, self.active, checkpoint[0]):
            try:
                start, after = checkpoints.decode(checkpoint[1], self.preset)[0], checkpoint[0]
            except checkpoints.CheckpointMismatch:
                start, after = self.start(), 0  # another engine wrote it: fold the whole night
        self._fold = fold_entries(start, entries(self.events, self.active, after), None)
        self._fold.played.build_index()  # here, off the event loop when the night is long (Nights.load)
        self._index.catch_up(self._events)
        self._from = after
        # players and totals too: from a whole log they take a long night's 100 ms, not the loop's
        self._people, schedule = _seating_of(self.row, self.events, self.active, self.payment_rows, self.whole_fold)
        self._schedule = (len(self._events), schedule)

    def _derive_head(self, head: checkpoints.Head) -> None:
        """The night from a checkpoint's head and the events after it (Nights.load checked they fit)."""
        assert self._checkpoint is not None
        events = self._events
        self._active = active_ids(events)
        self.seats = seats_from(replace(self.row, seats=head.seats), events, self._active)
        marks = [e for e in events if e.kind in ("close", "reopen")]
        self.closed = is_closed(marks) if marks else head.closed
        start, after = checkpoints.decode(self._checkpoint[1], self.preset)[0], self._checkpoint[0]
        self._fold = fold_entries(start, entries(events, self._active, after), None)
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

    def _seating_from_head(self, head: checkpoints.Head) -> _Seating:
        """Players and totals: the head's, and the payments of the events after its checkpoint."""
        events = self._events
        schedule = self._schedule_now()
        seating = occupancy(head.seats, events, self._active, (head.names, head.now))
        hand_of = self._fold.hand_of if len(schedule) > 1 else _no_hand
        base = (head.amounts, head.money)
        amounts, money = index_totals(seating, events, self._payment_rows, schedule, hand_of, base)
        return _Seating((len(events), len(self._payment_rows)), seating.names, seating.now, amounts, money)

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

    def current_version(self, slot: int) -> EventRow | None:
        """The row in force at this place in the night, None once it is undone."""
        current = self._index.current(self.events, slot)
        return self.event(current) if current is not None else None

    def last_active(self, kinds: Sequence[str]) -> EventRow | None:
        return self.last_row(kinds, lambda e: e.id in self.active)

    def last_row(self, kinds: Sequence[str], counts: Callable[[EventRow], bool]) -> EventRow | None:
        """The newest row of these kinds that `counts`."""
        return self._index.last(self.events, kinds, counts)

    def slot_of(self, event_id: int) -> int:
        return self._index.slot(self.events, event_id)

    def hand_in_log(self, event: EventRow) -> int:
        """The hand an event belongs to as the corrected night has it: /history and the CSV both say
        it. A replaced version of a corrected event (a fix later fixed again, a joined win) belongs to
        its place's hand, not to the hand it was typed in."""
        return hand_in(self.whole_fold(), event, self.slot_of)

    def state_before(self, event_id: int) -> TableState:
        """The table as it was just before this event (a fix is built against it)."""
        slot = self.slot_of(event_id)
        fold = Fold(self.start())
        for played in self.whole_fold().played:
            if played.slot >= slot:
                break
            fold = fold.then(played.event_id, played.slot, played.event)
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

    # ---- what /summary and its chart show (bot/night/tally.py) --------------------------------------

    async def tally(self) -> Tally:
        """The night's running tally: as stored with the last closed hand, and what the night added
        since (the hand being played); or, where none is stored or it cannot be added to (stored by
        older code; a correction stored after it never came), the whole night tallied from its fold,
        off the event loop, and stored for the next time."""
        stored = await self.ledger.tally(self.id)
        running = await self._running_tally(stored)
        if running is None or stored is None or stored.last_event_id != running.stored_at:
            await self.load_history()
            await self.folded()
            tally = (await in_thread(self.whole_tally)).tally()
            await self._store_tally(tally)
            return tally
        return await in_thread(_added, running, stored.hands)  # a long night's hands: off the event loop

    def whole_tally(self) -> Tallying:
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
        stored = await self.ledger.store_tally(self.id, at, TALLY_VERSION, figures, hand_rows(tally.hands))
        self._running = _Running(at, tally.figures) if stored else None
        self._running_read = True

    async def _running_tally(self, read: StoredTally | None = None) -> _Running | None:
        """The running tally: the stored one (`read` already, or read now) the first time it is
        needed, and the events after it."""
        if not self._running_read:
            self._running_read = True
            stored = read or await self.ledger.tally(self.id, hands=False)
            figures = decode_figures(stored.figures) if stored is not None else None
            if stored is not None and stored.version == TALLY_VERSION and figures is not None:
                self._running = self._running_from(stored.last_event_id, figures)
        return self._running

    def _running_from(self, at: int, figures: Figures) -> _Running | None:
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
        return _Running.of(at, tally_from(self._fold, after, payments[paid:], sitting, figures, at))

    def _head_occupancy(self, head: checkpoints.Head) -> Occupancy:
        """Who sat where at each event after a checkpoint's head, from the head on."""
        return occupancy(head.seats, self._events, self._active, (head.names, head.now))

    def player_names(self) -> tuple[str, ...]:
        """Everyone who sat tonight, by occupancy index (bot/night/people.py): the tally's players."""
        return self._seating().names

    async def payments(self) -> list[PaymentRow]:
        """Every payment booked in this night, as the ledger holds them (for the CSV export)."""
        return await self.ledger.payments(self.id)

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

    # ---- writes --------------------------------------------------------------------------------

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

    def seat_totals(self) -> tuple[list[int], list[int]]:
        """(flowers, money) of the player now in each seat, for the scoreboard."""
        seating = self._seating()
        by_name = {fold(p.name): p for p in self.people()}
        found = [by_name.get(fold(seating.names[index])) for index in seating.now]
        return [p.amount if p else 0 for p in found], [p.money_cents if p else 0 for p in found]

    def _seating(self) -> _Seating:
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
            self._people = _Seating(version, cached.names, cached.now, amounts, money)
            return self._people
        if self._head is not None:
            self._people = self._seating_from_head(self._head)
            return self._people
        self._people = _seating_of(self.row, self.events, self.active, self.payment_rows, self.whole_fold)[0]
        return self._people

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

    def _only_payments_since(self, version: tuple[int, int]) -> bool:
        """Whether every event since `version` is a plain table event (no seat, stake or correction)."""
        return all(e.kind in EVENT_KINDS and e.reverses is None for e in self._events[version[0] :])

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
        saved = (self.version, checkpoints.encode(*checkpoint)) if checkpoint is not None else None
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
        event = self._sharing.event(event)  # a seat's pong, a win's flags: as met before tonight
        fold = self._fold.then(PENDING_ID, PENDING_ID, event, sharing=self._sharing)
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
                _Running(self.log_size(), adding.figures()) if update else _Running.of(running.stored_at, adding)
            )
        played = replace(played, event_id=row.id, slot=row.id)
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
        plan = await in_thread(_plan_correction, self.row, self.start(), events, payments, target, replacement)
        await self._refuse_past_the_margin(len(plan.news))  # with the rows it books at other places
        rows_written = await self._append(line, self.row.chat_id, plan.news, plan.target_hand)
        written = list(self._events)
        after = await in_thread(_settle_correction, self.row, plan, before, written, payments, rows_written)
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


@dataclass(frozen=True)
class _CorrectionPlan:
    """What a correction writes: its own row and the `correction` rows of other places (`news`),
    the place each is booked against (`anchors`), and the re-folded night (ids still pending)."""

    fold: Fold
    news: tuple[NewEvent, ...]
    anchors: tuple[int, ...]
    target_hand: int
    from_slot: int


@dataclass(frozen=True)
class _Settled:
    """The night after a correction is in the ledger."""

    fold: Fold
    active: set[int]
    seats: tuple[Seat, ...]
    rows: tuple[PaymentRow, ...]
    changes: tuple[tuple[str, int], ...]
    moved: tuple[int, ...]
    replacement: Played | None
    seating: _Seating
    schedule: list[tuple[int, int]]
    tally: Tally


def _corrected_log(
    events: Sequence[EventRow], target: EventRow, replacement: Event | None
) -> tuple[list[EventRow], set[int]]:
    kind = "fix" if replacement is not None else "undo"
    body = Fix(replacement) if replacement is not None else None  # as `decode_body` holds what is written
    pending = replace(target, id=PENDING_ID, kind=kind, body=body, reverses=target.id)
    corrected = [*events, pending]  # the newest row, so the activity pass sees it first
    return corrected, active_ids(corrected)


def _by_place(fold: Fold, events: Sequence[EventRow], payments: Iterable[PaymentRow]) -> dict[int, tuple[Flows, Flows]]:
    """Derived and booked flows per place (slot): each place's booked money is brought to its
    derived money on its own, so it is priced at its place's hand and paid by whoever sat at the
    table there (换人), whatever happens to the night later; an undone place's rows sum to zero."""
    by_id = {event.id: event for event in events}
    places = slots(events)
    groups: dict[int, tuple[Flows, Flows]] = {}
    for played in fold.played:
        derived = groups.setdefault(played.slot, ({}, {}))[0]
        for p in played.payments:
            _add_pair(derived, p.payer, p.payee, p.amount, p.reason)
    for row in payments:
        event = by_id.get(row.event_id)
        if event is None:
            continue
        slot = places.get(event.id, event.id)
        _add_pair(groups.setdefault(slot, ({}, {}))[1], row.payer, row.payee, row.amount, row.reason)
    return groups


def _plan_correction(
    night: NightRow,
    start: TableState,
    log: Sequence[EventRow],
    payments: Sequence[PaymentRow],
    target: EventRow,
    replacement: Event | None,
) -> _CorrectionPlan:
    """Re-fold the corrected log and work out what to book (pure: runs off the event loop)."""
    events, active = _corrected_log(log, target, replacement)
    places = slots(events)
    slot = places[target.id]
    fold = fold_entries(start, entries(events, active), slot)
    kind = "fix" if replacement is not None else "undo"
    payload = encode_fix(Fix(replacement)) if replacement is not None else encode_undo(target.id)
    actor = actor_of(replacement) if replacement is not None else None
    # The correction's own payments are priced at the corrected event's hand (as the night's
    # money reads them); differences in hands at another stake go on `correction` rows of their own.
    schedule = placed_schedule(night.stake_cents, events, active, lambda: fold)
    by_id = {event.id: event for event in log}
    root = by_id.get(slot, target)
    target_hand = fold.hand_of(slot) or root.hand_no
    groups = _by_place(fold, events, payments)
    own = difference(*groups.pop(slot, ({}, {})))
    stake = stake_at(schedule, target_hand)
    news = [NewEvent(fold.state.hand_no, kind, actor, payload, tuple(own), target.id, stake)]
    anchors = [slot]
    for place, (derived, booked) in sorted(groups.items()):
        extra = difference(derived, booked)
        if extra:  # booked against the place it belongs to (bot.night.people prices and seats it there)
            root_row = by_id.get(place)
            hand = fold.hand_of(place) or (root_row.hand_no if root_row is not None else target_hand)
            stake = stake_at(schedule, hand)
            news.append(NewEvent(hand, "correction", None, encode_undo(target.id), tuple(extra), place, stake))
            anchors.append(place)
    return _CorrectionPlan(fold, tuple(news), tuple(anchors), target_hand, slots(log).get(target.id, target.id))


def _settle_correction(
    night: NightRow,
    plan: _CorrectionPlan,
    before: Fold,
    events: Sequence[EventRow],
    payments: Sequence[PaymentRow],
    written: Sequence[EventRow],
) -> _Settled:
    """The night once the correction's rows are in the ledger (pure: runs off the event loop)."""
    row = written[0]
    fold = Fold.of(  # one copy a correction (it folded the whole night anyway)
        plan.fold.state,
        (replace(p, event_id=row.id) if p.event_id == PENDING_ID else p for p in plan.fold.played),
        plan.fold.before_last,
    )
    active = active_ids(events)
    rows = tuple(
        PaymentRow(done.id, p.payer, p.payee, p.amount, p.amount * (new.stake_cents or 0), p.reason)
        for done, new in zip(written, plan.news, strict=True)
        for p in new.payments
    )
    seating, schedule = _seating_of(night, events, active, [*payments, *rows], lambda: fold)
    sat = occupancy(night.seats, events, active)
    changes = person_changes(sat, plan.news, plan.anchors)
    tally = tally_from(fold, events, [*payments, *rows], sitting_of(sat)).tally()  # the summary's, off the loop
    replacement = next((p for p in fold.played if p.event_id == row.id), None)
    moved = moved_hands(before, fold, plan.from_slot)
    fold.played.build_index()  # off the event loop: the reply's first lookup is not a walk through the night
    return _Settled(
        fold, active, seats_from(night, events, active), rows, changes, moved, replacement, seating, schedule, tally
    )


def _seating_of(
    night: NightRow,
    events: Sequence[EventRow],
    active: set[int],
    payments: Sequence[PaymentRow],
    fold: Callable[[], Fold],
) -> tuple[_Seating, list[tuple[int, int]]]:
    """Players by index and their totals from the whole log, and the night's stake schedule. The
    fold is asked for only when the stake changed (it picks each payment's hand, for its stake)."""
    seating = occupancy(night.seats, events, active)
    schedule = placed_schedule(night.stake_cents, events, active, fold)
    hand_of = fold().hand_of if len(schedule) > 1 else _no_hand
    amounts, money = index_totals(seating, events, payments, schedule, hand_of)
    totals = _Seating((len(events), len(payments)), seating.names, seating.now, amounts, money)
    return totals, schedule


def person_changes(seating: Occupancy, news: Sequence[NewEvent], anchors: Sequence[int]) -> tuple[tuple[str, int], ...]:
    """What each person's balance moved by: each group's payments to whoever sat at its place."""
    by_name: dict[str, tuple[str, int]] = {}
    for new, anchor in zip(news, anchors, strict=True):
        sitting = seating.at.get(anchor, seating.now)
        for p in new.payments:
            for seat, sign in ((p.payer, -1), (p.payee, 1)):
                name = seating.names[sitting[seat]]
                first, amount = by_name.get(fold(name), (name, 0))
                by_name[fold(name)] = (first, amount + sign * p.amount)
    order = {fold(name): index for index, name in reversed(list(enumerate(seating.names)))}
    found = sorted(by_name.items(), key=lambda item: order.get(item[0], 0))
    return tuple((name, amount) for _, (name, amount) in found if amount)


@dataclass(frozen=True)
class _Seating:
    """The night's players by index (occupancy names, who sits where now) and each one's totals,
    as of `version` (events, payments in memory)."""

    version: tuple[int, int]
    names: tuple[str, ...]
    now: tuple[int, ...]
    amounts: Sequence[int]
    money: Sequence[int]


def _no_hand(event_id: int) -> int | None:
    return None


def moved_hands(before: Fold, after: Fold, from_slot: int) -> tuple[int, ...]:
    """Hands after the corrected event whose number or payments changed."""
    old = {p.slot: (p.hand_no, p.payments) for p in before.played if p.slot > from_slot}
    new = {p.slot: (p.hand_no, p.payments) for p in after.played if p.slot > from_slot}
    hands = {new[s][0] for s in new if old.get(s) != new[s]} | {old[s][0] for s in old if s not in new}
    return tuple(sorted(hands))


# ---- the registry -------------------------------------------------------------------------------


class Nights:
    """Loads and caches each chat's latest night and settings. One process owns a database, and
    every write goes through here, so the cache never goes stale.

    The cache is bounded: it holds the nights of the chats used most recently, up to `budget`
    events held in memory (a night from a checkpoint's head holds only the events after it) and
    `most` chats; the least recently used night not in use leaves it first, and a closed night
    leaves it once the line that used it is answered. A night that left is read again from the
    ledger (its newest checkpoint first) when its chat next speaks: the ledger is the truth, so it
    is the same night."""

    def __init__(self, ledger: Ledger, budget: int = CACHE_EVENTS, most: int = CACHE_CHATS) -> None:
        self.ledger = ledger
        self.budget = budget
        self.most = most
        self._latest: OrderedDict[str, Night | None] = OrderedDict()  # least recently used first
        self._settings: dict[str, dict[str, str | None]] = {}  # chat -> key -> value, for cached chats
        self._busy: dict[str, int] = {}  # chats with a line being handled: their night stays
        # a preset's text -> that text as held and the preset read from it
        self._presets: OrderedDict[str, tuple[str, Preset]] = OrderedDict()

    async def load(self, row: NightRow, history: bool = True) -> Night:
        """The night from its newest valid checkpoint; without `history`, only the events after the
        checkpoint are read (its head stands for the rest) when they fit it."""
        cached = self._latest.get(row.chat_id)
        if cached is not None and cached.id == row.id:
            if history:
                await cached.load_history()
            return cached
        checkpoint = await self.ledger.checkpoint(row.id, checkpoints.version(row.preset_json))
        row, preset = self._same_rules(row)
        if not history and checkpoint is not None:
            night = await self._from_head(row, preset, checkpoint)
            if night is not None:
                return night
        events = await self.ledger.events(row.id, decode=Sharing().decode)  # what repeats held once
        payments = await self.ledger.payments(row.id)
        return await in_thread(Night, self.ledger, row, events, payments, checkpoint, None, preset)

    def _same_rules(self, row: NightRow) -> tuple[NightRow, Preset]:
        """The night's row and its preset, both shared with the nights read lately that play the same
        rules: a preset read from its text holds some 13 KB and costs 1.3 ms to read (its digest),
        which every chat's first line after a restart paid for the same few presets."""
        kept = self._presets.get(row.preset_json)
        if kept is None:
            kept = self._presets[row.preset_json] = (row.preset_json, preset_from_dict(json.loads(row.preset_json)))
            if len(self._presets) > PRESETS_KEPT:
                self._presets.popitem(last=False)
        else:
            self._presets.move_to_end(row.preset_json)
        text, preset = kept
        return replace(row, preset_json=text), preset

    async def _from_head(self, row: NightRow, preset: Preset, checkpoint: tuple[int, str]) -> Night | None:
        """The night from the checkpoint's head and the events after it, or None when they do not fit
        (another engine's checkpoint; a later 改底 that reprices hands it covers)."""
        try:
            state, head = checkpoints.decode(checkpoint[1], preset)
        except checkpoints.CheckpointMismatch:
            return None
        after = await self.ledger.events(row.id, checkpoint[0], Sharing().decode)
        active = active_ids(after)
        if any(start < state.hand_no for start, _ in stake_schedule(0, after, active)[1:]):
            return None
        if joins_back(after, active, checkpoint[0]):
            return None
        payments = await self.ledger.payments_after(row.id, checkpoint[0])
        return Night(self.ledger, row, after, payments, checkpoint, head, preset)

    async def latest(self, chat_id: str, history: bool = True) -> Night | None:
        """The chat's latest night; `history=False` (a restart's /score) may leave its older history
        unread until `Night.load_history`."""
        if chat_id not in self._latest:
            row = await self.ledger.latest_night(chat_id)
            night = await self.load(row, history) if row is not None else None
            if chat_id not in self._latest:  # (another line of the chat may have loaded it meanwhile)
                self._latest[chat_id] = night
        self._latest.move_to_end(chat_id)
        night = self._latest[chat_id]
        if night is not None and history:
            await night.load_history()
        self._trim()
        return night

    def cached(self, chat_id: str) -> bool:
        """Whether the chat's night is in memory (the tests and benches ask)."""
        return chat_id in self._latest

    def held(self) -> int:
        """Events held by the cached nights (what `budget` bounds)."""
        return sum(night.held() for night in self._latest.values() if night is not None)

    @asynccontextmanager
    async def using(self, chat_id: str) -> AsyncIterator[None]:
        """While a line of the chat is handled its night stays cached; after it, a closed night
        leaves the cache (it is read again from its checkpoint if asked about)."""
        self._busy[chat_id] = self._busy.get(chat_id, 0) + 1
        try:
            yield
        finally:
            left = self._busy.pop(chat_id) - 1
            if left:
                self._busy[chat_id] = left
            else:
                night = self._latest.get(chat_id)
                if night is not None and night.closed:
                    self._evict(chat_id)
                self._trim()

    def _trim(self) -> None:
        """Evict the least recently used nights not in use until the cache fits its bounds (the
        chat used last always stays: a night longer than the budget is still answered from memory)."""
        held = self.held()
        for chat_id in list(self._latest)[:-1]:
            if held <= self.budget and len(self._latest) <= self.most:
                break
            if chat_id in self._busy:
                continue
            night = self._latest[chat_id]
            held -= night.held() if night is not None else 0
            self._evict(chat_id)
        if len(self._settings) > len(self._latest) + len(self._busy):  # settings of chats that left
            for chat_id in [c for c in self._settings if c not in self._latest and c not in self._busy]:
                del self._settings[chat_id]

    def _evict(self, chat_id: str) -> None:
        free_off_loop([self._latest.pop(chat_id, None)])  # a long night is freed off the event loop
        self._settings.pop(chat_id, None)

    def forget(self, chat_id: str) -> None:
        """Drop the cached night (after an unexpected failure): it is loaded again from the ledger."""
        self._evict(chat_id)

    async def open(
        self,
        chat_id: str,
        seats: Sequence[Seat],
        preset_name: str,
        preset_json: str,
        stake_cents: int,
        dealer: int,
        opened_by: str,
        line: Line,
    ) -> Night:
        night_id = await self.ledger.open_night(
            chat_id, seats, preset_name, preset_json, stake_cents, dealer, opened_by, line.text, line.update_key
        )
        free_off_loop([self._latest.pop(chat_id, None)])  # the night before: freed off the event loop
        night = await self.latest(chat_id)
        assert night is not None and night.id == night_id
        await night.start_tally()
        return night

    async def of_chat(self, chat_id: str) -> list[Night]:
        return [await self.load(row) for row in await self.ledger.nights(chat_id)]

    async def of_user(self, user_id: str) -> list[Night]:
        return [await self.load(row) for row in await self.ledger.nights_of_user(user_id)]

    async def setting(self, chat_id: str, key: str) -> str | None:
        known = self._settings.get(chat_id, {})
        if key not in known:
            value = await self.ledger.setting(chat_id, key)
            known = self._settings.setdefault(chat_id, {})
            known[key] = value
        return known[key]

    async def set_setting(self, chat_id: str, key: str, value: str) -> None:
        await self.ledger.set_setting(chat_id, key, value)
        self._settings.setdefault(chat_id, {})[key] = value

    # ---- what the layers above read and write of the ledger, named (they never reach it) ---------

    async def has_update(self, update_key: str) -> bool:
        """Whether a line with this update key was recorded (a repeated Telegram update)."""
        return await self.ledger.has_update(update_key)

    async def event_of_update(self, update_key: str) -> int | None:
        """The first event recorded under this update key (a guided flow already recorded)."""
        return await self.ledger.event_of_update(update_key)

    async def event_of_message(self, chat_id: str, message_key: str) -> tuple[int, bool] | None:
        """The latest event a Telegram message recorded, by its own line or by an edit of it."""
        return await self.ledger.event_of_message(chat_id, message_key)

    async def logged_events(self, night_id: int) -> list[EventRow]:
        """The night's events as the ledger holds them now (read afresh, not the cached night's)."""
        return await self.ledger.events(night_id, decode=decode_body)

    async def latest_event_time(self, night_id: int) -> str | None:
        """When the night's newest event was recorded (its `created_at`)."""
        return await self.ledger.latest_event_time(night_id)

    async def night_rows(self, chat_id: str) -> list[NightRow]:
        """The chat's nights, oldest first, as rows (none of them loaded)."""
        return await self.ledger.nights(chat_id)

    async def night_rows_of_user(self, user_id: str) -> list[NightRow]:
        """Nights, in any chat, that may have seated this Telegram user (rows; callers confirm)."""
        return await self.ledger.nights_of_user(user_id)

    async def night_marks(self, chat_id: str) -> list[NightMarks]:
        """Each night of the chat with what says whether its stored figures still count."""
        return await self.ledger.night_marks(chat_id)

    async def night_marks_of(self, night_ids: Sequence[int]) -> list[NightMarks]:
        """`night_marks` of these nights, in any chat."""
        return await self.ledger.night_marks_of(night_ids)

    async def store_figures(self, rows: Sequence[StoredFigures]) -> None:
        """Each night's figures with its rows per person: one transaction for them all."""
        await self.ledger.store_figures(rows)

    async def tab_events(self, chat_id: str) -> list[TabEventRow]:
        """The chat's tab entries, oldest first."""
        return await self.ledger.tab_events(chat_id)

    async def append_tab_event(
        self, chat_id: str, kind: str, payload: str, line: tuple[str, str, str | None], reverses: int | None = None
    ) -> int:
        """One entry of the chat's tab (speaker, raw text, update key); DuplicateUpdate for a repeated update."""
        return await self.ledger.append_tab_event(chat_id, kind, payload, line, reverses)

    async def flow_taps(self, flow_key: str) -> list[tuple[str, str | None]]:
        """A tap flow's taps in the order they came: (op, press id)."""
        return await self.ledger.flow_taps(flow_key)

    async def forget_flow_taps(self, days: int) -> int:
        """Drop the taps of flows over for `days` (see `Ledger.forget_flow_taps`)."""
        return await self.ledger.forget_flow_taps(days)

    async def append_flow_tap(self, flow_key: str, op: str, press: str | None) -> bool:
        """One tap after the flow's others; False when this press was counted before (a repeat)."""
        return await self.ledger.append_flow_tap(flow_key, op, press)

    def inbox(self) -> Inbox:
        """The Telegram intake, on the ledger's connection (an update is marked done by the
        transaction that records its events)."""
        return self.ledger.inbox()

    async def close(self) -> None:
        await self.ledger.close()
