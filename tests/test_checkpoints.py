"""A restart folds from the newest valid checkpoint: the state it reaches is the full replay's.

Checkpoints are written at each closed hand (the hand-ending event's transaction); an undo or fix of
an event a checkpoint covers makes it invalid, and the restart folds from an older one (or the start).
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.checkpoint import CheckpointMismatch, decode_state, encode_state, version
from bot.ledger import Ledger
from bot.night import Night
from bot.service import Referee
from engine.hand import MeldKind
from engine.preset import load_preset
from engine.settlement import Payment
from engine.table import Act, MeldRecord, TableState, new_table
from tests.harness import Table
from tests.test_ledger_guarantees import event_line

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


def test_a_checkpoint_of_another_shape_is_refused_not_guessed() -> None:
    preset = load_preset("nanjing")
    text = encode_state(new_table(preset)).replace('"flower_gangs"', '"flowers"')
    try:
        decode_state(text, preset)
    except CheckpointMismatch:
        return
    raise AssertionError("a checkpoint with an unknown field was accepted")


async def _fresh(ledger: Ledger) -> tuple[Night, Night]:
    """The chat's night as a restart loads it (from its checkpoint) and as a full replay does."""
    referee = Referee(ledger, charts_enabled=False)
    restarted = await referee.nights.latest("chat")
    assert restarted is not None
    replay = Night(ledger, restarted.row, await ledger.events(restarted.id), await ledger.payments(restarted.id))
    return restarted, replay


async def _night_with_corrections(lines: list[str], corrections: list[tuple[bool, int]], preset: str) -> None:
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
            assert restarted.state == replay.state
            assert restarted.seat_totals() == replay.seat_totals()
            saved = await ledger.checkpoint(restarted.id, version(restarted.row.preset_json))
            if saved is not None:  # it was used: the restart folded only the events after it
                assert restarted._from == saved[0]
                assert all(p.slot > saved[0] for p in restarted._fold.played)
            assert restarted.fold == replay.fold  # the whole fold, when asked for, is the replay's
        finally:
            await ledger.close()


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(event_line(), min_size=1, max_size=16),
    st.lists(st.tuples(st.booleans(), st.integers(2, 18)), max_size=3),
    st.sampled_from(PRESETS),
)
def test_the_checkpointed_state_equals_a_full_replay(
    lines: list[str], corrections: list[tuple[bool, int]], preset: str
) -> None:
    asyncio.run(_night_with_corrections(lines, corrections, preset))


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
            assert await ledger.checkpoint(night.id, night.version) == (5, encode_state(night.state))
            await table.say("Carol: /undo 2")  # reaches into both checkpoints
            assert await ledger.checkpoint(night.id, night.version) is None
            restarted, replay = await _fresh(ledger)
            assert restarted.state == replay.state and restarted.state.hand_no == 3
        finally:
            await ledger.close()


def test_an_undo_of_a_covered_event_invalidates_the_checkpoints_after_it() -> None:
    asyncio.run(_undo_before_checkpoint())
