"""Checkpoints: the night's folded table state at a closed hand, so a restart folds only what came after.

A checkpoint is a cache, never the truth: it records the id of the last event it covers and the
version of the state's shape and of the night's preset, and a restart uses the newest one that is
still valid (same versions; no later correction reaches back into what it covers), or none. The state
is written by the one typed codec (bot.night.codec), positionally; its version holds the shape of
`TableState`, so a checkpoint of a state whose fields changed (the engine changed) is ignored, and
one that does not read is refused rather than guessed at.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from bot.night.codec import POSITIONAL, from_data, shape_of, to_data
from bot.store.rows import Seat
from engine.errors import EngineError
from engine.preset import Preset, preset_from_dict
from engine.table import TableState

CODEC_VERSION = 4  # 3: written by the one codec (bot.night.codec), positional; 2: also the night's head (Head)
# 4: the head also counts the night's numbered lines (bot/night/log_index.py), so the next line's number is known
# The state's fields and their types: a checkpoint written for another shape is another version.
STATE_SHAPE = shape_of(TableState)
# The rules: the night's own (its row), or those a 改规则 made, stored beside the state ("rules"). A
# checkpoint is of a closed hand, so no 改规则 waits for the next hand there.
LEFT_OUT = frozenset({"preset", "next_preset"})


class CheckpointMismatch(Exception):
    """The stored state does not fit this engine or this night: fold from the start instead."""


def version(preset_json: str) -> str:
    """The codec, the state's shape and the night's preset: a checkpoint of another version is ignored."""
    digest = hashlib.sha256(f"{STATE_SHAPE}|{preset_json}".encode()).hexdigest()[:16]
    return f"{CODEC_VERSION}:{digest}"


def encode_state(state: TableState, opened_with: Preset | None = None) -> str:
    return json.dumps(_state_body(state, opened_with), ensure_ascii=False, separators=(",", ":"))


def _state_body(state: TableState, opened_with: Preset | None = None) -> dict[str, Any]:
    """The state; and the rules in force when a 改规则 made them other than the night's own."""
    body: dict[str, Any] = {"v": CODEC_VERSION, "state": to_data(state, POSITIONAL, LEFT_OUT)}
    if opened_with is not None and state.preset != opened_with:
        body["rules"] = state.preset.source
    return body


def decode_state(text: str, preset: Preset) -> TableState:
    """The state `encode_state` wrote, with the night's preset; CheckpointMismatch if it does not fit."""
    try:
        return _state_from(json.loads(text), preset)
    except (EngineError, KeyError, TypeError, ValueError, AttributeError) as error:
        raise CheckpointMismatch(str(error)) from error


def _state_from(raw: Any, preset: Preset) -> TableState:
    if not isinstance(raw, dict) or raw.get("v") != CODEC_VERSION or not {"v", "state"} <= set(raw) <= _BODY:
        raise CheckpointMismatch("another version")
    if "rules" in raw:  # the rules a 改规则 made, in force at the checkpoint
        preset = preset_from_dict(json.loads(raw["rules"]), bounded=False)
    given = {"preset": preset, "next_preset": None}
    return from_data(TableState, raw["state"], POSITIONAL, given=given)


_BODY = frozenset({"v", "state", "rules"})


@dataclass(frozen=True)
class Head:
    """What the score needs of the history a checkpoint covers, as it stood after its last event:
    the seats, every player so far by index (names, who sits where now), each index's net flowers
    and money, the stake schedule, whether the night was closed and how many lines it numbered. A
    restart adds the events after the checkpoint to it (bot.night.people) instead of reading the whole night."""

    seats: tuple[Seat, ...]
    names: tuple[str, ...]
    now: tuple[int, ...]
    amounts: tuple[int, ...]
    money: tuple[int, ...]
    schedule: tuple[tuple[int, int], ...]
    closed: bool
    numbers: int = 0  # the lines numbered so far (the next is #numbers + 1)


def encode(state: TableState, head: Head, opened_with: Preset | None = None) -> str:
    """A checkpoint's stored text: the table state (with the rules in force, when a 改规则 made them
    other than `opened_with`, the night's own) and the head."""
    body = {"state": _state_body(state, opened_with), "head": to_data(head, POSITIONAL)}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def decode(text: str, preset: Preset) -> tuple[TableState, Head]:
    """What `encode` wrote; CheckpointMismatch if it does not fit."""
    try:
        raw = json.loads(text)
        if not isinstance(raw, dict) or set(raw) != {"state", "head"}:
            raise CheckpointMismatch("another version")
        head = from_data(Head, raw["head"], POSITIONAL)
        size = len(head.names)
        if len(head.amounts) != size or len(head.money) != size or any(not 0 <= i < size for i in head.now):
            raise CheckpointMismatch("an inconsistent head")
        return _state_from(raw["state"], preset), head
    except CheckpointMismatch:
        raise
    except (EngineError, KeyError, TypeError, ValueError, AttributeError) as error:
        raise CheckpointMismatch(str(error)) from error
