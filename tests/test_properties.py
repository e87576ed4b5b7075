"""Properties that must hold for every legal winning hand, whatever the preset.

The hands come from tests/kit/strategies.py (0-4 melds, sole and near-sole waits, 压绝 shapes, seven
pairs); hard flowers run 0-20. Where a property needs a second opinion it is computed here, apart
from the engine: the waits of a hand by brute force, what each payer owes from docs/rules.md §8-§9.
"""

from __future__ import annotations

import asyncio
import csv
import io
import os
import random
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

from hypothesis import assume, event, example, given, settings
from hypothesis import strategies as st

from bot.chat.service import Referee
from bot.night.fold import table_event
from bot.store.ledger import Ledger
from bot.store.rows import EventRow
from bot.text.replies import Reply, Response, render
from bot.views.charts import end_points, night_lines
from engine.claims import ClaimRefused
from engine.decompose import waiting_tiles
from engine.errors import EngineError
from engine.events import Win, WinInput
from engine.hand import Hand, MeldKind
from engine.notation import format_hand, parse_hand
from engine.preset import PRESET_NAMES, Preset, load_preset
from engine.reference import reference_score_hand
from engine.scoring import score_hand
from engine.settlement import HandContext, WinClaim, win_payments
from engine.table import TableState, WinRefused, apply, new_table
from engine.tiles import COPIES, FIRST_WIND, NUM_KINDS, SUIT_SIZE, Tile, format_tiles, suit_of
from engine.units import WinFlags
from locales import Translator
from tests.kit.harness import Table
from tests.kit.strategies import (
    Operation,
    another_version,
    night_openings,
    night_operations,
    sole_wait_hands,
    winning_hands,
)

PRESETS = {name: load_preset(name) for name in PRESET_NAMES}
# bench/mutation.py runs this file once per mutant and asks for fewer examples (PROPERTY_SCALE=0.25).
SCALE = float(os.environ.get("PROPERTY_SCALE", "1"))


def examples(count: int) -> int:
    return max(10, int(count * SCALE))


NANJING_FAMILY = ("nanjing", "nanjing-6", "nanjing-20", "chengbei")
WAIT_FLOWERS = {"kanzhang", "bianzhi", "dudiao"}
hard_flowers = st.integers(0, 20)  # RULES §1: there are 20 hard flowers
flags = st.builds(
    WinFlags,
    hard_flowers=hard_flowers,
    self_draw=st.booleans(),
    after_gang=st.booleans(),
    after_flower=st.booleans(),
    last_stacks=st.booleans(),
)
EXAMPLES = settings(max_examples=examples(150), deadline=None)


def shuffled_notation(hand: Hand, rng: random.Random) -> str:
    tiles = list(hand.concealed)
    rng.shuffle(tiles)
    parts = [format_tiles((t,)) for t in tiles] + [m.notation() for m in hand.melds]
    rng.shuffle(parts)
    separator = rng.choice(["", " ", "  "])
    return separator.join(parts) + separator + "+" + format_tiles((hand.winning,))


# ---- an independent reading of waits (brute force over count vectors) --------------------------


def _sets_and_pair(counts: list[int], pair_left: bool) -> bool:
    index = next((i for i, c in enumerate(counts) if c), None)
    if index is None:
        return not pair_left
    if counts[index] >= 3:
        counts[index] -= 3
        ok = _sets_and_pair(counts, pair_left)
        counts[index] += 3
        if ok:
            return True
    if pair_left and counts[index] >= 2:
        counts[index] -= 2
        ok = _sets_and_pair(counts, False)
        counts[index] += 2
        if ok:
            return True
    if index < FIRST_WIND and index % SUIT_SIZE <= SUIT_SIZE - 3 and counts[index + 1] and counts[index + 2]:
        for step in range(3):
            counts[index + step] -= 1
        ok = _sets_and_pair(counts, pair_left)
        for step in range(3):
            counts[index + step] += 1
        return ok
    return False


def brute_force_waits(hand: Hand) -> set[Tile]:
    """Every tile kind that completes the 13 tiles before the win (not one the player holds 4 of)."""
    before = list(hand.concealed)
    held = Counter(before) + Counter(m.tile for m in hand.melds for _ in range(m.size))
    waits = set()
    for tile in range(NUM_KINDS):
        if held[tile] >= COPIES:
            continue
        counts = [0] * NUM_KINDS
        for t in [*before, tile]:
            counts[t] += 1
        seven = not hand.melds and all(c in (0, 2, 4) for c in counts)
        if seven or _sets_and_pair(counts, True):
            waits.add(tile)
    return waits


# ---- parsing ------------------------------------------------------------------------------------


@EXAMPLES
@given(winning_hands, flags, st.sampled_from(PRESET_NAMES), st.randoms(use_true_random=False))
def test_tile_order_and_spacing_do_not_change_the_result(
    hand: Hand, win_flags: WinFlags, preset: str, rng: random.Random
) -> None:
    again = parse_hand(shuffled_notation(hand, rng))
    assert score_hand(again, win_flags, PRESETS[preset]) == score_hand(hand, win_flags, PRESETS[preset])


