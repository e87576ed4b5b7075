"""Typed codecs for the ledger's event payloads: table events, seat changes and corrections.

Everything downstream (the night's fold, views, stats, charts) works with these values; only this
module reads or writes payload JSON.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from engine.errors import EngineError
from engine.hand import Meld, MeldKind
from engine.table import (
    Draw,
    Event,
    FlowerGang,
    FourWinds,
    Gang,
    Penalty,
    Pong,
    RangeMark,
    SetDealer,
    Win,
    WinInput,
)
from engine.units import WinFlags

EVENT_KINDS: dict[str, type] = {
    "pong": Pong,
    "gang": Gang,
    "flower_gang": FlowerGang,
    "penalty": Penalty,
    "win": Win,
    "draw": Draw,
    "four_winds": FourWinds,
    "range_mark": RangeMark,
    "dealer": SetDealer,
}
KIND_OF = {cls: kind for kind, cls in EVENT_KINDS.items()}
SEAT_KINDS = ("join", "bind", "unseat", "rename", "swap")  # the events that change who sits where
SWAP = "swap"  # a new player takes the seat; the old one keeps the balance made so far
STAKE = "stake"


def event_kind(event: Event) -> str:
    return KIND_OF[type(event)]


def encode_event(event: Event) -> str:
    return json.dumps(_fields(event), ensure_ascii=False, sort_keys=True)


def _fields(event: Event) -> dict[str, Any]:
    """The event's fields; a win that joins no other keeps the payload it always had."""
    raw = asdict(event)
    if isinstance(event, Win) and event.joins is None:
        del raw["joins"]
    return raw


def _meld(raw: dict[str, Any]) -> Meld:
    return Meld(MeldKind(raw["kind"]), raw["tile"], raw.get("fed_by"))


def _claim(raw: dict[str, Any]) -> WinInput:
    declared = raw.get("declared")
    return WinInput(
        winner=raw["winner"],
        flags=WinFlags(**raw["flags"]),
        concealed=tuple(raw.get("concealed", ())),
        melds=tuple(_meld(m) for m in raw.get("melds", ())),
        winning=raw.get("winning"),
        declared=tuple(declared) if declared is not None else None,
        soft=raw.get("soft", 0),
    )


def _event_from(kind: str, raw: dict[str, Any]) -> Event:
    if kind == "pong":
        return Pong(raw["actor"], raw["feeder"], raw.get("tile"), raw.get("hard_flowers"))
    if kind == "gang":
        return Gang(raw["actor"], MeldKind(raw["kind"]), raw.get("feeder"), raw.get("tile"), raw.get("hard_flowers"))
    if kind == "flower_gang":
        return FlowerGang(raw["actor"])
    if kind == "penalty":
        return Penalty(raw["kind"], raw["offender"], raw.get("amount"))
    if kind == "win":  # older rows also carry "results" and "doubled": derived now, ignored here
        joins = raw.get("joins")
        return Win(tuple(_claim(c) for c in raw["claims"]), raw.get("discarder"), None if joins is None else int(joins))
    if kind == "draw":
        return Draw()
    if kind == "four_winds":
        return FourWinds(**raw)
    if kind == "range_mark":
        return RangeMark(**raw)
    if kind == "dealer":
        return SetDealer(int(raw["seat"]))
    raise EngineError("ledger.unknown_event", kind=kind)


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
    raw = json.loads(payload)
    return SeatChange(int(raw["seat"]), str(raw.get("name", "")), raw.get("user_id"), raw.get("username"))


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
    raw = json.loads(payload)
    return StakeChange(int(raw["stake_cents"]), int(raw["from_hand"]))
