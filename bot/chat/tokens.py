"""The short tokens buttons and typed lines carry, read without the grammar: a seat by number (`#2`),
a question's id (`q7`), the rows an undo-claim button names, the tab's amounts and undo word, and the
words after 赛季 (new, end, undo)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.chat.scanner import chinese_number
from bot.text.vocabulary import catalog_words, fold
from engine.errors import EngineError

SEAT_TOKEN = re.compile(r"^#[0-3]$")  # a seat by number: what buttons send, to keep callback data short

CLAIM_ROWS = re.compile(r"^claim=(\d{1,12})(?:,(\d{1,12}))?$")  # the undo-claim button's: bind row, line row

# A question's own id in a button's command (`/again q7 no`): the button answers that question, once
# (bot/chat/handlers/repeats.py); a front end keys the press by it (bot/telegram/input.py).
QUESTION = re.compile(r"(?<!\S)q(\d{1,9})(?!\S)")


def question_token(question: int) -> str:
    return f"q{question}"


def question_of(command_line: str) -> int | None:
    """The question a button's command answers (`/again q7` → 7), or None."""
    match = QUESTION.search(command_line)
    return int(match[1]) if match else None


TAB_AMOUNT = re.compile(r"(\d{1,9})(?:\.(\d{1,2}))?(?:元|块|塊)?")


def tab_amount_cents(word: str) -> int | None:
    """An amount as typed (`120`, `12.5`, `120元`, `五十块`, `一百二`) in cents; None if it is none."""
    match = TAB_AMOUNT.fullmatch(word)
    if match is not None:
        return int(match[1]) * 100 + int((match[2] or "0").ljust(2, "0"))
    value = chinese_number(word.rstrip("元块塊"))
    return None if value is None else value * 100


def tab_undo_word(word: str) -> bool:
    return fold(word) in {fold(w) for w in catalog_words("tab.undo", with_name=False)}


SEASON_KINDS = ("new", "end", "undo")


def season_word(word: str) -> str | None:
    """What a word after 赛季 / season asks (`new`, `end`, `undo`), or None."""
    folded = fold(word)
    return next(
        (
            kind
            for kind in SEASON_KINDS
            if folded in {fold(w) for w in catalog_words(f"season.{kind}", with_name=False)}
        ),
        None,
    )


def season_words(tokens: Sequence[str]) -> tuple[str | None, str | None]:
    """What `/season`'s words ask: (None, None) the list; ("new", NAME); ("end", None); ("undo", None);
    ("?", the words) for anything else, which the handler answers with the forms."""
    kind = season_word(tokens[0]) if tokens else None
    if tokens and kind is None:
        return "?", " ".join(tokens)
    if kind in ("end", "undo") and len(tokens) > 1:
        raise EngineError("command.extra_args", extra=" ".join(tokens[1:]))
    return kind, " ".join(tokens[1:]) or None


def season_shape(words: Sequence[str]) -> bool:
    """A plain line that is a season command: 赛季 alone, 赛季 新 NAME, 赛季 结束, 赛季 撤销."""
    if not words:
        return True
    kind = season_word(words[0])
    return (kind == "new" and 1 < len(words) <= 4) or (kind in ("end", "undo") and len(words) == 1)