@settings(max_examples=examples(200), deadline=None)
@given(winning_hands)
def test_format_then_parse_gives_the_same_hand(hand: Hand) -> None:
    assert parse_hand(format_hand(hand)) == hand


@settings(max_examples=examples(100), deadline=None)
@given(winning_hands, st.data())
def test_a_fifth_copy_of_a_tile_is_bad_input(hand: Hand, data: st.DataObject) -> None:
    # Swap one concealed tile for a tile the hand already holds four of: still 14 tiles, one kind 5 times.
    counts = hand.tile_counts()
    full = sorted(t for t, c in counts.items() if c == COPIES)
    assume(full and hand.concealed)
    extra = data.draw(st.sampled_from(full))
    dropped = data.draw(st.sampled_from([t for t in hand.concealed if t != extra] or [None]))
    assume(dropped is not None)
    concealed = list(hand.concealed)
    concealed.remove(dropped)
    bad = Hand(tuple(sorted([*concealed, extra])), hand.melds, hand.winning)
    try:
        bad.validate()
    except EngineError as error:
        assert error.key == "hand.too_many_copies"
    else:
        raise AssertionError(f"{format_hand(bad)} was accepted")


# ---- shapes and waits ---------------------------------------------------------------------------


@EXAMPLES
@given(winning_hands, flags, st.sampled_from(PRESET_NAMES))
def test_every_generated_hand_is_a_winning_shape(hand: Hand, win_flags: WinFlags, preset: str) -> None:
    assert score_hand(hand, win_flags, PRESETS[preset]).reason != "win.not_a_winning_shape"


@settings(max_examples=examples(100), deadline=None)
@given(winning_hands)
def test_the_engines_waits_are_the_brute_force_waits(hand: Hand) -> None:
    meld_tiles = [m.tile for m in hand.melds for _ in range(m.size)]
    assert waiting_tiles(hand.concealed, meld_tiles, len(hand.melds)) == brute_force_waits(hand)
    assert hand.winning in brute_force_waits(hand)


@settings(max_examples=examples(300), deadline=None)
@given(winning_hands, hard_flowers, st.sampled_from(PRESET_NAMES))
def test_a_wait_flower_or_yajue_only_on_a_sole_wait(hand: Hand, hard: int, preset: str) -> None:
    """RULES §6: wait flowers and 压绝 need the 13 tiles to wait on exactly one tile kind."""
    keys = score_hand(hand, WinFlags(hard_flowers=hard), PRESETS[preset]).keys
    if keys & (WAIT_FLOWERS | {"yajue"}):
        assert brute_force_waits(hand) == {hand.winning}


@settings(max_examples=examples(200), deadline=None)
@given(sole_wait_hands(), st.integers(4, 20), st.sampled_from(NANJING_FAMILY))
def test_a_sole_wait_earns_its_flower_or_yajue(hand: Hand, hard: int, preset: str) -> None:
    """RULES §6: one wait flower on a sole wait; 压绝 in its place when the winner ponged the tile."""
    keys = score_hand(hand, WinFlags(hard_flowers=hard), PRESETS[preset]).keys
    ponged = any(m.kind is MeldKind.PONG and m.tile == hand.winning for m in hand.melds)
    suit = suit_of(hand.winning)
    pair_wait = sum(1 for t in hand.concealed if suit_of(t) == suit) == 1
    if ponged:
        assert "yajue" in keys and not keys & WAIT_FLOWERS
    elif "duiduihu" in keys or "quanqiu" in keys:
        assert not keys & WAIT_FLOWERS  # the single wait is the pattern itself
    else:
        assert len(keys & WAIT_FLOWERS) == 1 and ("dudiao" in keys) == pair_wait


@EXAMPLES
@given(winning_hands, hard_flowers, st.sampled_from((*NANJING_FAMILY, "app")))
def test_quanqiu_exactly_when_all_four_sets_are_melded(hand: Hand, hard: int, preset: str) -> None:
    result = score_hand(hand, WinFlags(hard_flowers=hard), PRESETS[preset])
    if preset != "app":  # app keeps the highest pattern only: 金钩钓 may be outranked
        assert ("quanqiu" in result.keys) == (len(hand.melds) == 4)
    elif len(hand.melds) < 4:
        assert "quanqiu" not in result.keys


# ---- totals -------------------------------------------------------------------------------------


