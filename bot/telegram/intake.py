"""Where updates come in, through python-telegram-bot's public API only: the application is built with
`ApplicationBuilder().updater(None)`, and this module owns both ways in.

- `Polling`: its own `getUpdates` loop. A batch is handed to `accept_all`, which returns only once
  every update of it is committed to the inbox; the next call's `offset` (which tells Telegram it
  may forget everything before it) is sent only after that, so the offset never passes an update
  that was not written.
- `Webhook`: a route of the bot's own aiohttp server (bot/telegram/web.py). A request without the
  secret Telegram was given in `setWebhook` gets 403 and records nothing; a genuine one is answered
  200 only after `accept` returned (the update is in the inbox), so Telegram never forgets an update
  that was not written.

Both ask Telegram only for the update types the referee handles (`ALLOWED_UPDATES`) and touch the
heartbeat (bot/health.py) as their loop goes round.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hmac
import json
import logging
import signal
import warnings
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from telegram import Bot, Update
from telegram.error import InvalidToken, RetryAfter, TelegramError
from telegram.warnings import PTBDeprecationWarning

from bot.health import Heartbeat
from bot.telegram.web import HEALTH_PATH, WEBHOOK_PATH, Health, Routes, WebServer, web_application

__all__ = ["ALLOWED_UPDATES", "HEALTH_PATH", "WEBHOOK_PATH", "Intake", "Polling", "Webhook", "until_stopped"]

log = logging.getLogger(__name__)

# Exactly the updates bot/telegram/input.py reads: a line typed (a channel or an anonymous admin posting
# in the group arrives as a `message` too), an edit (a correction), a button press, and the bot's own
# membership (added, promoted, removed). Nothing else is asked for, so nothing else is stored.
ALLOWED_UPDATES: tuple[str, ...] = (
    Update.MESSAGE,
    Update.EDITED_MESSAGE,
    Update.CALLBACK_QUERY,
    Update.MY_CHAT_MEMBER,
)
POLL_TIMEOUT = 10  # seconds a getUpdates call may wait for news (long polling)
FIRST_POLL_BACKOFF = 1.0  # a failed getUpdates is tried again after this, doubling up to the cap
MAX_POLL_BACKOFF = 30.0
WEBHOOK_BEAT_SECONDS = 15.0
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
SETUP_ATTEMPTS = 5  # deleteWebhook / setWebhook at start: tried this often before giving up

Accept = Callable[[Update], Awaitable[None]]  # returns once the update is committed to the inbox
AcceptAll = Callable[[Sequence[Update]], Awaitable[None]]  # returns once every update is committed


class Intake:
    """A way in: started once the ledger is open, stopped before it closes."""

    failed: asyncio.Task[None] | None = None  # set when the way in ended by itself (a revoked token)

    async def start(self) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError


def retry_after_seconds(error: RetryAfter) -> float:
    """How long Telegram asked to wait (PTB 22 warns that the type becomes a timedelta: both are read)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        wait = error.retry_after
    return wait.total_seconds() if isinstance(wait, datetime.timedelta) else float(wait)


async def _setup(call: Callable[[], Awaitable[Any]], what: str) -> None:
    """A call at start (deleteWebhook, setWebhook), retried a few times over network failures."""
    delay = FIRST_POLL_BACKOFF
    for attempt in range(1, SETUP_ATTEMPTS + 1):
        try:
            await call()
            return
        except RetryAfter as error:
            await asyncio.sleep(retry_after_seconds(error))
        except InvalidToken:
            raise
        except TelegramError as error:
            if attempt == SETUP_ATTEMPTS:
                raise
            log.warning("%s failed (%s): trying again in %.0f s", what, error, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_POLL_BACKOFF)


