"""The Mini App put together with the Telegram front end (docs/miniapp.md): its button on the bot's
messages, its way into the chats (bot/telegram/app_lines.py), and its routes on the bot's own
aiohttp server (bot/telegram/web.py: the webhook's, and in long polling mode too once MINIAPP_URL is
set), added by bot/telegram/routes.py. One process, one event loop: the page is answered between
the chats' lines."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from aiohttp import web
from telegram import Update

from bot.settings import Settings
from bot.telegram.app_lines import AppLines
from bot.telegram.app_link import AppLink
from bot.telegram.chats import Chats
from bot.telegram.connections import Connections
from bot.telegram.sending import Sender
from bot.telegram.updates import Updates
from bot.web.api import Api
from bot.web.site import add_app_routes
from bot.web.tokens import token_key

Routes = Callable[[web.Application], None]


class FrontEnd(Protocol):
    """What the Mini App uses of the Telegram front end (bot/telegram/app.py's `TelegramFrontEnd`)."""

    @property
    def connections(self) -> Connections: ...

    @property
    def chats(self) -> Chats: ...

    @property
    def sender(self) -> Sender: ...

    @property
    def updates(self) -> Updates: ...

    async def accept(self, update: Update) -> None: ...  # stored in the inbox, queued in its chat's lane


def mini_app(settings: Settings, front: FrontEnd) -> Routes | None:
    """What adds the Mini App's routes to a server; None (and no button) unless MINIAPP_URL is set."""
    if not settings.miniapp_url or not settings.miniapp_name or not settings.token:
        return None
    key = token_key(settings.miniapp_key, settings.token)
    connections = front.connections
    front.sender.link = AppLink(settings.miniapp_name, key, lambda: connections.bot.username)
    door = AppLines(connections, front.chats, front.accept, front.updates.app_answers)
    api = Api(door, settings.token, key)
    return lambda app: add_app_routes(app, api)