@settings(max_examples=examples(200), deadline=None)
@given(winning_hands, flags, st.sampled_from(PRESET_NAMES))
def test_one_more_hard_flower_adds_exactly_its_value(hand: Hand, win_flags: WinFlags, preset: str) -> None:
    """RULES §6-§7: above the limit, a hard flower adds 砸 × its value (chengbei 兜底翻: ×2 more)."""
    assume(4 <= win_flags.hard_flowers < 20)
    rules = PRESETS[preset]
    before = score_hand(hand, win_flags, rules)
    more = WinFlags(**{**win_flags.__dict__, "hard_flowers": win_flags.hard_flowers + 1})
    after = score_hand(hand, more, rules)
    doubled = 2 if any(rules.rules[i.key].doubles_total for i in before.items) else 1
    assert after.total - before.total == rules.zha * rules.soft["hard"].value * doubled


@EXAMPLES
@given(winning_hands, flags, st.sampled_from(PRESET_NAMES))
def test_the_items_add_up_and_exclusions_hold(hand: Hand, win_flags: WinFlags, preset: str) -> None:
    rules = PRESETS[preset]
    result = score_hand(hand, win_flags, rules)
    keys = result.keys
    if not any(rules.rules[key].doubles_total for key in keys):
        assert sum(item.flowers for item in result.items) == result.total
    assert len(keys & WAIT_FLOWERS) <= 1
    seven_pairs = {"qidui", "haohua_qidui", "chaohaohua_qidui", "chaochaohaohua_qidui", "shuang_qidui"}
    assert len(keys & seven_pairs) <= 1
    if keys & seven_pairs:
        assert not keys & (WAIT_FLOWERS | {"menqing", "duiduihu"})
    if rules.patterns_mode == "highest":
        assert len([k for k in keys if k in rules.patterns]) <= 1
    if "hunyise" in keys or "qingyise" in keys:
        assert "que_yi" not in keys or rules.soft["que_yi"].suit_counts != frozenset({2})


@EXAMPLES
@given(winning_hands, hard_flowers, st.sampled_from(NANJING_FAMILY))
def test_the_small_win_limit(hand: Hand, hard: int, preset: str) -> None:
    """RULES §5: valid exactly when 门清 (no pong, no added gang), a 大胡, or 4+ hard flowers."""
    rules = PRESETS[preset]
    result = score_hand(hand, WinFlags(hard_flowers=hard), rules)
    menqing = not any(m.kind in (MeldKind.PONG, MeldKind.ADDED_GANG) for m in hand.melds)
    big = any(rules.patterns[key].big for key in result.keys if key in rules.patterns)
    assert result.valid == (menqing or big or hard >= 4)
    assert ("menqing" in result.keys) == (
        menqing
        and not result.keys & {"qidui", "haohua_qidui", "shuang_qidui", "chaohaohua_qidui", "chaochaohaohua_qidui"}
    )


# ---- settlement: what each payer owes, recomputed from docs/rules.md §7-§9 ---------------------------


def expected_share(total: int, preset: Preset, doubled: bool, streak: int, self_draw: bool, after_gang: bool) -> int:
    flowers = total + (10 * streak if doubled and preset.leibaota_step else 0)  # 垒宝塔 (total + 10N) × 2
    if preset.chips.enabled:  # chips = flowers ÷ 2, rounded half up
        flowers = (flowers + 1) // 2
    factor = 2 if doubled or preset.every_hand_doubled else 1  # 比下胡; 敞开头 doubles every hand (§12)
    multiplier = 1
    if preset.name == "app":  # 自摸 ×2, 杠上开花 ×2
        multiplier = (2 if self_draw else 1) * (2 if after_gang else 1)
    return flowers * factor * multiplier


@EXAMPLES
@given(
    winning_hands,
    flags,
    st.sampled_from(PRESET_NAMES),
    st.integers(0, 3),
    st.one_of(st.none(), st.integers(1, 3)),
    st.booleans(),
    st.integers(0, 4),
)
def test_each_payer_owes_what_the_rules_say(
    hand: Hand, win_flags: WinFlags, preset: str, winner: int, liable_step: int | None, doubled: bool, streak: int
) -> None:
    rules = PRESETS[preset]
    result = score_hand(hand, win_flags, rules)
    assume(result.valid and not result.takes_all and not result.flat)
    doubled = doubled and bool(rules.triggers)  # app has no 比下胡 hand
    discarder = None if win_flags.self_draw else (winner + 1) % 4
    liable = None if liable_step is None else (winner + liable_step) % 4
    claim = WinClaim(winner, result, win_flags.self_draw, after_gang=win_flags.after_gang, liable=liable)
    paid: Counter[int] = Counter()
    for payment in win_payments([claim], discarder, rules, HandContext(doubled, streak, None)):
        assert payment.payee == winner and payment.amount > 0
        paid[payment.payer] += payment.amount
    share = expected_share(result.total, rules, doubled, streak, win_flags.self_draw, win_flags.after_gang)
    if liable is not None and rules.liability.mode == "fixed":
        assert paid == {liable: rules.liability.fixed * (2 if doubled else 1)}  # 外包 50, 100 in 比下胡
    elif liable is not None:
        assert paid == {liable: share * (3 if win_flags.self_draw else 1)}
    elif win_flags.self_draw:
        assert paid == {seat: share for seat in range(4) if seat != winner}
    else:
        assert paid == {discarder: share}


