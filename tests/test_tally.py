"""/summary reads the night's running tally (bot/night/tally.py), which the ledger keeps in step with
every event, instead of folding the whole night: after a restart it reads nothing of the night's
history, and it says exactly what the whole night says. A tally that is not current (stored by older
code, or an event written without it) is ignored: the whole night is tallied and stored again.

The night below, nanjing at stake 1 (RULES §11 worked examples 1 and 2, §9 比下胡 and 垒宝塔):
- hand 1: the dealer A self-draws example 1 with 2 hard flowers: 46 from each (A +138). A dealer win
  triggers 比下胡: A stays dealer, hand 2 is doubled with N = 1.
- hand 2 (×2): C's exposed gang on D's discard, 6 × 2 = 12 (D → C); B wins example 2 on C's discard,
  34: (34 + 10 × 1) × 2 = 88 (C → B). No trigger: the deal passes to B.
- 换人 D E; hand 3: E (D's seat) self-draws example 1 again: 46 from each of A, B, C (E +138).
A 138 − 46 = 92; B −46 + 88 − 46 = −4; C −46 + 12 − 88 − 46 = −168; D −46 − 12 = −58; E +138.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.chat.service import Referee
from bot.night.codec import STAKE, StakeChange, encode_stake, encode_undo
from bot.night.tally import (
    Figures,
    HandNets,
    PlayerTally,
    ReasonNet,
    Tally,
    decode_figures,
    encode_figures,
    hand_rows,
    hands_of,
)
from bot.store.ledger import Ledger
from bot.store.rows import NewEvent, TallyRows
from bot.views.charts import end_points, night_lines
from bot.views.lines import player_stats
from engine.settlement import Payment
from tests.kit.harness import Table

EXAMPLE_1 = "123m456m789m234p5p+5p"
EXAMPLE_2 = "11p 567s 79s [EEE] [444p] +8s"
NIGHT = f"""/new A B C D
A: /hu self {EXAMPLE_1} flowers=2
C: /gang D 9m
B: /hu C {EXAMPLE_2} flowers=4
换人 D E
E: /hu self {EXAMPLE_1} flowers=2"""
BALANCES = {"A": 92, "B": -4, "C": -168, "D": -58, "E": 138}
Lines = list[tuple[str, list[int], list[int | None]]]


def restarted(ledger: Ledger) -> Table:
    """The chat as a process started afresh on the same ledger finds it (nothing cached)."""
    return Table(Referee(ledger, charts_enabled=False), "group-1")


async def summary_and_lines(table: Table) -> tuple[str, Lines, bool]:
    """/summary as the chat reads it, the chart's lines, and whether the night's history is still
    unread after it (the summary read the running tally, not the night)."""
    text = await table.say("/summary")
    night = await table.referee.nights.latest(table.chat_id, history=False)
    assert night is not None
    partial = night.partial
    return text, night_lines(night, await night.tally()), partial


async def whole(table: Table) -> Tally:
    """The night's tally worked out from its whole fold, apart from the running one."""
    night = await table.referee.nights.latest(table.chat_id)
    assert night is not None
    return night.whole_tally().tally()


async def test_a_restart_summarises_from_the_running_tally_without_reading_the_night(
    table: Table, ledger: Ledger
) -> None:
    await table.play(NIGHT)
    said, said_lines, _ = await summary_and_lines(table)
    text, lines, partial = await summary_and_lines(restarted(ledger))
    assert partial  # only the running tally was read
    assert text == said and lines == said_lines
    assert end_points(lines) == BALANCES
    values = {name: values for name, _, values in lines}
    assert values["A"] == [0, 138, 138, 92] and values["C"] == [0, -46, -122, -168]
    assert values["D"] == [0, -46, -58, None]  # D left after hand 2
    assert values["E"] == [None, None, 0, 138]  # E sat down for hand 3: the line starts at 0 after hand 2


async def test_the_summary_stats_are_the_hands_as_played(table: Table, ledger: Ledger) -> None:
    await table.play(NIGHT)
    response = await restarted(ledger).respond("/summary")
    assert response is not None
    rows = {str(r.params["name"]): r.params for r in response.replies if r.key == "summary.player_stats"}
    # B won 88 off C's discard; C dealt in once and took 12 of gang money off D
    assert (rows["B"]["wins"], rows["B"]["self_draws"], rows["C"]["deal_ins"]) == (1, 0, 1)
    assert (rows["C"]["gang"], rows["D"]["gang"], rows["A"]["gang"]) == (12, -12, 0)
    assert (rows["A"]["wins"], rows["A"]["self_draws"], rows["E"]["wins"]) == (1, 1, 1)
    assert set(rows) == set(BALANCES)  # D left, with his own figures
    biggest = rows["B"]["biggest"]
    assert getattr(biggest, "params", {}).get("biggest") == 34 and rows["D"]["biggest"] == ""  # the hand's own count
    ranks = {str(r.params["name"]): r.params["amount"] for r in response.replies if r.key == "summary.rank"}
    assert ranks == BALANCES


