"""The chart's drawing (bot/views/plot.py): round ticks, lines broken where a person did not sit, a
range that always shows zero, labels cut to fit, and a picture whatever the night holds."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from fontTools import subset
from fontTools.ttLib import TTCollection
from PIL import Image, ImageFont

from bot.views import plot
from bot.views.plot import LineChart, Series
from tests.kit.processes import gone


def test_a_step_is_one_two_two_and_a_half_or_five_times_a_power_of_ten() -> None:
    # 650 cut into at most 8: at least 81.25 a step; 100 is the first round one that large
    assert plot.round_step(650, 8) == 100
    # 300 into 8: at least 37.5; 25 is too small, 50 fits
    assert plot.round_step(300, 8) == 50
    # 8 hands into at most 12: at least 0.67, and a hand is whole: 1
    assert plot.ticks(0, 8, 12, whole=True) == [0, 1, 2, 3, 4, 5, 6, 7, 8]


def test_ticks_are_the_round_values_inside_the_range() -> None:
    assert plot.ticks(-270, 380, 8) == [-200, -100, 0, 100, 200, 300]
    assert plot.ticks(0, 100, 12, whole=True) == [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    assert [plot.tick_text(v) for v in plot.ticks(-1, 1, 4)] == ["-1", "-0.5", "0", "0.5", "1"]


def test_a_star_goes_only_on_the_points_a_line_may_be_starred_at() -> None:
    def chart(starred: frozenset[int] | None) -> bytes:
        series = (Series("A", (0, 10, 20), starred), Series("B", (0, -10, -20)))
        return plot.draw(LineChart("t", "x", "y", (0, 1, 2), series, frozenset({1}), "比下胡"), "PNG")

    everywhere = chart(None)
    assert chart(frozenset({0, 1, 2})) == everywhere  # hand 1 is A's: starred as without the set
    assert chart(frozenset({0, 2})) != everywhere  # hand 1 is not A's: no star on A's point there


def test_a_line_breaks_where_a_value_is_missing() -> None:
    points = [(0.0, 1.0), (1.0, None), (2.0, 3.0), (3.0, 4.0), (4.0, None)]
    assert plot._runs(points) == [[(0.0, 1.0)], [(2.0, 3.0), (3.0, 4.0)]]


def test_the_range_always_holds_zero_with_a_margin() -> None:
    chart = LineChart("t", "x", "y", (0, 1), (Series("A", (10, 20)),))
    # from 0 to 20, 6 % of 20 each side
    assert plot._value_range(chart) == pytest.approx((-1.2, 21.2))
    flat = LineChart("t", "x", "y", (0,), (Series("A", (0,)),))
    assert plot._value_range(flat) == (-1.0, 1.0)


def test_a_long_name_is_cut_to_fit_the_legend() -> None:
    face = plot.font(plot.FONT_SIZES[1])
    cut = plot._fitted("Evelyn Montgomery-Smith of the Eastern Wind", plot.FONT_SIZES[1], 100 * plot.S)
    assert cut.endswith("…") and face.getlength(cut) <= 100 * plot.S
    assert plot._fitted("Bob", plot.FONT_SIZES[1], 100 * plot.S) == "Bob"


@pytest.mark.parametrize(
    "series",
    [
        (Series("A", (0,)), Series("B", (0,))),  # the start only: no hand played
        (Series("A", (0, None, None)), Series("B", (None, 5, None))),  # single points between gaps
        tuple(Series(f"P{i}", (0, i, -i)) for i in range(12)),  # more people than colours
    ],
)
def test_any_night_draws_a_picture_of_the_size_sent(series: tuple[Series, ...]) -> None:
    xs = tuple(range(len(series[0].values)))
    jpeg = plot.draw(LineChart("Night 1", "hand", "flowers", xs, series, frozenset({1}), "doubled"))
    assert Image.open(io.BytesIO(jpeg)).size == (plot.WIDTH, plot.HEIGHT)


@pytest.fixture
def no_chinese_font(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The chart drawn as on a machine with no CJK font at all: in Pillow's own (Latin) font."""
    monkeypatch.setattr(plot, "cjk_font_file", lambda: None)
    forget_the_font()
    yield
    monkeypatch.undo()
    forget_the_font()


