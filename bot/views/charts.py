"""The night's chart: each player's cumulative balance after each hand, 比下胡 hands marked.

Rendered with matplotlib's Agg backend (no screen) in a CJK font, so Chinese names and labels never
come out as boxes: WenQuanYi Micro Hei (Debian's `fonts-wqy-microhei`, 5 MB, simplified and
traditional), which the Docker image and CI install; elsewhere the first installed font of
`CJK_FAMILIES` (what macOS, Windows and other Linux desktops ship).

The Telegram bot draws in a process of its own (`start_drawing`, at start: matplotlib is imported
there then, not by the first /summary), so a chart never holds the chats the bot process answers
meanwhile, and matplotlib's memory is not the bot's. A chart is kept by its night's version (the
newest event) and language: asked again with nothing recorded since, it is not drawn again.
"""

from __future__ import annotations

import asyncio
import io
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import cache
from pathlib import Path
from threading import Lock

from bot.store.heap import in_thread
from bot.views.personal import NightPeople, payments_of
from locales import Translator

CJK_FONT_FILES = ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",)  # the image's (fonts-wqy-microhei)
CJK_FAMILIES = (  # installed fonts with Chinese glyphs, preferred first (simplified and traditional)
    "WenQuanYi Micro Hei",
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "PingFang SC",
    "Hiragino Sans GB",
    "Microsoft YaHei",
    "WenQuanYi Zen Hei",
    "Droid Sans Fallback",
    "SimHei",
    "Arial Unicode MS",
)
_DRAWING = Lock()  # matplotlib is one per process, so is the right to draw with it
KEPT_CHARTS = 64  # charts kept by their night's version (about 100 KB each)
_drawer: ProcessPoolExecutor | None = None


# matplotlib is imported where a chart is drawn, not with the bot: it costs about 60 MB of memory and
# a quarter of a second at start, and only /summary draws (with the Agg backend: no screen).


@cache
def cjk_font_name() -> str | None:
    """The family the chart is drawn in: the image's CJK font file (registered even when matplotlib's
    font cache predates it), else the first of `CJK_FAMILIES` matplotlib finds; None if there is none."""
    from matplotlib import font_manager

    for filename in CJK_FONT_FILES:
        if Path(filename).is_file():
            font_manager.fontManager.addfont(filename)
            return str(font_manager.FontProperties(fname=filename).get_name())
    installed = {font.name for font in font_manager.fontManager.ttflist}
    return next((family for family in CJK_FAMILIES if family in installed), None)


def cumulative_by_hand(
    deltas: Sequence[tuple[int, int, int]], hands: int = 0, people: int = 4
) -> list[tuple[int, list[int]]]:
    """(hand number, balances after it) for hand 0 (the start) and every hand up to the last: the
    `hands` played, or a later one that already saw a payment; a hand without payments keeps the line
    level. `deltas` are (hand, player index, amount); a balance for each of `people` at least (one
    who sat down after a 换人 and has paid nothing yet still has a line)."""
    players = max([4, people, *(player + 1 for _, player, _ in deltas)])
    per_hand: dict[int, list[int]] = {}
    for hand, player, amount in deltas:
        per_hand.setdefault(hand, [0] * players)[player] += amount
    last = max([hands, *per_hand])
    points = [(0, [0] * players)]
    running = [0] * players
    for hand in range(1, last + 1):
        running = [a + b for a, b in zip(running, per_hand.get(hand, [0] * players), strict=True)]
        points.append((hand, list(running)))
    return points


def person_lines(people: NightPeople) -> list[tuple[str, list[int], list[int | None]]]:
    """(name, hands, balance after each hand or None where they did not sit) per person: the line of
    one who left stops at their last hand at the balance they keep, a newcomer's starts at zero the hand
    before they sat down."""
    index = {name: i for i, name in enumerate(people.names)}
    deltas = [
        (p.hand, index[name], sign * p.amount)
        for p in payments_of(people)
        for name, sign in ((p.payer, -1), (p.payee, 1))
        if name in index
    ]
    points = cumulative_by_hand(deltas, people.hands, len(people.names))
    hands = [hand for hand, _ in points]
    lines: list[tuple[str, list[int], list[int | None]]] = []
    for i, name in enumerate(people.names):
        sat = {hand for hand, names in people.seated.items() if name in names}
        # the hand before one sits down anchors the line at the balance they start from (zero)
        shown = sat | {hand - 1 for hand in sat}
        lines.append((name, hands, [balances[i] if hand in shown else None for hand, balances in points]))
    return lines


def end_points(people: NightPeople) -> dict[str, int]:
    """Each person's last drawn balance: what they take home in flowers (or chips)."""
    ends: dict[str, int] = {}
    for name, _, values in person_lines(people):
        drawn = [v for v in values if v is not None]
        ends[name] = drawn[-1] if drawn else 0
    return ends


