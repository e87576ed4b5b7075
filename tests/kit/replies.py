"""Reading the bot's replies: a rendered response's text, a text's non-empty lines."""

from __future__ import annotations

from bot.text.replies import Response, render_response
from locales import Translator


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def text_of(response: Response) -> str:
    return render_response(response, Translator(response.language))
