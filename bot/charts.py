"""The night's chart: each player's cumulative balance after each hand, 比下胡 hands marked.

Rendered with matplotlib's Agg backend (no screen) in a CJK font, so Chinese names and labels never
come out as boxes: WenQuanYi Micro Hei (Debian's `fonts-wqy-microhei`, 5 MB, simplified and
traditional), which the Docker image and CI install; elsewhere the first installed font of
`CJK_FAMILIES` (what macOS, Windows and other Linux desktops ship).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from threading import Lock

from bot.personal import NightPeople, payments_of
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
    """Drawn in a worker thread (bot/handlers/questions.py), one chart at a time: matplotlib keeps
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
    axes.legend(prop={"family": family} if family else None)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlim(-0.3, hands[-1] + 0.3)  # the axis ends at the last hand, whatever the ticks
    axes.grid(True, alpha=0.3)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()
