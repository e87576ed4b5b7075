"""The Mini App's URL button, `https://t.me/<bot>/<app>?startapp=<token>` (docs/miniapp.md), on
messages the bot sends anyway — the /new reply, /score's board, the pinned board — so that opening
the app costs the group no message of its own. A group can only open a Mini App by such a direct
link (an inline `web_app` button works in private chats alone)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.text.replies import Response
from bot.web import tokens
from locales import Translator

# the replies whose message carries the button: the /new reply and /score (the board)
BUTTONED = ("night.opened", "board.header")


@dataclass(frozen=True)
class AppLink:
    """The Mini App's URL button, `https://t.me/<bot>/<app>?startapp=<token>` (docs/miniapp.md)."""

    name: str  # MINIAPP_NAME: the app's short name at BotFather
    key: bytes  # the start tokens' key
    bot_username: Callable[[], str | None]

    def button(self, chat: int, thread: int | None, night_id: int, language: str) -> InlineKeyboardButton | None:
        username = self.bot_username()
        if not username or chat > 0:  # a private chat has no table to open
            return None
        token = tokens.sign(self.key, tokens.StartToken(chat, thread or 0, night_id))
        url = f"https://t.me/{username}/{self.name}?startapp={token}"
        return InlineKeyboardButton(Translator(language).t("app.open"), url=url)

    def under(self, response: Response, chat: int, thread: int | None) -> InlineKeyboardButton | None:
        """The button for a message that carries it: the /new reply and /score's board."""
        if response.night_id is None or not response.replies or response.replies[0].key not in BUTTONED:
            return None
        return self.button(chat, thread, response.night_id, response.language)


def with_button(
    markup: InlineKeyboardMarkup | None, button: InlineKeyboardButton | None
) -> InlineKeyboardMarkup | None:
    if button is None:
        return markup
    rows = [list(row) for row in markup.inline_keyboard] if markup is not None else []
    return InlineKeyboardMarkup([*rows, [button]])
