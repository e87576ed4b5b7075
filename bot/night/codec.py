"""Typed codecs for the ledger's event payloads: table events, seat changes and corrections.

Everything downstream (the night's fold, views, stats, charts) works with these values; only this
module reads or writes payload JSON.
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable
from dataclasses import MISSING, asdict, dataclass, fields, is_dataclass
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar, Union, get_args, get_origin, get_type_hints

from engine.errors import EngineError
from engine.events import Draw, Event, FlowerGang, FourWinds, Gang, Penalty, Pong, RangeMark, SetDealer, SetRules, Win

# The one list of table events and their stored names: every member of `engine.events.Event`, no other
# (tests/test_codec.py holds the two to each other).
EVENT_KINDS: dict[str, type[Event]] = {
    "pong": Pong,
    "gang": Gang,
    "flower_gang": FlowerGang,
    "penalty": Penalty,
    "win": Win,
    "draw": Draw,
    "four_winds": FourWinds,
    "range_mark": RangeMark,
    "dealer": SetDealer,
    "rules": SetRules,
}
KIND_OF = {cls: kind for kind, cls in EVENT_KINDS.items()}
SEAT_KINDS = ("join", "bind", "unseat", "rename", "swap")  # the events that change who sits where
SWAP = "swap"  # a new player takes the seat; the old one keeps the balance made so far
STAKE = "stake"

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")


def event_kind(event: Event) -> str:
    return KIND_OF[type(event)]


def encode_event(event: Event) -> str:
    return json.dumps(_fields(event), ensure_ascii=False, sort_keys=True)


def _fields(event: Event) -> dict[str, Any]:
    """The event's fields; a win that joins no other, a rules change typed before its hand began,
    keep the payload they always had."""
    raw = asdict(event)
    if isinstance(event, Win) and event.joins is None:
        del raw["joins"]
    if isinstance(event, SetRules) and not event.next_hand:  # as it always was: from this hand if not begun
        del raw["next_hand"]
    return raw


# ---- one codec, driven by the types ------------------------------------------------------------
# Every stored value is a dataclass of the engine or the bot, written and read by its own type hints.
# Two layouts: NAMED (an event's payload, as `asdict` writes it: a field an older row lacks takes the
# class's default, a key the class no longer has, such as an old win's "results", is ignored) and
# POSITIONAL (caches such as checkpoints and stored figures: each dataclass a list of its fields in
# order, compact; a cache of another shape is refused and rebuilt). A value of the wrong shape is
# refused with EngineError, never guessed at.

NAMED, POSITIONAL = "named", "positional"


_PLAIN = frozenset({int, str, bool, float, type(None)})


def to_data(value: Any, layout: str = NAMED, leave_out: frozenset[str] = frozenset()) -> Any:
    """`value` as JSON-ready data: dataclasses, tuples, frozensets (sorted), enums, plain values."""
    kind: Any = type(value)
    if kind in _PLAIN:  # most of what is stored: asked first, by exact type (an IntEnum is an enum)
        return value
    if kind is tuple or kind is list:  # (a plain item is taken as it is, without a call)
        return [item if type(item) in _PLAIN else to_data(item, layout) for item in value]
    names = _field_names(kind)
    if names is not None:
        pairs = [(name, getattr(value, name)) for name in names if name not in leave_out]
        if layout == POSITIONAL:
            return [item if type(item) in _PLAIN else to_data(item, layout) for _, item in pairs]
        return {name: item if type(item) in _PLAIN else to_data(item, layout) for name, item in pairs}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, frozenset):
        return sorted(to_data(item, layout) for item in value)
    if isinstance(value, tuple | list):
        return [to_data(item, layout) for item in value]
    return value


@cache
def _field_names(kind: Any) -> tuple[str, ...] | None:
    """A dataclass's field names in order (None for any other type), found once per type."""
    return tuple(f.name for f in fields(kind)) if is_dataclass(kind) else None


def from_data(cls: type[T], raw: Any, layout: str = NAMED, given: dict[str, Any] | None = None) -> T:
    """The dataclass `cls` from what `to_data` wrote of it; `given` supplies the fields left out."""
    if given:
        result: T = _dataclass_reader(cls, layout, frozenset(given))(raw, given)
    else:
        result = _reader(cls, layout)(raw)
    return result


Reader = Callable[[Any], Any]


@cache
def _reader(kind: Any, layout: str) -> Reader:
    """A function reading one stored value of type `kind`, built once per type from its hints."""
    origin = get_origin(kind)
    if origin in (Union, types.UnionType):
        options = [option for option in get_args(kind) if option is not type(None)]
        if len(options) != 1:
            raise TypeError(f"no codec for {kind!r}: only `X | None` is stored")
        inner = _reader(options[0], layout)
        return lambda raw: None if raw is None else inner(raw)
    if origin is tuple or origin is frozenset:
        return _sequence_reader(kind, layout)
    if isinstance(kind, type) and is_dataclass(kind):
        read = _dataclass_reader(kind, layout, frozenset())
        return lambda raw: read(raw, None)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind
    if kind in (bool, int, str):
        return _exact_reader(kind)
    raise TypeError(f"no codec for {kind!r}")


def _sequence_reader(kind: Any, layout: str) -> Reader:
    """tuple[X, ...], frozenset[X], or a tuple of fixed types such as tuple[int, int]."""
    args = get_args(kind)
    if get_origin(kind) is frozenset or (len(args) == 2 and args[1] is Ellipsis):
        item = _reader(args[0], layout)
        build: Callable[[Any], Any] = frozenset if get_origin(kind) is frozenset else tuple

        def read_all(raw: Any) -> Any:
            if not isinstance(raw, list):
                raise EngineError("ledger.bad_payload", kind="list")
            return build(item(element) for element in raw)

        return read_all
    items = [_reader(arg, layout) for arg in args]

    def read_each(raw: Any) -> Any:
        if not isinstance(raw, list) or len(raw) != len(items):
            raise EngineError("ledger.bad_payload", kind="tuple")
        return tuple(read(element) for read, element in zip(items, raw, strict=True))

    return read_each


