"""Less noise, clear units (issue: a five-line scoreboard after every 碰, /stats adding flowers of
different stakes, cut English sentences, /rules sections, the chart's last hand, the chart's path)."""

from __future__ import annotations

import io
from pathlib import Path

from bot.chat.service import Referee
from bot.console import Console
from bot.views.charts import cumulative_by_hand
from tests.kit.harness import Table


async def test_a_zero_money_event_prints_one_line_in_the_console(referee: Referee, tmp_path: Path) -> None:
    out = io.StringIO()
    console = Console(referee, "console", None, out, tmp_path)
    await console.run_line("/new A B C D")
    out.seek(0)
    out.truncate()
    await console.run_line("B: /pong C 7p")
    assert [line for line in out.getvalue().splitlines() if line] == ["✅ #2 B 碰 C 7p"]
    out.seek(0)
    out.truncate()
    await console.run_line("B: /gang D 5s")  # money moved: still one line, the board waits for the hand's end
    # an exposed gang on D's discard: D pays the ganger 6 (nanjing, 1 per flower)
    assert [line for line in out.getvalue().splitlines() if line] == ["✅ #3 B 明杠 D 5s · D → B：6 花（6）"]
    await console.run_line("B: /board each")  # the old way: the scoreboard after every event that moved money
    out.seek(0)
    out.truncate()
    await console.run_line("C: /gang A 6s")
    assert "📋" in out.getvalue()
    out.seek(0)
    out.truncate()
    await console.run_line("C: /pong A 7s")  # no money moved: one line even so
    assert [line for line in out.getvalue().splitlines() if line] == ["✅ #5 C 碰 A 7s"]


async def test_the_chart_is_written_where_the_path_says(referee: Referee, tmp_path: Path) -> None:
    referee.services.charts_enabled = True
    console = Console(referee, "console", None, io.StringIO(), tmp_path)
    await console.run_line("/new A B C D")
    await console.run_line("B: /gang D 5s")
    await console.run_line("/summary --chart out/x.png")
    assert (tmp_path / "out" / "x.png").read_bytes().startswith(b"\x89PNG")
    assert not (tmp_path / "x.png").exists()


def test_the_chart_has_a_point_for_every_hand_up_to_the_last() -> None:
    # 11 hands: hand 1 pays A 6 from B, hands 2-11 move nothing
    points = cumulative_by_hand([(1, 0, 6), (1, 1, -6)], 11)
    assert [hand for hand, _ in points] == list(range(12))
    assert points[-1] == (11, [6, -6, 0, 0])


async def test_stats_show_money_at_each_nights_stake(table: Table) -> None:
    await table.play("/new Alice Bob Carol Dave stake=1\nBob: /hu Carol flowers=5\n/summary\nyes")
    await table.play("/new Alice Bob Carol Dave stake=2\nBob: /hu self flowers=4\n/summary\nyes")
    stats = await table.say("/stats Bob")
    # night 1: 20 + 2×5 + 门清 20 = 50 flowers at 1 = 50; night 2: 20 + 2×4 + 门清 20 = 48 from each of
    # three = 144 flowers at 2 = 288. Money 50 + 288 = 338: what is said (194 flowers summed over two
    # stakes is no sum anyone settles, docs/rules.md 17d)
    assert "净 338 元" in stats and "194" not in stats


async def test_english_reads_whole(table: Table) -> None:
    await table.say("/lang en")
    await table.say("/new A B C D")
    out = await table.say("B: /gang C")
    assert "B made an exposed gang on C's discard" in out
    summary = await table.say("/summary")
    assert "A: won 0 (self-drawn 0), dealt in 0, gang money 0 flowers" in summary
    assert " ," not in summary


async def test_rules_sections(table: Table) -> None:
    await table.say("/new A B C D preset=chengbei")
    rules = (await table.say("/rules all")).splitlines()
    soft = rules.index("软花（每个）：")
    assert "硬花（每张）：1" in rules[:soft]
    assert not any(line.strip().startswith("硬花") for line in rules[soft:])
    assert "  大杠开花：整手 ×2（兜底翻）" in rules


async def test_traditional_rules_say_the_preset_in_traditional(table: Table) -> None:
    await table.say("/lang zh-Hant")
    await table.say("/new A B C D")
    header = (await table.say("/rules all")).splitlines()[0]
    assert "南京麻將" in header and "南京麻将" not in header
