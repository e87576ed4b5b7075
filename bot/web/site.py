"""The Mini App on the bot's own aiohttp server: `add_app_routes` adds the page, its sprite and its
API to an `aiohttp.web.Application` (the webhook's, or one of its own in polling mode), and a
middleware gives everything under /app/ the headers Telegram's clients need and nothing they must
not have: a Content-Security-Policy that lets Telegram frame the page (and nobody else), no
cookies, no caching of the API's answers."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web

from bot.web.api import Api

STATIC = Path(__file__).with_name("static")
PAGES = {"/app/": "index.html", "/app/app.js": "app.js", "/app/app.css": "app.css"}
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
FRAMED_BY = "https://web.telegram.org https://*.telegram.org https://t.me"
CSP = (
    "default-src 'self'; script-src 'self' https://telegram.org; img-src 'self' data: blob:; "
    f"style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors {FRAMED_BY}; base-uri 'none'; "
    "form-action 'none'"
)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def app_headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    response = await handler(request)
    if request.path.startswith("/app/"):
        response.headers["Content-Security-Policy"] = CSP
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"
        if request.path.startswith("/app/api/"):
            response.headers["Cache-Control"] = "no-store"
        response.headers.popall("Set-Cookie", None)
    return response


def page(name: str) -> Handler:
    async def serve(request: web.Request) -> web.StreamResponse:
        path = STATIC / name
        if not path.is_file():
            raise web.HTTPNotFound()
        return web.Response(
            body=path.read_bytes(),
            content_type=TYPES[path.suffix],
            charset="utf-8",
            headers={"Cache-Control": "no-cache"},
        )

    return serve


async def sprite(request: web.Request) -> web.StreamResponse:
    """The tiles, drawn by code (bot/web/tiles.py), one SVG document of symbols."""
    try:
        tiles = importlib.import_module("bot.web.tiles")
    except ImportError:
        raise web.HTTPNotFound() from None
    return web.Response(text=tiles.sprite(), content_type="image/svg+xml", headers={"Cache-Control": "no-cache"})


async def to_the_page(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/app/")


def add_app_routes(app: web.Application, api: Api) -> None:
    """The page at /app/, its files and sprite, and its API at /app/api/ (docs/miniapp.md)."""
    app.middlewares.append(app_headers)
    app.router.add_get("/app", to_the_page)
    for path, name in PAGES.items():
        app.router.add_get(path, page(name))
    app.router.add_get("/app/tiles.svg", sprite)
    app.router.add_routes(api.routes())
