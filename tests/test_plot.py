"""The chart's drawing (bot/views/plot.py): round ticks, lines broken where a person did not sit, a
range that always shows zero, labels cut to fit, and a picture whatever the night holds."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.views import plot
from bot.views.plot import LineChart, Series


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


def test_without_a_chinese_font_the_chart_still_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plot, "cjk_font_file", lambda: None)
    plot.font.cache_clear()
    try:
        png = plot.draw(LineChart("Night 1", "hand", "flowers", (0, 1), (Series("Alice", (0, 3)),)), "PNG")
        assert png.startswith(b"\x89PNG")
    finally:
        plot.font.cache_clear()


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


def gone(pid: int) -> bool:
    """The process has exited (a zombie not yet reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


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
