"""The Mini App's routes wired to a running bot's front end as `python -m bot run` wires them
(bot/telegram/mini_app.py), with the settings tests and benches use."""

from __future__ import annotations

from aiohttp import web

from bot.settings import Settings
from bot.telegram.app import TelegramFrontEnd
from bot.telegram.mini_app import Routes, mini_app

APP_URL = "https://referee.example.org/app/"
APP_NAME = "table"


def app_routes(front: TelegramFrontEnd, token: str = "123:TEST") -> Routes:
    """What adds the page and its API to a server; the front end's messages get the app's button."""
    settings = Settings(token=token, miniapp_url=APP_URL, miniapp_name=APP_NAME)
    routes = mini_app(settings, front)
    assert routes is not None
    return routes


def app_site(front: TelegramFrontEnd, token: str = "123:TEST") -> web.Application:
    app = web.Application()
    app_routes(front, token)(app)
    return app
