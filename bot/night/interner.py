"""Values that repeat along a night, held once: a night read from the ledger, or folded, meets the same
values again and again (碰 王五 by the same seat, a win's flags, a gang's payment of 2 from each other
seat, a self-drawn win's three equal payments), and each was a new object of some 100 bytes.

An `Interner` lasts one reading (the rows decoded, or a fold folded): equal values it meets come out as
the first one met, and it is dropped when the reading is done (what it shared stays shared, and it
holds nothing once the night is cached). Every value shared is a frozen dataclass or a tuple of them,
so an equal one is the same value: nothing tells the copies apart but their identity, which no one
asks. A notice or a factor carries its parameters in a dict, which no one changes (readers copy
it): it is looked up by its content. A value that cannot be looked up (a parameter that is a list)
is kept as it is. A win's tiles are not looked up: they are nearly always a hand of their own.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import fields, is_dataclass, replace
from functools import cache
from typing import Any, TypeVar, cast

from bot.night.codec import Fix, SeatChange, StakeChange, decode_body
from engine.events import Draw, Event, FlowerGang, FourWinds, Gang, Penalty, Pong, RangeMark, SetDealer, Win
from engine.scoring import WinScore

T = TypeVar("T")

# Events whose whole value repeats along a night (a win repeats only its flags).
_REPEATING = (Pong, Gang, FlowerGang, Penalty, Draw, FourWinds, RangeMark, SetDealer, SeatChange, StakeChange)


@cache
def _field_names(kind: Hashable) -> tuple[str, ...] | None:
    """A dataclass's field names (None for any other type)."""
    return tuple(f.name for f in fields(kind)) if isinstance(kind, type) and is_dataclass(kind) else None


def _content(value: Any) -> Hashable:
    """What a value is, as a key: for one holding a dict (a notice's parameters) its type and fields
    with each dict's items in order, every plain value with its type (1 and True are equal, but not
    shown alike). TypeError if it holds what cannot be a key."""
    kind = type(value)
    if kind is dict:
        return (dict, tuple(sorted((key, _content(item)) for key, item in value.items())))
    if kind is tuple:
        return (tuple, *(_content(item) for item in value))
    names = _field_names(cast(Hashable, kind))  # (a type is hashable; typeshed's `type` does not say so)
    if names is not None:
        return (kind, *(_content(getattr(value, name)) for name in names))
    hash(value)
    return (kind, value)


def _content_or_none(value: object) -> Hashable | None:
    try:
        return _content(value)
    except TypeError:
        return None


class Interner:
    """`bound`: at most this many values are kept, the newest met (a night being played keeps its
    table as long as it is played); `by_content`: whether a value holding a dict is looked up (its
    key is a value of its own, which a bounded table would keep for nothing)."""

    __slots__ = ("_bound", "_by_content", "_seen")

    def __init__(self, bound: int | None = None, by_content: bool = True) -> None:
        self._seen: dict[Hashable, object] = {}
        self._bound = bound
        self._by_content = by_content

    def _met(self, key: Hashable, value: T) -> T:
        seen = self._seen
        found = seen.get(key)
        if found is not None:
            return cast(T, found)
        seen[key] = value
        if self._bound is not None and len(seen) > self._bound:
            del seen[next(iter(seen))]  # the oldest met
        return value

    def one(self, value: T) -> T:
        """The first value met equal to this one (this one, the first time)."""
        try:
            return self._met(value, value)
        except TypeError:  # it holds a dict: looked up by its content
            pass
        key = _content_or_none(value) if self._by_content else None
        return value if key is None else self._met(key, value)

    def all(self, values: tuple[T, ...]) -> tuple[T, ...]:
        """The tuple as met before, each of its items too."""
        if not values:
            return values
        try:
            found = self._seen.get(values)
        except TypeError:  # an item holds a dict: the tuple and its items looked up by their content
            return self._all_by_content(values) if self._by_content else values
        if found is None:
            items = tuple(self.one(value) for value in values)
            found = self._met(values, values if all(a is b for a, b in zip(items, values, strict=True)) else items)
        return cast(tuple[T, ...], found)

    def _all_by_content(self, values: tuple[T, ...]) -> tuple[T, ...]:
        keys = [_content_or_none(value) for value in values]
        if any(key is None for key in keys):
            return values  # kept as it is
        key = (tuple, *keys)
        found = self._seen.get(key)
        if found is None:
            items = tuple(self._met(k, v) for k, v in zip(keys, values, strict=True))
            found = self._met(key, values if all(a is b for a, b in zip(items, values, strict=True)) else items)
        return cast(tuple[T, ...], found)

    def scores(self, scores: tuple[tuple[int, WinScore], ...]) -> tuple[tuple[int, WinScore], ...]:
        """A win's scores as met before, and the lines of each (a score of its own shares its lines)."""
        return self.all(tuple((winner, self.score(score)) for winner, score in scores))

    def score(self, score: WinScore) -> WinScore:
        items = self.all(score.items)
        return self.one(score if items is score.items else replace(score, items=items))

    def decode(self, kind: str, payload: str) -> object:
        """A row's payload as a night holds it (codec.decode_body), its repeating values shared."""
        return self.body(decode_body(kind, payload))

    def event(self, event: Event) -> Event:
        """A table event as met before (a win: its flags)."""
        return cast(Event, self.body(event))

    def body(self, body: object) -> object:
        if isinstance(body, Win):
            return self.win(body)
        if isinstance(body, Fix):
            event = self.body(body.event)
            return body if event is body.event else Fix(cast(Event, event))
        if isinstance(body, _REPEATING):
            return self.one(body)
        return body

    def win(self, win: Win) -> Win:
        """The win with its claims' flags shared (its tiles are its own)."""
        claims = tuple(
            claim if (flags := self.one(claim.flags)) is claim.flags else replace(claim, flags=flags)
            for claim in win.claims
        )
        if all(new is old for new, old in zip(claims, win.claims, strict=True)):
            return win
        return replace(win, claims=claims)