@dataclass
class Polling(Intake):
    bot: Bot
    accept_all: AcceptAll
    timeout: int = POLL_TIMEOUT
    heartbeat: Heartbeat = field(default_factory=lambda: Heartbeat(None))
    offset: int | None = None  # the next update wanted: everything before it is in the inbox
    _task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        # a webhook left over from a webhook run would make getUpdates fail (409): the pending updates stay
        await _setup(lambda: self.bot.delete_webhook(drop_pending_updates=False), "deleteWebhook")
        self._task = asyncio.create_task(self._run())
        self.failed = self._task

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        if self.offset is not None:  # tell Telegram what is stored, so a restart is not handed it again
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    self.bot.get_updates(offset=self.offset, limit=1, timeout=0, allowed_updates=ALLOWED_UPDATES), 5
                )

    async def _run(self) -> None:
        backoff = FIRST_POLL_BACKOFF
        while True:
            try:
                updates = await self.bot.get_updates(
                    offset=self.offset, timeout=self.timeout, allowed_updates=ALLOWED_UPDATES
                )
            except InvalidToken:
                log.critical("the bot token was refused: polling stops")
                raise
            except RetryAfter as error:
                await asyncio.sleep(retry_after_seconds(error))
                continue
            except TelegramError as error:  # a network failure, a 5xx, a 409 while another poller runs
                log.warning("getUpdates failed (%s): trying again in %.0f s", error, backoff)
                self.heartbeat.beat()  # the loop is alive; Telegram is not reachable just now
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_POLL_BACKOFF)
                continue
            backoff = FIRST_POLL_BACKOFF
            if updates:
                try:
                    await self.accept_all(updates)  # committed before the offset moves past them
                except Exception as error:  # e.g. a migration's note not written: the ledger is locked
                    # the offset stays: Telegram hands the same batch again, and what is stored is skipped
                    log.error(
                        "updates %s-%s not all stored (%s): asking again",
                        updates[0].update_id,
                        updates[-1].update_id,
                        error,
                    )
                    await asyncio.sleep(FIRST_POLL_BACKOFF)  # no beat: a stale heartbeat says storing is stuck
                    continue
                self.offset = updates[-1].update_id + 1
            self.heartbeat.beat()


@dataclass
class Webhook(Intake):
    """Telegram's updates at `WEBHOOK_PATH` of the bot's own server (bot/telegram/web.py), which it
    runs on `listen`:`port` with `/healthz` and the routes of `extra` beside it."""

    bot: Bot
    accept: Accept
    url: str  # the public address given to setWebhook (WEBHOOK_URL + /telegram)
    listen: str
    port: int
    secret: str
    heartbeat: Heartbeat = field(default_factory=lambda: Heartbeat(None))
    health: Health | None = None  # `GET /healthz` answers it (bot/health.py)
    extra: Routes | None = None  # the other routes of the server (bot/telegram/web.py's add_routes)
    _server: WebServer | None = None
    _beating: asyncio.Task[None] | None = None

    def application(self) -> web.Application:
        return web_application(self.health, self.extra, webhook=self.receive)

    async def start(self) -> None:
        self._server = WebServer(self.application(), self.listen, self.port)
        await self._server.start()
        await _setup(
            lambda: self.bot.set_webhook(
                self.url, secret_token=self.secret, allowed_updates=ALLOWED_UPDATES, drop_pending_updates=False
            ),
            "setWebhook",
        )
        self._beating = asyncio.create_task(self._beat())
        self.failed = self._beating

    async def stop(self) -> None:
        if self._beating is not None:
            self._beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beating
        if self._server is not None:
            await self._server.stop()  # requests in flight finish (their updates are stored) first
            self._server = None

    async def _beat(self) -> None:
        while True:
            self.heartbeat.beat()
            await asyncio.sleep(WEBHOOK_BEAT_SECONDS)

    async def receive(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.secret.encode()):
            return web.Response(status=403)  # not from Telegram: nothing stored, nothing recorded
        try:
            body = json.loads(await request.read())
            update = Update.de_json(body, self.bot)
        except (ValueError, TypeError, KeyError, AttributeError):
            log.warning("webhook: a body that is not an update was refused")
            return web.Response(status=400)
        if update is None:
            return web.Response(status=400)
        await self.accept(update)  # committed: Telegram may forget it once it reads the 200
        return web.Response()


async def until_stopped(intake: Intake) -> int:
    """Run `intake` (the ledger open, the application started) until SIGINT or SIGTERM; 0 on a clean
    stop, 1 when the way in ended by itself (the token was refused)."""
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stopping.set)
    status = 0
    await intake.start()
    try:
        waiting: asyncio.Task[Any] = asyncio.create_task(stopping.wait())
        assert intake.failed is not None
        done, _ = await asyncio.wait({waiting, intake.failed}, return_when=asyncio.FIRST_COMPLETED)
        if intake.failed in done:
            status = 1
            error = intake.failed.exception() if not intake.failed.cancelled() else None
            log.critical("updates stopped coming in: %s", error)
        waiting.cancel()
    finally:
        await intake.stop()
    return status
