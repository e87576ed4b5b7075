"""docs/rules.md §5 "Claims must fit the hand and the table": an impossible claim is refused, never scored.

CLI: exit 1 with the reason (a hard-flower count outside 0–20 is bad input: exit 2).
Table: the reducer refuses the win (ClaimRefused, nothing changes) — the bot records nothing.
Seats: A=0 (East, the first dealer), B=1, C=2, D=3.
"""

from __future__ import annotations

import json

import pytest

from engine.claims import ClaimRefused
from engine.cli import main
from engine.errors import EngineError
from engine.events import FlowerGang, Gang, Pong, Win, WinInput
from engine.hand import MeldKind
from engine.table import TableState, apply
from engine.tiles import suited, wind
from engine.units import WinFlags
from tests.kit.harness import Table
from tests.kit.table_play import fresh, hu, net, run, win_flags

A, B, C, D = range(4)
EXAMPLE_1 = "123m 456m 789m 234p 5p +5p"  # menqing, 46 self-drawn with 2 hard flowers
NO_GANG = "234m 567m 23p 88s [SSS] +4p"  # the issue's hand: no gang anywhere
WITH_GANG = "11p 567s 79s [EEE] [4444p] +8s"


# ---- the CLI -----------------------------------------------------------------------------------


def cli(capsys: pytest.CaptureFixture[str], hand: str, *options: str) -> tuple[int, str | None, int]:
    code = main(["score", hand, *options, "--json"])
    body = json.loads(capsys.readouterr().out)
    return code, body["error"], body["total"]


@pytest.mark.parametrize(
    ("hand", "options", "reason"),
    [
        (NO_GANG, ["--self-draw", "--after-gang"], "claim.after_gang_no_gang"),
        (WITH_GANG, ["--hard-flowers", "4", "--after-gang"], "claim.after_gang_self_draw"),
        (EXAMPLE_1, ["--self-draw", "--after-flower"], "claim.after_flower_no_flower"),
        (EXAMPLE_1, ["--hard-flowers", "1", "--after-flower"], "claim.after_flower_self_draw"),
        (EXAMPLE_1, ["--self-draw", "--heavenly"], "claim.heavenly_not_dealer"),
        (EXAMPLE_1, ["--dealer", "--heavenly"], "claim.heavenly_self_draw"),
        (WITH_GANG, ["--hard-flowers", "4", "--dealer", "--self-draw", "--heavenly"], "claim.heavenly_melds"),
        (EXAMPLE_1, ["--dealer", "--earthly"], "claim.earthly_dealer"),
        (NO_GANG, ["--earthly"], "claim.earthly_melds"),
        (EXAMPLE_1, ["--self-draw", "--robbing-gang"], "claim.robbing_self_draw"),
        (EXAMPLE_1, ["--robbing-gang"], "claim.robbing_tile_count"),  # 5p held and won: twice
        (EXAMPLE_1, ["--hard-flowers", "4", "--last-stacks"], "claim.last_stacks_self_draw"),
    ],
)
def test_an_impossible_claim_is_refused_by_the_cli(
    capsys: pytest.CaptureFixture[str], hand: str, options: list[str], reason: str
) -> None:
    code, error, total = cli(capsys, hand, *options)
    assert (code, error, total) == (1, reason, 0)


def test_the_issue_hand_scored_102_with_an_impossible_after_gang_and_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # No gang, no flower gang: refused. Right after a flower gang (nanjing, 002) it stands:
    # 20 + 2×(0 hard + 风碰 1) + 无花果 40 + 大杠开花 40 = 102 (three suits: no 缺一; 23p waits 1p/4p).
    assert cli(capsys, NO_GANG, "--self-draw", "--after-gang")[:2] == (1, "claim.after_gang_no_gang")
    assert cli(capsys, NO_GANG, "--self-draw", "--after-flower-gang") == (0, None, 102)


def test_after_a_flower_gang_is_no_gang_opening_in_jinyuanzi(capsys: pytest.CaptureFixture[str]) -> None:
    code, error, _ = cli(capsys, NO_GANG, "--self-draw", "--after-flower-gang", "--preset", "jinyuanzi")
    assert (code, error) == (1, "claim.after_gang_no_gang")


def test_a_fitting_robbing_claim_is_scored(capsys: pytest.CaptureFixture[str]) -> None:
    # one 5p only (won): 20 + 2×(2 + 缺一 1) + 门清 20 = 46
    assert cli(capsys, "123m 456m 789m 34p 99p +5p", "--hard-flowers", "2", "--robbing-gang") == (0, None, 46)


@pytest.mark.parametrize("count", ["21", "-1"])
def test_more_than_20_or_negative_hard_flowers_is_bad_input(capsys: pytest.CaptureFixture[str], count: str) -> None:
    code, error, _ = cli(capsys, EXAMPLE_1, "--self-draw", "--hard-flowers", count)
    assert (code, error) == (2, "win.bad_flower_count")


# ---- the table -----------------------------------------------------------------------------------


def declared(winner: int, keys: tuple[str, ...], discarder: int | None = None, **flags: object) -> Win:
    values = WinFlags(**win_flags(discarder, **flags))  # type: ignore[arg-type]
    return Win((WinInput(winner, values, declared=keys),), discarder)


def refused(state: TableState, event: Win) -> str:
    with pytest.raises(ClaimRefused) as caught:
        apply(state, event)
    return caught.value.key


def test_table_after_gang_with_no_gang_logged_is_refused() -> None:
    # B typed an exposed gang but none was logged this hand: B's last event is no gang
    assert refused(fresh(), hu(B, WITH_GANG, hard_flowers=4, after_gang=True)) == "claim.after_gang_not_last"


