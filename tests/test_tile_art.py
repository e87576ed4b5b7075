"""The Mini App's tile artwork (bot/web/tiles.py): one symbol per tile in the project's notation
(docs/rules.md §2), drawn as real tiles are, its colours from the page's theme."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from bot.web.tiles import FLOWERS, TILE_CODES, sprite, symbol
from engine.notation import parse_tiles
from engine.tiles import ALL_TILES, tile_name

SVG = "{http://www.w3.org/2000/svg}"


def symbols() -> dict[str, ET.Element]:
    """The tiles' symbols by code (the pieces they place, `pip-…` and `stick-…`, left out)."""
    root = ET.fromstring(sprite())
    return {s.attrib["id"][2:]: s for s in root.iter(f"{SVG}symbol") if s.attrib["id"].startswith("t-")}


def placed(code: str, piece: str) -> int:
    """How many of the piece (`pip`, `stick`) the tile places."""
    return sum(use.attrib["href"].startswith(f"#{piece}-") for use in symbols()[code].iter(f"{SVG}use"))


def test_every_tile_of_a_hand_has_its_symbol_by_its_notation_name() -> None:
    drawn = symbols()
    for tile in ALL_TILES:
        assert tile_name(tile) in drawn
        assert parse_tiles(tile_name(tile)) == (tile,)  # the name is the notation's


def test_the_hard_flowers_are_drawn_too() -> None:
    assert len(TILE_CODES) == 31 + 3 + 8
    assert set(symbols()) == set(TILE_CODES)


@pytest.mark.parametrize("rank", range(2, 10))
def test_circles_show_their_rank_in_pips(rank: int) -> None:
    assert placed(f"{rank}p", "pip") == rank


@pytest.mark.parametrize("rank", range(2, 10))
def test_bamboo_shows_its_rank_in_sticks(rank: int) -> None:
    assert placed(f"{rank}s", "stick") == rank


def test_every_piece_a_tile_places_is_in_the_sprite() -> None:
    root = ET.fromstring(sprite())
    ids = {s.attrib["id"] for s in root.iter(f"{SVG}symbol")}
    hrefs = {use.attrib["href"][1:] for use in root.iter(f"{SVG}use")}
    assert hrefs and hrefs <= ids


def test_the_one_of_bamboo_is_the_bird_and_pips_and_sticks_are_shapes_not_text() -> None:
    for code in [f"{r}{s}" for r in range(1, 10) for s in "ps"]:
        assert list(symbols()[code].iter(f"{SVG}text")) == []
    assert placed("1s", "stick") == 0 and len(list(symbols()["1s"].iter(f"{SVG}path"))) > 5  # drawn, a bird


@pytest.mark.parametrize(("code", "glyphs"), [("1m", "一萬"), ("9m", "九萬"), ("E", "東"), ("N", "北"), ("7z", "中")])
def test_characters_winds_and_dragons_are_their_glyphs(code: str, glyphs: str) -> None:
    assert "".join(t.text or "" for t in symbols()[code].iter(f"{SVG}text")) == glyphs


def test_flowers_carry_their_glyph_and_number() -> None:
    for i, glyph in enumerate(FLOWERS):
        texts = [t.text for t in symbols()[f"{i + 1}f"].iter(f"{SVG}text")]
        assert texts == [glyph, str(i % 4 + 1)]


def test_every_colour_is_a_theme_property_with_a_fallback() -> None:
    colours = re.findall(r"(?:fill|stroke):([^;\"]+)", sprite())
    assert colours
    assert {c for c in colours if not re.fullmatch(r"var\(--tile-[a-z]+,#[0-9a-f]{6}\)|none", c)} == set()


def test_an_unknown_code_is_refused() -> None:
    with pytest.raises(KeyError):
        symbol("0m")
