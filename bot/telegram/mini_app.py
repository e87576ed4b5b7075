"""The Mini App put together with the Telegram front end (docs/miniapp.md): its button on the bot's
messages, its way into the chats (bot/telegram/app_lines.py), and its routes on the bot's own
aiohttp server — the webhook's, or, in long-polling mode, a site of its own on LISTEN:PORT started
with the polling. One process, one event loop: the page is answered between the chats' lines."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from aiohttp import web
from telegram import Update

from bot.telegram.app_lines import AppLines
from bot.telegram.app_link import AppLink
from bot.telegram.chats import Chats
from bot.telegram.connections import Connections
from bot.telegram.intake import Intake
from bot.telegram.sending import Sender
from bot.telegram.settings import Settings
from bot.telegram.updates import Updates
from bot.web.api import Api
from bot.web.site import add_app_routes
from bot.web.tokens import token_key

Routes = Callable[[web.Application], None]


class FrontEnd(Protocol):
    """What the Mini App uses of the Telegram front end (bot/telegram/app.py's `TelegramFrontEnd`)."""

    connections: Connections
    chats: Chats
    sender: Sender
    updates: Updates

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


@dataclass
class WithSite(Intake):
    """Long polling, and the Mini App's site on LISTEN:PORT beside it (a webhook serves it itself)."""

    polling: Intake
    routes: Routes
    listen: str
    port: int
    _runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        self.routes(app)
        self._runner = web.AppRunner(app, access_log=None)  # as the webhook: no access log
        await self._runner.setup()
        await web.TCPSite(self._runner, self.listen, self.port).start()
        await self.polling.start()
        self.failed = self.polling.failed

    async def stop(self) -> None:
        await self.polling.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
