"""Checkpoints: the night's folded table state at a closed hand, so a restart folds only what came after.

A checkpoint is a cache, never the truth: it records the id of the last event it covers and the
version of the state's shape and of the night's preset, and a restart uses the newest one that is
still valid (same versions; no later correction reaches back into what it covers), or none. The state
is written with a typed, versioned JSON codec: every field of `TableState` is listed here, and a
state whose fields differ from this list (the engine changed) is refused rather than guessed at.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields
from typing import Any

from bot.ledger import Seat
from engine.hand import MeldKind
from engine.preset import Preset
from engine.settlement import Payment
from engine.table import Act, MeldRecord, TableState

CODEC_VERSION = 3  # 2: a checkpoint also carries the night's head (Head), what /score needs of the older history
# 3: the head also counts the night's numbered lines (bot/log_index.py), so the next line's number is known
# The fields this codec writes, in order; the preset is the night's own (its row), not stored here.
STATE_FIELDS = (
    "dealer",
    "hand_no",
    "dealer_passes",
    "dealer_streak",
    "doubled",
    "melds",
    "triggers",
    "hand_gang_payments",
    "flower_gangs",
    "last_added_gang",
    "last_acts",
    "chips",
    "gang_liable",
    "range_marks",
    "waibao_paid",
)


class CheckpointMismatch(Exception):
    """The stored state does not fit this engine or this night: fold from the start instead."""


def engine_fits() -> bool:
    """Whether TableState still has exactly the fields this codec knows (besides the preset)."""
    return tuple(f.name for f in fields(TableState) if f.name != "preset") == STATE_FIELDS


def version(preset_json: str) -> str:
    """The codec, the state's shape and the night's preset: a checkpoint of another version is ignored."""
    digest = hashlib.sha256(f"{STATE_FIELDS}|{preset_json}".encode()).hexdigest()[:16]
    return f"{CODEC_VERSION}:{digest}"


def _payment(p: Payment) -> list[Any]:
    return [p.payer, p.payee, p.amount, p.reason]


def _payment_from(raw: list[Any]) -> Payment:
    payer, payee, amount, reason = raw
    return Payment(int(payer), int(payee), int(amount), str(reason))


def _meld(m: MeldRecord) -> list[Any]:
    return [m.kind.value, m.tile, m.fed_by]


def _meld_from(raw: list[Any]) -> MeldRecord:
    kind, tile, fed_by = raw
    return MeldRecord(MeldKind(kind), None if tile is None else int(tile), None if fed_by is None else int(fed_by))


def _act(a: Act | None) -> list[Any] | None:
    return None if a is None else [a.kind, a.feeder]


def _act_from(raw: list[Any] | None) -> Act | None:
    if raw is None:
        return None
    kind, feeder = raw
    return Act(str(kind), None if feeder is None else int(feeder))


def _optional_ints(raw: list[Any] | None) -> tuple[int, ...] | None:
    return None if raw is None else tuple(int(x) for x in raw)


def encode_state(state: TableState) -> str:
    return json.dumps(_state_body(state), ensure_ascii=False, separators=(",", ":"))


def _state_body(state: TableState) -> dict[str, Any]:
    if not engine_fits():
        raise CheckpointMismatch("the table state has fields this codec does not know")
    added = state.last_added_gang
    body = {
        "v": CODEC_VERSION,
        "dealer": state.dealer,
        "hand_no": state.hand_no,
        "dealer_passes": state.dealer_passes,
        "dealer_streak": state.dealer_streak,
        "doubled": state.doubled,
        "melds": [[_meld(m) for m in seat] for seat in state.melds],
        "triggers": sorted(state.triggers),
        "hand_gang_payments": [_payment(p) for p in state.hand_gang_payments],
        "flower_gangs": state.flower_gangs,
        "last_added_gang": None if added is None else [added[0], [_payment(p) for p in added[1]]],
        "last_acts": [_act(a) for a in state.last_acts],
        "chips": None if state.chips is None else list(state.chips),
        "gang_liable": None if state.gang_liable is None else list(state.gang_liable),
        "range_marks": list(state.range_marks),
        "waibao_paid": sorted(state.waibao_paid),
    }
    return body


def decode_state(text: str, preset: Preset) -> TableState:
    """The state `encode_state` wrote, with the night's preset; CheckpointMismatch if it does not fit."""
    try:
        return _state_from(json.loads(text), preset)
    except CheckpointMismatch:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise CheckpointMismatch(str(error)) from error