@EXAMPLES
@given(winning_hands, st.integers(4, 20), st.integers(0, 3), st.lists(st.integers(0, 95), min_size=4, max_size=4))
def test_chips_a_player_pays_only_what_he_has(hand: Hand, hard: int, winner: int, chips: list[int]) -> None:
    rules = PRESETS["jinyuanzi"]
    result = score_hand(hand, WinFlags(hard_flowers=hard, self_draw=True), rules)
    assume(result.valid and not result.takes_all)
    claim = WinClaim(winner, result, True)
    share = (result.total + 1) // 2
    paid: Counter[int] = Counter()
    for payment in win_payments([claim], None, rules, HandContext(False, 0, tuple(chips))):
        paid[payment.payer] += payment.amount
    assert paid == {seat: min(share, chips[seat]) for seat in range(4) if seat != winner and chips[seat] > 0}


# ---- the optimized scorer against the straightforward one ---------------------------------------


@settings(max_examples=examples(200), deadline=None)
@given(winning_hands, flags, st.sampled_from(PRESET_NAMES))
def test_the_fast_scorer_agrees_with_the_reference_scorer(hand: Hand, win_flags: WinFlags, preset: str) -> None:
    assert score_hand(hand, win_flags, PRESETS[preset]) == reference_score_hand(hand, win_flags, PRESETS[preset])


# ---- claims: every flag, impossible ones refused (RULES §5) --------------------------------------

every_flag = st.builds(
    WinFlags,
    hard_flowers=hard_flowers,
    after_gang=st.sampled_from([False, False, False, True]),
    after_flower=st.booleans(),
    last_stacks=st.booleans(),
    heavenly=st.booleans(),
    earthly=st.booleans(),
    robbing_gang=st.sampled_from([False, False, False, True]),  # rarer: it alone refuses at a fresh table
)


def impossible_at_a_fresh_table(flags: WinFlags, winner: int, self_draw: bool, melds: int) -> bool:
    """RULES §5 at a table where nothing has happened yet in the hand (A, seat 0, deals)."""
    dealer = winner == 0
    return (
        flags.robbing_gang  # nobody holds a pong to rob (and never on a self-draw)
        or flags.after_gang  # the winner's last event is no gang
        or (flags.after_flower and (not self_draw or flags.hard_flowers < 1))
        or (flags.heavenly and not (dealer and self_draw and melds == 0))
        or (flags.earthly and (dealer or melds > 0))
        or (flags.last_stacks and not self_draw)
    )


@settings(max_examples=examples(300), deadline=None)
@given(winning_hands, every_flag, st.sampled_from(PRESET_NAMES), st.integers(0, 3), st.integers(0, 3))
def test_impossible_claims_are_refused_and_possible_ones_are_not(
    hand: Hand, win_flags: WinFlags, preset: str, winner: int, discarder: int
) -> None:
    self_draw = discarder == winner
    win_flags = WinFlags(**{**win_flags.__dict__, "self_draw": self_draw})
    claim = WinInput(winner, win_flags, hand.concealed, hand.melds, hand.winning)
    try:
        apply(new_table(PRESETS[preset]), Win((claim,), None if self_draw else discarder))
        refused = False
    except ClaimRefused:
        refused = True
    except WinRefused:  # below the 小胡 limit: the claims themselves were fine
        refused = False
    assert refused == impossible_at_a_fresh_table(win_flags, winner, self_draw, len(hand.melds))


# ---- a night with corrections equals a fresh replay of its corrected log (issue 21) ---------------

# Refusals about the night's condition, not about the corrected log: a closed night, a free seat.
NOT_ABOUT_THE_LOG = frozenset({"night.none_open", "night.seats_free"})
# Lines whose place is never taken back here: later lines name the table as it then was (who sits
# where, under which name, whether the night is open).
KEPT = ("/swap", "/rename", "/join", "/unseat", "/close", "/reopen")
SEATING = ("/swap", "/rename", "/join", "/unseat")  # lines after which the table names others
# PROPERTY_NIGHTS=2000 runs many more nights locally; CI keeps the default (about 5 s).
NIGHTS = int(os.environ.get("PROPERTY_NIGHTS", "0")) or examples(30)


NEXT_HAND = " ⏭"  # the model's mark on a rules change recorded from the next hand (not typed)
ALSO = " also"  # a winner's line that says it shares the last win's discard (一炮多响)
QUESTIONS = ("repeat.ask", "hu.same_discard")  # held until answered: /again, /again next
# a win right after a win by the same winner (docs/rules.md 16d): in a replay, a line of the log is a
# new hand's win (a line typed between in play, refused, left no trace in the log)
RETYPED = "hu.retyped"