def balance_chart(night_number: int, people: NightPeople, doubled: set[int], language: str) -> bytes:
    """Drawn in a worker thread (bot/chat/handlers/questions.py), one chart at a time: matplotlib keeps
    process-wide state (fonts, caches) and does not promise two threads may draw at once."""
    with _DRAWING:
        return _balance_chart(night_number, people, doubled, language)


def _balance_chart(night_number: int, people: NightPeople, doubled: set[int], language: str) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    translator = Translator(language)
    family = cjk_font_name()
    figure = Figure(figsize=(8, 4.5), dpi=100)
    # fixed margins: a "tight" bounding box draws the whole figure twice
    figure.subplots_adjust(left=0.09, right=0.80, top=0.92, bottom=0.12)
    axes = figure.subplots()
    hands: list[int] = [0]
    for name, hands, values in person_lines(people):
        # None leaves a gap where the person was not seated (matplotlib draws nothing there)
        drawn = [float("nan") if v is None else float(v) for v in values]
        axes.plot(hands, drawn, marker="o", label=name or "?")
        marked = [(h, v) for h, v in zip(hands, values, strict=True) if h in doubled and v is not None]
        if marked:
            axes.scatter([h for h, _ in marked], [v for _, v in marked], marker="*", s=120, zorder=3)
    axes.axhline(0, color="grey", linewidth=0.8)
    fontdict = {"family": family} if family else None
    axes.set_title(translator.t("chart.title", night=night_number), fontdict=fontdict)
    axes.set_xlabel(translator.t("chart.hand_axis"), fontdict=fontdict)
    axes.set_ylabel(translator.t("chart.balance_axis"), fontdict=fontdict)
    if doubled:
        axes.plot([], [], "k*", label=translator.t("chart.doubled_mark"))
    # beside the plot, never over a line: the "best" place inside is searched among every point drawn,
    # a third of a long night's chart
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), prop={"family": family} if family else None)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlim(-0.3, hands[-1] + 0.3)  # the axis ends at the last hand, whatever the ticks
    axes.grid(True, alpha=0.3)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


# ---- where charts are drawn -----------------------------------------------------------------------


def start_drawing() -> None:
    """Draw charts in a process of their own from now on, and import matplotlib there at once."""
    global _drawer
    if _drawer is None:
        context = multiprocessing.get_context("spawn")  # a fresh interpreter: none of the bot's threads
        _drawer = ProcessPoolExecutor(1, mp_context=context, initializer=_warm, initargs=(os.getpid(),))
        _drawer.submit(_ready)  # starts the process (and its import) now, not with the first chart


def stop_drawing() -> None:
    global _drawer
    if _drawer is not None:
        _drawer.shutdown(wait=False, cancel_futures=True)
        _drawer = None


class Charts:
    """The charts last drawn (one referee's), by their night's version: the night's id and newest
    event, and the language."""

    def __init__(self, most: int = KEPT_CHARTS) -> None:
        self.most = most
        self._kept: OrderedDict[tuple[object, ...], bytes] = OrderedDict()

    def kept(self, version: tuple[object, ...], language: str) -> bytes | None:
        png = self._kept.get((*version, language))
        if png is not None:
            self._kept.move_to_end((*version, language))
        return png

    async def chart(
        self, version: tuple[object, ...], night_number: int, people: NightPeople, doubled: set[int], language: str
    ) -> bytes:
        """The night's chart for `version`: kept, or drawn now."""
        key = (*version, language)
        png = self._kept.get(key)
        if png is not None:
            self._kept.move_to_end(key)
            return png
        png = await _draw(night_number, people, doubled, language)
        self._kept[key] = png
        while len(self._kept) > self.most:
            self._kept.popitem(last=False)
        return png


async def _draw(night_number: int, people: NightPeople, doubled: set[int], language: str) -> bytes:
    drawer = _drawer
    if drawer is not None:
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(drawer, balance_chart, night_number, people, doubled, language)
        except BrokenProcessPool:  # the drawing process died: start another, draw this one here
            stop_drawing()
            start_drawing()
    return await in_thread(balance_chart, night_number, people, doubled, language)


def _warm(parent: int) -> None:
    """In the drawing process: import matplotlib and the font now, and leave when the bot does."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure  # noqa: F401  (imported for its cost, here and now)

    cjk_font_name()
    threading.Thread(target=_leave_with, args=(parent,), daemon=True).start()


def _leave_with(parent: int) -> None:
    while os.getppid() == parent:  # the bot was killed: nobody will ask for a chart again
        time.sleep(1)
    os._exit(0)


def _ready() -> None:
    """Nothing: submitted at start so that the process starts (and imports) at once."""
