"""Properties that must hold for every legal winning hand, whatever the preset."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.decompose import waiting_tiles
from engine.hand import Hand
from engine.notation import format_hand, parse_hand
from engine.preset import PRESET_NAMES, load_preset
from engine.scoring import score_hand
from engine.settlement import HandContext, WinClaim, win_payments
from engine.tiles import COPIES, format_tiles
from engine.units import WinFlags
from tests.strategies import winning_hands

PRESETS = {name: load_preset(name) for name in PRESET_NAMES}
flags = st.builds(
    WinFlags,
    hard_flowers=st.integers(0, 8),
    self_draw=st.booleans(),
    after_gang=st.booleans(),
    after_flower=st.booleans(),
    last_stacks=st.booleans(),
)


def shuffled_notation(hand: Hand, rng: random.Random) -> str:
    tiles = list(hand.concealed)
    rng.shuffle(tiles)
    parts = [format_tiles((t,)) for t in tiles] + [m.notation() for m in hand.melds]
    rng.shuffle(parts)
    separator = rng.choice(["", " ", "  "])
    return separator.join(parts) + separator + "+" + format_tiles((hand.winning,))


@settings(max_examples=150, deadline=None)
@given(winning_hands, flags, st.sampled_from(PRESET_NAMES), st.randoms(use_true_random=False))
def test_tile_order_and_spacing_do_not_change_the_result(
    hand: Hand, win_flags: WinFlags, preset: str, rng: random.Random
) -> None:
    again = parse_hand(shuffled_notation(hand, rng))
    assert score_hand(again, win_flags, PRESETS[preset]) == score_hand(hand, win_flags, PRESETS[preset])


@settings(max_examples=200, deadline=None)
@given(winning_hands)
def test_format_then_parse_gives_the_same_hand(hand: Hand) -> None:
    assert parse_hand(format_hand(hand)) == hand


@settings(max_examples=200, deadline=None)
@given(winning_hands)
def test_no_hand_uses_a_tile_five_times(hand: Hand) -> None:
    hand.validate()
    assert max(hand.tile_counts().values()) <= COPIES


@settings(max_examples=150, deadline=None)
@given(winning_hands, flags, st.sampled_from(PRESET_NAMES))
def test_every_generated_hand_is_a_winning_shape(hand: Hand, win_flags: WinFlags, preset: str) -> None:
    assert score_hand(hand, win_flags, PRESETS[preset]).reason != "win.not_a_winning_shape"


@settings(max_examples=100, deadline=None)
@given(winning_hands)
def test_removing_any_tile_leaves_a_hand_that_waits_on_it(hand: Hand) -> None:
    closed = list(hand.closed_tiles)
    meld_tiles = [m.tile for m in hand.melds for _ in range(m.size)]
    for tile in set(closed):
        rest = list(closed)
        rest.remove(tile)
        assert tile in waiting_tiles(rest, meld_tiles, len(hand.melds))


@settings(max_examples=150, deadline=None)
@given(
    winning_hands,
    flags,
    st.sampled_from(PRESET_NAMES),
    st.integers(0, 3),
    st.one_of(st.none(), st.integers(0, 3)),
    st.booleans(),
    st.integers(0, 4),
)
def test_every_settlement_sums_to_zero(
    hand: Hand, win_flags: WinFlags, preset: str, winner: int, liable: int | None, doubled: bool, streak: int
) -> None:
    result = score_hand(hand, win_flags, PRESETS[preset])
    discarder = None if win_flags.self_draw else (winner + 1) % 4
    if liable == winner:
        liable = None
    chips = (95, 40, 3, 0) if PRESETS[preset].chips.enabled else None
    claim = WinClaim(winner, result, win_flags.self_draw, after_gang=win_flags.after_gang, liable=liable)
    payments = win_payments([claim], discarder, PRESETS[preset], HandContext(doubled, streak, chips))
    balance = [0, 0, 0, 0]
    for payment in payments:
        assert payment.amount > 0 and payment.payer != payment.payee
        balance[payment.payer] -= payment.amount
        balance[payment.payee] += payment.amount
    assert sum(balance) == 0
    if chips is not None:
        assert all(-balance[s] <= chips[s] for s in range(4))
