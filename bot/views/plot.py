"""A line chart drawn with Pillow: a title, axes with round ticks, a line per series (gaps where a
value is missing), marked points, and a legend beside the plot; encoded as JPEG or PNG.

Why Pillow and not a plotting library: a night's chart is a few hundred segments and a dozen labels,
which Pillow draws in a few milliseconds of CPU (matplotlib took 70–190 ms a chart and 60 MB), so
twenty tables asking `/summary` at once are not a queue. The text is drawn in a CJK font, so Chinese
names and labels never come out as boxes: WenQuanYi Micro Hei as the pinned dependency
`paperang-p2-fonts-cjk` ships it (`packaged_font_file`: the file of Debian's `fonts-wqy-microhei`, so
it needs nothing from the system), else the first of `CJK_FONT_FILES` found, else what fontconfig
names for Chinese; a font is taken only if it really draws Chinese (`draws_chinese`). What it has no
glyph for (an emoji, a character newer than the font) is drawn as its box: `missing_glyphs` says which.
"""

from __future__ import annotations

import io
import itertools
import math
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

PACKAGED_FONT = ("paperang_p2_fonts_cjk", "fonts/wqy-microhei.ttc")  # (package, file in it): pyproject.toml
CJK_FONT_FILES = (  # on the system: fonts with Chinese glyphs (simplified and traditional), preferred first
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",  # Debian's fonts-wqy-microhei: the packaged one's twin
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/System/Library/Fonts/PingFang.ttc",  # macOS
    "/System/Library/Fonts/STHeiti Light.ttc",
    "/Library/Fonts/Arial Unicode.ttf",
    "C:/Windows/Fonts/msyh.ttc",  # Windows: Microsoft YaHei
    "C:/Windows/Fonts/simhei.ttf",
)
COLOURS = (  # one a series, in turn: distinct on a phone in daylight (matplotlib's "tab10")
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
)
WHITE, BLACK = (255, 255, 255), (0, 0, 0)
GRID, ZERO, FRAME = (226, 226, 226), (150, 150, 150), (60, 60, 60)
WIDTH, HEIGHT = 800, 450  # the picture sent
S = 2  # drawn this many times larger, then shrunk: smooth lines and letters for a few ms more
LINE_WIDTH = 2 * S  # a series' line; lines at one value are drawn this far apart, side by side
PLOT = (70 * S, 44 * S, 630 * S, 394 * S)  # left, top, right, bottom of the plotting area
LEGEND_LEFT = 644 * S
JPEG_QUALITY = 92
FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP", ".gif": "GIF", ".bmp": "BMP"}
LONGEST_LABEL = 60  # characters a legend row is cut from: no longer one fits beside the plot
FONT_SIZES = (13, 14, 18)  # tick labels; axis labels and legend; title


@dataclass(frozen=True)
class Series:
    """One line: its label and a value at each x (None where it has none: the line breaks there)."""

    label: str
    values: tuple[float | None, ...]  # flowers, or money in whole units (a night that mixes stakes)
    # the xs this line may be starred at (None: all): a newcomer's line starts at the hand before
    # he sat down, a 比下胡 he did not play
    starred: frozenset[int] | None = None


@dataclass(frozen=True)
class LineChart:
    title: str
    x_label: str
    y_label: str
    xs: tuple[int, ...]  # integers, ascending
    series: tuple[Series, ...]
    marked: frozenset[int] = frozenset()  # the xs whose points get a star
    mark_label: str = ""  # the legend's word for a star, when some are marked


# ---- fonts --------------------------------------------------------------------------------------


@cache
def cjk_font_file() -> str | None:
    """The font file the chart is drawn in: the packaged one, else the first of `CJK_FONT_FILES`
    that draws Chinese, else the one fontconfig names for Chinese (asked only then); None if there is
    none (Latin text still draws)."""
    for filename in itertools.chain(_packaged_font(), CJK_FONT_FILES, _fontconfig_chinese()):
        if Path(filename).is_file() and draws_chinese(filename):
            return filename
    return None


def packaged_font_file() -> str | None:
    """WenQuanYi Micro Hei as the dependency `paperang-p2-fonts-cjk` installs it; None without it."""
    package, name = PACKAGED_FONT
    try:
        found = resources.files(package).joinpath(name)
    except ModuleNotFoundError:
        return None
    return str(found) if found.is_file() else None


