"""The tile artwork of the Mini App, drawn by code: one SVG sprite of a `<symbol>` per tile.

Each symbol is `t-CODE` in a 36×48 box, CODE the tile's name in the project's notation
(docs/rules.md §2): `1m`-`9m` characters 萬, `1p`-`9p` circles 筒, `1s`-`9s` bamboo 条, `E S W N` the
winds. The hard flowers are no tiles of a hand (docs/rules.md §1) and the notation has no names for
them, so they take the usual honour numbering the parser knows (`5z` 白, `6z` 发, `7z` 中) and `1f`-`8f`
for the single flowers 春夏秋冬梅兰竹菊. `TILE_CODES` lists them all, in that order.

Pips and sticks are shapes, each colour's circle and stick drawn once (`pip-g`, `stick-b` …) and placed
by `<use>`; the CJK glyphs are text in a font stack (every phone has a CJK font).
Every colour is a CSS custom property with a fallback — `--tile-face`, `--tile-edge`, `--tile-back`,
`--tile-ink`, `--tile-red`, `--tile-green`, `--tile-blue` — so one sprite serves the light and the
dark theme, and the page feeds them from Telegram's theme.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import cache

from engine.tiles import ALL_TILES, tile_name

WIDTH, HEIGHT = 36, 48
CX, CY = 18.0, 22.5  # the middle of the face (the bottom 3 units are the tile's back showing)

FACE = "var(--tile-face,#fbf8ef)"
EDGE = "var(--tile-edge,#c9c1ad)"
BACK = "var(--tile-back,#2e8b73)"
INK = "var(--tile-ink,#1d2a3a)"
RED = "var(--tile-red,#c62a2a)"
GREEN = "var(--tile-green,#1f7a4a)"
BLUE = "var(--tile-blue,#1f4f9a)"

FONT = (
    "'Kaiti SC','STKaiti','KaiTi','BiauKai','Noto Serif CJK SC','Source Han Serif SC','Songti SC',"
    "'PingFang SC','Hiragino Sans GB','Noto Sans CJK SC','Microsoft YaHei','WenQuanYi Micro Hei',serif"
)

NUMERALS = "一二三四五六七八九"
WINDS = {"E": "東", "S": "南", "W": "西", "N": "北"}
DRAGONS = ("5z", "6z", "7z")  # 白 发 中, the parser's honour digits of docs/rules.md §2
FLOWERS = "春夏秋冬梅兰竹菊"
FLOWER_CODES = tuple(f"{i}f" for i in range(1, 9))
TILE_CODES: tuple[str, ...] = (*(tile_name(t) for t in ALL_TILES), *DRAGONS, *FLOWER_CODES)


def _n(value: float) -> str:
    """A coordinate, short: `12`, `12.5`."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _text(glyph: str, x: float, y: float, size: float, colour: str, weight: str = "700") -> str:
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" font-weight="{weight}" text-anchor="middle" '
        f'dominant-baseline="central" style="fill:{colour}">{glyph}</text>'
    )


def _body() -> str:
    """The tile: its coloured back showing below an ivory face."""
    return (
        f'<rect x=".5" y="2.5" width="35" height="45" rx="5" style="fill:{BACK}"/>'
        f'<rect x=".5" y=".5" width="35" height="44" rx="5" style="fill:{FACE};stroke:{EDGE}"/>'
    )


# -- 筒: circles -----------------------------------------------------------------------------------


# The pieces drawn many times, each once in the sprite: a circle of the 筒 and a stick of the 条 in
# each colour, placed by `<use>` (a third of the sprite's bytes).
COLOURS = {"g": GREEN, "b": BLUE, "r": RED}
PIECE = {GREEN: "g", BLUE: "b", RED: "r"}
STICK_W, STICK_L = 3.8, 16


