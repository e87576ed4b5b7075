"""The words after 赛季 / season (new, end, undo), read without the grammar (bot/chat/handlers/seasons.py)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.text.vocabulary import catalog_words, fold
from engine.errors import EngineError

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
