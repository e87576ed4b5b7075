"""A correction has one meaning (issue 21): each place in the night has versions, the newest is
current; a fix appends one, an undo removes the current one. Each failing example of the issue is
pinned here with its money worked by hand.

By docs/rules.md (nanjing): a flower gang is 6 from each other player (the gang's owner +18). The hand
`123m456m789m234p5p+5p` with N hard flowers is 跑 20 + 硬花 2N + 缺一门 2 + 门清 20 = 42 + 2N
(N = 2: 46, 3: 48, 4: 50). A win typed without tiles gets 门清 from the log: 20 + 2N + 20.
"""

from __future__ import annotations

from pathlib import Path

from bot.chat.service import Referee
from bot.store.ledger import Ledger
from tests.kit.harness import Table
from tests.kit.messages import changes

HAND = "123m456m789m234p5p+5p"


async def replayed(table: Table, ledger: Ledger, tmp_path: Path) -> dict[str, int]:
    """The balances a fresh referee derives from the log alone (as after a restart)."""
    fresh = Table(Referee(ledger, rules_dir=tmp_path, charts_enabled=False), table.chat_id)
    return await fresh.balances()


async def test_a_fix_of_a_fix_replaces_it(table: Table, ledger: Ledger, tmp_path: Path) -> None:
    table.language = "en"
    await table.play("/new A B C D\nB: /flowergang\n/fix 2 /flowergang A")
    await table.say("/fix 3 /flowergang B")
    # the flower gang is B's again, once: B +18, the others −6 each (not B +36)
    want = {"A": -6, "B": 18, "C": -6, "D": -6}
    assert await table.balances() == want
    assert await replayed(table, ledger, tmp_path) == want


async def test_fixing_the_original_after_a_fix_corrects_the_current_version(table: Table) -> None:
    table.language = "en"
    await table.play("/new A B C D\nB: /flowergang\n/fix 2 /flowergang A")
    out = await table.say("/fix 2 /flowergang C")
    # #2's place now holds C's flower gang: C +18, the others −6
    assert "Nothing was recorded" not in out
    assert await table.balances() == {"A": -6, "B": -6, "C": 18, "D": -6}


async def test_a_win_fixed_twice_adds_no_hand(table: Table, ledger: Ledger, tmp_path: Path) -> None:
    table.language = "en"
    await table.play(f"/new A B C D\nB: /hu self {HAND} flowers=2\n/fix 2 /hu B self {HAND} flowers=3")
    out = await table.say(f"/fix 3 /hu B self {HAND} flowers=4")
    # one hand: B self-draws 50 from each (4 hard flowers), B +150; hand 2 is open (not a hand 3)
    want = {"A": -50, "B": 150, "C": -50, "D": -50}
    assert await table.balances() == want
    assert "Now in hand 2" in out
    assert await replayed(table, ledger, tmp_path) == want


async def test_after_undoing_a_fix_the_original_can_be_undone_and_fixed(table: Table) -> None:
    table.language = "en"
    await table.play("/new A B C D\nB: /flowergang\n/fix 2 /flowergang A\n/undo 3")
    # the fix is gone: B's flower gang is back, B +18
    assert await table.balances() == {"A": -6, "B": 18, "C": -6, "D": -6}
    out = await table.say("/fix 2 /flowergang D")
    assert "Nothing was recorded" not in out
    # D's now: D +18
    assert await table.balances() == {"A": -6, "B": -6, "C": -6, "D": 18}
    out = await table.say("/undo 2")
    # `/undo 2` takes line 2 back whole, with the fix of it in force (docs/rules.md 16): nothing is
    # left at #2's place (not B's flower gang, the version before D's)
    assert "Nothing was recorded" not in out
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}
    assert "already undone" in await table.say("/undo 2")


async def test_a_bare_undo_after_undoing_a_fix_never_fails(table: Table, ledger: Ledger, tmp_path: Path) -> None:
    table.language = "en"
    await table.play("/new A B C D\nB: /flowergang\n/fix 2 /flowergang A\n/undo 3")
    out = await table.say("/undo")  # was: IntegrityError (UNIQUE events.reverses), "nothing recorded"
    assert "undid #2" in out
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}
    assert await replayed(table, ledger, tmp_path) == {"A": 0, "B": 0, "C": 0, "D": 0}


async def test_a_discard_win_never_merges_into_an_older_hands_fixed_win(table: Table) -> None:
    table.language = "en"
    out = await table.play(
        f"""
        /new A B C D
        A: /hu A D flowers=2
        B: /hu B C {HAND} flowers=2
        /fix 2 /hu A D flowers=3
        C: /hu C D {HAND} flowers=2
        """
    )
    assert "merged" not in out
    # hand 1: A (dealer) wins on D: 20 + 2×3 + 门清 20 = 46; a dealer win doubles hand 2, A stays (1);
    # hand 2: C feeds B (46 + 10×1) × 2 = 112; B deals hand 3 (not doubled): D feeds C 46.
    # A +46, B +112, C −112 + 46 = −66, D −46 − 46 = −92
    assert await table.balances() == {"A": 46, "B": 112, "C": -66, "D": -92}


async def test_three_winners_on_one_discard_are_one_win(table: Table, ledger: Ledger, tmp_path: Path) -> None:
    table.language = "en"
    await table.play(
        """
        /new A B C D
        B: /hu A flowers=2
        C: /hu A flowers=2 also
        D: /hu A flowers=4 also
        """
    )
    # one discard, three claims: B 20 + 4 + 门清 20 = 44, C 44, D 20 + 8 + 20 = 48; A pays 136
    assert await table.balances() == {"A": -136, "B": 44, "C": 44, "D": 48}
    out = await table.say("B: /hu C flowers=2")
    # 一炮多响 doubles hand 2 and A stays (streak 1): C pays B (44 + 10×1) × 2 = 108
    assert "(44 + 10×1) × 2 = 108" in out  # the doubled hand, said on the win's factor line (issue #30)
    want = {"A": -136, "B": 152, "C": -64, "D": 48}
    assert await table.balances() == want
    assert await replayed(table, ledger, tmp_path) == want
    night = await table.night()
    assert night["balances"] == want