def _packaged_font() -> Iterator[str]:
    filename = packaged_font_file()
    if filename is not None:
        yield filename


def _fontconfig_chinese() -> Iterator[str]:
    if shutil.which("fc-match") is None:
        return
    try:
        found = subprocess.run(
            ["fc-match", "--format=%{file}", ":lang=zh-cn"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return
    if found.stdout.strip():
        yield found.stdout.strip()


def draws_chinese(filename: str) -> bool:
    """Whether the font draws 张 as a glyph of its own, not as its box for a character it lacks."""
    try:
        font = ImageFont.truetype(filename, 16)
    except OSError:
        return False
    return font.getmask("张").getbbox() is not None and not _is_box(font, "张")


NO_GLYPH = "\U0010fffd"  # a private-use character no font here has: what a font draws for what it lacks
# (not a variation selector, as before: laid out with raqm, one of those draws nothing, so a Latin font's
# box for 张 passed for Chinese)


def _is_box(face: ImageFont.FreeTypeFont | ImageFont.ImageFont, char: str) -> bool:
    """Whether `face` draws `char` exactly as it draws a character it has no glyph for."""
    drawn, box = face.getmask(char), face.getmask(NO_GLYPH)
    return drawn.size == box.size and bytes(drawn) == bytes(box)


def missing_glyphs(text: str) -> str:
    """The characters of `text` the chart draws as boxes (each once, in order): none in the font."""
    return "".join(dict.fromkeys(char for char in _printable(text) if not _has_glyph(char)))


@lru_cache(maxsize=4096)
def _has_glyph(char: str) -> bool:
    return not _is_box(font(FONT_SIZES[1]), char)


def texts_of(chart: LineChart) -> tuple[str, ...]:
    """Every text the chart draws: the title, the axes, each line's name and the star's word."""
    return (chart.title, chart.x_label, chart.y_label, *(s.label for s in chart.series), chart.mark_label)


@cache
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    filename = cjk_font_file()
    if filename is None:
        return ImageFont.load_default(size * S)
    return ImageFont.truetype(filename, size * S)


# ---- ticks --------------------------------------------------------------------------------------


def round_step(span: float, most: int) -> float:
    """The smallest step of 1, 2, 2.5 or 5 times a power of ten that cuts `span` into at most `most`."""
    if span <= 0:
        return 1.0
    rough = span / most
    power = 10.0 ** math.floor(math.log10(rough))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= rough)


def ticks(low: float, high: float, most: int, whole: bool = False) -> list[float]:
    """Round values from `low` to `high` (whole numbers only, if asked), at most about `most` of them."""
    step = round_step(high - low, most)
    if whole:
        step = max(1.0, math.ceil(step))
    first = math.ceil(low / step - 1e-9) * step
    count = math.floor((high - first) / step + 1e-9) + 1
    return [first + i * step for i in range(max(count, 0))]


def tick_text(value: float) -> str:
    return str(round(value)) if abs(value - round(value)) < 1e-9 else f"{value:g}"


# ---- drawing ------------------------------------------------------------------------------------


def draw(chart: LineChart, image_format: str = "JPEG") -> bytes:
    """The chart as `image_format` bytes (JPEG, or one of `FORMATS`)."""
    image = Image.new("RGB", (WIDTH * S, HEIGHT * S), WHITE)
    pen = ImageDraw.Draw(image)
    left, top, right, bottom = PLOT
    low, high = _value_range(chart)
    first_x, last_x = chart.xs[0], chart.xs[-1]
    x_span = max(last_x - first_x, 1)

    def x_at(x: float) -> float:
        return left + 8 * S + (right - left - 16 * S) * (x - first_x) / x_span

    def y_at(y: float) -> float:
        return bottom - (bottom - top) * (y - low) / (high - low)

    for value in ticks(low, high, 8):
        y = y_at(value)
        pen.line([(left, y), (right, y)], fill=ZERO if value == 0 else GRID, width=S)
        _write(image, (left - 6 * S, y), tick_text(value), FONT_SIZES[0], FRAME, "rm")
    for value in ticks(first_x, last_x, 12, whole=True):
        x = x_at(value)
        pen.line([(x, top), (x, bottom)], fill=GRID, width=S)
        _write(image, (x, bottom + 6 * S), tick_text(value), FONT_SIZES[0], FRAME, "mt")
    pen.rectangle(PLOT, outline=FRAME, width=S)
    spacing = (right - left) / S / max(len(chart.xs) - 1, 1)
    dot = 3 if spacing >= 9 else 0  # dots only where they stand apart (a long night draws its lines alone)
    shifts = side_by_side(chart.series, LINE_WIDTH)
    for index, series in enumerate(chart.series):
        colour = COLOURS[index % len(COLOURS)]
        points = [
            (x_at(x), None if v is None else y_at(v) + shift)
            for x, v, shift in zip(chart.xs, series.values, shifts[index], strict=True)
        ]
        for run in _runs(points):
            if len(run) > 1:
                pen.line(run, fill=colour, width=LINE_WIDTH, joint="curve")
            for x, y in run:
                if dot or len(run) == 1:
                    radius = (dot or 3) * S
                    pen.ellipse([x - radius, y - radius, x + radius, y + radius], fill=colour)
        for x, v, shift in zip(chart.xs, series.values, shifts[index], strict=True):
            if x in chart.marked and v is not None and (series.starred is None or x in series.starred):
                _star(pen, x_at(x), y_at(v) + shift, 8 * S, BLACK)
    _write(image, (WIDTH * S / 2, 12 * S), chart.title, FONT_SIZES[2], BLACK, "mt")
    _write(image, ((left + right) / 2, bottom + 26 * S), chart.x_label, FONT_SIZES[1], BLACK, "mt")
    _upright_text(image, chart.y_label, font(FONT_SIZES[1]), (16 * S, (top + bottom) / 2))
    _legend(image, pen, chart)
    image = image.reduce(S)
    out = io.BytesIO()
    if image_format == "JPEG":  # Telegram sends a photo on as JPEG anyway; this one nearly lossless
        image.save(out, format="JPEG", quality=JPEG_QUALITY, subsampling=0)  # (no colour halving)
    else:
        image.save(out, format=image_format)
    return out.getvalue()


def side_by_side(series: Sequence[Series], apart: float) -> list[list[float]]:
    """How far each series' point at each x is moved down (pixels; negative: up) so that lines at the
    same value there run side by side, centred on it, `apart` from each other: four players still at
    0 are four lines, never one drawn over the others (#48 item 9). A line alone at its value stays."""
    shifts = [[0.0] * len(s.values) for s in series]
    for at in range(len(series[0].values) if series else 0):
        level: dict[float, list[int]] = {}
        for index, line in enumerate(series):
            value = line.values[at]
            if value is not None:
                level.setdefault(value, []).append(index)
        for together in level.values():
            for rank, index in enumerate(together):
                shifts[index][at] = (rank - (len(together) - 1) / 2) * apart
    return shifts


def format_for(filename: str) -> str:
    """The image format a file name asks for by its ending (`x.png`: PNG); JPEG for any other."""
    return FORMATS.get(Path(filename).suffix.lower(), "JPEG")


def _value_range(chart: LineChart) -> tuple[float, float]:
    """The y range: every value and zero, with a margin so no line runs along the frame."""
    values = [v for s in chart.series for v in s.values if v is not None] or [0]
    low, high = min(0, *values), max(0, *values)
    if low == high:
        return low - 1.0, high + 1.0
    margin = (high - low) * 0.06
    return low - margin, high + margin


def _runs(points: Sequence[tuple[float, float | None]]) -> list[list[tuple[float, float]]]:
    """The unbroken stretches of a line: a missing value ends one."""
    runs: list[list[tuple[float, float]]] = [[]]
    for x, y in points:
        if y is None:
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append((x, y))
    return [run for run in runs if run]


def _star(pen: ImageDraw.ImageDraw, x: float, y: float, radius: float, colour: tuple[int, int, int]) -> None:
    corners = [
        (
            x + (radius if i % 2 == 0 else radius * 0.42) * math.sin(math.pi * i / 5),
            y - (radius if i % 2 == 0 else radius * 0.42) * math.cos(math.pi * i / 5),
        )
        for i in range(10)
    ]
    pen.polygon(corners, fill=colour)


def _write(
    image: Image.Image, at: tuple[float, float], text: str, size: int, colour: tuple[int, int, int], anchor: str
) -> None:
    """`text` placed by `anchor` (Pillow's: "mt" is middle top, "rm" right middle, …) at `at`."""
    lettering, (dx, dy) = _lettering(_printable(text), size, anchor)
    x, y = round(at[0]) + dx, round(at[1]) + dy
    image.paste(colour, (x, y, x + lettering.width, y + lettering.height), lettering)


def _printable(text: str) -> str:
    """`text` with a space for what cannot be laid out on one line (a line break, a control)."""
    return "".join(c if c.isprintable() else " " for c in text)


@lru_cache(maxsize=1024)
def _lettering(text: str, size: int, anchor: str) -> tuple[Image.Image, tuple[int, int]]:
    """The letters of `text` as a mask, and where its corner lies from the anchor point: kept, since
    most of a chart's words (tick values, names, the axes) are the same from one chart to the next,
    and drawing letters is a third of drawing a chart."""
    face = font(size)
    left, top, right, bottom = (int(v) for v in face.getbbox(text, anchor=anchor))
    lettering = Image.new("L", (max(right - left, 1), max(bottom - top, 1)), 0)
    ImageDraw.Draw(lettering).text((-left, -top), text, font=face, fill=255, anchor=anchor)
    return lettering, (left, top)


def _upright_text(
    image: Image.Image, text: str, face: ImageFont.FreeTypeFont | ImageFont.ImageFont, centre: tuple[float, float]
) -> None:
    """`text` turned a quarter left (read bottom to top), centred on `centre`."""
    text = _printable(text)
    box = face.getbbox(text)
    width, height = int(box[2] - box[0]) + 4, int(box[3] - box[1]) + 4
    label = Image.new("L", (max(width, 1), max(height, 1)), 0)
    ImageDraw.Draw(label).text((2 - box[0], 2 - box[1]), text, font=face, fill=255)
    turned = label.rotate(90, expand=True)
    at = (int(centre[0] - turned.width / 2), int(centre[1] - turned.height / 2))
    image.paste(BLACK, (*at, at[0] + turned.width, at[1] + turned.height), turned)


def _legend(image: Image.Image, pen: ImageDraw.ImageDraw, chart: LineChart) -> None:
    """A row a series beside the plot, then the star's meaning; a long label is cut to fit, and the
    rows close up when there are more than the plot's height holds at the usual spacing."""
    room = WIDTH * S - LEGEND_LEFT - 36 * S
    y = PLOT[1] + 10 * S
    rows = len(chart.series) + (1 if chart.marked and chart.mark_label else 0)
    step = min(24 * S, (HEIGHT * S - y - 8 * S) // max(rows - 1, 1))
    for index, series in enumerate(chart.series):
        colour = COLOURS[index % len(COLOURS)]
        pen.line([(LEGEND_LEFT, y), (LEGEND_LEFT + 24 * S, y)], fill=colour, width=2 * S)
        pen.ellipse([LEGEND_LEFT + 9 * S, y - 3 * S, LEGEND_LEFT + 15 * S, y + 3 * S], fill=colour)
        label = _fitted(series.label or "?", FONT_SIZES[1], room)
        _write(image, (LEGEND_LEFT + 32 * S, y), label, FONT_SIZES[1], BLACK, "lm")
        y += step
    if chart.marked and chart.mark_label:
        _star(pen, LEGEND_LEFT + 12 * S, y, 8 * S, BLACK)
        _write(
            image, (LEGEND_LEFT + 32 * S, y), _fitted(chart.mark_label, FONT_SIZES[1], room), FONT_SIZES[1], BLACK, "lm"
        )


@lru_cache(maxsize=256)
def _fitted(text: str, size: int, room: int) -> str:
    """`text`, or its longest start that fits `room` with "…" after it (found by halving): kept, as
    a chat's names are the same on every chart (measuring them was a tenth of a chart's time)."""
    face = font(size)
    text = _printable(text)
    if face.getlength(text) <= room:
        return text
    fits, too_long = 0, min(len(text), LONGEST_LABEL)
    while too_long - fits > 1:
        middle = (fits + too_long) // 2
        if face.getlength(text[:middle] + "…") <= room:
            fits = middle
        else:
            too_long = middle
    return text[:fits] + "…"
