"""A message that carries several answers (bot/telegram/delivery.py coalesces what waits into one
message per turn), some of them with buttons: its keyboard is theirs, one after the other. A press
is about one answer: written over (a guided flow's next step, a win's 明细), or answered anew and its
buttons taken off (a question). `Shared` knows which part of the text and which rows of buttons are
whose, so only that answer's part changes and the others' text and buttons stay.

Pure: parts of text and rows of PTB buttons.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

Rows = tuple[tuple[InlineKeyboardButton, ...], ...]


@dataclass(frozen=True)
class Part:
    text: str
    rows: Rows = ()  # the buttons of the answer this part is; none: the text of other answers


@dataclass(frozen=True)
class Shared:
    parts: tuple[Part, ...]

    @property
    def text(self) -> str:
        return "".join(part.text for part in self.parts)

    def markup(self) -> InlineKeyboardMarkup | None:
        rows = [row for part in self.parts for row in part.rows]
        return InlineKeyboardMarkup(rows) if rows else None

    def holding(self, data: str | None) -> int | None:
        """The part whose buttons include the one pressed (by its callback data)."""
        for index, part in enumerate(self.parts):
            if any(button.callback_data == data for row in part.rows for button in row):
                return index
        return None

    def replaced(self, index: int, text: str, markup: InlineKeyboardMarkup | None) -> Shared:
        rows = rows_of(markup)
        return Shared((*self.parts[:index], Part(text, rows), *self.parts[index + 1 :]))

    def without_buttons(self, index: int) -> Shared:
        return Shared((*self.parts[:index], replace(self.parts[index], rows=()), *self.parts[index + 1 :]))


def rows_of(markup: InlineKeyboardMarkup | None) -> Rows:
    return tuple(tuple(row) for row in markup.inline_keyboard) if markup is not None else ()


def shared(text: str, asking: Sequence[tuple[Sequence[str], InlineKeyboardMarkup]]) -> Shared | None:
    """The parts of a message's `text`: for each answer with buttons, in order, the texts it may show
    as (in full, in one line) and its buttons. None when an answer's text is not found (a text split
    in pieces): such a message is not written over."""
    parts: list[Part] = []
    at = 0
    for shown, markup in asking:
        found = next(((text.find(s, at), s) for s in shown if s and text.find(s, at) >= 0), None)
        if found is None:
            return None
        start, part = found
        if start > at:
            parts.append(Part(text[at:start]))
        parts.append(Part(part, rows_of(markup)))
        at = start + len(part)
    if at < len(text):
        parts.append(Part(text[at:]))
    return Shared(tuple(parts))
