"""A restart folds from the newest valid checkpoint: the state it reaches is the full replay's.

Checkpoints are written at each closed hand (the hand-ending event's transaction); an undo or fix of
an event a checkpoint covers makes it invalid, and the restart folds from an older one (or the start).
A checkpoint also carries its head (seats, players, each one's flowers and money, the stake schedule):
a restart's first /score reads only the events after it, and must answer exactly as a full replay.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.chat.service import Referee
from bot.night.checkpoint import (
    STATE_SHAPE,
    CheckpointMismatch,
    Head,
    decode,
    decode_state,
    encode,
    encode_state,
    version,
)
from bot.night.codec import STAKE, StakeChange, encode_stake
from bot.night.night import Night
from bot.store.ledger import Ledger
from bot.store.rows import NewEvent, Seat
from engine.events import Act, MeldRecord
from engine.hand import MeldKind
from engine.preset import load_preset
from engine.settlement import Payment
from engine.table import TableState, new_table
from tests.kit.harness import Table
from tests.kit.random_lines import event_line

PRESETS = ["nanjing", "jinyuanzi", "app", "chengbei"]


def test_every_field_survives_encode_then_decode() -> None:
    preset = load_preset("jinyuanzi")
    state = TableState(
        preset=preset,
        dealer=2,
        hand_no=7,
        dealer_passes=5,
        dealer_streak=1,
        doubled=True,
        melds=((MeldRecord(MeldKind.PONG, 5, 1),), (), (MeldRecord(MeldKind.CONCEALED_GANG, None, None),), ()),
        triggers=frozenset({"draw", "exposed_gang"}),
        hand_gang_payments=(Payment(0, 2, 4, "exposed_gang"),),
        flower_gangs=2,
        last_added_gang=(3, (Payment(1, 3, 2, "added_gang"),)),
        last_acts=(Act("pong", 1), None, Act("concealed_gang"), None),
        chips=(90, 110, 100, 100),
        gang_liable=(0, 3),
        range_marks=(None, 12, None, None),
        waibao_paid=frozenset({1}),
    )
    assert decode_state(encode_state(state), preset) == state


@pytest.mark.parametrize(
    "reshape",
    [
        lambda fields: fields[:-1],  # written by an engine with one field fewer
        lambda fields: [*fields, 0],  # or one more
        lambda fields: ["0", *fields[1:]],  # the dealer written as a name, not a seat
    ],
)
def test_a_checkpoint_of_another_shape_is_refused_not_guessed(reshape: Callable[[list[Any]], list[Any]]) -> None:
    preset = load_preset("nanjing")
    raw = json.loads(encode_state(new_table(preset)))
    raw["state"] = reshape(raw["state"])
    with pytest.raises(CheckpointMismatch):
        decode_state(json.dumps(raw), preset)


def test_a_state_of_another_shape_is_another_version() -> None:
    # the version holds the state's fields and types: a checkpoint an older engine wrote is never read
    assert version("{}") == version("{}")
    assert version("{}").startswith("4:")  # 4: the head counts the numbered lines
    assert "waibao_paid" in STATE_SHAPE and "frozenset[int]" in STATE_SHAPE


def test_a_head_survives_encode_then_decode() -> None:
    preset = load_preset("nanjing")
    head = Head(
        seats=(Seat("A"), Seat("Eve", "42", "eve"), Seat("C"), Seat("D")),
        names=("A", "B", "C", "D", "Eve"),
        now=(0, 4, 2, 3),
        amounts=(138, 6, -52, -46, -46),
        money=(138, 6, -52, -46, -46),
        schedule=((1, 1), (2, 2)),
        closed=False,
    )
    state = new_table(preset)
    assert decode(encode(state, head), preset) == (state, head)


def test_a_head_that_does_not_add_up_is_refused() -> None:
    preset = load_preset("nanjing")
    head = Head((Seat("A"),) * 4, ("A", "B", "C", "D"), (0, 1, 2, 7), (0,) * 4, (0,) * 4, ((1, 1),), False)
    try:
        decode(encode(new_table(preset), head), preset)
    except CheckpointMismatch:
        return
    raise AssertionError("a head seating an unknown player was accepted")


async def _head_only(ledger: Ledger) -> Night:
    """The chat's night as a restart's first /score loads it: the newest checkpoint's head and the
    events after it."""
    night = await Referee(ledger, charts_enabled=False).nights.latest("chat", history=False)
    assert night is not None
    return night


def _same_score(restarted: Night, replay: Night) -> None:
    """Everything /score (and the console's --json) reads is the full replay's."""
    assert restarted.state == replay.state
    assert restarted.seats == replay.seats
    assert restarted.closed == replay.closed
    assert restarted.seat_totals() == replay.seat_totals()
    assert restarted.people() == replay.people()


async def _fresh(ledger: Ledger) -> tuple[Night, Night]:
    """The chat's night as a restart loads it (from its checkpoint) and as a full replay does."""
    referee = Referee(ledger, charts_enabled=False)
    restarted = await referee.nights.latest("chat")
    assert restarted is not None
    replay = Night(ledger, restarted.row, await ledger.events(restarted.id), await ledger.payments(restarted.id))
    return restarted, replay


async def _night_with_corrections(
    lines: list[str], corrections: list[tuple[bool, int]], preset: str, later: Sequence[str] = ()
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        ledger = await Ledger.open(Path(folder) / "l.sqlite3")
        try:
            table = Table(Referee(ledger, charts_enabled=False), "chat")
            await table.say(f"/new Alice Bob Carol Dave preset={preset}")
            for index, line in enumerate(lines):
                await table.say(line)
                for after, event_id in corrections:
                    if after == index % 2 == 0:  # corrections fall between the lines, at random places
                        await table.say(f"Bob: /undo {event_id}")
            restarted, replay = await _fresh(ledger)
            saved = await ledger.tallies.checkpoint(restarted.id, version(restarted.row.preset_json))
            if saved is not None:  # it was used: the restart folded only the events after it
                assert restarted._from == saved[0]
                assert all(p.place > saved[0] for p in restarted._fold.played)
            head_only = await _head_only(ledger)
            _same_score(head_only, replay)
            # a valid checkpoint is used (a 改底 typed later never reaches back into the hands it covers)
            assert head_only.partial == (await ledger.tallies.checkpoint(replay.id, replay.version) is not None)
            await head_only.load_history()
            assert not head_only.partial and head_only.whole_fold() == replay.whole_fold()
            _same_score(head_only, replay)
            assert restarted.state == replay.state
            assert restarted.seat_totals() == replay.seat_totals()
            assert restarted.whole_fold() == replay.whole_fold()  # the whole fold, when asked for, is the replay's
            # after another restart, table events recorded from the head (new checkpoints with them)
            after = Table(Referee(ledger, charts_enabled=False), "chat")
            for line in later:
                await after.say(line)
            _, replay = await _fresh(ledger)
            _same_score(await _head_only(ledger), replay)
            recorded = await after.referee.nights.latest("chat", history=False)
            assert recorded is not None
            _same_score(recorded, replay)
        finally:
            await ledger.close()


@st.composite
def night_line(draw: st.DrawFn) -> str:
    """A table event, or now and then a chore: 换人 (and back: the same name is one player), 改底, 改名."""
    chores = [
        "Alice: /swap Bob Eve",
        "Alice: /swap Eve Bob",
        "Alice: /stake 2",
        "Alice: /stake 3",
        "Alice: /rename Dave Dan",
    ]
    return draw(st.one_of(event_line(), event_line(), event_line(), st.sampled_from(chores).map("Alice: ".__add__)))


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(night_line(), min_size=1, max_size=16),
    st.lists(st.tuples(st.booleans(), st.integers(2, 18)), max_size=3),
    st.sampled_from(PRESETS),
    st.lists(event_line(), max_size=8),
)
def test_the_checkpointed_state_equals_a_full_replay(
    lines: list[str], corrections: list[tuple[bool, int]], preset: str, later: list[str]
) -> None:
    asyncio.run(_night_with_corrections(lines, corrections, preset, later))


async def _undo_before_checkpoint() -> None:
    with tempfile.TemporaryDirectory() as folder:
        ledger = await Ledger.open(Path(folder) / "l.sqlite3")
        try:
            table = Table(Referee(ledger, charts_enabled=False), "chat")
            await table.say("/new Alice Bob Carol Dave")
            await table.say("Alice: /pong Bob")  # event 2, hand 1
            await table.say("Alice: /draw")  # event 3 closes hand 1: checkpoint after 3
            await table.say("Bob: /flowergang")  # event 4, hand 2
            await table.say("Bob: /draw")  # event 5 closes hand 2: checkpoint after 5
            night = await table.referee.nights.latest("chat")
            assert night is not None
            saved = await ledger.tallies.checkpoint(night.id, night.version)
            assert saved is not None and saved[0] == 5
            assert decode(saved[1], night.preset)[0] == night.state
            await table.say("Carol: /undo 2")  # reaches into both checkpoints
            assert await ledger.tallies.checkpoint(night.id, night.version) is None
            restarted, replay = await _fresh(ledger)
            assert restarted.state == replay.state and restarted.state.hand_no == 3
        finally:
            await ledger.close()


def test_an_undo_of_a_covered_event_invalidates_the_checkpoints_after_it() -> None:
    asyncio.run(_undo_before_checkpoint())


HAND = "123m456m789m234p5p+5p"


async def _swap_and_stake_before_the_checkpoint() -> None:
    with tempfile.TemporaryDirectory() as folder:
        ledger = await Ledger.open(Path(folder) / "l.sqlite3")
        try:
            table = Table(Referee(ledger, charts_enabled=False), "chat")
            table.default_speaker = "A"
            await table.play(f"/new A B C D\nB: /gang C 5s\n/stake 2\n/swap B Eve\nA: /hu self {HAND} flowers=2")
            # Hand 1 (stake 1; the 改底 typed mid-hand counts from hand 2): B's exposed gang on C, C → B 6.
            # Eve takes B's seat, B keeps +6. A self-draws 20 + 2×(2+1) + 门清 20 = 46 from each (Eve pays):
            #   A +138 · B +6 · C −6 − 46 = −52 · D −46 · Eve −46 (money the same at stake 1, in cents). The win
            #   closes hand 1: the checkpoint covers all of it.
            before = await table.say("/score")
            head_only = await _head_only(ledger)
            assert head_only.partial  # read from the checkpoint's head, not the whole night
            assert head_only.seat_totals() == ([138, -46, -52, -46], [13800, -4600, -5200, -4600])
            assert {p.name: p.amount for p in head_only.people()} == {"A": 138, "B": 6, "C": -52, "D": -46, "Eve": -46}
            restarted = Table(Referee(ledger, charts_enabled=False), "chat")
            assert await restarted.say("/score") == before  # the first /score after a restart
            # Hand 2 at stake 2 is 比下胡 (A, the dealer, won hand 1): Eve's concealed gang, 3 × 2 = 6 from each:
            #   Eve +18 (money 36.00), the others −6 (−12.00): A 132 · Eve −28 · C −58 · D −52.
            await restarted.say("Eve: /gang self 3m")
            recorded = await restarted.referee.nights.latest("chat", history=False)
            assert recorded is not None and recorded.partial  # recorded without reading the older history
            assert recorded.seat_totals() == ([132, -28, -58, -52], [12600, -1000, -6400, -5800])
            after_restart = await _head_only(ledger)
            assert after_restart.seat_totals() == ([132, -28, -58, -52], [12600, -1000, -6400, -5800])
            # A correction after the restart (undo the gang) takes it back to hand 1's figures.
            await restarted.say("A: /undo")
            head_only, (_, replay) = await _head_only(ledger), await _fresh(ledger)
            assert head_only.partial
            _same_score(head_only, replay)
            assert head_only.seat_totals() == ([138, -46, -52, -46], [13800, -4600, -5200, -4600])
        finally:
            await ledger.close()


def test_a_restart_after_a_swap_and_a_stake_change_scores_from_the_head() -> None:
    asyncio.run(_swap_and_stake_before_the_checkpoint())


async def _stake_change_reaching_back() -> None:
    with tempfile.TemporaryDirectory() as folder:
        ledger = await Ledger.open(Path(folder) / "l.sqlite3")
        try:
            table = Table(Referee(ledger, charts_enabled=False), "chat")
            table.default_speaker = "A"
            await table.play(f"/new A B C D\nB: /gang C 5s\nA: /hu self {HAND} flowers=2")
            # a 改底 that reprices hand 1, which the checkpoint covers (an older ledger's, or one written
            # by hand: /stake itself always starts at the next hand): the head's money no longer holds,
            # so the restart reads the whole night
            night = await table.referee.nights.latest("chat")
            assert night is not None
            stake = NewEvent(2, STAKE, None, encode_stake(StakeChange(200, 1)))
            await ledger.append_rows("chat", night.id, "A", "(by hand)", None, 200, [stake])
            head_only, (_, replay) = await _head_only(ledger), await _fresh(ledger)
            assert not head_only.partial
            _same_score(head_only, replay)
            # a 改底 takes effect where it sits in the log (after hand 1), whatever its payload's hand:
            # C → B 6 and 46 from each stay at 1 per flower
            assert head_only.seat_totals() == ([138, -40, -52, -46], [13800, -4000, -5200, -4600])
        finally:
            await ledger.close()


def test_a_stake_change_reaching_into_the_checkpoint_is_read_from_the_whole_night() -> None:
    asyncio.run(_stake_change_reaching_back())


async def _recorded_from_the_head(lines: list[str], later: list[str], preset: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        ledger = await Ledger.open(Path(folder) / "l.sqlite3")
        try:
            table = Table(Referee(ledger, charts_enabled=False), "chat")
            await table.say(f"/new Alice Bob Carol Dave preset={preset}")
            for line in [*lines, "Alice: /draw"]:  # the draw closes a hand: there is a checkpoint
                await table.say(line)
            after = Table(Referee(ledger, charts_enabled=False), "chat")
            for line in later:
                await after.say(line)
            recorded = await after.referee.nights.latest("chat", history=False)
            _, replay = await _fresh(ledger)
            assert recorded is not None
            _same_score(recorded, replay)
            _same_score(await _head_only(ledger), replay)  # the checkpoints written from the head
            await recorded.load_history()
            assert recorded.whole_fold() == replay.whole_fold() and recorded.booked.amounts == replay.booked.amounts
        finally:
            await ledger.close()


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(night_line(), max_size=10),
    st.lists(event_line().filter(lambda line: "/hu" not in line), min_size=1, max_size=10),
    st.sampled_from(PRESETS),
)
def test_table_events_recorded_from_the_head_equal_a_full_replay(
    lines: list[str], later: list[str], preset: str
) -> None:
    asyncio.run(_recorded_from_the_head(lines, later, preset))


async def _newest_valid_checkpoint() -> None:
    with tempfile.TemporaryDirectory() as folder:
        ledger = await Ledger.open(Path(folder) / "l.sqlite3")
        try:
            table = Table(Referee(ledger, charts_enabled=False), "chat")
            await table.play(
                "/new Alice Bob Carol Dave\n"
                "Alice: /pong Bob\nAlice: /draw\n"  # 2, 3: checkpoint after 3
                "Bob: /flowergang\nBob: /draw\n"  # 4, 5: checkpoint after 5
                "Carol: /pong Dave\nCarol: /draw"  # 6, 7: checkpoint after 7
            )
            night = await table.referee.nights.latest("chat")
            assert night is not None

            async def newest() -> int | None:
                saved = await ledger.tallies.checkpoint(night.id, night.version)
                return saved[0] if saved is not None else None

            assert await newest() == 7
            await table.say("Carol: /undo 4")  # 8 reaches into 5 and 7, not into 3
            assert await newest() == 3
            await table.say("Dave: /draw")  # 9 closes a hand after the correction: it covers it
            assert await newest() == 9
            await table.say("Carol: /undo 2")  # 10 reaches into every checkpoint
            assert await newest() is None
        finally:
            await ledger.close()


def test_the_newest_checkpoint_no_later_correction_reaches_into_is_used() -> None:
    asyncio.run(_newest_valid_checkpoint())
