"""Draw docs/img/layers.svg, the picture of docs/architecture.md: the layers of engine/ and bot/, top
to bottom, and the seams through which one layer reaches another's storage.

The picture is generated, never edited by hand: `python docs/img/layers.py` writes it again, and
tests/test_architecture.py checks that the file is what this script draws, that the layers are
tests/test_layers.py's in its order, and that every seam named here is a module that exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Band:
    """One layer: the modules of tests/test_layers.py's `LAYERS` it draws, its folders, what it is."""

    layers: tuple[str, ...]
    paths: str
    says: str


@dataclass(frozen=True)
class Seam:
    """A module a layer above reaches through, drawn under the band `above`: the one named way in."""

    above: int  # the band it sits under
    module: str  # its file
    says: str


# Top to bottom: the last layer of tests/test_layers.py's LAYERS first.
BANDS = (
    Band(
        ("bot.__main__",),
        "bot/__main__.py",
        "the entry point: reads the environment once into Settings, starts a front end",
    ),
    Band(("bot.front",), "bot/telegram/  bot/web/  bot/console.py", "the front ends: a chat line in, its reply out"),
    Band(
        ("bot.chat", "bot.settings", "bot.health"),
        "bot/chat/  bot/settings.py  bot/health.py",
        "the command layer: a line read once, one command table, a handler per feature; the settings; health",
    ),
    Band(("bot.views",), "bot/views/", "read-only answers built from a night: score, board, summary, charts, stats"),
    Band(("bot.night",), "bot/night/", "a night folded from its events: the one owner of its state"),
    Band(("bot.store",), "bot/store/", "SQLite: the ledger, the group-commit writer, the inbox, the backup"),
    Band(("bot.text",), "bot/text/", "a reply as message keys and values, rendered from locales/; the catalogs' words"),
    Band(
        ("bot.threads", "bot.heap"),
        "bot/threads.py  bot/heap.py",
        "work handed to a worker thread, off the event loop; the collector kept short",
    ),
    Band(("engine",), "engine/", "the rules, pure and synchronous: every figure of money"),
)
SEAMS = (
    Seam(1, "bot/chat/service.py", "Referee: the front ends' one way in"),
    Seam(1, "bot/chat/availability.py", "the database's lock and its errors"),
    Seam(3, "bot/night/nights.py", "Nights: views and commands read and write by name"),
    Seam(3, "bot/night/records.py", "the store's rows, as values"),
    Seam(4, "bot/store/ledger.py", "Ledger: the night's own"),
)
# The Telegram front end's intake reaches the store past the layers between, by one seam.
BYPASS = Seam(1, "bot/store/queue.py", "UpdateQueue: Telegram's intake")
BYPASS_TO = 5  # the band it reaches

WIDTH = 960
LEFT, BAND_RIGHT = 20, 700  # the bands
BAND_HEIGHT, GAP, NO_SEAM_GAP, SEAM_HEIGHT = 46, 50, 16, 34  # a band, the room under it (seams sit there), a seam
TOP = 64  # the title above the bands
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
SANS = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO_WIDTH = 7.2  # a 12 px monospace character, for placing the boxes
SANS_WIDTH = 6.2  # an average 11 px sans character
INK, BAND_FILL, SEAM_FILL, SEAM_INK = "#1f2933", "#eef2f6", "#fff4d6", "#a86b00"


def gap_under(index: int) -> float:
    """The room under a band: room for seams where there are any (and the entry point's arrow)."""
    if index == 0:
        return NO_SEAM_GAP * 2  # the entry point's arrow
    return GAP if any(seam.above == index for seam in SEAMS) else NO_SEAM_GAP


def band_top(index: int) -> float:
    return TOP + sum(BAND_HEIGHT + gap_under(above) for above in range(index))


def text(x: float, y: float, words: str, size: int, font: str, weight: str = "normal", fill: str = INK) -> str:
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-family="{font}" font-size="{size}" '
        f'font-weight="{weight}" fill="{fill}">{escape(words)}</text>'
    )


