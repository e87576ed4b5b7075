"""End of the night: fewest transfers, the chart, statistics, /me, CSV export."""

from __future__ import annotations

import io
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from bot.chat.service import Referee
from bot.views.charts import balance_chart
from bot.views.plot import cjk_font_file, draws_chinese
from engine.transfers import minimal_transfers
from tests.kit.harness import Table


def brute_force_minimum(balances: list[int]) -> int:
    """The fewest transfers by trying every split of the non-zero players into zero-sum groups."""
    players = [b for b in balances if b]
    best = len(players)
    for size in range(1, len(players) + 1):
        for labels in itertools.product(range(size), repeat=len(players)):
            groups = [[p for p, g in zip(players, labels, strict=True) if g == k] for k in range(size)]
            if all(groups) and all(sum(g) == 0 for g in groups):
                best = min(best, len(players) - size)
    return best


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-500, 500), min_size=3, max_size=3))
def test_transfers_settle_exactly_with_the_brute_force_minimum(three: list[int]) -> None:
    balances = [*three, -sum(three)]
    transfers = minimal_transfers(balances)
    left = list(balances)
    for transfer in transfers:
        assert transfer.amount > 0
        left[transfer.payer] += transfer.amount
        left[transfer.payee] -= transfer.amount
    assert left == [0, 0, 0, 0]
    assert len(transfers) == brute_force_minimum(balances)


def test_two_pairs_settle_in_two_transfers_not_three() -> None:
    assert len(minimal_transfers([10, -10, 5, -5])) == 2


def test_the_chart_is_a_jpeg_photo_or_a_png_file_drawn_in_a_font_that_draws_chinese() -> None:
    font_file = cjk_font_file()
    assert font_file is not None, "a CJK font is installed (paperang-p2-fonts-cjk, from requirements.lock)"
    assert draws_chinese(font_file)
    # 李四 pays 张三 34 in hand 1, 趙六 pays 王五 46 in hand 2 (the 比下胡 hand, starred)
    lines = [
        ("张三", [0, 1, 2], [0, 34, 34]),
        ("李四", [0, 1, 2], [0, -34, -34]),
        ("王五", [0, 1, 2], [0, 0, 46]),
        ("趙六", [0, 1, 2], [0, 0, -46]),
    ]
    photo = balance_chart(1, lines, {2}, "zh-Hans")
    assert photo.startswith(b"\xff\xd8") and 10_000 < len(photo) < 500_000
    image = Image.open(io.BytesIO(photo))
    assert image.format == "JPEG" and image.size == (800, 450)
    assert balance_chart(1, lines, {2}, "zh-Hans", "PNG").startswith(b"\x89PNG")


async def test_summary_in_the_console_writes_the_named_chart(ledger: object, tmp_path: object) -> None:
    referee = Referee(ledger, charts_enabled=True)  # type: ignore[arg-type]
    table = Table(referee, "chat")
    await table.play("/new 张三 李四 王五 赵六\n李四: 暗杠 3m")
    response = await table.respond("/summary --chart night.png")
    assert response is not None and response.attachments[0].filename == "night.png"
    assert response.attachments[0].data.startswith(b"\x89PNG")


async def test_stats_across_nights_of_one_chat_only(referee: Referee) -> None:
    first, other = Table(referee, "chat-a"), Table(referee, "chat-b")
    await first.play("/new Alice Bob Carol Dave\nBob: /hu Carol flowers=5\n/summary\nyes")
    await first.play("/new Alice Bob Carol Dave\nBob: /hu self flowers=4\n/summary\nyes")
    await other.play("/new Alice Bob Carol Dave\nCarol: /hu Bob flowers=9")
    stats = await first.say("/stats Bob")
    # nothing ponged, so 门清 from the log: 20 + 2×5 + 20 = 50 from Carol, then 20 + 2×4 + 20 = 48 from
    # each of three: 50 + 144 = 194
    assert "2 局" in stats and "净 194" in stats
    assert "Carol" not in stats
    assert "本群共 1 局" in await other.say("/stats")


async def test_export_is_utf8_csv_with_a_bom(table: Table) -> None:
    await table.play("/new 张三 李四 王五 赵六\n李四: 暗杠 3m")
    response = await table.respond("/export")
    assert response is not None
    data = response.attachments[0].data
    assert data.startswith("\ufeff".encode()) and "李四" in data.decode("utf-8-sig")
    assert data.decode("utf-8-sig").splitlines()[0].startswith("number,time,hand")


async def test_me_only_in_private(table: Table) -> None:
    await table.play("/new Alice Bob Carol Dave")
    assert "私聊" in await table.say("Bob: /me")


async def test_a_summary_still_waits_for_yes_while_people_only_look(table: Table) -> None:
    """结算, then 导出 and 查分 (the natural order at a table), then 确认: the night closes. A table
    event after the summary makes it stale: 确认 asks for the summary again."""
    await table.play("/new 张三 李四 王五 赵六\n李四: 碰 王五")
    await table.play("张三: 结算\n张三: 导出\n张三: 查分\n张三: 荒庄了吧？\n张三: 记录")
    assert "第 1 局已结束" in await table.say("张三: 确认")


async def test_a_table_event_after_the_summary_asks_for_it_again(table: Table) -> None:
    await table.play("/new Alice Bob Carol Dave\nBob: /pong Carol\nAlice: /summary\nCarol: /pong Dave")
    assert "/summary" in await table.say("Alice: yes")  # close.summary_first: nothing closed
    assert "✅" in await table.say("Dave: /pong Alice")  # the night is still open
