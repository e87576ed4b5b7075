"""The fold: a night's effective events played in order through engine/table.py (`Fold`, each event
`Played`), and the reading of the log it starts from: which rows are in force, where each sits in the
night (a fix or undo at the place of what it corrects), the table event a row stands for.

The ledger holds every event ever typed; a night's *effective* history is the events that are still
active (not reversed by an active undo or fix), each fix standing in the place of the event it
corrects. Folding that history through `engine.table.apply` gives the table now (hand, dealer, 连庄,
比下胡, melds, chips) and every event's derived payments. `Line` is who typed which line: it is
recorded with every event the line writes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from bot.night.append_only import AppendOnlyView
from bot.night.checks import check_against_table, check_win_at
from bot.night.codec import (
    EVENT_KINDS,
    Fix,
    Unreadable,
    decode_event,
    decode_fix,
    payload_text,
)
from bot.night.flows import Flows, add_flow, difference
from bot.night.interner import Interner
from bot.night.played import Played, played_keys
from bot.night.versions import versions
from bot.store.rows import (
    EventRow,
)
from engine.errors import EngineError
from engine.events import Event, Win
from engine.table import TableState, apply

PENDING_ID = -1


@dataclass(frozen=True)
class Line:
    """Who typed which line: recorded with every event the line writes."""

    speaker: str
    text: str
    update_key: str | None = None


@dataclass(frozen=True, eq=False)
class Fold:
    """The table after the effective events, and each event as played. `played` is shared between
    a fold and the folds that extend it (bot/night/append_only.py): one more event costs the same late in a
    long night as early on, and a fold held by a reader never changes."""

    state: TableState
    played: AppendOnlyView[Played] = field(default_factory=lambda: AppendOnlyView(keys=played_keys))
    # the table before the last event played, or before the first claim of the last win when more
    # claims joined it (一炮多响): a claim joined later is settled with the others from there
    before_last: TableState | None = None

    @staticmethod
    def of(state: TableState, played: Iterable[Played], before_last: TableState | None = None) -> Fold:
        return Fold(state, AppendOnlyView(played, keys=played_keys), before_last)

    def then(
        self, event_id: int, place: int, event: Event, checked: bool = False, interner: Interner | None = None
    ) -> Fold:
        """The fold with one more event; raises EngineError (nothing changes) if it is not legal.
        A line being recorded (or a corrected one), or one `checked`, is first checked as if typed.
        `interner`: a night folded whole holds the payments and scores that repeat once."""
        if isinstance(event, Win) and event.joins is not None:
            group = self.joined_group(event.joins)
            if group:
                return self._joined(event_id, place, event, group, checked, interner or Interner())
            if self.played.first(event.joins) is not None:
                raise EngineError("win.joined_apart", id=event.joins)
            # the win it joined is undone: this claim is a win of its own, where it stands
        event = with_dealer(event, self.state.dealer)
        if checked or event_id == PENDING_ID:
            check_against_table(self.state, current_hand(self), event)
        outcome = apply(self.state, event)
        before = self.state
        share = interner or Interner()
        played = Played(
            event_id,
            place,
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
            if not isinstance(event, Win) or (played.place != root and event.joins != root):
                break
            group.append(played)
        return group[::-1]

    def _joined(
        self, event_id: int, place: int, event: Win, group: list[Played], checked: bool, share: Interner
    ) -> Fold:
        """Another winner on the discard of the win just played (RULES §8 一炮多响): the claims are
        settled together from the table before the first, as one win; this claim's payments are what
        that adds to the money already booked for the others."""
        before = self.before_last
        first = group[0].event
        assert before is not None and isinstance(first, Win)
        if event.discarder != first.discarder:
            raise EngineError("win.joined_other_discard", id=group[0].place)
        event = win_with_dealer(event, before.dealer)
        if checked or event_id == PENDING_ID:
            check_win_at(before, event)  # this claim as if typed at the discard: its own hand
        claims = tuple(c for p in group if isinstance(p.event, Win) for c in p.event.claims)
        outcome = apply(before, Win((*claims, *event.claims), first.discarder))
        derived: Flows = {}
        booked: Flows = {}
        for p in outcome.payments:
            add_flow(derived, p.payer, p.payee, p.amount, p.reason)
        for p in (payment for played in group for payment in played.payments):
            add_flow(booked, p.payer, p.payee, p.amount, p.reason)
        mine = {claim.winner for claim in event.claims}
        played = Played(
            event_id,
            place,
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
        """Hand of a played event, by ledger id or by place (the first match wins, as in order); the
        index behind it is shared and extended, since a night's money looks up every event."""
        played = self.played.first(event_id)
        return played.hand_no if played is not None else None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Fold):
            return NotImplemented
        return self.state == other.state and self.played == other.played

    __hash__ = None  # type: ignore[assignment]


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

    def __init__(self, place: int, cause: EngineError) -> None:
        super().__init__("fix.breaks_later", id=place)
        self.place = place
        self.cause = cause