def forget_the_font() -> None:
    for kept in (plot.font, plot._has_glyph, plot._lettering, plot._fitted):
        kept.cache_clear()


def test_without_a_chinese_font_the_chart_still_draws(no_chinese_font: None) -> None:
    png = plot.draw(LineChart("Night 1", "hand", "flowers", (0, 1), (Series("Alice", (0, 3)),)), "PNG")
    assert png.startswith(b"\x89PNG")


# ---- Chinese drawn as Chinese, not as boxes --------------------------------------------------------

NAMES = ("张三", "李四", "王五", "趙六")
OTHER_NAMES = ("陳大文", "刘小红", "黄飞鸿", "鄭龍")


def night_of(names: tuple[str, ...]) -> LineChart:
    """The same night, whoever played it: 2 pays 1 34 in hand 1, 4 pays 3 46 in hand 2 (doubled)."""
    values = ((0, 34, 34), (0, -34, -34), (0, 0, 46), (0, 0, -46))
    series = tuple(Series(name, line) for name, line in zip(names, values, strict=True))
    return LineChart("第 1 局 累计输赢", "盘", "花", (0, 1, 2), series, frozenset({2}), "比下胡")


def legend_rows(chart: LineChart) -> list[bytes]:
    """The pixels of each name in the legend, as the chart is sent: a row a player, from where the
    names start to the picture's edge, 20 px high around the row's middle (plot._legend's layout)."""
    image = Image.open(io.BytesIO(plot.draw(chart, "PNG"))).convert("L")
    left, top = plot.LEGEND_LEFT // plot.S + 32, plot.PLOT[1] // plot.S + 10
    return [image.crop((left, top + 24 * row - 10, plot.WIDTH, top + 24 * row + 10)).tobytes() for row in range(4)]


def test_the_chart_is_drawn_in_the_packaged_font_needing_none_on_the_system() -> None:
    packaged = plot.packaged_font_file()
    assert packaged is not None, "paperang-p2-fonts-cjk is installed (requirements.lock)"
    assert plot.cjk_font_file() == packaged and not packaged.startswith("/usr/share/")
    assert ImageFont.truetype(packaged, 14).getname() == ("WenQuanYi Micro Hei", "Regular")


def test_other_names_draw_other_pixels_where_the_names_are() -> None:
    # a missing glyph is drawn as the font's one box, so two-letter names of boxes all look alike
    ours, theirs = legend_rows(night_of(NAMES)), legend_rows(night_of(OTHER_NAMES))
    assert all(row.count(255) < len(row) for row in ours)  # something is drawn in every row
    assert all(mine != other for mine, other in zip(ours, theirs, strict=True))
    assert len(set(ours)) == 4  # 张三 and 李四 (two letters each) differ in one chart too


def test_the_name_check_sees_boxes_where_there_are_boxes(no_chinese_font: None) -> None:
    # the check above fails on a chart drawn without a CJK font: 张三 and 陳大文 are boxes alike
    ours, theirs = legend_rows(night_of(NAMES)), legend_rows(night_of(OTHER_NAMES))
    assert ours[0] == ours[1] == ours[3]  # 张三, 李四, 趙六: two boxes each
    assert ours[0] != theirs[0]  # three boxes, not two
    assert plot.missing_glyphs("张三 Alice") == "张三"


def character_map() -> set[int]:
    """The characters the chart's font has a glyph for, read from its own table (the first font of
    the collection, the one Pillow draws with)."""
    filename = plot.cjk_font_file()
    assert filename is not None
    collection = TTCollection(filename)
    try:
        return set(collection.fonts[0].getBestCmap())
    finally:
        collection.close()