async def test_a_doubled_hand_is_marked_however_it_ends(table: Table, ledger: Ledger) -> None:
    """The chart's star says the hand was played 比下胡 (RULES §9), won or drawn: after A's dealer
    self-draw, hand 2 is doubled (C's exposed gang: 6 × 2 = 12 from D) and ends in 荒庄, which makes
    hand 3 doubled too; a /stake typed before hand 3's first tile adds no hand to the chart."""
    await table.play(f"/new A B C D\nA: /hu self {EXAMPLE_1} flowers=2\nC: /gang D 9m\nA: /draw\nA: /stake 2")
    tally = await whole(table)
    assert tally.doubled == (2,) and [hand.hand for hand in tally.hands] == [1, 2]
    night = await restarted(ledger).referee.nights.latest("group-1", history=False)
    assert night is not None and await night.tally() == tally
    assert end_points(night_lines(night, tally)) == {"A": 138, "B": -46, "C": -34, "D": -58}


async def test_the_running_tally_follows_the_hand_being_played(table: Table, ledger: Ledger) -> None:
    # hand 4 has begun: B's concealed gang, 3 from each of A, C and E
    await table.play(NIGHT + "\nB: 暗杠 7m")
    said, said_lines, _ = await summary_and_lines(table)
    text, lines, partial = await summary_and_lines(restarted(ledger))
    assert partial and text == said and lines == said_lines
    assert end_points(lines) == {"A": 89, "B": 5, "C": -171, "D": -58, "E": 135}
    assert await table.referee.nights.latest("group-1") is not None
    night = await table.referee.nights.latest("group-1")
    assert night is not None and await night.tally() == await whole(table)


async def test_a_correction_stores_the_whole_nights_tally(table: Table, ledger: Ledger) -> None:
    await table.play(NIGHT + "\n/undo 3")  # #3: C's gang in hand 2
    said, said_lines, _ = await summary_and_lines(table)
    text, lines, partial = await summary_and_lines(restarted(ledger))
    assert partial and text == said and lines == said_lines
    # without the 12 (D → C) the rest stands: C −180, D −46
    assert end_points(lines) == {"A": 92, "B": -4, "C": -180, "D": -46, "E": 138}
    night = await table.referee.nights.latest("group-1")
    assert night is not None and await night.tally() == await whole(table)


async def test_a_night_without_a_current_tally_is_tallied_whole_and_stored(
    table: Table, ledger: Ledger, tmp_path: Path
) -> None:
    await table.play(NIGHT)
    said, said_lines, _ = await summary_and_lines(table)
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as db:  # as the code before tallies left a night
        db.execute("DELETE FROM tallies")
    fresh = restarted(ledger)
    text, lines, partial = await summary_and_lines(fresh)
    assert not partial and text == said and lines == said_lines  # read and tallied whole
    # stored again: the next line adds to it, and a restart reads it
    await fresh.say("B: 暗杠 7m")
    said, said_lines, _ = await summary_and_lines(fresh)
    text, lines, partial = await summary_and_lines(restarted(ledger))
    assert partial and text == said and lines == said_lines


async def test_a_correction_whose_tally_was_never_stored_is_not_added_to(table: Table, ledger: Ledger) -> None:
    await table.play(NIGHT)
    night = await table.referee.nights.latest("group-1")
    assert night is not None
    # an undo of #3 (C's gang on D, 12) written as a crash would leave it: the correction's rows are
    # in the ledger, the whole tally it stores after them is not; C (seat 2) pays D (seat 3) back
    gang = night.numbered(3)
    assert gang is not None
    undo = NewEvent(2, "undo", None, encode_undo(gang.id), (Payment(2, 3, 12, "exposed_gang"),), gang.id)
    await ledger.append_rows("group-1", night.id, "A", "/undo 3", None, 100, [undo])
    text, lines, partial = await summary_and_lines(restarted(ledger))
    assert not partial  # the stored tally was not read: the whole night was
    assert end_points(lines) == {"A": 92, "B": -4, "C": -180, "D": -46, "E": 138}
    # and stored again, as of the correction: the next restart reads it
    again, again_lines, partial = await summary_and_lines(restarted(ledger))
    assert partial and (again, again_lines) == (text, lines)