async def test_after_a_swap_a_correction_moves_money_of_the_people_at_each_place(
    table: Table, ledger: Ledger, tmp_path: Path
) -> None:
    table.language = "en"
    await table.play(
        f"""
        /new A B C D
        A: /hu self {HAND} flowers=2
        /swap D E
        C: /hu E {HAND} flowers=2
        """
    )
    # hand 1: A (dealer) self-draws 46 from each, hand 2 doubled (A stays, 1): E feeds C (46 + 10) × 2 = 112
    assert await table.balances() == {"A": 138, "B": -46, "C": 66, "D": -46, "E": -112}
    out = await table.say("/undo 2")
    # as if hand 1's win never was: C's win is hand 1 (not doubled), E pays 46; D paid nothing.
    # D: −46 → 0 (+46); E: −112 → −46 (+66); C: 66 → 46 (−20); A: 138 → 0; B: −46 → 0
    assert (
        changes(
            ("A", "−138", "−138"),
            ("B", "+46", "+46"),
            ("C", "−20", "−20"),
            ("D", "+46", "+46"),
            ("E", "+66", "+66"),
            language="en",
        )
        in out
    )  # at 1 元 a flower: money as the flowers
    want = {"A": 0, "B": 0, "C": 46, "E": -46}
    assert await table.balances() == want
    assert await replayed(table, ledger, tmp_path) == want


async def test_a_stake_change_keeps_its_place_when_an_earlier_hand_is_undone(table: Table) -> None:
    table.language = "en"
    await table.play(
        f"""
        /new A B C D
        B: /hu A {HAND} flowers=2
        C: /stake 2
        C: /hu D {HAND} flowers=2
        """
    )
    # hand 1 at 1 per flower: A → B 46 (money 46); 改底 2 from hand 2: D → C 46 flowers, money 92
    night = await table.night()
    assert night["balances"] == {"A": -46, "B": 46, "C": 46, "D": -46}
    out = await table.say("/undo 2")
    # C's win is now hand 1, still after the 改底 in the log: its money stays 92 (not 46)
    assert "West C: 46 flowers (money 92)" in out and "North D: -46 flowers (money -92)" in out
    out = await table.say("/stake 3")
    # a later 改底 reprices nothing already played; hand 2 is now played for 3 after hand 1 at 2, so the
    # board says money alone (docs/rules.md 17d)
    assert "West C: money 92" in await table.say("/score")


async def test_undoing_the_last_claim_of_a_merged_win_keeps_the_others(table: Table) -> None:
    table.language = "en"
    await table.play("/new A B C D\nB: /hu A flowers=2\nC: /hu A flowers=2 also\nD: /hu A flowers=4 also")
    out = await table.say("/undo 4")
    # D's claim (#4) is undone alone: B and C on A's discard, 44 each (D's 48 taken back)
    assert (
        changes(("A", "+48", "+48"), ("D", "−48", "−48"), language="en") in out
    )  # at 1 元 a flower: money as the flowers
    assert await table.balances() == {"A": -88, "B": 44, "C": 44, "D": 0}
    # a two-winner discard still doubles hand 2 with A staying (streak 1): D feeds C (44 + 10) × 2 = 108
    await table.say("C: /hu D flowers=2")
    assert await table.balances() == {"A": -88, "B": 44, "C": 152, "D": -108}


async def test_a_stake_change_after_an_undone_fix_reprices_no_closed_hand(table: Table) -> None:
    table.language = "en"
    await table.play(
        f"""
        /new A B C D
        B: /hu self {HAND} flowers=2
        /fix 2 /hu B self {HAND} flowers=3
        /undo 3
        A: /stake 2
        """
    )
    # hand 1 is B's self-draw of 46 again, at 1 per flower: 138 in money; 改底 2 starts at hand 2, the
    # hand being played, so the night mixes stakes and the board says money alone (docs/rules.md 17d)
    out = await table.say("/score")
    assert "South B: money 138" in out and "East A: money -46" in out
    await table.say(f"C: /hu self {HAND} flowers=2")
    # hand 2 at 2 per flower: C self-draws 46 from each, 92 money each: B 138 − 92 = 46
    night = await table.night()
    assert night["money"] == {"A": "-138", "B": "46", "C": "230", "D": "-138"}


async def test_money_of_an_undone_place_never_moves_with_a_later_stake(table: Table) -> None:
    """Found by the property test: a correction's difference for other places was booked on the
    undone place, and a later 改底 repriced it."""
    table.language = "en"
    await table.play(
        f"""
        /new A B C D
        A: /hu self {HAND} flowers=4
        A: /flowergang
        A: /flowergang
        A: /again
        /undo 2
        /undo 3
        A: /flowergang
        A: /again
        A: /stake 0.5
        """
    )
    # the corrected log: two flower gangs of A in hand 1, 6 from each other player each: A +36, the
    # others −12; the 改底 comes after them in hand 1, so it starts at hand 2: money 36 / −12
    night = await table.night()
    assert night["balances"] == {"A": 36, "B": -12, "C": -12, "D": -12}
    assert night["money"] == {"A": "36", "B": "-12", "C": "-12", "D": "-12"}