async def _replays(referee: Referee, chat: str, opening: Sequence[str], lines: list[str]) -> tuple[Table, bool]:
    """A fresh night of `lines`; whether every one of them is recorded. A line asked about is
    answered as the log has it: a repeat in its hand happened twice (`/again`); a win asked whether
    it shares the last win's discard did not (`/again next`: a log line on the same discard says
    `also`); a win asked whether it retypes the one before is the next hand's. A rules change
    recorded from the next hand (`NEXT_HAND`) counts from the hand after the one it sits in, as the
    table agreed, whatever the corrected log left of that hand before it (docs/rules.md 20): typed
    where that hand has not begun, it waits for the next one."""
    table = Table(referee, chat)
    for line in opening:
        await table.say(line)
    waiting: tuple[str, int] | None = None  # a change and the hand it waits past
    for line in lines:
        if line.endswith(NEXT_HAND):
            line = line.removesuffix(NEXT_HAND)
            state = await _table_state(table)
            if not state.begun:
                waiting = (line, state.hand_no)
                continue
        if not await _answered(table, line):
            return table, False
        if waiting is not None and (await _table_state(table)).hand_no > waiting[1]:
            if not await _answered(table, waiting[0]):
                return table, False
            waiting = None
    return table, waiting is None or await _answered(table, waiting[0])


async def _answered(table: Table, line: str) -> bool:
    """`line` typed, and a question about it answered as `_replays` says: whether it is recorded."""
    response = await table.respond(line)
    if response is not None and not response.recorded and response.replies[0].key in (*QUESTIONS, RETYPED):
        answer = " next" if response.replies[0].key in ("hu.same_discard", RETYPED) else ""
        response = await table.respond(f"{line.split(': ', 1)[0]}: /again{answer}")
    return response is not None and response.recorded


async def _table_state(table: Table) -> TableState:
    night = await table.referee.nights.latest(table.chat_id)
    assert night is not None
    return night.state


def _rendered(response: Response | None) -> str:
    assert response is not None
    translator = Translator(response.language)
    return "\n".join(render(reply, translator) for reply in response.replies)


async def _summary_figures(table: Table) -> tuple[str, dict[str, tuple[int, Decimal]]]:
    """/summary as the chat reads it, and each person's (flowers, money) from its ranking."""
    response = await table.respond("A: /summary")
    assert response is not None and response.replies[0].key == "summary.header", _rendered(response)
    ranks = [reply.params for reply in response.replies if reply.key == "summary.rank"]
    return _rendered(response), {str(r["name"]): (int(r["amount"]), Decimal(str(r["money"]))) for r in ranks}


async def _csv_figures(table: Table) -> dict[str, tuple[int, Decimal]]:
    """Each person's (flowers, money) from /export: received minus paid over the payment rows."""
    response = await table.respond("A: /export")
    assert response is not None and len(response.attachments) == 1
    totals: dict[str, tuple[int, Decimal]] = {}
    for row in csv.DictReader(io.StringIO(response.attachments[0].data.decode("utf-8-sig"))):
        if not row["payer"]:
            continue  # an event that moved no money
        for name, sign in ((row["payer"], -1), (row["payee"], 1)):
            amount, money = totals.get(name, (0, Decimal(0)))
            totals[name] = (amount + sign * int(row["amount"]), money + sign * Decimal(row["money"]))
    return totals


async def _same_money_everywhere(table: Table) -> str:
    """/summary, the CSV and the chart's end points give every person the same figures; returns the
    summary's text."""
    text, summary = await _summary_figures(table)
    night = await table.referee.nights.latest(table.chat_id)
    assert night is not None
    start = night.preset.start  # /summary ranks points from the start (敞开头: 1000 each)
    summary = {name: (amount - start, money) for name, (amount, money) in summary.items()}
    by_csv = await _csv_figures(table)
    nothing = (0, Decimal(0))  # who left at 0 has no /summary row; who never paid, no CSV rows
    for name in by_csv.keys() | summary.keys():
        assert by_csv.get(name, nothing) == summary.get(name, nothing), (name, by_csv, summary)
    ends = end_points(night_lines(night, await night.tally()))
    assert {name: amount for name, amount in ends.items() if amount} == {
        name: amount for name, (amount, _) in summary.items() if amount
    }
    return text


async def _summary_and_chart(table: Table) -> tuple[str, list[tuple[str, list[int], list[int | None]]]]:
    """/summary as the chat reads it and the lines its chart draws."""
    text = await table.say("A: /summary")
    night = await table.referee.nights.latest(table.chat_id, history=False)
    assert night is not None
    tally = await night.tally()
    await night.load_history()
    assert tally == night.whole_tally().tally()  # the running tally, kept event by event, is the whole night's
    return text, night_lines(night, tally)


