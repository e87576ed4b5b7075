"""One codec for every stored payload, driven by the types: each table event, seat change, fix and
stake change reads back as it was written, older rows still read, and the set of events is closed."""

from __future__ import annotations

import json
from typing import get_args

import pytest

from bot.night.codec import (
    EVENT_KINDS,
    Fix,
    SeatChange,
    StakeChange,
    decode_event,
    decode_fix,
    decode_seat,
    decode_stake,
    encode_event,
    encode_fix,
    encode_seat,
    encode_stake,
    event_kind,
)
from engine.errors import EngineError
from engine.events import (
    Draw,
    Event,
    FlowerGang,
    FourWinds,
    Gang,
    Penalty,
    Pong,
    RangeMark,
    RuleChange,
    SetDealer,
    SetRules,
    Win,
    WinInput,
)
from engine.hand import Meld, MeldKind
from engine.notation import parse_tile
from engine.units import WinFlags

NINE_P = parse_tile("9p")
EAST = parse_tile("E")

# every field of every event set away from its default, so a field the codec forgot shows
EVERY_EVENT: tuple[Event, ...] = (
    Pong(1, 2, NINE_P, hard_flowers=1),  # a 敞开头 三嘴 pong that ends the hand
    Gang(3, MeldKind.EXPOSED_GANG, 0, NINE_P, hard_flowers=2),
    FlowerGang(2),
    Penalty("penalty_custom", 1, 5),
    Win(
        (
            WinInput(
                0,
                WinFlags(hard_flowers=4, dealer=True, after_gang=True),
                concealed=(NINE_P, NINE_P),
                melds=(Meld(MeldKind.PONG, EAST, 2), Meld(MeldKind.CONCEALED_GANG, NINE_P)),
                winning=NINE_P,
                declared=("qidui",),
                soft=2,
            ),
            WinInput(1, WinFlags(hard_flowers=1)),
        ),
        3,
    ),
    Draw(),
    FourWinds(2),
    RangeMark(1, EAST),
    SetDealer(3),
    SetRules((RuleChange("patterns.pao", "=", "10"), RuleChange("bixiahu.triggers", "+", '["draw"]')), '{"name": "x"}'),
)


def test_the_stored_kinds_are_exactly_the_engines_events() -> None:
    assert set(EVENT_KINDS.values()) == set(get_args(Event))
    assert {type(event) for event in EVERY_EVENT} == set(get_args(Event))


@pytest.mark.parametrize("event", EVERY_EVENT, ids=lambda e: type(e).__name__)
def test_every_event_reads_back_as_written(event: Event) -> None:
    assert decode_event(event_kind(event), encode_event(event)) == event
    assert decode_fix(encode_fix(Fix(event))) == Fix(event)


def test_a_pong_that_ended_the_hand_keeps_its_flowers() -> None:
    # the 三嘴 forced end's flower count is part of the pong: a re-fold after any correction reads it
    assert decode_event("pong", encode_event(Pong(1, 2, NINE_P, hard_flowers=1))).hard_flowers == 1


def test_seat_and_stake_changes_read_back() -> None:
    change = SeatChange(2, "李四", "42", "lisi")
    assert decode_seat(encode_seat(change)) == change
    assert decode_stake(encode_stake(StakeChange(250, 5))) == StakeChange(250, 5)


def test_older_rows_still_read() -> None:
    # a win stored with the figures it once carried; a pong and a seat change from before their newer fields
    old_win = {"claims": [{"winner": 0, "flags": {"hard_flowers": 2}}], "discarder": 1, "results": [], "doubled": False}
    assert decode_event("win", json.dumps(old_win)) == Win((WinInput(0, WinFlags(hard_flowers=2)),), 1)
    assert decode_event("pong", json.dumps({"actor": 1, "feeder": 2})) == Pong(1, 2)
    assert decode_seat(json.dumps({"seat": 1})) == SeatChange(1)


@pytest.mark.parametrize(
    ("kind", "payload"),
    [
        ("pong", {"actor": "1", "feeder": 2}),  # a seat must be a number
        ("pong", {"feeder": 2}),  # the actor is required
        ("win", {"claims": {"winner": 0}, "discarder": None}),  # claims are a list
        ("dealer", {"seat": True}),  # a bool is not a seat
        ("no_such_kind", {}),
    ],
)
def test_a_payload_of_the_wrong_shape_is_refused(kind: str, payload: dict[str, object]) -> None:
    with pytest.raises(EngineError):
        decode_event(kind, json.dumps(payload))