def arrow(x: float, y1: float, y2: float, color: str = INK) -> str:
    return f'<line x1="{x:.0f}" y1="{y1:.0f}" x2="{x:.0f}" y2="{y2:.0f}" stroke="{color}" marker-end="url(#head)"/>'


def seam_box(x: float, y: float, seam: Seam) -> tuple[str, float]:
    """A seam's box at (x, y): its file, then what it is; returns the SVG and the box's width."""
    width = max(len(seam.module) * MONO_WIDTH, len(seam.says) * SANS_WIDTH) + 16
    parts = [
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{width:.0f}" height="{SEAM_HEIGHT}" rx="5" '
        f'fill="{SEAM_FILL}" stroke="{SEAM_INK}"/>',
        text(x + 8, y + 14, seam.module, 12, MONO, "bold", SEAM_INK),
        text(x + 8, y + 28, seam.says, 11, SANS),
    ]
    return "\n".join(parts), width


def draw() -> str:
    height = band_top(len(BANDS) - 1) + BAND_HEIGHT + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}">',
        '<defs><marker id="head" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">'
        f'<path d="M0,0 L8,4 L0,8 z" fill="{INK}"/></marker></defs>',
        f'<rect width="{WIDTH}" height="{height:.0f}" fill="#ffffff"/>',
        text(LEFT, 26, "The layers of engine/ and bot/, top to bottom", 16, SANS, "bold"),
        text(
            LEFT,
            46,
            "A module imports its own layer and those below it, never one above (tests/test_layers.py); "
            "the yellow boxes are the seams, the one way through to storage.",
            11,
            SANS,
        ),
    ]
    for index, band in enumerate(BANDS):
        y = band_top(index)
        out.append(
            f'<rect x="{LEFT}" y="{y:.0f}" width="{BAND_RIGHT - LEFT}" height="{BAND_HEIGHT}" rx="6" '
            f'fill="{BAND_FILL}" stroke="{INK}"/>'
        )
        out.append(text(LEFT + 12, y + 19, band.paths, 13, MONO, "bold"))
        out.append(text(LEFT + 12, y + 37, band.says, 11, SANS))
    for above in sorted({seam.above for seam in SEAMS}):
        x = LEFT + 150.0
        bottom, below = band_top(above) + BAND_HEIGHT, band_top(above + 1)
        for seam in (s for s in SEAMS if s.above == above):
            box, width = seam_box(x, (bottom + below - SEAM_HEIGHT) / 2, seam)
            out.append(arrow(x + width / 2, bottom, below))  # down through the seam: drawn under its box
            out.append(box)
            x += width + 24
    # the bypass: from the front ends, down the right-hand side, into the store
    x = BAND_RIGHT + 40
    start, end = band_top(BYPASS.above) + BAND_HEIGHT / 2, band_top(BYPASS_TO) + BAND_HEIGHT / 2
    out.append(f'<line x1="{BAND_RIGHT}" y1="{start:.0f}" x2="{x:.0f}" y2="{start:.0f}" stroke="{SEAM_INK}"/>')
    out.append(f'<line x1="{x:.0f}" y1="{start:.0f}" x2="{x:.0f}" y2="{end:.0f}" stroke="{SEAM_INK}"/>')
    out.append(
        f'<line x1="{x:.0f}" y1="{end:.0f}" x2="{BAND_RIGHT + 2}" y2="{end:.0f}" stroke="{SEAM_INK}" '
        'marker-end="url(#head)"/>'
    )
    box, _ = seam_box(x - 12, (start + end - SEAM_HEIGHT) / 2, BYPASS)
    out.append(box)
    out.append(arrow(LEFT + 60, band_top(0) + BAND_HEIGHT, band_top(1)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    (HERE / "layers.svg").write_text(draw(), encoding="utf-8")


if __name__ == "__main__":
    main()