def test_the_font_has_every_letter_the_charts_draw_in_each_language() -> None:
    from bot.views.charts import balance_chart_of

    cmap = character_map()
    lines = [(name, [0, 1], [0, 0]) for name in (*NAMES, *OTHER_NAMES)]
    for language in ("zh-Hans", "zh-Hant", "en"):
        chart = balance_chart_of(12, lines, {1}, language)
        for text in plot.texts_of(chart):
            assert [c for c in text if not c.isspace() and ord(c) not in cmap] == [], (language, text)
            assert plot.missing_glyphs(text) == ""  # and the chart's own check agrees


def test_the_font_covers_every_gb2312_and_big5_hanzi() -> None:
    """Names in Chinese are written in the national character sets' hanzi: GB2312's 6,763
    (simplified: rows 16-87) and Big5's 5,401 + 7,652 (traditional: A440-C67E and C940-F9D5)."""
    gb2312 = [cell.decode("gb2312") for cell in cells(0xB0A1, 0xF7FE, (range(0xA1, 0xFF),), "gb2312")]
    big5_rows = (range(0x40, 0x7F), range(0xA1, 0xFF))
    big5 = [cell.decode("big5") for cell in (*cells(0xA440, 0xC67E, big5_rows), *cells(0xC940, 0xF9D5, big5_rows))]
    assert len(set(gb2312)) == 6763 and len(set(big5)) == 5401 + 7652
    cmap = character_map()
    assert [c for c in {*gb2312, *big5} if ord(c) not in cmap] == []


def cells(first: int, last: int, seconds: tuple[range, ...], codec: str = "") -> list[bytes]:
    """The two-byte codes from `first` to `last` whose second byte is in `seconds`; with a `codec`,
    only those it decodes (GB2312's row 55 ends five cells early)."""
    found = []
    for high in range(first >> 8, (last >> 8) + 1):
        for low in (low for row in seconds for low in row):
            cell = bytes((high, low))
            if first <= (high << 8 | low) <= last and (not codec or _decodes(cell, codec)):
                found.append(cell)
    return found


def _decodes(cell: bytes, codec: str) -> bool:
    try:
        cell.decode(codec)
    except UnicodeDecodeError:
        return False
    return True


def test_a_latin_font_is_not_taken_for_a_chinese_one(tmp_path: Path) -> None:
    # the packaged font cut down to its Latin letters: it draws 张 as its box, which is not Chinese
    packaged = plot.packaged_font_file()
    assert packaged is not None
    latin = tmp_path / "latin.ttf"
    options = subset.Options(font_number=0)
    face = subset.load_font(packaged, options)
    cutter = subset.Subsetter(options)
    cutter.populate(text="Alice Bob 0123456789")
    cutter.subset(face)
    subset.save_font(face, str(latin), options)
    assert not plot.draws_chinese(str(latin))
    assert plot.draws_chinese(packaged)


async def test_a_name_the_font_cannot_draw_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    from bot.views.charts import Charts

    charts = Charts()
    # 🀄 (an emoji) and 𠮷 (CJK extension B) are in no font here: drawn as boxes
    chart = night_of(("张三", "李四🀄", "𠮷田", "趙六"))
    with caplog.at_level(logging.WARNING, logger="bot.views.charts"):
        await charts.chart((1, 1, "zh-Hans"), chart)
        await charts.chart((1, 2, "zh-Hans"), chart)  # a new version: drawn again, not logged again
        await charts.chart((1, 3, "zh-Hans"), night_of(NAMES))  # names the font has: nothing to say
    warnings = [r.getMessage() for r in caplog.records if r.name == "bot.views.charts"]
    assert len(warnings) == 2, warnings
    assert "🀄 (U+1F004) in '李四🀄'" in warnings[0] and "𠮷 (U+20BB7) in '𠮷田'" in warnings[1]


