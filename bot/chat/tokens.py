"""The short tokens buttons carry, read without the grammar: a seat by number (`#2`), a question's id
(`q7`), the rows an undo-claim button names. The tab's words are in bot/chat/tab_words.py, the season's
in bot/chat/season_words.py."""

from __future__ import annotations

import re

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