def _pieces() -> str:
    """The symbols `pip-g`, `pip-b`, `pip-r` (a ring, the face inside, a dot) and `stick-g` … (a rod with
    a knot at both ends and in the middle)."""
    w, top, end = STICK_W, 0.9, STICK_L - 0.9
    parts = []
    for key, colour in COLOURS.items():
        parts.append(
            f'<symbol id="pip-{key}" viewBox="-1 -1 2 2"><circle r="1" style="fill:{colour}"/>'
            f'<circle r=".62" style="fill:{FACE}"/><circle r=".32" style="fill:{colour}"/></symbol>'
        )
        knots = "".join(
            f'<path d="M-.4 {_n(k)}h{_n(w + 0.8)}" style="stroke:{colour};stroke-width:1.3"/>'
            for k in (top, STICK_L / 2, end)
        )
        parts.append(
            f'<symbol id="stick-{key}" viewBox="-.4 0 {_n(w + 0.8)} {STICK_L}" preserveAspectRatio="none">'
            f'<rect width="{_n(w)}" height="{STICK_L}" rx="1.7" style="fill:{colour}"/>'
            f'<path d="M{_n(w / 2)} 2V7M{_n(w / 2)} 9V14" style="stroke:{FACE};stroke-width:.7;opacity:.75"/>'
            f"{knots}</symbol>"
        )
    return "".join(parts)


def _pip(x: float, y: float, r: float, colour: str) -> str:
    """One circle of the 筒."""
    return (
        f'<use href="#pip-{PIECE[colour]}" x="{_n(x - r)}" y="{_n(y - r)}" width="{_n(2 * r)}" height="{_n(2 * r)}"/>'
    )


def _big_pip() -> str:
    """The 1 of circles: one big wheel, ringed and dotted as on the real tile."""
    parts = [
        f'<circle cx="{_n(CX)}" cy="{_n(CY)}" r="13.5" style="fill:{GREEN}"/>',
        f'<circle cx="{_n(CX)}" cy="{_n(CY)}" r="11.6" style="fill:{FACE}"/>',
        f'<circle cx="{_n(CX)}" cy="{_n(CY)}" r="9.4" style="fill:{BLUE}"/>',
        f'<circle cx="{_n(CX)}" cy="{_n(CY)}" r="7.2" style="fill:{FACE}"/>',
    ]
    for k in range(8):
        angle = math.tau * k / 8
        x, y = CX + 8.3 * math.cos(angle), CY + 8.3 * math.sin(angle)
        parts.append(f'<circle cx="{_n(x)}" cy="{_n(y)}" r="1.1" style="fill:{FACE}"/>')
    parts.append(f'<circle cx="{_n(CX)}" cy="{_n(CY)}" r="5" style="fill:{RED}"/>')
    parts.append(f'<circle cx="{_n(CX)}" cy="{_n(CY)}" r="2.2" style="fill:{FACE}"/>')
    return "".join(parts)


# Each rank's circles as (x, y, radius, colour), in the real tiles' arrangements.
_PIPS: dict[int, tuple[tuple[float, float, float, str], ...]] = {
    2: ((18, 12.5, 7, GREEN), (18, 32.5, 7, BLUE)),
    3: ((8.5, 9.5, 6, BLUE), (18, 22.5, 6, RED), (27.5, 35.5, 6, GREEN)),
    4: ((10.5, 12.5, 6.2, BLUE), (25.5, 12.5, 6.2, GREEN), (10.5, 32.5, 6.2, GREEN), (25.5, 32.5, 6.2, BLUE)),
    5: (
        (9.5, 10.5, 5.6, BLUE),
        (26.5, 10.5, 5.6, GREEN),
        (18, 22.5, 5.6, RED),
        (9.5, 34.5, 5.6, GREEN),
        (26.5, 34.5, 5.6, BLUE),
    ),
    6: tuple(
        [(11, 9, 5, GREEN), (25, 9, 5, GREEN)] + [(x, y, 5, RED) for y in (24.5, 36) for x in (11, 25)],
    ),
    7: tuple(
        [(8, 7, 4.3, GREEN), (18, 11.5, 4.3, GREEN), (28, 16, 4.3, GREEN)]
        + [(x, y, 4.6, RED) for y in (27, 37) for x in (11.5, 24.5)],
    ),
    8: tuple((x, y, 4.4, BLUE) for y in (7.5, 17.3, 27.7, 37.5) for x in (11, 25)),
    9: tuple((x, y, 4.5, colour) for y, colour in ((9.5, BLUE), (22.5, RED), (35.5, GREEN)) for x in (8.5, 18, 27.5)),
}


