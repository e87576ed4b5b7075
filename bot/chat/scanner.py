"""A chat line cut into pieces — seated names, command words, flags, patterns, tiles, numbers,
flower counts — by longest match, spaces optional (`花2`, `碰了C`, `杠上开花`). The scanner knows the
seated players' names so that a name is never mistaken for a tile (西西 is a name); the fixed words
are bot/chat/lexicon.py's. What the pieces make is the grammar's (bot/chat/grammar.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from bot.chat.lexicon import (
    FLOWER_WORD,
    FLOWERS,
    MEASURE,
    NAME,
    NUMBER,
    SEAT,
    SOFT,
    SOFT_WORD,
    SOFT_WORDS,
    TILE,
    WORD,
    Entry,
)
from bot.text.vocabulary import fold
from engine.tiles import HARD_FLOWER_CHARS

MAX_DIGITS = 9  # event numbers, amounts: anything longer is a typo, not a number
Words = Mapping[str, tuple[Entry, ...]]  # the fixed words by their first folded character


@dataclass(frozen=True)
class Piece:
    kind: str
    text: str  # canonical: what the builders read (`flowers=2`, `after_gang`, `123m`, the seated name)
    start: int  # where it was typed in the normalized line
    end: int


_SEPARATOR = re.compile(r"[\s,，、;；]+")
_SUIT_MARKS = "万萬筒饼餅条條"
_TILE_PART = (
    rf"\d+[mpszMPSZ{_SUIT_MARKS}]|[一二三四五六七八九]+[{_SUIT_MARKS}]|[ESWN]+(?![A-Za-z])"
    rf"|[东東南西北{HARD_FLOWER_CHARS}]|[+\[\]{{}}()]"
)
_TILES = re.compile(rf"(?:{_TILE_PART})+")
_COUNT_OPTION = re.compile(r"(flowers|f|花|硬花|soft|软花|軟花)=(\d+)(?![A-Za-z0-9])", re.IGNORECASE)
_SEAT_OR_ID = re.compile(r"#\d+")
_DIGITS = re.compile(r"\d+")
_CHINESE_NUMBER = re.compile(r"[零一二两兩三四五六七八九十百]+")
_CHINESE_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2, "兩": 2}
_ASCII_WORD = re.compile(r"[^\s,，、;；\u0080-\U0010ffff]+")


def chinese_number(text: str) -> int | None:
    """二 → 2, 两 → 2, 十二 → 12, 二十 → 20, 一百 → 100, 一百零二 → 102, 一百二 → 120 (as it is said);
    None for what is not a number."""
    if "百" in text:
        hundreds, _, rest = text.partition("百")
        high = chinese_number(hundreds) if hundreds else 1
        if not rest:
            low: int | None = 0
        elif rest[0] == "零":
            low = _CHINESE_DIGITS.get(rest[1:]) if len(rest) == 2 else None
        elif len(rest) == 1:
            digit = _CHINESE_DIGITS.get(rest)
            low = None if digit is None else digit * 10  # 一百二 is 120
        else:
            low = chinese_number(rest)
            low = low if low is not None and low >= 10 else None
        return None if high is None or low is None or not 0 < high < 10 else high * 100 + low
    if "十" in text:
        tens, _, ones = text.partition("十")
        high = _CHINESE_DIGITS.get(tens, None) if tens else 1
        low = _CHINESE_DIGITS.get(ones, None) if ones else 0
        return None if high is None or low is None or len(tens) > 1 or len(ones) > 1 else high * 10 + low
    if len(text) == 1:
        return _CHINESE_DIGITS.get(text)
    return None


def _word_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def _bounded(line: str, start: int, end: int) -> bool:
    """An ASCII word matches only whole (`pongs` is not `pong`, `Bobby` is not `Bob`)."""
    if _word_char(line[start]) and start > 0 and _word_char(line[start - 1]):
        return False
    return not (_word_char(line[end - 1]) and end < len(line) and _word_char(line[end]))


def _canonical_tiles(text: str) -> str:
    """`123M` → `123m`, `一二三万` → `123万`: the forms the engine's notation reads."""
    text = re.sub(r"(\d)([MPSZ])", lambda m: m[1] + m[2].lower(), text)
    return re.sub(
        rf"[一二三四五六七八九]+(?=[{_SUIT_MARKS}])",
        lambda m: "".join(str(_CHINESE_DIGITS[c]) for c in m[0]),
        text,
    )


