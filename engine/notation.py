"""Parse and format the hand notation of docs/rules.md §2.

`11p 567s 79s [EEE] [444p] +8s` — digits then a suit letter, winds `E S W N` or `1z`-`4z`, Chinese
tile names (`五万`, `东`), melds `[777p]` pong, `[7777p]` exposed gang, `{7777p}` added gang,
`(7777p)` concealed gang, and the winning tile after `+`. Spaces are optional.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import EngineError
from engine.hand import Hand, Meld, MeldKind
from engine.tiles import (
    CHINESE_NUMERALS,
    CHINESE_SUITS,
    CHINESE_WINDS,
    HARD_FLOWER_CHARS,
    SUITS,
    WIND_LETTERS,
    Tile,
    format_tiles,
    suited,
    wind,
)

_SEPARATORS = " \t\n,，、"
_MELD_CLOSERS = {"[": "]", "{": "}", "(": ")"}
_HONOR_DIGIT_HARD_FLOWERS = {5: "白", 6: "发", 7: "中"}  # 5z-7z in the usual numbering


ASCII_DIGITS = "0123456789"  # other digits (², ⑦, ٣) are not tile numbers: bad input, never int()
FULL_WIDTH = str.maketrans("０１２３４５６７８９", ASCII_DIGITS)


@dataclass(frozen=True)
class _Token:
    tiles: tuple[Tile, ...]
    text: str


def _read_digit_group(text: str, start: int) -> tuple[_Token, int]:
    """Digits followed by one suit mark: `123m`, `5z`, `34万`."""
    end = start
    while end < len(text) and text[end] in ASCII_DIGITS:
        end += 1
    if end >= len(text) or (text[end] not in SUITS + "z" and text[end] not in CHINESE_SUITS):
        raise EngineError("tile.unknown", tile=text[start : end + 1].strip() or text[start:end])
    mark = text[end]
    tiles: list[Tile] = []
    for digit_char in text[start:end]:
        digit = int(digit_char)
        token = f"{digit}{mark}"
        if mark == "z":
            if digit in _HONOR_DIGIT_HARD_FLOWERS:
                raise EngineError("tile.hard_flower", tile=_HONOR_DIGIT_HARD_FLOWERS[digit])
            if not 1 <= digit <= len(WIND_LETTERS):
                raise EngineError("tile.unknown", tile=token)
            tiles.append(wind(digit - 1))
            continue
        if digit == 0:
            raise EngineError("tile.unknown", tile=token)
        suit = SUITS.index(mark) if mark in SUITS else CHINESE_SUITS[mark]
        tiles.append(suited(digit, suit))
    return _Token(tuple(tiles), text[start : end + 1]), end + 1


def _read_tile_token(text: str, start: int) -> tuple[_Token, int]:
    char = text[start]
    if char in ASCII_DIGITS:
        return _read_digit_group(text, start)
    if char in WIND_LETTERS:
        return _Token((wind(WIND_LETTERS.index(char)),), char), start + 1
    if char in CHINESE_WINDS:
        return _Token((wind(CHINESE_WINDS[char]),), char), start + 1
    if char in CHINESE_NUMERALS and start + 1 < len(text) and text[start + 1] in CHINESE_SUITS:
        tile = suited(CHINESE_NUMERALS[char], CHINESE_SUITS[text[start + 1]])
        return _Token((tile,), text[start : start + 2]), start + 2
    if char in HARD_FLOWER_CHARS:
        raise EngineError("tile.hard_flower", tile=char)
    end = start
    while end < len(text) and text[end] not in _SEPARATORS + "+[]{}()":
        end += 1
    raise EngineError("tile.unknown", tile=text[start : max(end, start + 1)])


def parse_tiles(text: str) -> tuple[Tile, ...]:
    """Plain tiles, no melds or winning mark: `123m E 五万`."""
    text = text.translate(FULL_WIDTH)
    tiles: list[Tile] = []
    position = 0
    while position < len(text):
        if text[position] in _SEPARATORS:
            position += 1
            continue
        token, position = _read_tile_token(text, position)
        tiles.extend(token.tiles)
    return tuple(tiles)


def parse_tile(text: str) -> Tile:
    """Exactly one tile: `7p`, `东`."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise EngineError("tile.not_one", text=text.strip())
    return tiles[0]


def _meld_from(opener: str, inner: str) -> Meld:
    tiles = parse_tiles(inner)
    text = f"{opener}{inner}{_MELD_CLOSERS[opener]}"
    if len(set(tiles)) != 1 or len(tiles) not in (3, 4):
        raise EngineError("meld.malformed", meld=text)
    if opener == "[":
        kind = MeldKind.PONG if len(tiles) == 3 else MeldKind.EXPOSED_GANG
    elif len(tiles) != 4:
        raise EngineError("meld.malformed", meld=text)
    else:
        kind = MeldKind.ADDED_GANG if opener == "{" else MeldKind.CONCEALED_GANG
    return Meld(kind, tiles[0])


def parse_hand_parts(text: str) -> tuple[tuple[Tile, ...], tuple[Meld, ...], Tile | None]:
    """Split a hand string into concealed tiles, melds and the winning tile (None if not given)."""
    text = text.translate(FULL_WIDTH)
    concealed: list[Tile] = []
    melds: list[Meld] = []
    winning: Tile | None = None
    expect_winning = False
    position = 0
    while position < len(text):
        char = text[position]
        if char in _SEPARATORS:
            position += 1
        elif char == "+":
            if winning is not None or expect_winning:
                raise EngineError("hand.two_winning_tiles")
            expect_winning = True
            position += 1
        elif char in _MELD_CLOSERS:
            close = text.find(_MELD_CLOSERS[char], position + 1)
            if close < 0:
                raise EngineError("meld.malformed", meld=text[position:].strip())
            melds.append(_meld_from(char, text[position + 1 : close]))
            position = close + 1
        else:
            token, position = _read_tile_token(text, position)
            if expect_winning:
                if len(token.tiles) != 1:
                    raise EngineError("hand.two_winning_tiles")
                winning, expect_winning = token.tiles[0], False
            else:
                concealed.extend(token.tiles)
    if expect_winning:
        raise EngineError("hand.no_winning_tile")
    return tuple(sorted(concealed)), tuple(melds), winning


def parse_hand(text: str) -> Hand:
    """A full winning hand; raises EngineError for any malformed or impossible input."""
    concealed, melds, winning = parse_hand_parts(text)
    if winning is None:
        raise EngineError("hand.no_winning_tile")
    hand = Hand(concealed, melds, winning)
    hand.validate()
    return hand


def format_hand(hand: Hand) -> str:
    """Canonical notation; parse_hand(format_hand(h)) == h for a hand without feeders."""
    parts = [format_tiles(hand.concealed)] if hand.concealed else []
    parts.extend(meld.notation() for meld in hand.melds)
    parts.append("+" + format_tiles((hand.winning,)))
    return " ".join(parts)
