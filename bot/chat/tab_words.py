"""The words of a tab line, read without the grammar: an amount as typed (`120`, `12.5`, `五十块`) and
the word that takes a payment back (bot/chat/handlers/tab.py)."""

from __future__ import annotations

import re

from bot.chat.scanner import chinese_number
from bot.text.vocabulary import catalog_words, fold

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
