"""A person keeps their own money everywhere (after a 换人 the one who left keeps their hands): the CSV
export, the chart's lines, /stats, /score after closing and /summary agree person by person."""

from __future__ import annotations

import csv
import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.chat.service import Referee
from bot.store.ledger import Ledger
from bot.views.charts import end_points, night_chart, night_lines
from tests.kit.harness import Table


def csv_money(data: bytes) -> dict[str, float]:
    """Per person: money received minus money paid, from the exported rows."""
    totals: dict[str, float] = {}
    for row in csv.DictReader(io.StringIO(data.decode("utf-8-sig"))):
        if row["payer"]:
            totals[row["payer"]] = totals.get(row["payer"], 0) - float(row["money"])
            totals[row["payee"]] = totals.get(row["payee"], 0) + float(row["money"])
    return totals


SWAP_NIGHT = """/new 张三 李四 王五 赵六 stake=1
赵六: /gang 张三 5s
换人 赵六 钱七
张三: /gang 钱七 6s
钱七: 暗杠 3m"""


async def test_after_a_swap_the_csv_gives_each_person_their_own_hands(table: Table) -> None:
    await table.play(SWAP_NIGHT)
    response = await table.respond("/export")
    assert response is not None
    # 赵六's exposed gang on 张三: 张三 pays 6 → 赵六 +6. After the swap 张三 gangs 钱七's discard: 钱七
    # pays 6; 钱七's concealed gang: each of 张三 李四 王五 pays 3 → 钱七 −6 + 9 = +3.
    # 张三 −6 + 6 − 3 = −3, 李四 −3, 王五 −3. At 1 a flower the money is the same.
    assert csv_money(response.attachments[0].data) == {"赵六": 6, "张三": -3, "钱七": 3, "李四": -3, "王五": -3}
    summary = await table.say("/summary")
    assert "赵六" in summary and "钱七" in summary


async def test_the_chart_draws_one_line_per_person_with_a_gap_where_they_did_not_sit(table: Table) -> None:
    await table.play(SWAP_NIGHT + "\n/draw\n张三: /gang 李四 7s\n/draw")
    night = await table.referee.nights.latest("group-1")
    assert night is not None
    lines = night_lines(night, await night.tally())
    # hand 1 as above, ended by a draw, so hand 2 is 比下胡: 张三's exposed gang on 李四 is 6 × 2 = 12
    # → 张三 −3 + 12 = 9, 李四 −3 − 12 = −15
    assert end_points(lines) == {"张三": 9, "李四": -15, "王五": -3, "赵六": 6, "钱七": 3}
    values = {name: values for name, _, values in lines}
    assert values["赵六"][0] == 0 and values["赵六"][1] == 6 and values["赵六"][2:] == [None]
    assert values["钱七"][0] == 0 and values["钱七"][-1] == 3


async def test_a_newcomer_has_no_star_on_the_doubled_hand_before_he_sat_down(table: Table) -> None:
    """Hand 1 a 荒庄, so hand 2 is 比下胡 (RULES §9); A wins it; 钱七 takes 赵六's seat after it. 钱七's
    line starts at 0 at hand 2, the hand before he sat down: drawn there, starred only where he sat
    (hand 3, also 比下胡: A's dealer win, §9); 赵六 played hands 1-2 and none after."""
    await table.play(
        "/new 张三 李四 王五 赵六\n/draw\n张三: /hu self 123m456m789m234p5p+5p flowers=2\n"
        "换人 赵六 钱七\n李四: /hu self 123m456m789m234p5p+5p flowers=2"
    )
    night = await table.referee.nights.latest("group-1")
    assert night is not None
    chart = night_chart(night, await night.tally(), "zh-Hans")
    assert chart.xs == (0, 1, 2, 3) and chart.marked == {2, 3}
    series = {s.label: s for s in chart.series}
    assert series["钱七"].values[2] == 0 and series["钱七"].starred == {3}
    assert series["赵六"].values[3] is None and series["赵六"].starred == {0, 1, 2}
    assert series["张三"].starred == {0, 1, 2, 3}


async def test_score_after_closing_lists_the_one_who_left(table: Table) -> None:
    await table.play(SWAP_NIGHT + "\n/summary\nyes")
    score = await table.say("/score")
    assert "赵六" in score


async def test_stats_rates_are_over_the_hands_each_person_played(table: Table) -> None:
    # 赵六 wins hand 1 off 张三 then leaves; 钱七 plays hands 2 to 4, all draws
    await table.play("/new 张三 李四 王五 赵六\n赵六: /hu 张三 flowers=5\n换人 赵六 钱七\n/draw\n/draw\n/draw")
    stats = await table.say("/stats 赵六")
    # 赵六 played one hand and won it: 1 / 1 = 100%, not 1 / 4 = 25%
    assert "100%" in stats


MOVES = st.lists(
    st.sampled_from(["gang", "selfgang", "swap", "draw", "hu"]),
    min_size=1,
    max_size=8,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(moves=MOVES, seats=st.lists(st.integers(0, 3), min_size=8, max_size=8))
async def test_csv_chart_and_summary_agree_for_random_nights_with_swaps(
    tmp_path_factory: object, moves: list[str], seats: list[int]
) -> None:
    ledger = await Ledger.open(tmp_path_factory.mktemp("n") / "l.sqlite3")  # type: ignore[attr-defined]
    try:
        table = Table(Referee(ledger, charts_enabled=False), "chat")
        names = ["A", "B", "C", "D"]
        await table.say("/new A B C D stake=2")
        fresh = iter(f"P{n}" for n in range(20))
        tiles = iter(["1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "1m", "2m", "3m"])
        for move, seat in zip(moves, seats, strict=False):
            actor, other = names[seat], names[(seat + 1) % 4]
            if move == "gang":
                await table.say(f"{actor}: /gang {other} {next(tiles)}")
            elif move == "selfgang":
                await table.say(f"{actor}: 暗杠 {next(tiles)}")
            elif move == "swap":
                newcomer = next(fresh)
                await table.say(f"换人 {actor} {newcomer}")
                names[seat] = newcomer
            elif move == "draw":
                await table.say("/draw")
            else:
                await table.say(f"{actor}: /hu {other} flowers=3")
        night = await table.referee.nights.latest("chat")
        assert night is not None
        response = await table.respond("/export")
        assert response is not None
        by_csv = csv_money(response.attachments[0].data)
        everyone = night.people()
        ends = end_points(night_lines(night, await night.tally()))
        for person in everyone:
            assert by_csv.get(person.name, 0) * 100 == person.money_cents
            assert ends[person.name] == person.amount
    finally:
        await ledger.close()
