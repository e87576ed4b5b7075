"""A command word one slip away (`gnag Dave 3s`, `drwa`, `undoo`, `sumary`, `荒装`, `花刚`, `/gnag`): the
line it would be with the word mended, when that line is a command — talk with a word near a command
(`drawn out`, `hang on`, `荒唐`, `花钱了`) mends into no command and stays silent.

A slip is what a thumb on a phone does to a word of four letters or more: a letter dropped, doubled,
two neighbours swapped, or one replaced (replaced only in a word of five letters or more, or with
more of the line after it: `hang` alone is a word of its own); or, in a Chinese command word of two
characters or more, one character that a pinyin input method offers for the same syllable
(bot/chat/homophones.py, derived from the lexicon's own words)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from bot.chat.grammar import BY_SLASH, GRAMMAR_BY_NAME
from bot.chat.homophones import HOMOPHONES
from bot.chat.lexicon import plain_words
from bot.chat.parser import ReadLine, read_line
from bot.text.vocabulary import fold, name_key, normalize_width

MIN_LETTERS = 4  # shorter words (`uh`, `gag`, `hi`) are words of their own
REPLACED_ALONE = 5  # a letter replaced in a word alone on its line: only in a word this long
# The commands typed at the table as the night goes, whose lost line costs money or the dealer.
TABLE_COMMANDS = ("draw", "undo", "summary")


@dataclass(frozen=True)
class Slip:
    """A command word mistyped: the word as typed, the command word meant, and the line mended."""

    typed: str
    word: str
    line: str
    read: ReadLine  # the mended line as read: a command


@cache
def plain_command_words() -> tuple[tuple[str, str], ...]:
    """(folded word, command) for every one-word plain word of the commands a slip is answered for."""
    names = [spec.name for spec in GRAMMAR_BY_NAME.values() if spec.hinted or spec.name in TABLE_COMMANDS]
    words = {fold(word): name for name in names for word in plain_words(name) if " " not in word}
    return tuple(words.items())


@cache
def name_keys(known: tuple[str, ...]) -> frozenset[str]:
    return frozenset(name_key(name) for name in known)


def plain_slip(text: str, known: tuple[str, ...]) -> Slip | None:
    """The line with its command word mended, after any names it starts with (`Dave gnag Carol 3s`)."""
    names = name_keys(known)
    words = normalize_width(text).strip().split(" ")
    lead = 0
    while lead < len(words) and name_key(words[lead].lstrip("@")) in names:
        lead += 1
    if lead == len(words):
        return None
    rest = " ".join(words[lead:])
    # the line's first characters folded once for each length of a Chinese command word
    heads = {} if rest[:1].isascii() else {n: fold(rest[:n]) for n in chinese_word_lengths()}
    found = {
        (typed, word)
        for word, _ in plain_command_words()
        if (typed := slipped_head(rest, word, heads)) is not None and name_key(typed) not in names
    }
    if len(found) != 1:  # none, or a slip of two words: none guessed
        return None
    typed, word = found.pop()
    return mended(" ".join([*words[:lead], word + rest[len(typed) :]]), typed, word, known)


def slash_slip(text: str, known: tuple[str, ...]) -> Slip | None:
    """`/gnag Dave 3s`: the /command one slip from the typed one, with the rest of the line as typed."""
    line = normalize_width(text).strip()
    head, _, rest = line[1:].partition(" ")
    typed = head.partition("@")[0].lower()
    close = {spec.slash[0] for slash, spec in BY_SLASH.items() if letter_slip(slash, typed, alone=False)}
    if len(close) != 1 or len(typed) < MIN_LETTERS - 1:
        return None
    word = close.pop()
    return mended(f"/{word} {rest}".strip(), f"/{typed}", f"/{word}", known)


def mended(line: str, typed: str, word: str, known: tuple[str, ...]) -> Slip | None:
    read = read_line(line, known)
    return Slip(typed, word, line, read) if read.command is not None and read.error is None else None


@cache
def chinese_word_lengths() -> frozenset[int]:
    return frozenset(len(word) for word, _ in plain_command_words() if not word.isascii() and len(word) >= 2)


def slipped_head(rest: str, word: str, heads: dict[int, str]) -> str | None:
    """The start of `rest` that is one slip of the command word `word`, if it is (`heads`: the start
    of `rest` folded, by length; none for a line that starts with no Chinese character)."""
    if word.isascii():
        typed, _, after = rest.partition(" ")
        return typed if letter_slip(word, typed.lower(), alone=not after.strip()) else None
    head = heads.get(len(word))
    return rest[: len(word)] if head is not None and sound_slip(word, head) else None


def letter_slip(word: str, typed: str, alone: bool) -> bool:
    """`typed` is `word` with one letter dropped, doubled, replaced, or two neighbours swapped."""
    if len(typed) < MIN_LETTERS or not typed.isascii() or not typed.isalpha() or typed == word:
        return False
    if len(typed) == len(word) - 1:  # dropped
        return any(word[:at] + word[at + 1 :] == typed for at in range(len(word)))
    if len(typed) == len(word) + 1:  # doubled
        return any(typed[at] == typed[at - 1] and typed[:at] + typed[at + 1 :] == word for at in range(1, len(typed)))
    if len(typed) != len(word):
        return False
    wrong = [at for at, (a, b) in enumerate(zip(word, typed, strict=True)) if a != b]
    if len(wrong) == 2:  # swapped
        first, second = wrong
        return second == first + 1 and (word[first], word[second]) == (typed[second], typed[first])
    return len(wrong) == 1 and (not alone or len(typed) >= REPLACED_ALONE)  # replaced


def sound_slip(word: str, typed: str) -> bool:
    """`typed` is the command word `word` with one character an input method offers for its sound."""
    if len(typed) != len(word):
        return False
    wrong = [at for at, (a, b) in enumerate(zip(word, typed, strict=True)) if a != b]
    return len(wrong) == 1 and typed[wrong[0]] in HOMOPHONES.get(word[wrong[0]], "")
