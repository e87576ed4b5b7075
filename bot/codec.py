"""Engine events to and from JSON, so the ledger can store them and replay them later."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from engine.errors import EngineError
from engine.hand import Meld, MeldKind
from engine.table import Draw, Event, FlowerGang, FourWinds, Gang, Penalty, Pong, RangeMark, Win, WinInput
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
}
KIND_OF = {cls: kind for kind, cls in EVENT_KINDS.items()}


def event_kind(event: Event) -> str:
    return KIND_OF[type(event)]


def encode_event(event: Event) -> str:
    return json.dumps(asdict(event), ensure_ascii=False, sort_keys=True)


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


def decode_event(kind: str, payload: str) -> Event:
    raw = json.loads(payload)
    if kind == "pong":
        return Pong(**raw)
    if kind == "gang":
        return Gang(raw["actor"], MeldKind(raw["kind"]), raw.get("feeder"), raw.get("tile"), raw.get("hard_flowers"))
    if kind == "flower_gang":
        return FlowerGang(**raw)
    if kind == "penalty":
        return Penalty(**raw)
    if kind == "win":
        return Win(tuple(_claim(c) for c in raw["claims"]), raw.get("discarder"))
    if kind == "draw":
        return Draw()
    if kind == "four_winds":
        return FourWinds(**raw)
    if kind == "range_mark":
        return RangeMark(**raw)
    raise EngineError("ledger.unknown_event", kind=kind)
