"""The one place where a feature adds HTTP routes to the bot's own server (bot/telegram/web.py): the
Mini App's page and its JSON API. The server runs in webhook mode, and in long polling mode when a
setting asks for it (`wants_web`); the composition root (bot/telegram/app.py) calls `add_routes`
once, with the front end and the settings, whichever the mode.
"""

from __future__ import annotations

from typing import Protocol

from aiohttp import web
from telegram import Bot, Update

from bot.chat.service import Referee
from bot.settings import Settings
from bot.telegram.mini_app import FrontEnd as MiniAppFrontEnd
from bot.telegram.mini_app import mini_app
from bot.telegram.sending import Sender


class FrontEnd(MiniAppFrontEnd, Protocol):
    """What a route may use of the Telegram front end (bot/telegram/app.py's `TelegramFrontEnd`)."""

    @property
    def referee(self) -> Referee: ...  # the command layer: the one way to the ledger

    @property
    def sender(self) -> Sender: ...  # messages to a chat, each in its turn

    @property
    def bot(self) -> Bot: ...

    async def accept(self, update: Update) -> None: ...  # an update into the inbox and its chat's lane


def add_routes(app: web.Application, front: FrontEnd, settings: Settings) -> None:
    """The one place where the bot's HTTP routes beyond Telegram's webhook and `/healthz` are added
    (`app.router.add_get(...)`, `app.router.add_post(...)`, `app.add_routes(...)`): the Mini App's
    page and JSON API. `front.referee` is the command layer, `front.sender` posts to a chat in its
    turn; the handlers run on the bot's event loop, so what is slow goes to a thread (bot/threads.py).
    The Mini App (bot/telegram/mini_app.py): its page and API when MINIAPP_URL is set."""
    mini_app_routes = mini_app(settings, front)
    if mini_app_routes is not None:
        mini_app_routes(app)
