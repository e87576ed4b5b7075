"""docs/rules.md §2: hand notation, and every class of malformed input."""

import pytest

from engine.errors import EngineError
from engine.hand import MeldKind
from engine.notation import format_hand, parse_hand, parse_tile, parse_tiles
from engine.tiles import suited, wind


def test_suited_tiles_and_winds() -> None:
    assert parse_tiles("123m 55p 789s") == (0, 1, 2, 13, 13, 24, 25, 26)
    assert parse_tiles("E S W N") == (wind(0), wind(1), wind(2), wind(3))
    assert parse_tiles("1z2z3z4z") == parse_tiles("ESWN")


def test_chinese_tile_names_both_scripts() -> None:
    assert parse_tiles("一万 九萬 五筒 五饼 五餅 三条 三條") == (
        suited(1, 0),
        suited(9, 0),
        suited(5, 1),
        suited(5, 1),
        suited(5, 1),
        suited(3, 2),
        suited(3, 2),
    )
    assert parse_tiles("东南西北東") == (wind(0), wind(1), wind(2), wind(3), wind(0))
    assert parse_tile("34万"[1:]) == suited(4, 0)


def test_melds_of_each_kind() -> None:
    hand = parse_hand("5p [777p] [EEEE] {1111s} (3333m) +5p")
    assert [m.kind for m in hand.melds] == [
        MeldKind.PONG,
        MeldKind.EXPOSED_GANG,
        MeldKind.ADDED_GANG,
        MeldKind.CONCEALED_GANG,
    ]
    assert hand.winning == suited(5, 1)


def test_spaces_are_optional() -> None:
    assert parse_hand("123m456m789m234p5p+5p") == parse_hand("123m 456m 789m 234p 5p +5p")


def test_format_then_parse_is_identity() -> None:
    hand = parse_hand("11p 567s 79s [EEE] [444p] +8s")
    assert parse_hand(format_hand(hand)) == hand


@pytest.mark.parametrize(
    ("text", "key", "params"),
    [
        ("0m 23m 456m 789m 234p 5p +5p", "tile.unknown", {"tile": "0m"}),
        ("123m X 456m", "tile.unknown", {"tile": "X"}),
        ("8z", "tile.unknown", {"tile": "8z"}),
        ("中 123m", "tile.hard_flower", {"tile": "中"}),
        ("5z 123m", "tile.hard_flower", {"tile": "白"}),
        ("梅 123m", "tile.hard_flower", {"tile": "梅"}),
        ("11111m 22p 33p 44s +4s", "hand.too_many_copies", {"tile": "1m", "count": 5}),
        ("1111m [111m] 22p 33p 44s +4s", "hand.too_many_copies", {"tile": "1m", "count": 7}),
        ("123m 456m 789m 234p +5p", "hand.tile_count", {"count": 13}),
        ("123m 456m 789m 234p 55p", "hand.no_winning_tile", {}),
        ("123m 456m 789m 234p 5p +5p +6p", "hand.two_winning_tiles", {}),
        ("[78p] 123m +1m", "meld.malformed", {"meld": "[78p]"}),
        ("{777p} 123m 456m 789m 1m +1m", "meld.malformed", {"meld": "{777p}"}),
    ],
)
def test_malformed_input_is_one_error_type_with_key_and_part(text: str, key: str, params: dict[str, object]) -> None:
    with pytest.raises(EngineError) as caught:
        parse_hand(text)
    assert caught.value.key == key
    assert caught.value.params == params