async def test_charts_drawn_in_their_own_process_survive_its_death() -> None:
    """A drawing process that dies (killed, out of memory) costs no chart: it is drawn here and the
    processes are started again."""
    import os
    import signal

    from bot.views.charts import Charts

    charts = Charts()
    charts.start_drawing()
    try:
        await charts.ready()
        chart = LineChart("Night 1", "hand", "flowers", (0, 1), (Series("Alice", (0, 3)),))
        first = await charts.chart((1, 1, "en"), chart)
        assert Image.open(io.BytesIO(first)).format == "JPEG"
        drawer = charts._drawer
        assert drawer is not None
        for pid in list(drawer._processes):  # the process dies between two charts
            os.kill(pid, signal.SIGKILL)
        again = await charts.chart((1, 2, "en"), chart)
        assert Image.open(io.BytesIO(again)).size == (plot.WIDTH, plot.HEIGHT)
        assert await charts.chart((1, 2, "en"), chart) is again  # kept by its version
    finally:
        charts.stop_drawing()


def test_a_name_of_a_thousand_letters_is_cut_without_measuring_every_length() -> None:
    face = plot.font(plot.FONT_SIZES[1])
    cut = plot._fitted("龍" * 1000, plot.FONT_SIZES[1], 100 * plot.S)
    # at most LONGEST_LABEL letters are ever tried; what is kept fits with its "…"
    assert cut.endswith("…") and len(cut) <= plot.LONGEST_LABEL and face.getlength(cut) <= 100 * plot.S


def test_a_name_with_a_line_break_still_draws() -> None:
    chart = LineChart("Night 1", "hand", "flowers", (0, 1), (Series("Al\nice\u2029", (0, 3)),))
    assert plot.draw(chart).startswith(b"\xff\xd8")