# ---- reading the log ----------------------------------------------------------------------------


def active_ids(events: Sequence[EventRow]) -> set[int]:
    """Each place's current version and the correction marks (bot/night/versions.py)."""
    return versions(events).active(events)


def places(events: Sequence[EventRow]) -> dict[int, int]:
    """Each row's place in the night: a fix or undo has the place of what it corrects."""
    return versions(events).place_of


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


def effective_events(events: Sequence[EventRow], active: set[int], after: int = 0) -> list[tuple[int, int, Event]]:
    """(event id, place, event) of the effective table events in places after `after`, in the night's order."""
    place_of = places(events)
    found = [(e.id, place_of[e.id], table_event(e)) for e in events if e.id in active and place_of[e.id] > after]
    return sorted(((i, s, ev) for i, s, ev in found if ev is not None), key=lambda entry: entry[1])


def claim_joins_across(events: Sequence[EventRow], active: set[int], after: int) -> bool:
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


def fold_whole_night(start: TableState, events: Sequence[EventRow], active: set[int]) -> Fold:
    """The night folded from its start, indexed (off the event loop: a long night takes seconds)."""
    fold = fold_events(start, effective_events(events, active), None)
    fold.played.build_index()
    return fold


def fold_events(start: TableState, items: Iterable[tuple[int, int, Event]], strict_after: int | None) -> Fold:
    """Fold events in order. Events that no longer apply are skipped (older ledgers) unless they come
    after `strict_after`: then the correction that made them impossible is refused. Those later
    events are checked as if typed again, so a corrected night is one its lines could have made
    (a fix must not turn a later pong into a second pong of the same tile)."""
    folded, interner = Fold(start), Interner()  # what repeats along the night is held once
    for event_id, place, event in items:
        later = strict_after is not None and place > strict_after
        try:  # a line being recorded is checked against its hand's earlier events (Fold.then)
            folded = folded.then(event_id, place, event, later, interner)  # later: declared wins too
        except EngineError as error:
            if strict_after is None or place < strict_after:
                continue
            if event_id == PENDING_ID:
                raise  # the corrected line itself is wrong: say why, as if it had been typed
            raise LaterEventBreaks(place, _named_at(error, strict_after)) from error
    return folded


def _named_at(error: EngineError, place: int) -> EngineError:
    """The error with the corrected line (not yet in the ledger) named by its place in the night."""
    if error.params.get("id") != PENDING_ID:
        return error
    return EngineError(error.key, **{**error.params, "id": place})


def is_closed(events: Iterable[EventRow]) -> bool:
    closed = False
    for event in events:
        if event.kind in ("close", "reopen"):
            closed = event.kind == "close"
    return closed


def actor_of(event: Event) -> int | None:
    actor = getattr(event, "actor", getattr(event, "offender", None))
    return actor if isinstance(actor, int) else None


def hand_in(fold: Fold, event: EventRow, place_of: Callable[[int], int]) -> int:
    """The hand an event belongs to as the corrected night has it (/history, the CSV, the tally): a
    replaced version of a corrected event (a fix later fixed again, a joined win) belongs to its
    place's hand, not to the hand it was typed in."""
    hand = fold.hand_of(event.id)
    if hand is None and event.kind == "fix":
        hand = fold.hand_of(place_of(event.id))
    return hand or event.hand_no


def moved_hands(before: Fold, after: Fold, from_place: int) -> tuple[int, ...]:
    """Hands after the corrected event whose number or payments changed."""
    old = {p.place: (p.hand_no, p.payments) for p in before.played if p.place > from_place}
    new = {p.place: (p.hand_no, p.payments) for p in after.played if p.place > from_place}
    hands = {new[s][0] for s in new if old.get(s) != new[s]} | {old[s][0] for s in old if s not in new}
    return tuple(sorted(hands))