def _circles(rank: int) -> str:
    if rank == 1:
        return _big_pip()
    return "".join(_pip(x, y, r, colour) for x, y, r, colour in _PIPS[rank])


# -- 条: bamboo ------------------------------------------------------------------------------------


def _stick(x: float, y: float, length: float, colour: str, tilt: float = 0) -> str:
    """One bamboo stick centred on (x, y), `length` long, leaning `tilt` degrees."""
    rotate = f' transform="rotate({_n(tilt)} {_n(x)} {_n(y)})"' if tilt else ""
    width = STICK_W + 0.8  # the knots stand out of the rod
    return (
        f'<use href="#stick-{PIECE[colour]}" x="{_n(x - width / 2)}" y="{_n(y - length / 2)}" '
        f'width="{_n(width)}" height="{_n(length)}"{rotate}/>'
    )


def _bird() -> str:
    """The 1 of bamboo: the bird (a peacock on a stick's knot, as drawn on most sets)."""
    return (
        # the tail, fanned down to the left
        f'<path d="M17 28 C9 30 5 37 4.5 42 C9 39 13 36 18 31Z" style="fill:{GREEN}"/>'
        f'<path d="M18 29 C14 34 13 39 14 43 C17 39 19 35 20 30Z" style="fill:{BLUE}"/>'
        f'<circle cx="7.5" cy="39.5" r="1.6" style="fill:{RED}"/>'
        f'<circle cx="14.6" cy="40.6" r="1.4" style="fill:{RED}"/>'
        # the body and the wing
        f'<ellipse cx="20" cy="23" rx="7.5" ry="9" transform="rotate(-25 20 23)" style="fill:{GREEN}"/>'
        f'<path d="M15 21 C19 17 25 19 26 25 C22 24 18 25 15 21Z" style="fill:{BLUE}"/>'
        # the head, crest, eye and beak
        f'<circle cx="25.5" cy="10.5" r="4.6" style="fill:{RED}"/>'
        f'<path d="M22.4 8 l-2.4 -4.2 M24.8 6.2 l-0.4 -4.4 M27.2 6.6 l1.4 -4" '
        f'style="stroke:{BLUE};stroke-width:1.2;stroke-linecap:round"/>'
        f'<circle cx="26.6" cy="9.8" r="1.1" style="fill:{FACE}"/>'
        f'<path d="M29.6 10.2 L34 12 L29.4 12.9Z" style="fill:{INK}"/>'
        f'<path d="M22.5 14 C22 16 21.5 17 20.5 18" style="stroke:{RED};stroke-width:3;fill:none"/>'
        # the feet on a knot
        f'<path d="M19 31.5v4.5M23 30.5v5.5" style="stroke:{INK};stroke-width:1.1"/>'
        f'<path d="M15 36.5h12" style="stroke:{GREEN};stroke-width:2;stroke-linecap:round"/>'
    )


# Each rank's sticks as (x, y, length, colour, tilt), in the real tiles' arrangements.
_STICKS: dict[int, tuple[tuple[float, float, float, str, float], ...]] = {
    2: ((18, 12.5, 16, GREEN, 0), (18, 32.5, 16, BLUE, 0)),
    3: ((18, 12.5, 16, BLUE, 0), (11, 32.5, 16, GREEN, 0), (25, 32.5, 16, GREEN, 0)),
    4: tuple((x, y, 16, colour, 0) for y in (12.5, 32.5) for x, colour in ((10.5, BLUE), (25.5, GREEN))),
    5: (
        (9, 12.5, 16, GREEN, 0),
        (27, 12.5, 16, BLUE, 0),
        (18, 22.5, 16, RED, 0),
        (9, 32.5, 16, BLUE, 0),
        (27, 32.5, 16, GREEN, 0),
    ),
    6: tuple((x, y, 16, GREEN if y < 20 else BLUE, 0) for y in (12.5, 32.5) for x in (9, 18, 27)),
    7: ((18, 8, 11, RED, 0), *((x, y, 12, GREEN, 0) for y in (21.5, 36.5) for x in (9, 18, 27))),
    8: (
        (7, 12.5, 16, GREEN, 0),
        (14, 12.5, 16, GREEN, 22),
        (22, 12.5, 16, GREEN, -22),
        (29, 12.5, 16, GREEN, 0),
        (7, 32.5, 16, BLUE, 0),
        (14, 32.5, 16, BLUE, -22),
        (22, 32.5, 16, BLUE, 22),
        (29, 32.5, 16, BLUE, 0),
    ),
    9: tuple((x, y, 11.5, RED if x == 18 else GREEN, 0) for y in (9.5, 22.5, 35.5) for x in (9, 18, 27)),
}


