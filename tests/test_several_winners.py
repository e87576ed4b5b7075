"""Several winners on one discard (一炮多响) are what the table says, never a guess from adjacency; a
correction of one claim of such a win changes that claim only; a 三嘴 forced end survives any later
correction. Money worked by hand from docs/rules.md (§8 several winners, §9 比下胡/垒宝塔, §12 敞开头).

nanjing seats: A East (first dealer), B South, C West, D North.
"""

from __future__ import annotations

from pathlib import Path

from bot.chat.service import Referee
from bot.store.ledger import Ledger
from bot.text.replies import render
from locales import Translator
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.telegram import ALICE, BOB, CAROL, Running, balances, buttons

CKT = "/new Alice Bob Carol Dave preset=changkaitou start=1000"
SANZUI = """
    Bob: /pong Alice 1m
    Bob: /pong Alice 9p
    Bob: 碰 Alice 东
    Bob: 碰 Carol 5s 花1
"""


# ---- a 三嘴 forced end is kept by every re-derivation -------------------------------------------


async def test_a_sanzui_forced_end_survives_a_later_fix(table: Table) -> None:
    await table.play(f"{CKT}\n{SANZUI}\nDave: /flowergang")
    # hand 1 (RULES §12 三嘴): Bob's first three mouths from Alice, the fourth fed by Carol: Bob's
    # 对对胡 self-draw. share = 10 + 对对胡 30 + 2 × (1 hard + 1 soft for the wind pong 东; all three
    # suits shown, no 缺一) = 44, ×2 (every hand) = 88; Alice pays all three shares: 264.
    # hand 2: Dave's 花杠, 10 × 2 = 20 from each other player.
    assert await table.balances() == {"Alice": -284, "Bob": 244, "Carol": -20, "Dave": 60}
    await table.say("/fix 6 /flowergang Carol")  # the 花杠 was Carol's
    # hand 1 stays a hand of its own (the forced end is kept); Carol takes 20 from each other player
    assert await table.balances() == {"Alice": -284, "Bob": 244, "Carol": 60, "Dave": -20}
    night = await table.night()
    assert night["hands"] == 1


# ---- a win after a win on the same discarder is asked ------------------------------------------

HAND = "123m456m789m234p5p+5p"  # 门清, 缺一 (no 索), wait 2p/5p: no wait flower


