"""The words players use at a table, derived from the engine's keys and the locale catalogs.

A pattern word (清一色, 碰碰胡, full flush) is the catalog name of an engine unit (`unit.<key>`) in any
of the three languages, or one of its aliases (`words.unit.<key>`, separated by `|`), or the key
itself. A flag word (杠上开花, 抢杠, 海底) names a `WinFlags` field: the names and aliases of the units
that the flag alone scores, and the aliases under `words.flag.<field>`. So a new pattern needs only
its unit class, the presets and the catalogs: the parser learns its words from them.

Matching folds case, full-width forms and Traditional characters (張三 matches the seated 张三).
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from types import MappingProxyType

from opencc import OpenCC

from engine.units import UNITS_BY_KEY, WinFlags, flag_pattern_counts
from locales import LANGUAGES, load_catalog

# Full-width ASCII (！ to ～) and the ideographic space, as phones type them in Chinese mode.
_FULL_WIDTH = {0xFF01 + offset: 0x21 + offset for offset in range(0x5E)} | {0x3000: 0x20}
# Units that are never named in a win: every win has its base, and hard flowers are a count.
IMPLICIT_UNITS = frozenset({"pao", "hard"})
# WinFlags yes/no fields that are not flag words: 自摸 is a word of its own, the dealer is known.
_NOT_FLAG_WORDS = frozenset({"self_draw", "dealer"})
ALIAS_SEPARATOR = "|"


def normalize_width(text: str) -> str:
    """Full-width signs, letters and digits as ASCII (`＋５ｐ` → `+5p`); nothing else changes."""
    return text.translate(_FULL_WIDTH)


@cache
def _to_simplified() -> OpenCC:
    return OpenCC("t2s")


@cache
def fold_char(char: str) -> str:
    """One character as matching sees it: lower case, Simplified (a 1:1 mapping keeps positions)."""
    lowered = char.lower()
    if lowered.isascii():
        return lowered
    simplified = _to_simplified().convert(lowered)
    return simplified if len(simplified) == 1 else lowered


@lru_cache(maxsize=4096)  # names and words are folded again and again
def fold(text: str) -> str:
    """Text as matching sees it, character by character (the length never changes)."""
    return "".join(fold_char(char) for char in normalize_width(text))


# Characters that show nothing or turn the text around: zero-width spaces and joiners, the word joiner,
# the BOM, the Mongolian vowel separator, and every bidi mark, embedding, override and isolate. A name
# holding them looks like another name (`Bob` and `Bob` + U+200B), or reverses a `payer → payee` line.
INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u2060\ufeff\u180e\u00ad\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def clean_name(text: str) -> str:
    """A player's name as stored and compared: NFC (a composed é is one é), invisible and direction
    characters removed, outer spaces trimmed. Empty means no name at all (the caller refuses it)."""
    composed = unicodedata.normalize("NFC", text)
    return "".join(char for char in composed if char not in INVISIBLE).strip()


def name_key(text: str) -> str:
    """What two names are compared by: cleaned, then folded (`Bob` + U+200B is Bob, 張三 is 张三)."""
    return fold(clean_name(text))


def catalog_words(key: str, with_name: bool = True) -> list[str]:
    """The words for `key` in every language: its catalog text (when it is a name) and its aliases."""
    words: list[str] = []
    for language in LANGUAGES:
        catalog = load_catalog(language).singular
        if with_name and key in catalog:
            words.append(catalog[key])
        words.extend(catalog.get(f"words.{key}", "").split(ALIAS_SEPARATOR))
    return [word.strip() for word in words if word.strip()]


def _folded(pairs: Iterable[tuple[str, str]]) -> Mapping[str, str]:
    return MappingProxyType({fold(word): value for word, value in pairs})


def flag_fields() -> tuple[str, ...]:
    """The WinFlags fields a player names with a word (杠开, 抢杠, 海底, 天胡 …)."""
    return tuple(
        f.name for f in dataclasses.fields(WinFlags) if f.type in ("bool", bool) and f.name not in _NOT_FLAG_WORDS
    )


def flag_units(flag: str) -> tuple[str, ...]:
    """The units that this flag alone scores (after_gang → 大杠开花), asked of the engine itself."""
    return tuple(flag_pattern_counts(WinFlags(self_draw=True, **{flag: True})))


@cache
def flag_words() -> Mapping[str, str]:
    """Folded word → WinFlags field."""
    pairs: list[tuple[str, str]] = []
    for flag in flag_fields():
        pairs.extend((word, flag) for word in (flag, flag.replace("_", "-"), *catalog_words(f"flag.{flag}", False)))
        for unit in flag_units(flag):
            pairs.extend((word, flag) for word in (unit, *catalog_words(f"unit.{unit}")))
    return _folded(pairs)


@cache
def pattern_words(commands: frozenset[str] = frozenset()) -> Mapping[str, str]:
    """Folded word → unit key, for every unit a player may name in a win: not the flag ones, and not
    a unit named like a command (`commands`, folded: 明杠 暗杠 补杠 are gangs the log already knows)."""
    by_flag = {unit for flag in flag_fields() for unit in flag_units(flag)}
    pairs: list[tuple[str, str]] = []
    for key in UNITS_BY_KEY:
        words = (key, *catalog_words(f"unit.{key}"))
        if key in IMPLICIT_UNITS or key in by_flag or any(fold(word) in commands for word in words):
            continue
        pairs.extend((word, key) for word in words)
    return _folded(pairs)
