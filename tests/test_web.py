"""The bot's own HTTP server (bot/telegram/web.py): `/healthz` and Telegram's webhook when it is one,
the routes `add_routes` adds (bot/telegram/routes.py, the one place a feature adds routes), and the
same server beside long polling when a setting asks for it (the Mini App's URL)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.settings import Settings
from bot.telegram import app as composition
from bot.telegram.routes import FrontEnd
from bot.telegram.web import HEALTH_PATH, WEBHOOK_PATH, wants_web, web_application
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.telegram import ALICE, GROUP


async def pong(request: web.Request) -> web.Response:
    return web.Response(text="pong")


def with_ping(app: web.Application) -> None:
    app.router.add_get("/ping", pong)


async def test_the_server_carries_healthz_the_extra_routes_and_the_webhook_only_when_it_is_one() -> None:
    async with TestClient(TestServer(web_application(lambda: (True, "healthy"), with_ping))) as client:
        assert await (await client.get("/ping")).text() == "pong"
        assert (await client.get(HEALTH_PATH)).status == 200
        assert (await client.post(WEBHOOK_PATH, data=b"{}")).status in (404, 405)  # long polling: no webhook


def test_the_server_runs_in_webhook_mode_and_when_a_setting_asks_for_it() -> None:
    assert not wants_web(Settings())
    assert wants_web(Settings(webhook_url="https://bot.example.org"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_a_long_polling_bot_serves_the_routes_added_in_the_one_place(
    fake: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run(settings)` composes the front end, polls, and runs the server beside it with what
    `add_routes` added; a route reaches the command layer through the front end it is given."""
    seen: list[FrontEnd] = []

    def add_routes(app: web.Application, front: FrontEnd, settings: Settings) -> None:
        seen.append(front)
        with_ping(app)

    monkeypatch.setattr(composition, "wants_web", lambda settings: True)  # as the Mini App's URL will
    monkeypatch.setattr(composition, "add_routes", add_routes)
    port = free_port()
    settings = Settings(
        token="123:TEST",
        database=str(tmp_path / "web.sqlite3"),
        base_url=fake.base_url,
        port=port,
        board_edit_seconds=0,
    )
    running = asyncio.create_task(composition.run(settings))
    try:
        async with aiohttp.ClientSession() as session:
            for _ in range(200):
                with contextlib.suppress(aiohttp.ClientError):
                    async with session.get(f"http://127.0.0.1:{port}/ping") as answer:
                        assert await answer.text() == "pong"
                        break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("the server never answered")
            async with session.get(f"http://127.0.0.1:{port}{HEALTH_PATH}") as health:
                assert "inbox backlog 0" in await health.text()
        fake.message(GROUP, ALICE, "/help")  # and the bot polls meanwhile
        await fake.wait_for(lambda: bool(fake.sent("sendMessage")), timeout=30)
        assert len(seen) == 1 and seen[0].referee is not None
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