async def test_a_second_win_on_the_same_discarder_moves_nothing_until_answered(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say(f"A: /hu A D {HAND} flowers=2")  # #2
    # RULES §6: 20 + 2 × (2 hard + 缺一 1) + 门清 20 = 46; D pays A (the dealer: 比下胡 next, A stays)
    assert await table.balances() == {"A": 46, "B": 0, "C": 0, "D": -46}
    before = await table.row_counts()
    question = await table.respond(f"B: /hu B D {HAND} flowers=2")
    assert question is not None and not question.recorded
    assert [c.command for c in question.choices] == ["/again q1", "/again q1 next"]
    out = await table.say(f"B: /hu B D {HAND} flowers=2")
    assert "和 #2 同一张牌吗（一炮多响）？" in out
    translator = Translator("zh_Hans")
    assert [render(c.label, translator) for c in question.choices] == ["一炮多响", "是下一盘"]
    assert await table.row_counts() == before  # nothing moves before the answer
    assert await table.balances() == {"A": 46, "B": 0, "C": 0, "D": -46}


async def test_next_hand_makes_it_a_win_of_its_own_in_the_doubled_hand(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say(f"A: /hu A D {HAND} flowers=2")  # #2: D pays A 46
    await table.say(f"B: /hu B D {HAND} flowers=2")  # asked
    out = await table.say("C: /again next")
    assert "✅" in out
    # hand 2 is doubled (the dealer A won, RULES §9) and A stays, 垒宝塔 N = 1: B's win counts
    # (46 + 10 × 1) × 2 = 112, paid by D
    assert await table.balances() == {"A": 46, "B": 112, "C": 0, "D": -158}
    assert (await table.night())["hands"] == 2
    assert "没有等着" in await table.say("C: /again")  # the answer is used once
    assert await table.balances() == {"A": 46, "B": 112, "C": 0, "D": -158}


async def test_same_discard_makes_one_win_with_two_claims(table: Table) -> None:
    await table.say("/lang en")
    await table.say("/new A B C D")
    await table.say(f"A: /hu A D {HAND} flowers=2")  # #2
    assert "Same discard as #2 (several winners)?" in await table.say(f"B: /hu B D {HAND} flowers=2")
    assert "✅" in await table.say("C: /again")  # #3, B's claim on #2's discard
    # RULES §8: D pays each winner his own total, in the hand of #2 (not doubled): A 46, B 46
    assert await table.balances() == {"A": 46, "B": 46, "C": 0, "D": -92}
    assert (await table.night())["hands"] == 1
    history = await table.say("/history")
    assert "— one win with #3" in history and "on the same discard as #2" in history
    # 一炮多响 doubles hand 2 and the dealer A (a winner) stays, N = 1: C's self-draw
    # (46 + 10) × 2 = 112 from each other player
    await table.say(f"C: /hu self {HAND} flowers=2")
    assert await table.balances() == {"A": -66, "B": -66, "C": 336, "D": -204}


async def test_a_line_that_says_it_needs_no_question(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say(f"A: /hu A D {HAND} flowers=2")  # #2: D pays A 46
    response = await table.respond(f"B: /hu B D {HAND} flowers=2 一炮多响")
    assert response is not None and response.recorded
    response = await table.respond(f"C: /hu C D {HAND} flowers=4 also")
    assert response is not None and response.recorded
    # three claims on D's one discard: A 46, B 46, C 20 + 2 × (4 + 1) + 20 = 50; D pays 142
    assert await table.balances() == {"A": 46, "B": 46, "C": 50, "D": -142}
    assert (await table.night())["hands"] == 1


async def test_two_winners_on_one_line_need_no_question(table: Table) -> None:
    await table.say("/new A B C D")
    response = await table.respond("B: /hu B+C D 清一色 flowers=2")
    assert response is not None and response.recorded
    # each: 跑 20 + 2 × 2 hard + 门清 20 (no meld logged) + 清一色 60 = 104; D pays both
    assert await table.balances() == {"A": 0, "B": 104, "C": 104, "D": -208}


async def test_also_with_no_win_to_join_is_refused(table: Table) -> None:
    await table.say("/new A B C D")
    response = await table.respond(f"B: /hu B D {HAND} flowers=2 also")
    assert response is not None and response.refused and not response.recorded
    assert "没有可以一炮多响的胡" in await table.say(f"B: /hu B D {HAND} flowers=2 一炮多响")
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}


async def test_the_question_survives_a_restart(table: Table, ledger: Ledger) -> None:
    await table.say("/new A B C D")
    await table.say(f"A: /hu A D {HAND} flowers=2")  # #2
    await table.say(f"B: /hu B D {HAND} flowers=2")  # asked
    restarted = Table(Referee(ledger, charts_enabled=False), table.chat_id)
    assert "✅" in await restarted.say("C: /again")
    # as answered before the restart: one discard, D pays A 46 and B 46
    assert await restarted.balances() == {"A": 46, "B": 46, "C": 0, "D": -92}
    again = Table(Referee(ledger, charts_enabled=False), table.chat_id)  # and read back again
    assert await again.balances() == {"A": 46, "B": 46, "C": 0, "D": -92}
    assert (await again.night())["hands"] == 1


async def test_something_played_since_the_question_makes_it_stale(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say(f"A: /hu A D {HAND} flowers=2")  # #2: D pays A 46
    await table.say(f"B: /hu B D {HAND} flowers=2")  # asked
    await table.say("C: /flowergang")  # #3, hand 2 (doubled): 6 × 2 = 12 from each other player
    out = await table.say("A: /again")
    assert "过期" in out
    assert await table.balances() == {"A": 34, "B": -12, "C": 36, "D": -58}


# ---- a fix or undo of one claim of two changes that claim only --------------------------------

# B ponged 东 from A in hand 1 (#2), then A (#3) and B (#4) won on D's one discard. B's hand
# 123m 456m 22s 46p [EEE] +5p (A's 5p: the same tile): 20 + 2 × (4 hard + 风碰 1 + 压档 1 (46p waits
# on 5p alone)) = 32, all
# three suits shown (no 缺一), a pong (no 门清), no 大胡: 4 hard flowers are enough (RULES §5-§6).
B_HAND = "123m456m22s46p[EEE]+5p"
TWO_CLAIMS = f"""
    /new A B C D
    B: /pong A E
    A: /hu A D {HAND} flowers=2
    B: /hu B D {B_HAND} flowers=4 also
"""


async def test_the_two_claims_each_pay_their_own_hand(table: Table) -> None:
    await table.play(TWO_CLAIMS)
    # D pays A 46 and B 32 (RULES §8)
    assert await table.balances() == {"A": 46, "B": 32, "C": 0, "D": -78}


async def test_a_fix_of_the_first_claim_keeps_the_second(table: Table) -> None:
    await table.play(TWO_CLAIMS)
    out = await table.say(f"/fix 3 /hu A D {HAND} flowers=3")
    assert "✏️" in out
    # A: 20 + 2 × (3 + 1) + 20 = 48 (+2); B keeps 32
    assert await table.balances() == {"A": 48, "B": 32, "C": 0, "D": -80}
    assert (await table.night())["hands"] == 1


async def test_a_fix_of_the_second_claim_is_checked_against_its_own_hand(table: Table) -> None:
    await table.play(TWO_CLAIMS)
    response = await table.respond(f"/fix 4 /hu B D {B_HAND} flowers=5")
    assert response is not None and response.recorded, response
    # B: 20 + 2 × (5 + 2) = 34 (+2); A keeps 46
    assert await table.balances() == {"A": 46, "B": 34, "C": 0, "D": -80}
    # still one discard: hand 2 is doubled (A, the dealer, among the winners; 一炮多响), A stays, N = 1:
    # C's self-draw (46 + 10) × 2 = 112 from each other player
    await table.say(f"C: /hu self {HAND} flowers=2")
    assert await table.balances() == {"A": -66, "B": -78, "C": 336, "D": -192}


async def test_undoing_the_first_claim_leaves_the_second_a_win_of_its_own(table: Table) -> None:
    await table.play(TWO_CLAIMS)
    out = await table.say("/undo 3")
    assert "A −46" in out and "D +46" in out
    # B alone on D's discard: 32. No trigger (B is no dealer, no 大胡): hand 2 is not doubled, B deals
    assert await table.balances() == {"A": 0, "B": 32, "C": 0, "D": -32}
    await table.say(f"C: /hu self {HAND} flowers=2")  # hand 2, not doubled: 46 from each other player
    assert await table.balances() == {"A": -46, "B": -14, "C": 138, "D": -78}


async def test_undoing_the_second_claim_leaves_the_first(table: Table) -> None:
    await table.play(TWO_CLAIMS)
    out = await table.say("/undo 4")
    assert "B −32" in out and "D +32" in out
    assert await table.balances() == {"A": 46, "B": 0, "C": 0, "D": -46}
    # A the dealer won alone: hand 2 is still doubled, A stays, N = 1: (46 + 10) × 2 = 112 each
    await table.say(f"C: /hu self {HAND} flowers=2")
    assert await table.balances() == {"A": -66, "B": -112, "C": 336, "D": -158}


async def test_a_fix_of_the_first_to_another_discarder_is_refused(table: Table) -> None:
    await table.play(TWO_CLAIMS)
    response = await table.respond(f"/fix 3 /hu A C {HAND} flowers=2")
    assert response is not None and response.refused and not response.recorded
    assert response.replies[0].key == "fix.breaks_later" and response.replies[0].params["id"] == 4
    assert await table.balances() == {"A": 46, "B": 32, "C": 0, "D": -78}


async def test_two_claims_read_back_after_a_restart_and_a_correction(table: Table, ledger: Ledger) -> None:
    await table.play(TWO_CLAIMS)
    await table.say(f"C: /hu self {HAND} flowers=2")  # #5, hand 2 (a checkpoint after each hand)
    await table.say(f"/fix 4 /hu B D {B_HAND} flowers=5")
    # hand 1: A 46, B 34 from D; hand 2 doubled, N = 1: C 112 from each other player
    want = {"A": -66, "B": -78, "C": 336, "D": -192}
    assert await table.balances() == want
    restarted = Table(Referee(ledger, charts_enabled=False), table.chat_id)
    assert await restarted.balances() == want
    assert (await restarted.night())["hands"] == 2


# ---- forced ends through a multi-winner hand and its corrections --------------------------------


async def test_a_sanzui_night_with_two_winners_later_keeps_the_forced_end(table: Table, ledger: Ledger) -> None:
    await table.play(f"{CKT}\n{SANZUI}")
    # hand 2 (Alice still deals: any 包子 keeps the dealer, §12): Carol and Bob on Dave's one discard.
    # Each: 10 + 门清 10 + 2 × (2 hard + 缺一 1) = 26, ×2 = 52 (every hand), Dave pays both
    await table.say(f"Carol: /hu Carol Dave {HAND} flowers=2")
    await table.say(f"Bob: /hu Bob Dave {HAND} flowers=2 一炮多响")
    want = {"Alice": -264, "Bob": 316, "Carol": 52, "Dave": -104}
    assert await table.balances() == want
    assert (await table.night())["hands"] == 2
    await table.say(f"/fix 6 /hu Carol Dave {HAND} flowers=3")  # Carol: 10 + 10 + 2 × 4 = 28, ×2 = 56
    want = {"Alice": -264, "Bob": 316, "Carol": 56, "Dave": -108}
    assert await table.balances() == want and (await table.night())["hands"] == 2
    restarted = Table(Referee(ledger, charts_enabled=False), table.chat_id)
    assert await restarted.balances() == want
    replay = Table(table.referee, "replay")  # the corrected log typed afresh
    await replay.play(
        f"{CKT}\n{SANZUI}\nCarol: /hu Carol Dave {HAND} flowers=3\nBob: /hu Bob Dave {HAND} flowers=2 一炮多响"
    )
    assert {**await replay.night(), "night": 0} == {**await table.night(), "night": 0}


async def test_in_telegram_the_table_answers_by_button_once(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        await bot.say(ALICE, f"/hu dave {HAND} flowers=2")  # alice, the dealer, on dave's discard
        assert "同一张牌吗" in await bot.say(BOB, f"/hu dave {HAND} flowers=2")
        choices = buttons(fake)
        assert set(choices) == {"一炮多响", "是下一盘"}
        await bot.press(CAROL, choices["一炮多响"])
        await bot.press(CAROL, choices["是下一盘"])  # the question is answered once
    # one discard: dave pays alice 46 and bob 46 (RULES §8), nothing more
    assert await balances(db) == [46, 46, 0, -92]


async def test_two_claims_on_one_discard_are_one_hand_and_one_deal_in(table: Table) -> None:
    await table.play(TWO_CLAIMS)
    await table.say(f"C: /hu self {HAND} flowers=2")  # hand 2
    response = await table.respond("A: /summary")
    assert response is not None
    rows = {str(r.params["name"]): r.params for r in response.replies if r.key == "summary.player_stats"}
    assert (rows["A"]["wins"], rows["B"]["wins"], rows["C"]["wins"]) == (1, 1, 1)
    assert rows["D"]["deal_ins"] == 1  # one discard fed A and B
    await table.say("A: /close")
    response = await table.respond("D: /stats D")
    assert response is not None
    player = next(r for r in response.replies if r.key == "stats.player")
    # D sat through 2 hands and dealt in once: 50%
    assert player.params["deal_in_rate"] == "50%" and player.params["win_rate"] == "0%"


async def test_a_discard_that_fed_two_winners_and_another_deal_in_are_two_deal_ins(
    table: Table, ledger: Ledger
) -> None:
    """王五 (renamed 王老五) feeds A and B with one discard (hand 1, 一炮多响), C self-draws (hand 2),
    then 王老五 feeds C (hand 3): two discards ended a hand, so 放炮 2 in /summary, live and after a
    restart (the stored tally), as /stats counts them (2 of the 3 hands he sat through: 67%)."""
    await table.play(
        f"""
        /new A B C 王五
        A: /hu A 王五 {HAND} flowers=2
        B: /hu B 王五 {HAND} flowers=2 一炮多响
        /rename 王五 王老五
        C: /hu self {HAND} flowers=2
        C: /hu C 王老五 {HAND} flowers=2
        """
    )

    async def stats_rows(at: Table) -> dict[str, tuple[int, int, int]]:
        response = await at.respond("A: /summary")
        assert response is not None
        found = (r.params for r in response.replies if r.key == "summary.player_stats")
        return {str(p["name"]): (int(p["wins"]), int(p["self_draws"]), int(p["deal_ins"])) for p in found}

    # (wins, self-draws, deal-ins): A and B one win each on hand 1's discard, C a self-draw and a win
    want = {"A": (1, 0, 0), "B": (1, 0, 0), "C": (2, 1, 0), "王老五": (0, 0, 2)}
    assert await stats_rows(table) == want
    assert await stats_rows(Table(Referee(ledger, charts_enabled=False), table.chat_id)) == want
    await table.say("A: /close")
    response = await table.respond("A: /stats 王老五")
    assert response is not None
    player = next(r for r in response.replies if r.key == "stats.player")
    assert player.params["deal_in_rate"] == "67%"  # 2 deal-ins in 3 hands


# ---- found by the random nights (PROPERTY_NIGHTS=300) ------------------------------------------------


async def test_a_win_that_cannot_be_on_the_same_discard_is_a_win_of_its_own(table: Table) -> None:
    """Read as a claim on A's discard win, D's hand would count D's pong of hand 1 too (17 tiles): it
    cannot be that discard, so it is the next hand's win, recorded, not refused with a tile count.
    A (dealer) won hand 1 with 对对胡 (a 大胡, a dealer win: 比下胡, A stays, N = 1). D wins on B in
    hand 2 with RULES §11 ex. 1 and no hard flower: 20 + 2 × (0 + 缺一 1) + 门清 20 + 无花果 40 = 82,
    垒宝塔 (82 + 10 × 1) × 2 = 184 from B."""
    await table.play("A: /new A B C D\nD: /pong A 1m\nA: /hu B 对对胡 全球独钓 flowers=0")
    before = await table.balances()
    response = await table.respond("D: /hu B 123m456m789m234p5p+5p flowers=0")
    assert response is not None and response.recorded and not response.refused
    after = await table.balances()
    assert (after["D"] - before["D"], after["B"] - before["B"]) == (184, -184)


async def test_a_claim_joined_after_the_first_was_undone_is_named_by_the_claim_in_force(table: Table) -> None:
    """B's win #2 and C's claim #3 on A's discard; #2 undone, C's stands as a win of its own; a new
    claim of B on that discard joins C's, and the replies name #3, not the undone #2."""
    hand = "123m456m789m234p5p+5p flowers=0"
    await table.play(f"A: /new A B C D\nB: /hu A {hand}\nC: /hu A {hand} also\nA: /undo 2")
    asked = await table.say(f"B: /hu A {hand}")
    assert "和 #3 同一张牌吗" in asked and "#2" not in asked
    merged = await table.say("B: /again")
    assert "与 #3 合并为一炮多响" in merged and "#2" not in merged