def _bamboo(rank: int) -> str:
    if rank == 1:
        return _bird()
    return "".join(_stick(*stick) for stick in _STICKS[rank])


# -- 萬, winds, dragons, flowers --------------------------------------------------------------------


def _characters(rank: int) -> str:
    """The numeral over 萬: the numeral in ink, 萬 in red, as on the real tiles."""
    return _text(NUMERALS[rank - 1], CX, 12.5, 17, INK) + _text("萬", CX, 31.5, 21, RED)


def _white() -> str:
    """白: the blank tile's frame, a blue double border."""
    return (
        f'<rect x="6" y="6" width="24" height="33" rx="2.5" style="fill:none;stroke:{BLUE};stroke-width:2.2"/>'
        f'<rect x="9.5" y="9.5" width="17" height="26" rx="1.2" style="fill:none;stroke:{BLUE};stroke-width:1"/>'
    )


def _flower(index: int) -> str:
    """A single flower: its character, and its number (1-4) in the corner as on the real tile."""
    season = index < 4
    colour = GREEN if season else BLUE
    glyph = _text(FLOWERS[index], CX, 25.5, 21, colour)
    number = _text(str(index % 4 + 1), 7, 7.5, 9, RED)
    petals = "".join(
        f'<circle cx="{_n(29 + 2.4 * math.cos(a))}" cy="{_n(7.5 + 2.4 * math.sin(a))}" r="1.5" style="fill:{RED}"/>'
        for a in (math.tau * k / 5 - math.pi / 2 for k in range(5))
    )
    centre = f'<circle cx="29" cy="7.5" r="1.1" style="fill:{FACE}"/>'
    return glyph + number + petals + centre


def _face(code: str) -> str:
    """What is drawn on the face of the tile `code`."""
    if code in WINDS:
        return _text(WINDS[code], CX, 23.5, 27, INK)
    faces: dict[str, Callable[[], str]] = {
        "5z": _white,
        "6z": lambda: _text("发", CX, 23.5, 27, GREEN),
        "7z": lambda: _text("中", CX, 23.5, 27, RED),
    }
    if code in faces:
        return faces[code]()
    rank, mark = int(code[0]), code[1]
    if mark == "f":
        return _flower(rank - 1)
    draw = {"m": _characters, "p": _circles, "s": _bamboo}[mark]
    return draw(rank)


def symbol(code: str) -> str:
    """The `<symbol>` of one tile."""
    if code not in TILE_CODES:
        raise KeyError(code)
    face = _face(code)
    font = f' font-family="{FONT}"' if "<text" in face else ""  # the clone of a symbol inherits its font
    return f'<symbol id="t-{code}" viewBox="0 0 {WIDTH} {HEIGHT}"{font}>{_body()}{face}</symbol>'


def _symbols(codes: Iterable[str]) -> str:
    return "".join(symbol(code) for code in codes)


@cache
def sprite() -> str:
    """The whole sprite, one SVG document: `<use href="tiles.svg#t-5p"/>` shows a tile."""
    return f'<svg xmlns="http://www.w3.org/2000/svg" aria-hidden="true">{_pieces()}{_symbols(TILE_CODES)}</svg>'