async def _corrected_night(opening: Sequence[str], ops: list[Operation]) -> tuple[int, int, set[str]]:  # noqa: C901 -- one branch per random operation
    """Play `ops` keeping a model: each place's versions (line, the number of the line that wrote it), newest
    last; a correction names the place by its first event or by its current version (the natural
    `/fix 3` after a fix #3): a fix means the same either way; an undo of the current version takes
    it back, one of the first event takes the whole place back, its fixes too (docs/rules.md 16).
    Then the current versions, replayed on a fresh night, must give the same balances, money,
    transfers, hands, /score, /summary, CSV, chart and restart; and a correction is refused only
    when the corrected log does not replay (or the night is closed, or a seat is free)."""
    with tempfile.TemporaryDirectory() as folder:
        ledger = await Ledger.open(Path(folder) / "l.sqlite3")
        try:
            referee = Referee(ledger, charts_enabled=False)
            table = Table(referee, "night")
            for line in opening:
                await table.say(line)
            places: list[list[tuple[str, int]]] = []  # versions of each place; empty: undone
            firsts: list[int] = []  # each place's first line number (kept when the place is undone)
            joined: dict[int, int] = {}  # a place that shares a discard with an earlier one: its first
            held: dict[str, str] = {}  # the line each kind of question holds (a repeat, the same discard?)
            recorded = refused = 0
            replays = iter(range(10_000))

            def log(changed: list[tuple[str, int]] | None = None, at: int = -1) -> list[str]:
                """The current versions; a claim on a discard another current claim before it won on
                says so (`also`), one whose first claim is undone is a win of its own."""
                versions = [changed if i == at and changed is not None else v for i, v in enumerate(places)]
                lines = []
                for i, v in enumerate(versions):
                    if not v:
                        continue
                    first = joined.get(i)
                    group = [j for j in range(i) if versions[j] and first in (j, joined.get(j))]
                    lines.append(v[-1][0] + (ALSO if first is not None and group else ""))
                return lines

            async def newest() -> tuple[int, EventRow, int | None]:
                """The latest line's number (what a player types: a claim takes none, nor the
                `correction` rows that book a fix's difference at other places), its row, and for a
                claim joined to an earlier win the number of that win's line."""
                night = await referee.nights.latest("night")
                assert night is not None
                number = night.last_number()
                row = night.numbered(number)
                assert row is not None
                claim = table_event(row)
                joins = night.number_of(claim.joins) if isinstance(claim, Win) and claim.joins is not None else None
                return number, row, joins

            for op, value, nudge in ops:
                if op == "line":
                    response = await table.respond(value)
                    if response is None or not response.recorded:
                        if response is not None and response.replies and response.replies[0].key in QUESTIONS:
                            held[response.replies[0].key] = value
                        continue
                    text = value.removesuffix(ALSO)
                    if response.replies[0].key == "house.set_done":  # from the next hand: kept so
                        text += NEXT_HAND
                    event_id, row, joins = await newest()
                    if value.split(": ", 1)[1].startswith("/again"):  # the held line the table answered:
                        # recorded as first typed (a question held for a hand now over is not asked again)
                        said = (await (await table.referee.nights.latest("night")).texts([row]))[row.id]  # type: ignore[union-attr]
                        kind = next(k for k, line in held.items() if line == f"{row.speaker}: {said.raw_text}")
                        text = held.pop(kind)
                    else:  # anything played makes a same-discard question stale
                        held.pop("hu.same_discard", None)
                    # a seat line (/unseat, /join) takes no number: the newest numbered line is another's
                    typed_a_number = not text.split(": ", 1)[1].startswith(KEPT)
                    if joins is not None and typed_a_number:  # on the discard of an earlier win (undone or not)
                        joined[len(places)] = firsts.index(joins)
                    places.append([(text, event_id)])
                    firsts.append(event_id)
                    continue
                live = [i for i, p in enumerate(places) if p and not p[-1][0].split(": ", 1)[1].startswith(KEPT)]
                if not live:
                    continue
                at = live[int(value) % len(live)]
                versions = places[at]
                named = versions[0][1] if nudge % 2 else versions[-1][1]
                if op == "undo":
                    attempt = [] if named == versions[0][1] else versions[:-1]
                    response = await table.respond(f"A: /undo {named}")
                else:
                    changed = another_version(versions[-1][0], nudge)
                    later = [v[-1][0].split(": ", 1)[1] for v in places[at + 1 :] if v]
                    if changed is None or any(text.startswith(SEATING) for text in later):
                        continue  # a fix names who sat at its place (test_a_fix_naming_someone_who_sat_down_later…)
                    attempt = [*versions, (changed, 0)]
                    response = await table.respond(f"A: /fix {named} {changed.split(': ', 1)[1]}")
                if response is not None and response.recorded:
                    event_id, _, _ = await newest()
                    places[at] = attempt if op == "undo" else [*versions, (attempt[-1][0], event_id)]
                    recorded += 1
                    continue
                assert response is not None and response.refused, value
                if response.replies[0].key in NOT_ABOUT_THE_LOG:
                    continue
                refused += 1
                _, holds = await _replays(referee, f"check-{next(replays)}", opening, log(attempt, at))
                assert not holds, f"refused, yet the corrected log replays: {log(attempt, at)}"
            replay, holds = await _replays(referee, "replay", opening, log())
            assert holds, log()
            night, fresh = await table.night(), await replay.night()
            assert {**night, "night": 0} == {**fresh, "night": 0}  # balances, money, transfers, hands
            assert await table.say("A: /score") == await replay.say("A: /score")
            assert await _same_money_everywhere(table) == await _same_money_everywhere(replay)
            restarted = Table(Referee(ledger, charts_enabled=False), "night")
            assert await restarted.balances() == await replay.balances()
            # a restart's /summary and chart, from the running tally the ledger keeps
            assert await _summary_and_chart(restarted) == await _summary_and_chart(table)
            replayed = Table(Referee(ledger, charts_enabled=False), replay.chat_id)
            assert await _summary_and_chart(replayed) == await _summary_and_chart(replay)
            kinds = {line.split(": ", 1)[1].split()[0] for line in log()}
            kinds |= {"also"} if any(line.endswith(ALSO) for line in log()) else set()
            fold = (await referee.nights.latest("night")).whole_fold()  # type: ignore[union-attr]
            if any(p.notices and p.notices[0].key == "table.forced_end" for p in fold.played):
                kinds.add("forced end")
            return recorded, refused, kinds
        finally:
            await ledger.close()