def test_table_after_gang_needs_the_gang_to_be_the_winners_last_event() -> None:
    # B's concealed gang, then B pongs: the win is on a drawn tile after a pong, not after the gang
    state = run(fresh(), Gang(B, MeldKind.CONCEALED_GANG, None, suited(4, 1)), Pong(B, D, wind(0))).state
    hand = "11p 567s 79s [EEE] (4444p) +8s"
    assert refused(state, hu(B, hand, hard_flowers=4, after_gang=True)) == "claim.after_gang_not_last"


def test_table_after_gang_on_a_discard_is_refused() -> None:
    state = run(fresh(), Pong(B, D, wind(0)), Gang(B, MeldKind.EXPOSED_GANG, C, suited(4, 1))).state
    assert refused(state, hu(B, WITH_GANG, A, hard_flowers=4, after_gang=True)) == "claim.after_gang_self_draw"


def test_table_after_a_flower_gang_counts_in_nanjing_with_no_liability() -> None:
    # B ponged D's S, made a flower gang, won on its replacement: 102 (see the CLI test) from each, nobody liable
    state = run(fresh(), Pong(B, D, wind(1)), FlowerGang(B)).state
    outcome = apply(state, hu(B, NO_GANG, hard_flowers=0, after_gang=True))
    assert net(outcome.payments) == {A: -102, B: 306, C: -102, D: -102}
    assert not any(n.key == "table.liable" for n in outcome.notices)


def test_table_after_a_flower_gang_is_refused_in_jinyuanzi() -> None:
    state = run(fresh("jinyuanzi"), Pong(B, D, wind(1)), FlowerGang(B)).state
    assert refused(state, hu(B, NO_GANG, hard_flowers=0, after_gang=True)) == "claim.after_gang_not_last"


def test_table_after_flower_needs_a_hard_flower() -> None:
    assert refused(fresh(), hu(B, EXAMPLE_1, hard_flowers=0, after_flower=True)) == "claim.after_flower_no_flower"


def test_table_heavenly_only_for_the_dealer() -> None:
    assert refused(fresh(), hu(B, EXAMPLE_1, hard_flowers=2, heavenly=True)) == "claim.heavenly_not_dealer"


def test_table_heavenly_with_a_logged_pong_is_refused_declared_too() -> None:
    state = run(fresh(), Pong(A, C)).state
    assert refused(state, declared(A, ("qingyise",), hard_flowers=1, heavenly=True)) == "claim.heavenly_melds"


def test_table_earthly_not_for_the_dealer_nor_with_a_pong() -> None:
    assert refused(fresh(), hu(A, EXAMPLE_1, B, hard_flowers=2, earthly=True)) == "claim.earthly_dealer"
    state = run(fresh(), Pong(B, D, wind(1))).state
    assert refused(state, hu(B, NO_GANG, C, hard_flowers=4, earthly=True)) == "claim.earthly_melds"


def test_table_robbing_is_never_a_self_draw() -> None:
    robbing = Win((WinInput(D, WinFlags(hard_flowers=2, self_draw=True, robbing_gang=True), declared=()),), None)
    assert refused(fresh(), robbing) == "claim.robbing_self_draw"


def test_table_robbing_needs_the_robbed_players_pong_of_the_tile() -> None:
    # C ponged 7p, not 5p: D cannot rob a 5p from C
    state = run(fresh(), Pong(C, A, suited(7, 1))).state
    event = hu(D, "123m 456m 789m 34p 99p +5p", C, hard_flowers=2, robbing_gang=True)
    with pytest.raises(ClaimRefused) as caught:
        apply(state, event)
    assert caught.value.key == "claim.robbing_no_pong" and caught.value.params["seat"] == C


def test_table_robbing_with_the_tile_held_twice_is_refused() -> None:
    state = run(fresh(), Pong(C, A, suited(5, 1)), Gang(C, MeldKind.ADDED_GANG, None, suited(5, 1))).state
    event = hu(D, EXAMPLE_1, C, hard_flowers=2, robbing_gang=True)
    assert refused(state, event) == "claim.robbing_tile_count"


def test_table_last_stacks_needs_a_self_draw() -> None:
    assert refused(fresh(), hu(B, EXAMPLE_1, C, hard_flowers=2, last_stacks=True)) == "claim.last_stacks_self_draw"


@pytest.mark.parametrize("count", [21, -1])
def test_table_hard_flowers_outside_0_to_20_are_bad_input(count: int) -> None:
    for event in (hu(B, EXAMPLE_1, hard_flowers=count), declared(B, ("qingyise",), C, hard_flowers=count)):
        with pytest.raises(EngineError) as caught:
            apply(fresh(), event)
        assert caught.value.key == "win.bad_flower_count" and not isinstance(caught.value, ClaimRefused)


# ---- through the command layer ---------------------------------------------------------------------


async def test_an_impossible_claim_at_the_table_records_nothing(table: Table) -> None:
    await table.play("/new Alice Bob Carol Dave preset=nanjing stake=2\nBob: /pong Dave S")
    before = await table.row_counts()
    out = await table.say("Bob: /hu self after-gang 234m 567m 23p 88s [SSS] +4p flowers=0")
    assert "杠开要紧接着杠" in out
    assert await table.row_counts() == before
    out = await table.say("Bob: /hu self 123m 456m 789m 234p 5p +5p flowers=21")
    assert "21" in out and await table.row_counts() == before