def _state_from(raw: Any, preset: Preset) -> TableState:
    try:
        if raw.get("v") != CODEC_VERSION or set(raw) != {"v", *STATE_FIELDS} or not engine_fits():
            raise CheckpointMismatch("another version")
        added = raw["last_added_gang"]
        liable = raw["gang_liable"]
        return TableState(
            preset=preset,
            dealer=int(raw["dealer"]),
            hand_no=int(raw["hand_no"]),
            dealer_passes=int(raw["dealer_passes"]),
            dealer_streak=int(raw["dealer_streak"]),
            doubled=bool(raw["doubled"]),
            melds=tuple(tuple(_meld_from(m) for m in seat) for seat in raw["melds"]),
            triggers=frozenset(str(t) for t in raw["triggers"]),
            hand_gang_payments=tuple(_payment_from(p) for p in raw["hand_gang_payments"]),
            flower_gangs=int(raw["flower_gangs"]),
            last_added_gang=None if added is None else (int(added[0]), tuple(_payment_from(p) for p in added[1])),
            last_acts=tuple(_act_from(a) for a in raw["last_acts"]),
            chips=_optional_ints(raw["chips"]),
            gang_liable=None if liable is None else (int(liable[0]), int(liable[1])),
            range_marks=tuple(None if t is None else int(t) for t in raw["range_marks"]),
            waibao_paid=frozenset(int(seat) for seat in raw["waibao_paid"]),
        )
    except CheckpointMismatch:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise CheckpointMismatch(str(error)) from error


@dataclass(frozen=True)
class Head:
    """What the score needs of the history a checkpoint covers, as it stood after its last event:
    the seats, every player so far by index (names, who sits where now), each index's net flowers
    and money, the stake schedule, whether the night was closed and how many lines it numbered. A
    restart adds the events after the checkpoint to it (bot.people) instead of reading the whole night."""

    seats: tuple[Seat, ...]
    names: tuple[str, ...]
    now: tuple[int, ...]
    amounts: tuple[int, ...]
    money: tuple[int, ...]
    schedule: tuple[tuple[int, int], ...]
    closed: bool
    numbers: int = 0  # the lines numbered so far (the next is #numbers + 1)


def encode(state: TableState, head: Head) -> str:
    """A checkpoint's stored text: the table state and the head."""
    body = {
        "state": _state_body(state),
        "head": {
            "seats": [[s.name, s.user_id, s.username] for s in head.seats],
            "names": list(head.names),
            "now": list(head.now),
            "amounts": list(head.amounts),
            "money": list(head.money),
            "schedule": [list(step) for step in head.schedule],
            "closed": head.closed,
            "numbers": head.numbers,
        },
    }
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def decode(text: str, preset: Preset) -> tuple[TableState, Head]:
    """What `encode` wrote; CheckpointMismatch if it does not fit."""
    try:
        raw = json.loads(text)
        if set(raw) != {"state", "head"}:
            raise CheckpointMismatch("another version")
        head = raw["head"]
        names = tuple(str(n) for n in head["names"])
        amounts = tuple(int(a) for a in head["amounts"])
        money = tuple(int(m) for m in head["money"])
        now = tuple(int(i) for i in head["now"])
        if len(amounts) != len(names) or len(money) != len(names) or any(not 0 <= i < len(names) for i in now):
            raise CheckpointMismatch("an inconsistent head")
        return _state_from(raw["state"], preset), Head(
            seats=tuple(
                Seat(str(n), None if u is None else str(u), None if h is None else str(h)) for n, u, h in head["seats"]
            ),
            names=names,
            now=now,
            amounts=amounts,
            money=money,
            schedule=tuple((int(f), int(c)) for f, c in head["schedule"]),
            closed=bool(head["closed"]),
            numbers=int(head["numbers"]),
        )
    except CheckpointMismatch:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise CheckpointMismatch(str(error)) from error