async def test_a_row_that_moves_no_money_leaves_the_running_tally_as_it_is(table: Table, ledger: Ledger) -> None:
    await table.play(NIGHT)
    night = await table.referee.nights.latest("group-1")
    assert night is not None
    stake = NewEvent(4, STAKE, None, encode_stake(StakeChange(200, 4)))  # 改底 written by hand
    await ledger.append_rows("group-1", night.id, "A", "/stake 2", None, 100, [stake])
    _text, lines, partial = await summary_and_lines(restarted(ledger))
    assert partial and end_points(lines) == BALANCES


async def test_lines_recorded_after_a_restart_add_to_the_stored_tally(table: Table, ledger: Ledger) -> None:
    await table.play(NIGHT)
    fresh = restarted(ledger)
    # played on after a restart, from the checkpoint's head (table events read no older history):
    # C's concealed gang (3 from each other), A's 花杠 (6 from each other), a draw
    await fresh.play("C: 暗杠 9s\nA: /flowergang\n/draw")
    night = await fresh.referee.nights.latest("group-1", history=False)
    assert night is not None and night.partial
    _text, lines, partial = await summary_and_lines(restarted(ledger))
    assert partial
    # A 92 − 3 + 18 = 107; B −4 − 3 − 6 = −13; C −168 + 9 − 6 = −165; E 138 − 3 − 6 = 129
    assert end_points(lines) == {"A": 107, "B": -13, "C": -165, "D": -58, "E": 129}
    assert await (await fresh.referee.nights.latest("group-1")).tally() == await whole(fresh)  # type: ignore[union-attr]


def test_figures_survive_encode_then_decode() -> None:
    figures = Figures(
        (PlayerTally(2, 1, 0, 88, 2, ("pao", "hard", "wind_pong"), 1, 3), PlayerTally(deal_ins=1, first_hand=1)),
        (ReasonNet(0, "win", 80), ReasonNet(1, "win", -80)),
    )
    assert decode_figures(encode_figures(figures)) == figures
    assert decode_figures(encode_figures(Figures())) == Figures()
    assert decode_figures("[[[1,2]],[]]") is None  # a player of another shape
    assert decode_figures("not json") is None


def test_hands_survive_their_rows_and_rows_add_up() -> None:
    hands = (HandNets(1, False, (46, -46)), HandNets(2, True, (0, 34, -34)), HandNets(3, True, ()))
    assert hands_of(hand_rows(hands)) == hands
    # two events of one hand, each adding its own rows (as the ledger adds them up)
    first, second = hand_rows([HandNets(4, False, (6, -6))]), hand_rows([HandNets(4, False, (-6, 0, 6))])
    assert hands_of(TallyRows(first.nets + second.nets)) == (HandNets(4, False, (0, -6, 6)),)
    # a hand whose nets came to nothing is still a hand of the tally (the chart reaches it)
    assert hands_of(TallyRows(((5, 0, 6), (5, 1, -6), (5, 0, -6), (5, 1, 6)))) == (HandNets(5, False, ()),)


def test_a_player_back_after_a_swap_keeps_the_first_of_equal_biggest_hands() -> None:
    # occupancy 0 and 4 are both 赵六 (he left and came back): one person, wins added up; of his two
    # 46s the one of hand 1 is the biggest shown, a bigger one later would replace it
    first = PlayerTally(1, 1, 0, 46, 1, ("pao", "menqing"), 1, 2)
    later = PlayerTally(1, 0, 1, 46, 5, ("pao", "que"), 4, 6)
    names = ("赵六", "B", "C", "D", "赵六")
    none = PlayerTally()
    stats = player_stats(Tally(Figures((first, none, none, none, later))), names)
    assert len(stats) == 4
    assert (stats[0].wins, stats[0].self_draws, stats[0].deal_ins) == (2, 1, 1)
    assert (stats[0].biggest, stats[0].biggest_keys) == (46, ("pao", "menqing"))
    bigger = Tally(Figures((first, none, none, none, PlayerTally(1, 0, 0, 50, 5, ("x",)))))
    assert player_stats(bigger, names)[0].biggest_keys == ("x",)


async def test_a_swap_in_the_hand_being_played_counts_for_who_sat_there(table: Table, ledger: Ledger) -> None:
    # after hand 3: 换人 E F, then F's concealed gang in hand 4, 3 from each of A, B and C (F +9);
    # E keeps his 138
    await table.play(NIGHT + "\n换人 E F\nF: 暗杠 7m")
    said, said_lines, _ = await summary_and_lines(table)
    text, lines, partial = await summary_and_lines(restarted(ledger))
    assert partial and text == said and lines == said_lines
    assert end_points(lines) == {"A": 89, "B": -7, "C": -171, "D": -58, "E": 138, "F": 9}
    values = {name: values for name, _, values in lines}
    assert values["E"] == [None, None, 0, 138, None] and values["F"] == [None, None, None, 0, 9]