@settings(max_examples=NIGHTS, deadline=None)
@given(night_openings, night_operations)
def test_a_corrected_night_equals_replaying_its_corrected_log(opening: Sequence[str], ops: list[Operation]) -> None:
    recorded, refused, kinds = asyncio.run(_corrected_night(opening, ops))
    event(f"corrections recorded: {min(recorded, 4)}{'+' if recorded >= 4 else ''}")
    event(f"corrections refused: {min(refused, 2)}{'+' if refused >= 2 else ''}")
    event(f"opened with a free seat: {len(opening) > 1}")
    event(f"preset: {'changkaitou' if 'changkaitou' in opening[0] else 'nanjing'}")
    for kind in ("/join", "/unseat", "/close", "/reopen", "/hu", "also", "forced end"):
        event(f"{kind} in the corrected log: {kind in kinds}")
    event(f"a 包牌 run typed: {any(len(group) > 3 for group in _pong_runs(ops))}")


def _pong_runs(ops: list[Operation]) -> list[list[str]]:
    """Runs of consecutive pongs with a tile by one player from one feeder (the 包牌 runs)."""
    runs: list[list[str]] = []
    for op, value, _ in ops:
        words = value.split()
        if op == "line" and words[1] == "/pong" and len(words) == 4:
            if runs and runs[-1][0].split()[:3] == words[:3]:
                runs[-1].append(value)
                continue
            runs.append([value])
    return runs


# ---- a rules change keeps its hand (#47 item 4, docs/rules.md 20), under random corrections -------

BEGINS = ("A: /pong B", "B: /flowergang", "C: /penalty follow D", "C: /pong D 9p")
PLAYED = (
    *BEGINS,
    "B: /hu C 123m456m789m234p5p+5p flowers=1",
    "D: /hu self 123m456m789m234p5p+5p flowers=4",
    "A: /draw",
)


@st.composite
def changes_and_corrections(draw: st.DrawFn) -> list[Operation]:
    """A hand begun, a rules change (from the next hand), more play, then undos and fixes of any line
    (the line that began the hand among them, often)."""
    before = draw(st.lists(st.sampled_from(PLAYED), max_size=3))
    change = f"A: /rules set {draw(st.sampled_from(['跑=30', '跑=10', '跟牌=6']))}"
    after = draw(st.lists(st.sampled_from(PLAYED), min_size=1, max_size=4))
    lines = [*before, draw(st.sampled_from(BEGINS)), change, *after]
    corrections = draw(
        st.lists(st.tuples(st.sampled_from(("undo", "undo", "fix")), st.integers(0, 9).map(str), st.integers(0, 9)))
    )
    return [*(("line", line, 0) for line in lines), *corrections]


PONG_UNDONE: list[Operation] = [
    ("line", "A: /pong B", 0),
    ("line", "A: /rules set 跑=30", 0),
    ("line", "B: /hu C 123m456m789m234p5p+5p flowers=1", 0),
    ("undo", "0", 1),  # the pong that began the hand
]


@settings(max_examples=examples(40), deadline=None)
@given(changes_and_corrections())
@example(PONG_UNDONE)
def test_a_corrected_night_keeps_each_change_at_its_hand(ops: list[Operation]) -> None:
    """Every corrected night equals its corrected log typed afresh, each change recorded from the next
    hand typed at the start of the hand after the one it sits in (tests/test_rules_keep_hand.py
    works the money of one such night by hand)."""
    asyncio.run(_corrected_night(("A: /new A B C D",), ops))


