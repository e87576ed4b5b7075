"""The bot's own HTTP server (aiohttp), beside the Telegram application in the same event loop.

It runs in webhook mode (Telegram's updates come in at `/telegram`, bot/telegram/intake.py) and, in
long polling mode, whenever a setting asks for pages of the bot's own (`wants_web`: the Mini App's
public URL). Either way it answers `GET /healthz` as `python -m bot health` does, and carries the
routes of bot/telegram/routes.py's `add_routes`, the one place where a feature adds HTTP routes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from bot.settings import Settings

WEBHOOK_PATH = "/telegram"
HEALTH_PATH = "/healthz"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Health = Callable[[], tuple[bool, str]]  # (healthy, the report): bot/health.py's check_health
Routes = Callable[[web.Application], None]  # adds a feature's routes to the server's application


def wants_web(settings: Settings) -> bool:
    """Whether the server runs: in webhook mode always; in long polling mode when a setting asks
    for pages of the bot's own (the Mini App's settings join this test)."""
    return bool(settings.webhook_url or settings.miniapp_url)


def web_application(
    health: Health | None, extra: Routes | None = None, webhook: Handler | None = None
) -> web.Application:
    """The server's application: `/healthz`, Telegram's webhook when given, and `extra`'s routes."""
    app = web.Application()
    if webhook is not None:
        app.router.add_post(WEBHOOK_PATH, webhook)
    app.router.add_get(HEALTH_PATH, healthz(health))
    if extra is not None:
        extra(app)
    return app


def healthz(health: Health | None) -> Handler:
    async def answer(request: web.Request) -> web.Response:
        """What `python -m bot health` says, 200 when healthy and 503 when not (read off the loop:
        the backlog is an SQLite read)."""
        if health is None:
            return web.Response(text="healthy\n")
        healthy, report = await asyncio.to_thread(health)
        return web.Response(status=200 if healthy else 503, text=report + "\n")

    return answer


@dataclass
class WebServer:
    """`app` served on `listen`:`port` from `start` until `stop` (requests in flight finish first)."""

    app: web.Application
    listen: str
    port: int
    _runner: web.AppRunner | None = None

    async def start(self) -> None:
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, self.listen, self.port).start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
