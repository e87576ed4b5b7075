"""Corrections re-derive the night: /undo N and /fix N of any past event recompute every later hand
(hand numbers, dealer, 连庄, 比下胡, 垒宝塔), and the difference is booked as payments summing to zero.

The hand `123m456m789m234p5p+5p` with 2 hard flowers is, by docs/rules.md: 跑 20 + 硬花 2×2 + 缺一门 2 +
门清 20 = 46 flowers; with 3 hard flowers 48. A 比下胡 hand pays (total + 10 × 连庄) × 2 (垒宝塔).
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from bot.chat.service import Referee
from bot.store.ledger import Ledger
from tests.kit.harness import Table
from tests.kit.messages import changes

HAND = "123m456m789m234p5p+5p"


async def ids(table: Table) -> list[int]:
    night = await table.referee.nights.latest(table.chat_id)
    assert night is not None
    return [e.id for e in night.events]


async def test_fix_three_hands_back_keeps_the_later_doubled_hand(table: Table) -> None:
    table.language = "en"
    await table.play(
        f"""
        /new A B C D
        B: /hu self {HAND} flowers=2
        C: /hu D {HAND} flowers=2
        A: /draw
        """
    )
    # hand 1: B self-draws 46 from each; hand 2: D feeds C 46; hand 3 drawn: hand 4 doubled, C deals again
    assert await table.balances() == {"A": -46, "B": 138, "C": 0, "D": -92}
    out = await table.say(f"B: /fix 2 /hu self {HAND} flowers=3")
    # hand 1 is now 48 from each (×1): A, C, D pay 2 more, B gets 6 more; hand 4 stays doubled
    assert await table.balances() == {"A": -48, "B": 144, "C": -2, "D": -94}
    assert (
        changes(("A", "−2", "−2"), ("B", "+6", "+6"), ("C", "−2", "−2"), ("D", "−2", "−2"), language="en") in out
    )  # at 1 元 a flower: money as the flowers
    assert "Now in hand 4 (doubled ×2)" in out
    out = await table.say(f"D: /hu self {HAND} flowers=2")
    # hand 4: 比下胡 with C's 连庄 1: (46 + 10) × 2 = 112 from each
    assert "(46 + 10×1) × 2 = 112" in out  # the doubled hand, said on the win's factor line (issue #30)
    assert await table.balances() == {"A": -160, "B": 32, "C": -114, "D": 242}


async def test_undo_of_an_earlier_win_then_a_new_win_lands_in_the_open_hand(table: Table) -> None:
    table.default_speaker = "A"
    await table.play(
        f"""
        开局 A B C D
        B: 胡 自摸 {HAND} 花2
        C: 胡 D {HAND} 花2
        A: 荒庄
        """
    )
    out = await table.say("A: 撤销 2")
    # as if #2 never happened: hand 1 D feeds C 46 (A deals; the deal passes to B), hand 2 drawn:
    # hand 3 is doubled and B deals again (连庄 1)
    assert await table.balances() == {"A": 0, "B": 0, "C": 46, "D": -46}
    assert (
        changes(("A", "+46", "+46"), ("B", "−138", "−138"), ("C", "+46", "+46"), ("D", "+46", "+46")) in out
    )  # at 1 元 a flower: money as the flowers
    assert "重新计算了第 1, 2 盘" in out
    assert "现在是第 3 盘（比下胡 ×2）" in out and "/fix" not in out  # no reminder under a correction (#48 item 9)
    out = await table.say(f"B: 胡 自摸 {HAND} 花3")
    # hand 3: (48 + 10 × 1) × 2 = 116 from each; the /fix reminder follows only the night's first hand
    assert "垒宝塔 (48 + 10×1) × 2 = 116" in out and "/fix" not in out
    assert await table.balances() == {"A": -116, "B": 348, "C": -70, "D": -162}


async def test_fixing_the_winner_moves_the_dealer_and_doubles_a_later_hand(table: Table) -> None:
    table.language = "en"
    await table.play(
        f"""
        /new A B C D
        B: /hu self {HAND} flowers=2
        C: /hu D {HAND} flowers=2
        D: /hu A {HAND} flowers=2
        """
    )
    assert await table.balances() == {"A": -92, "B": 138, "C": 0, "D": -46}
    out = await table.say(f"A: /fix 2 /hu A self {HAND} flowers=2")
    # hand 1: A, the dealer, self-draws 46 from each: a dealer win makes hand 2 doubled, A deals again;
    # hand 2: D feeds C (46 + 10 × 1) × 2 = 112; hand 3 (B deals): A feeds D 46
    assert await table.balances() == {"A": 92, "B": -46, "C": 66, "D": -112}
    assert (
        changes(("A", "+184", "+184"), ("B", "−184", "−184"), ("C", "+66", "+66"), ("D", "−66", "−66"), language="en")
        in out
    )  # at 1 元 a flower: money as the flowers
    assert "Re-derived hands: 2" in out
    # the board (/score: a fix that keeps the hand is one quiet reply) follows the corrected dealers
    assert "dealer C" in await table.say("/score")  # D's win in hand 3 no longer came from the dealer's seat order B→C


async def test_a_correction_that_breaks_a_later_event_is_refused(table: Table) -> None:
    table.language = "en"
    await table.play(
        """
        /new A B C D
        B: /pong C
        B: /gang add
        """
    )
    before = await table.balances()
    out = await table.say("A: /undo 2")
    assert "#3" in out and "Nothing was recorded" in out
    assert await table.balances() == before


async def test_fix_must_keep_the_kind(table: Table) -> None:
    table.language = "en"
    await table.play("/new A B C D\nB: /flowergang")
    out = await table.say("B: /fix 2 /pong C")
    assert "#2 is a flower gang" in out
    assert "fix takes an event number" in await table.say("B: /fix two /flowergang")
    assert await table.balances() == {"A": -6, "B": 18, "C": -6, "D": -6}
    await table.say("B: /fix 2 /flowergang C")
    # the flower gang was C's: 6 from each of the others
    assert await table.balances() == {"A": -6, "B": -6, "C": 18, "D": -6}


# ---- property: a correction equals replaying the corrected log -----------------------------------

PLAYERS = ("A", "B", "C", "D")
seats = st.sampled_from(PLAYERS)


@st.composite
def lines(draw: st.DrawFn) -> str:
    actor, other = draw(seats), draw(seats)
    flowers = draw(st.integers(1, 6))
    kind = draw(st.sampled_from(["flower", "pong", "self_gang", "penalty", "self_win", "win", "draw"]))
    return {
        "flower": f"{actor}: /flowergang",
        "pong": f"{actor}: /pong {other}",
        "self_gang": f"{actor}: /gang self",
        "penalty": f"{actor}: /penalty follow {other}",
        "self_win": f"{actor}: /hu self {HAND} flowers={flowers}",
        "win": f"{actor}: /hu {other} {HAND} flowers={flowers}",
        "draw": f"{actor}: /draw",
    }[kind]


def corrected(line: str) -> str:
    """Another line of the same kind."""
    speaker, text = line.split(": ", 1)
    if "flowers=" in text:
        head, flowers = text.rsplit("flowers=", 1)
        return f"{speaker}: {head}flowers={int(flowers) + 1}"
    if text.startswith("/penalty follow"):
        return f"{speaker}: /penalty four {text.split()[-1]}"
    return line


async def play(referee: Referee, chat: str, script: list[str]) -> tuple[Table, list[str], list[int]]:
    """Play lines; keep those recorded (and their event ids). Two discard wins in a row on the same
    discard would merge (一炮多响): the second is left out to keep the log one line per event."""
    table = Table(referee, chat)
    await table.say("/new A B C D")
    kept: list[str] = []
    event_ids: list[int] = []
    for line in script:
        response = await table.respond(line)
        if response is None or not response.recorded:
            continue
        night = await referee.nights.latest(chat)
        assert night is not None
        if night.events[-1].kind == "fix":
            return table, [], []
        kept.append(line)
        event_ids.append(night.events[-1].id)
    return table, kept, event_ids


async def check_correction(script: list[str], pick: int, fix: bool) -> None:
    with tempfile.TemporaryDirectory() as directory:
        ledger = await Ledger.open(Path(directory) / "l.sqlite3")
        try:
            referee = Referee(ledger, charts_enabled=False)
            table, kept, event_ids = await play(referee, "night", script)
            assume(kept)
            played = await referee.nights.latest("night")
            assert played is not None
            extended = played.people()  # kept up to date line by line
            played._people = None
            assert played.people() == extended  # the same as folding the whole night again
            index = pick % len(kept)
            speaker = kept[index].split(": ", 1)[0]
            if fix:
                replacement = corrected(kept[index])
                response = await table.respond(f"{speaker}: /fix {event_ids[index]} {replacement.split(': ', 1)[1]}")
                expected_log = [*kept[:index], replacement, *kept[index + 1 :]]
            else:
                response = await table.respond(f"{speaker}: /undo {event_ids[index]}")
                expected_log = kept[:index] + kept[index + 1 :]
            assert response is not None
            replay, replayed, _ = await play(referee, "replay", expected_log)
            event("refused" if not response.recorded else "corrected")
            if not response.recorded:
                assert replayed != expected_log  # refused only when the corrected log does not hold
                return
            assert replayed == expected_log
            assert await table.balances() == await replay.balances()
            assert (await table.night())["hands"] == (await replay.night())["hands"]
            night = await referee.nights.latest("night")
            assert night is not None
            derived = [0, 0, 0, 0]
            for played in night.whole_fold().played:
                for p in played.payments:
                    derived[p.payer] -= p.amount
                    derived[p.payee] += p.amount
            assert derived == night.booked.amounts
            # the scoreboard's running per-player totals agree with folding the whole night again
            kept_people = night.people()
            night._people = None
            assert night.people() == kept_people
        finally:
            await ledger.close()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lines(), min_size=1, max_size=12), st.integers(0, 100), st.booleans())
def test_undo_or_fix_equals_replaying_the_corrected_log(script: list[str], pick: int, fix: bool) -> None:
    asyncio.run(check_correction(script, pick, fix))


async def test_fix_of_flowers_three_hands_back_across_a_doubled_hand_in_chinese(table: Table) -> None:
    table.default_speaker = "甲"
    await table.play(
        f"""
        开局 甲 乙 丙 丁
        甲: 胡 自摸 {HAND} 花2
        丙: 胡 丁 {HAND} 花2
        丁: 胡 甲 {HAND} 花2
        """
    )
    # hand 1: 甲 (dealer) self-draws 46 from each: a dealer win makes hand 2 比下胡 and 甲 deals again;
    # hand 2: 丁 feeds 丙 (46 + 10 × 1) × 2 = 112; the deal passes to 乙; hand 3: 甲 feeds 丁 46
    assert await table.balances() == {"甲": 138 - 46, "乙": -46, "丙": -46 + 112, "丁": -46 - 112 + 46}
    out = await table.say(f"甲: 改 2 胡 自摸 {HAND} 花3")
    # hand 1 is now 48 from each; hand 2 stays doubled (still a dealer win) and pays 112 as before
    assert await table.balances() == {"甲": 144 - 46, "乙": -48, "丙": -48 + 112, "丁": -48 - 112 + 46}
    assert (
        changes(("甲", "+6", "+6"), ("乙", "−2", "−2"), ("丙", "−2", "−2"), ("丁", "−2", "−2")) in out
    )  # at 1 元 a flower: money as the flowers
    assert "重新计算" not in out  # no later hand moved: hand 2 and 3 pay exactly what they did
    assert "现在是第 4 盘" in out


async def test_a_correction_across_a_stake_change_prices_each_hand_at_its_stake(table: Table) -> None:
    table.language = "en"
    await table.play(
        f"""
        A: /new A B C D
        B: /hu self {HAND} flowers=2
        A: /stake 2
        C: /hu D {HAND} flowers=2
        A: /fix 2 /hu A self {HAND} flowers=2
        """
    )
    # hand 1 (stake 1): A, the dealer, self-draws 46 from each; hand 2 (stake 2) is now 比下胡 with
    # A's 连庄 1: D feeds C (46 + 10) × 2 = 112 flowers, 224 in money
    night = await table.night()
    assert night["balances"] == {"A": 138, "B": -46, "C": -46 + 112, "D": -46 - 112}
    assert night["money"] == {"A": "138", "B": "-46", "C": str(-46 + 224), "D": str(-46 - 224)}