def test_twenty_people_and_the_star_all_fit_in_the_legend() -> None:
    # 21 rows from y = 54 (×2): the rows close up so the last stays inside the picture
    rows = 21
    top = plot.PLOT[1] + 10 * plot.S
    step = min(24 * plot.S, (plot.HEIGHT * plot.S - top - 8 * plot.S) // (rows - 1))
    assert top + (rows - 1) * step <= plot.HEIGHT * plot.S - 8 * plot.S
    series = tuple(Series(f"P{i}", (0, i)) for i in range(20))
    assert plot.draw(LineChart("Night 1", "hand", "flowers", (0, 1), series, frozenset({1}), "doubled"))


@pytest.mark.parametrize(
    ("name", "image_format"),
    [("night.png", "PNG"), ("X.PNG", "PNG"), ("night.webp", "WEBP"), ("night.jpeg", "JPEG"), ("night", "JPEG")],
)
def test_a_chart_file_is_what_its_name_ends_with(name: str, image_format: str) -> None:
    assert plot.format_for(name) == image_format
    chart = LineChart("Night 1", "hand", "flowers", (0, 1), (Series("Alice", (0, 3)),))
    assert Image.open(io.BytesIO(plot.draw(chart, image_format))).format == image_format


async def test_a_dead_drawing_process_is_replaced_once_whatever_was_waiting_on_it() -> None:
    import asyncio
    import os
    import signal

    from bot.views.charts import Charts

    charts = Charts()
    charts.start_drawing()
    try:
        chart = LineChart("Night 1", "hand", "flowers", (0, 1), (Series("Alice", (0, 3)),))
        await charts.ready()  # the process is up
        await charts.chart((1, 1, "en"), chart)
        drawer = charts._drawer
        assert drawer is not None
        for pid in list(drawer._processes):
            os.kill(pid, signal.SIGKILL)
        drawn = await asyncio.gather(*(charts.chart((1, n, "en"), chart) for n in range(2, 6)))
        assert all(image.startswith(b"\xff\xd8") for image in drawn)
        replaced = charts._drawer
        assert replaced is not None and replaced is not drawer
        await charts.chart((1, 9, "en"), chart)
        assert charts._drawer is replaced  # the new process draws on: not replaced again
    finally:
        charts.stop_drawing()


async def test_a_stopped_drawing_process_gives_the_chart_up_and_is_replaced() -> None:
    """Issue #39: a drawing process stopped (SIGSTOP) or hung answers no chart. The chart is given up
    after `give_up` seconds (ChartNotDrawn: the summary goes out without it), the process is killed
    and another started, which draws the next chart."""
    import asyncio
    import os
    import signal

    from bot.views.charts import ChartNotDrawn, Charts

    charts = Charts(give_up=0.5)
    charts.start_drawing()
    try:
        await charts.ready()
        drawer = charts._drawer
        assert drawer is not None
        stopped = list(drawer._processes)
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        chart = LineChart("Night 1", "hand", "flowers", (0, 1), (Series("Alice", (0, 3)),))
        with pytest.raises(ChartNotDrawn):
            await charts.chart((1, 1, "en"), chart)
        assert charts._drawer is not None and charts._drawer is not drawer
        assert charts.replaced == 1
        assert (charts.health() or "").startswith("the drawing process did not answer and was replaced 1 time")
        while not all(gone(pid) for pid in stopped):  # killed, though stopped
            await asyncio.sleep(0.05)
        await charts.ready()
        assert (await charts.chart((1, 1, "en"), chart)).startswith(b"\xff\xd8")  # the new one draws it
        assert charts.replaced == 1
    finally:
        charts.stop_drawing()


async def test_a_drawing_process_stopped_while_idle_is_found_by_the_health_probe() -> None:
    """Nobody asks for a chart: the heartbeat's `health` probes the process, finds it stuck once the
    probe has waited longer than `give_up`, says so and replaces it, so the next chart does not wait."""
    import asyncio
    import os
    import signal

    from bot.views.charts import Charts

    charts = Charts(give_up=0.3)
    charts.start_drawing()
    try:
        await charts.ready()
        assert charts.health() is None  # well: a probe is sent
        drawer = charts._drawer
        assert drawer is not None
        for pid in list(drawer._processes):
            os.kill(pid, signal.SIGSTOP)
        assert charts.health() is None  # a probe now (or the first one, stopped too, still waits)
        while charts.stuck_for() <= charts.give_up:
            await asyncio.sleep(0.05)
        said = charts.health()
        assert said is not None and said.startswith("stuck: the drawing process did not answer")
        assert charts._drawer is not drawer and charts.replaced == 1
        await charts.ready()
        chart = LineChart("Night 1", "hand", "flowers", (0, 1), (Series("Alice", (0, 3)),))
        assert (await charts.chart((1, 1, "en"), chart)).startswith(b"\xff\xd8")
    finally:
        charts.stop_drawing()


def colour_pixels(picture: bytes, colour: tuple[int, int, int]) -> int:
    """How many pixels of the plotting area (not the legend) are `colour`."""
    image = Image.open(io.BytesIO(picture)).convert("RGB")
    left, top, right, bottom = (edge // plot.S for edge in plot.PLOT)
    area = image.crop((left + 2, top + 2, right - 2, bottom - 2))
    data, wanted = area.tobytes(), bytes(colour)
    return sum(1 for at in range(0, len(data), 3) if data[at : at + 3] == wanted)


def test_lines_at_the_same_values_are_each_visible() -> None:
    """Four players still at 0 after a hand of pongs, then two who stay level: every player's line
    shows (#48 item 9), side by side where they run together, not one drawn over the others."""
    xs = (0, 1, 2, 3)
    series = (
        Series("A", (0, 0, 6, 6)),
        Series("B", (0, 0, -6, -6)),
        Series("C", (0, 0, 0, 0)),
        Series("D", (0, 0, 0, 0)),
    )
    picture = plot.draw(LineChart("t", "x", "y", xs, series), "PNG")
    for index in range(len(series)):
        assert colour_pixels(picture, plot.COLOURS[index]) > 100, series[index].label
