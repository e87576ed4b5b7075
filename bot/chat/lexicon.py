"""The fixed words a chat line is read with: every command's plain words (from the catalogs), and
the grammar's own words — self-draw, same-discard, gang and penalty kinds, flower counts, particles —
with the kind of piece each one makes.

Matching folds scripts (bot/text/vocabulary.py `fold`), so the Simplified form of a word is enough.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache

from bot.text.vocabulary import catalog_words, flag_words, fold, pattern_words


@cache
def plain_words(name: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(catalog_words(f"command.{name}", with_name=False)))


UNKNOWN = "unknown"  # the command name of a `/word` that is no command

# Words of the grammar that are not command words, pattern words or flag words. Each maps to the
# canonical text the builders read. Matching folds scripts, so the Simplified form is enough.
SELF_WORDS = ("self", "self-draw", "self draw", "selfdraw", "self-drawn", "自摸", "zimo", "tsumo")
# A 胡 line that says it shares the last win's discard (一炮多响): joined to it without a question.
ALSO_WORDS = ("also", "一炮多响", "一炮两响", "一炮三响", "same-discard")
GANG_KIND_WORDS = {
    "add": "added",
    "added": "added",
    "补": "added",
    "added_gang": "added",  # 补杠 is a command word; inside /gang it names the kind
    "concealed": "concealed",
    "暗": "concealed",
    "self": "concealed",
    "concealed_gang": "concealed",
    "exposed": "exposed",
    "明": "exposed",
    "直": "exposed",
}
PENALTY_WORDS = {
    "follow": "penalty_follow",
    "跟牌": "penalty_follow",
    "跟": "penalty_follow",
    "four": "penalty_four",
    "四张": "penalty_four",
    "false": "false_win",
    "诈胡": "false_win",
    "zha": "false_win",
}
FLOWER_WORDS = ("花", "硬花", "flowers", "flower")  # with a number: 花2 2花 两花 花 二 2 flowers
SOFT_WORDS = ("软花", "soft")
MEASURE_WORDS = ("个",)  # 4个花
PARTICLES = ("了",)  # 碰了 杠了 胡了: only right after the command word
# A plain line ending in a sentence particle is talk about the game, not a command (流局吗, 花杠呢).
SENTENCE_PARTICLES = frozenset("吗嗎呢吧啊呀嘛么麼啦哦喔咯呗唄")

# Piece kinds.
NAME, SEAT, VERB, SELF, FLAG, PATTERN, ALSO = "name", "seat", "verb", "self", "flag", "pattern", "also"
GANG_KIND, PENALTY_KIND, FLOWER_WORD, SOFT_WORD, MEASURE = "gang_kind", "penalty_kind", "flower", "soft", "measure"
PARTICLE, NUMBER, TILE, FLOWERS, SOFT, WORD = "particle", "number", "tile", "flowers", "soft_count", "word"

# One fixed word: (folded word, piece kind, canonical text).
Entry = tuple[str, str, str]


@cache
def lexicon(verbs: tuple[tuple[str, str], ...]) -> tuple[Entry, ...]:
    """Every fixed word as (folded word, piece kind, canonical text), longest first; `verbs` are the
    commands' plain words, folded, with the command each starts (a command word wins over any other)."""
    verb_names = dict(verbs)
    entries: dict[str, tuple[str, str]] = {}

    def add(words: Mapping[str, str] | Sequence[str], kind: str, canonical: Callable[[str], str]) -> None:
        for word in words:
            folded = fold(word)
            if folded not in entries and folded not in verb_names:
                entries[folded] = (kind, canonical(word))

    add(SELF_WORDS, SELF, lambda _: "self")
    add(ALSO_WORDS, ALSO, lambda _: "also")
    add(flag_words(), FLAG, flag_words().__getitem__)
    add(pattern_words(frozenset(verb_names)), PATTERN, pattern_words(frozenset(verb_names)).__getitem__)
    add(GANG_KIND_WORDS, GANG_KIND, lambda w: w if w.isascii() else _latin_kind(GANG_KIND_WORDS, w))
    add(PENALTY_WORDS, PENALTY_KIND, lambda w: w if w.isascii() else _latin_kind(PENALTY_WORDS, w))
    add(FLOWER_WORDS, FLOWER_WORD, lambda w: w)
    add(SOFT_WORDS, SOFT_WORD, lambda w: w)
    add(MEASURE_WORDS, MEASURE, lambda w: w)
    add(PARTICLES, PARTICLE, lambda w: w)
    table = [(word, VERB, name) for word, name in verb_names.items()]
    table += [(word, kind, text) for word, (kind, text) in entries.items()]
    return tuple(sorted(table, key=lambda entry: -len(entry[0])))


@cache
def by_first_char(entries: tuple[Entry, ...]) -> Mapping[str, tuple[Entry, ...]]:
    """The lexicon indexed by its words' first (folded) character: a line is read in one pass."""
    index: dict[str, list[Entry]] = {}
    for entry in entries:
        index.setdefault(entry[0][0], []).append(entry)
    return {char: tuple(found) for char, found in index.items()}


def _latin_kind(table: Mapping[str, str], word: str) -> str:
    """The ASCII word of the same kind (`跟牌` → `follow`), which is what the builders read."""
    return next(key for key, value in table.items() if key.isascii() and value == table[word])


@cache
def flag_keys() -> frozenset[str]:
    return frozenset(flag_words().values())