# ---- regressions the random nights found, pinned ------------------------------------------------


async def test_a_fix_that_makes_a_later_pong_a_second_pong_of_its_tile_is_refused(table: Table) -> None:
    """Found by the random nights: `/fix 3 /pong B E` with A's `/pong B E` already at #4 was
    recorded, and the corrected log (two pongs of E by A) does not replay: typed, #4 is refused."""
    await table.play("A: /new A B C D\nA: /flowergang\nA: /pong B 1m\nA: /pong B E")
    response = await table.respond("A: /fix 3 /pong B E")
    assert response is not None and response.refused and not response.recorded
    assert response.replies[0].key == "fix.breaks_later" and response.replies[0].params["id"] == 4
    reason = response.replies[0].params["reason"]
    assert isinstance(reason, Reply) and reason.key == "event.already_recorded" and reason.params["id"] == 3
    # nothing moved: A's 花杠 alone, 6 from each of the three others (nanjing 花杠 6): A +18
    assert await table.balances() == {"A": 18, "B": -6, "C": -6, "D": -6}


async def test_after_an_undo_the_csv_prices_a_hand_at_the_stake_the_summary_does(table: Table) -> None:
    """Found by the random nights: once the 花杠 before a 改底 is undone, nothing is logged before the
    改底 in hand 1, so it counts from hand 1 (README: "from this one if nothing is logged in it
    yet"), as a fresh replay has it; /summary priced hand 1 at 0.5, the CSV and chart at 1."""
    await table.play(
        "A: /new A B C D\nA: /flowergang\nA: /stake 0.5\nA: /hu self 对对胡 全球独钓 flowers=0\nA: /undo 2"
    )
    # A's win, 跑 20 + 门清 20 + 对对胡 40 + 全球独钓 60 + 无花果 40 = 180 from each of three: 540
    # flowers, at 0.5 a flower 270; each payer -180 flowers, -90
    expected = {"A": (540, Decimal(270)), "B": (-180, Decimal(-90)), "C": (-180, Decimal(-90))}
    expected["D"] = (-180, Decimal(-90))
    assert (await _summary_figures(table))[1] == expected
    assert await _csv_figures(table) == expected


async def test_the_chart_has_a_line_for_a_newcomer_who_has_paid_nothing_yet(table: Table) -> None:
    """Found by the random nights: a fifth person (D after `/swap A D`) with no payment yet made the
    chart's balances one short, and /summary failed on drawing it (IndexError)."""
    await table.play("A: /new A B C\nE: /join\nA: /flowergang\nA: /swap A D\nA: /pong B E")
    night = await table.referee.nights.latest(table.chat_id)
    assert night is not None
    # A's 花杠: 6 from each of B, C, E (A +18); D sat down after it and has moved nothing
    assert end_points(night_lines(night, await night.tally())) == {"A": 18, "B": -6, "C": -6, "E": -6, "D": 0}


# found by the random nights: a free seat was listed as a player with an empty name (`东 ：0 花`, `庄 `)
async def test_a_free_seat_is_not_a_person_in_the_summary(table: Table) -> None:
    # B's self-drawn 门清 win: 跑 20 + 硬花 2×4 = 8 + 缺一门 2 + 门清 20 = 50 from each of three: B +150
    await table.play("A: /new A B C D\nB: /hu self 123m456m789m234p5p+5p flowers=4\nA: /unseat B")
    response = await table.respond("A: /summary")
    assert response is not None
    ranks = {str(r.params["name"]): r.params["amount"] for r in response.replies if r.key == "summary.rank"}
    assert ranks == {"B": 150, "A": -50, "C": -50, "D": -50}  # B keeps what he won; no row for the seat
    assert all(r.params["name"] for r in response.replies if r.key == "summary.player_stats")


async def test_a_free_seat_reads_as_free_on_the_board(table: Table) -> None:
    await table.play("A: /new A B C\nD: /join\nA: /unseat A")
    board = (await table.say("A: /score")).splitlines()
    assert not [line for line in board if re.match(r"\s*[东南西北] ：", line)]  # `东 ：0 花`: a seat with no name
    assert not re.search(r"庄\s*$", board[0])  # `庄 ` and nothing: the dealer's seat is the free one


async def test_a_fix_naming_someone_who_sat_down_later_is_refused(table: Table) -> None:
    # B's 花杠 at #2: 6 from each of three, B +18. E takes A's seat (East) after it; `/fix 2
    # /flowergang E` names E, who was not at the table at #2: it must be refused, not become the
    # flower gang of whoever sat East then (A: +18, B: -6), which nobody typed
    await table.play("A: /new A B C D\nB: /flowergang\nA: /swap A E")
    response = await table.respond("A: /fix 2 /flowergang E")
    assert response is not None and response.refused and not response.recorded
    assert await table.balances() == {"A": -6, "B": 18, "C": -6, "D": -6, "E": 0}