def _exact_reader(kind: type) -> Reader:
    def read(raw: Any) -> Any:
        if type(raw) is not kind:  # exactly: a bool is no seat number, a number no name
            raise EngineError("ledger.bad_payload", kind=kind.__name__)
        return raw

    return read


@cache  # built once per (type, layout, fields left out): a checkpoint's state read the hints each time (0.5 ms)
def _dataclass_reader(
    cls: type[DataclassInstance], layout: str, left_out: frozenset[str]
) -> Callable[[Any, dict[str, Any] | None], Any]:
    hints = get_type_hints(cls)
    stored = [f for f in fields(cls) if f.name not in left_out]
    required = frozenset(f.name for f in stored if f.default is MISSING and f.default_factory is MISSING)
    readers: list[tuple[str, Reader]] = []  # filled on first use: a field's type may be defined later

    def read(raw: Any, given: dict[str, Any] | None) -> Any:
        if not readers:
            readers.extend((f.name, _reader(hints[f.name], layout)) for f in stored)
        if layout == POSITIONAL:
            if not isinstance(raw, list) or len(raw) != len(readers):
                raise EngineError("ledger.bad_payload", kind=cls.__name__)
            values = {name: read_field(item) for (name, read_field), item in zip(readers, raw, strict=True)}
        else:
            if not isinstance(raw, dict) or not required <= raw.keys():
                raise EngineError("ledger.bad_payload", kind=cls.__name__)
            values = {name: read_field(raw[name]) for name, read_field in readers if name in raw}
        return cls(**values, **(given or {}))

    return read


def shape_of(cls: type[DataclassInstance]) -> str:
    """The names and types of a dataclass's fields, nested: a stored cache of another shape is stale."""
    return repr([(f.name, get_type_hints(cls)[f.name]) for f in fields(cls)])


def _event_from(kind: str, raw: Any) -> Event:
    cls = EVENT_KINDS.get(kind)
    if cls is None:
        raise EngineError("ledger.unknown_event", kind=kind)
    return from_data(cls, raw)


def decode_event(kind: str, payload: str) -> Event:
    return _event_from(kind, json.loads(payload))


# ---- seats --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatChange:
    """A join or bind (someone sits at `seat`), or an unseat (the seat is free again: empty name)."""

    seat: int
    name: str = ""
    user_id: str | None = None
    username: str | None = None


def encode_seat(change: SeatChange) -> str:
    return json.dumps(asdict(change), ensure_ascii=False, sort_keys=True)


def decode_seat(payload: str) -> SeatChange:
    return from_data(SeatChange, json.loads(payload))


# ---- corrections --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fix:
    """A corrected event standing in for the one it reverses (same kind, same place in the night)."""

    event: Event


def encode_fix(fix: Fix) -> str:
    kind = event_kind(fix.event)
    return json.dumps({"kind": kind, "event": _fields(fix.event)}, ensure_ascii=False, sort_keys=True)


def decode_fix(payload: str) -> Fix:
    raw = json.loads(payload)
    return Fix(_event_from(str(raw["kind"]), raw["event"]))


def encode_undo(target: int) -> str:
    return json.dumps({"target": target})


# ---- the stake ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StakeChange:
    """改底: money per flower from hand `from_hand` on (minor units)."""

    stake_cents: int
    from_hand: int


def encode_stake(change: StakeChange) -> str:
    return json.dumps(asdict(change), sort_keys=True)


def decode_stake(payload: str) -> StakeChange:
    return from_data(StakeChange, json.loads(payload))


# ---- a row's payload as a night holds it --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A payload that did not read (a damaged or foreign row), kept as its text: whatever reads it
    reads it again and fails (or passes over it) exactly as reading the text always did."""

    payload: str


def decode_body(kind: str, payload: str) -> object:
    """A row's payload as a night holds it (bot/store/rows.py `EventRow.body`), read once when the row
    is read: a table event, a `Fix`, a `SeatChange` or a `StakeChange`; None for a row whose payload
    the night never reads (an opening, a close, an undo's target); `Unreadable` if it does not read.
    The decoded table event is the one the night's fold plays, so it is held once."""
    try:
        if kind in EVENT_KINDS:
            return decode_event(kind, payload)
        if kind == "fix":
            return decode_fix(payload)
        if kind in SEAT_KINDS:
            return decode_seat(payload)
        if kind == STAKE:
            return decode_stake(payload)
    except Exception:  # read again where it is used, which says what reading it always said
        return Unreadable(payload)
    return None


def payload_text(body: object) -> str:
    """The text of a payload that is held undecoded (a reader that decodes nothing, or `Unreadable`)."""
    if isinstance(body, Unreadable):
        return body.payload
    if isinstance(body, str):
        return body
    raise EngineError("ledger.bad_payload", kind=type(body).__name__)


def seat_change(body: object) -> SeatChange:
    """A join's, bind's, unseat's, rename's or swap's change (raises as `decode_seat` if it does not read)."""
    return body if isinstance(body, SeatChange) else decode_seat(payload_text(body))


def stake_change(body: object) -> StakeChange:
    """A 改底's change (raises as `decode_stake` if it does not read)."""
    return body if isinstance(body, StakeChange) else decode_stake(payload_text(body))
