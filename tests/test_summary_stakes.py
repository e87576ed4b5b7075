"""After a 改底 the summary names each stake with its hands and ranks people by the money they pay or
take home, showing money alone (docs/rules.md 17d); a night played for one stake reads as it always did."""

from __future__ import annotations

from bot.chat.service import Referee
from tests.kit.harness import Table

NEW = "/new Alice Bob Carol Dave stake=2"
# RULES §11 ex. 2: Bob wins on Carol's discard, 34 flowers from Carol alone
BOB_ON_CAROL = "Bob: /hu Carol 11p 567s 79s [EEE] [444p] +8s flowers=4"
# 20 + 2 × (2 hard flowers + missing suit 1) + concealed hand 20 = 46 flowers from Dave
CAROL_ON_DAVE = "Carol: /hu Dave 123m 456m 789m 234p 5p +5p flowers=2"


def header_and_ranks(summary: str) -> tuple[str, list[str]]:
    lines = summary.splitlines()
    return lines[0], [line for line in lines if line[:2] in ("1.", "2.", "3.", "4.")]


async def test_a_stake_change_names_each_stake_with_its_hands_and_ranks_by_money(table: Table) -> None:
    await table.say("/lang en")
    await table.play(f"{NEW}\n{BOB_ON_CAROL}\n/stake 1\n{CAROL_ON_DAVE}")
    # hand 1 at 2: Bob +34 flowers (68), Carol −34 (−68). Hand 2 at 1: Carol +46 (46), Dave −46 (−46).
    # Carol: −34 + 46 = 12 flowers, above Alice's 0, but −68 + 46 = −22 money, below Alice's 0. The night
    # mixes stakes, so the ranking shows money alone (docs/rules.md 17d): no "12 flowers" beside a loss
    header, ranks = header_and_ranks(await table.say("/summary"))
    assert header == "🏁 night 1: 2 hands, preset nanjing, stake 2 (hand 1), 1 (from hand 2)"
    assert ranks == [
        "1. Bob: money 68",
        "2. Alice: money 0",
        "3. Carol: money -22",
        "4. Dave: money -46",
    ]


async def test_the_stakes_are_named_in_both_chinese_scripts(table: Table) -> None:
    # Bob wins on Carol twice running, nothing typed between: the table says it was two hands (再记一次)
    await table.play(f"{NEW}\n{BOB_ON_CAROL}\n{BOB_ON_CAROL}\n再记一次\n/stake 1")
    # /stake after hand 2 is over: hands 1–2 at 2, the stake in force from hand 3 is 1
    assert "每花 2（第 1–2 盘）、1（第 3 盘起）" in await table.say("/summary")
    await table.say("/lang zh-Hant")
    assert "每花 2（第 1–2 盤）、1（第 3 盤起）" in await table.say("/summary")


async def test_a_stake_changed_before_any_hand_or_to_the_same_stake_is_one_stake(table: Table) -> None:
    await table.say("/lang en")
    # /stake 3 before hand 1 is played covers hand 1 (from hand 1); /stake 3 again changes nothing
    await table.play(f"/new Alice Bob Carol Dave stake=1\n/stake 3\n{BOB_ON_CAROL}\n/stake 3\n{CAROL_ON_DAVE}")
    header, ranks = header_and_ranks(await table.say("/summary"))
    assert header == "🏁 night 1: 2 hands, preset nanjing, stake 3"
    # at 3 a flower: Bob 34 (102), Carol −34 + 46 = 12 (36), Alice 0, Dave −46 (−138)
    assert ranks == [
        "1. Bob: 34 flowers (money 102)",
        "2. Carol: 12 flowers (money 36)",
        "3. Alice: 0 flowers (money 0)",
        "4. Dave: -46 flowers (money -138)",
    ]


async def test_a_stake_change_after_choosing_the_dealer_counts_from_that_hand(table: Table) -> None:
    """/dealer is a chore before the first tile: the hand has not begun, so a 改底 after it prices that
    hand, and the night reads it so when it reads its log again (a restart answers /summary from a
    checkpoint's head)."""
    await table.say("/lang en")
    await table.play(f"{NEW}\n{CAROL_ON_DAVE}\n/dealer Carol\n/stake 1\n{BOB_ON_CAROL}")
    # hand 1 at 2: Carol +46 flowers (92), Dave −46 (−92). Hand 2 at 1: Bob +34 (34), Carol −34 (−34):
    # Carol 12 flowers, 92 − 34 = 58
    said = await table.say("/summary")
    header, ranks = header_and_ranks(said)
    assert header == "🏁 night 1: 2 hands, preset nanjing, stake 2 (hand 1), 1 (from hand 2)"
    assert ranks == [
        "1. Carol: money 58",
        "2. Bob: money 34",
        "3. Alice: money 0",
        "4. Dave: money -92",
    ]
    restarted = Table(Referee(table.referee.nights.ledger, charts_enabled=False), table.chat_id)
    assert await restarted.say("/summary") == said


async def test_a_stake_change_moved_by_a_correction_reads_the_same_after_a_restart(table: Table) -> None:
    """A 改底 typed for hand 3; undoing the win that ended hand 2 makes hand 2 go on, so the 改底
    now comes before anything of hand 2's rest: it prices hand 2, live and after a restart."""
    await table.say("/lang en")
    await table.play(f"{NEW}\n/draw\n{CAROL_ON_DAVE}\n/stake 3\n/undo 3")
    night = await table.referee.nights.latest(table.chat_id)
    assert night is not None and night.stake_schedule() == [(1, 200), (2, 300)]
    said = await table.say("/summary")
    assert said.splitlines()[0] == "🏁 night 1: 1 hand, preset nanjing, stake 2 (hand 1), 3 (from hand 2)"
    restarted = Table(Referee(table.referee.nights.ledger, charts_enabled=False), table.chat_id)
    assert await restarted.say("/summary") == said
    # a 花杠 from the restarted night's head is priced at the stake the whole night gives hand 2: Bob
    # 6 from each of three (比下胡 after the draw: × 2, 12 each), 36 flowers at 3 = 108
    assert "36" in await restarted.say("Bob: /flowergang")
    money = {"Alice": "-36", "Bob": "108", "Carol": "-36", "Dave": "-36"}
    assert (await restarted.night())["money"] == money
    whole = Table(Referee(table.referee.nights.ledger, charts_enabled=False), table.chat_id)
    await whole.say("/history")  # reads the whole night: the same money
    assert (await whole.night())["money"] == money