class _Scanner:
    def __init__(self, line: str, known: Sequence[str], words: Words) -> None:
        self.line = line
        self.words = words
        self.folded = fold(line)
        self.names = _names_by_first_char(tuple(known))

    def pieces(self) -> list[Piece]:
        pieces: list[Piece] = []
        position = 0
        while position < len(self.line):
            gap = _SEPARATOR.match(self.line, position)
            if gap:
                position = gap.end()
                continue
            piece = self.known_piece(position) or self.unknown_piece(position)
            pieces.append(piece)
            position = piece.end
        return _pair_counts(_collapse_unknown_chunks(self.line, pieces))

    def known_piece(self, at: int) -> Piece | None:
        for reader in (self.name, self.count_option, self.word, self.tiles, self.number):
            piece = reader(at)
            if piece is not None:
                return piece
        return None

    def name(self, at: int) -> Piece | None:
        start = at + 1 if self.line[at] == "@" and at + 1 < len(self.line) else at
        for folded, name in self.names.get(self.folded[start], ()):
            end = start + len(folded)
            if self.folded.startswith(folded, start) and _bounded(self.line, start, end):
                return Piece(NAME, name, at, end)
        return None

    def count_option(self, at: int) -> Piece | None:
        match = _COUNT_OPTION.match(self.line, at)
        if match is None or len(match[2]) > MAX_DIGITS:
            return None
        kind = SOFT if fold(match[1]) in {fold(w) for w in SOFT_WORDS} or match[1].lower() == "soft" else FLOWERS
        prefix = "soft" if kind == SOFT else "flowers"
        return Piece(kind, f"{prefix}={int(match[2])}", at, match.end())

    def word(self, at: int) -> Piece | None:
        for word, kind, text in self.words.get(self.folded[at], ()):
            end = at + len(word)
            if self.folded.startswith(word, at) and _bounded(self.line, at, end):
                return Piece(kind, text, at, end)
        return None

    def tiles(self, at: int) -> Piece | None:
        match = _TILES.match(self.line, at)
        if match is None or not _bounded(self.line, at, match.end()):
            return None
        return Piece(TILE, _canonical_tiles(match[0]), at, match.end())

    def number(self, at: int) -> Piece | None:
        if match := _SEAT_OR_ID.match(self.line, at):
            return Piece(SEAT, match[0], at, match.end())
        if (match := _DIGITS.match(self.line, at)) and _bounded(self.line, at, match.end()):
            if len(match[0]) > MAX_DIGITS:  # a typo or a prank, not a number: left for the command to refuse
                return None
            return Piece(NUMBER, str(int(match[0])), at, match.end())
        if (match := _CHINESE_NUMBER.match(self.line, at)) and (value := chinese_number(match[0])) is not None:
            return Piece(NUMBER, str(value), at, match.end())
        return None

    def unknown_piece(self, at: int) -> Piece:
        """An unknown word: a whole ASCII word, or non-ASCII characters up to the next known piece."""
        if self.line[at].isascii():
            match = _ASCII_WORD.match(self.line, at)
            end = match.end() if match else at + 1
            return Piece(WORD, self.line[at:end], at, end)
        end = at + 1
        while end < len(self.line) and not self.line[end].isascii() and not _SEPARATOR.match(self.line, end):
            if self.known_piece(end) is not None:
                break
            end += 1
        return Piece(WORD, self.line[at:end], at, end)


@lru_cache(maxsize=256)
def _names_by_first_char(known: tuple[str, ...]) -> Mapping[str, tuple[tuple[str, str], ...]]:
    """The seated names (folded, as seated) by first folded character, longest first: folded once for
    a seating, not once for each line or piece read."""
    names: dict[str, list[tuple[str, str]]] = {}
    for folded, name in sorted({(fold(name), name) for name in known if name}, key=lambda n: -len(n[0])):
        names.setdefault(folded[0], []).append((folded, name))
    return {char: tuple(found) for char, found in names.items()}


def _collapse_unknown_chunks(line: str, pieces: list[Piece]) -> list[Piece]:
    """A space-separated chunk with any unknown part is one unknown word (`Carl7p`, `李斯`), so that a
    /command's error names what was typed."""
    out: list[Piece] = []
    index = 0
    while index < len(pieces):
        last = index
        while last + 1 < len(pieces) and pieces[last + 1].start == pieces[last].end:
            last += 1
        chunk = pieces[index : last + 1]
        if any(p.kind == WORD for p in chunk):
            out.append(Piece(WORD, line[chunk[0].start : chunk[-1].end], chunk[0].start, chunk[-1].end))
        else:
            out.extend(chunk)
        index = last + 1
    return out


def _pair_counts(pieces: list[Piece]) -> list[Piece]:
    """A flower word and a number make a count, either way round: 花2 花 2 2花 两花 花二 4个花 2 flowers."""
    out: list[Piece] = []
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        following = pieces[index + 1 : index + 3]
        kinds = [p.kind for p in following]
        if piece.kind in (FLOWER_WORD, SOFT_WORD) and kinds[:1] == [NUMBER]:
            out.append(_count(piece, following[0], following[0]))
            index += 2
        elif piece.kind == NUMBER and kinds[:1] and kinds[0] in (FLOWER_WORD, SOFT_WORD):
            out.append(_count(following[0], piece, following[0]))
            index += 2
        elif piece.kind == NUMBER and kinds == [MEASURE, FLOWER_WORD]:
            out.append(_count(following[1], piece, following[1]))
            index += 3
        else:
            out.append(piece)
            index += 1
    return out


def _count(word: Piece, number: Piece, last: Piece) -> Piece:
    soft = word.kind == SOFT_WORD
    start = min(word.start, number.start)
    return Piece(SOFT if soft else FLOWERS, f"{'soft' if soft else 'flowers'}={number.text}", start, last.end)


def scan(line: str, known: Sequence[str], words: Words) -> list[Piece]:
    """The pieces of a (width-normalized) line, among the seated names `known` and the fixed `words`
    (bot/chat/grammar.py's lexicon, indexed by first character)."""
    return _Scanner(line, known, words).pieces()


def split_words(text: str) -> list[str]:
    """A line's words as typed, split at spaces and commas: what a command read whole takes."""
    return [t for t in _SEPARATOR.split(text.strip()) if t]
