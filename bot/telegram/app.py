"""Telegram front end (python-telegram-bot 22): a thin layer over the command layer, composed here,
in one place (`front_end`, and `run` for the process), from parts that each hold one idea:

- bot/telegram/connections.py: what the parts talk to (the command layer over the ledger, the
  inbox, the application's bot), given to each when it is built;
- bot/telegram/lanes.py: per-chat lanes over the inbox. Intake is durable and the front end's own
  (bot/telegram/intake.py: the application has no PTB updater): each update goes to `accept`, which
  stores it in the inbox (reached through bot/store/queue.py) and commits before the `getUpdates`
  offset may move past it (or before a webhook call is answered); each chat then has its own worker
  that processes its rows strictly in order, while chats run side by side;
- bot/telegram/updates.py: the update handlers (a line, an edit, a press, the bot's membership);
- bot/telegram/chats.py: what the bot knows of a chat (its ledger key, migration, topics, admins,
  the right to pin, privacy mode);
- bot/telegram/sending.py: sending. A worker never waits for a reply to be sent: answers go to the
  chat's outbox (bot/telegram/delivery.py);
- bot/telegram/pinned.py: a recorded event's board goes to the chat's pinned live board (edited in
  place, coalesced);
- bot/telegram/web.py: the bot's own HTTP server (the webhook, /healthz), and bot/telegram/routes.py,
  the one place where a feature adds its routes to it (the Mini App's).

The order, as python-telegram-bot's custom-webhook example has it: the referee (the ledger) is opened
first, then `async with application` (getMe), the parts are constructed with both, the application
started, updates taken in until a signal, and everything stopped and closed in reverse. No PTB hook
(post_init, post_stop, post_shutdown) is used: what the bot does at start and stop is read here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import sqlite3
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Update,
)
from telegram.error import InvalidToken, TelegramError
from telegram.ext import Application, ApplicationBuilder
from telegram.request import BaseRequest

from bot.chat.availability import DatabaseUnavailable, owned
from bot.chat.commands import Menu, menu
from bot.chat.service import Referee
from bot.chat.zones import DEFAULT_ZONE
from bot.health import Heartbeat, check_health
from bot.settings import EXIT_DATABASE, EXIT_REFUSED, Settings
from bot.telegram.chats import Chats
from bot.telegram.connections import Connections
from bot.telegram.delivery import RetryPolicy
from bot.telegram.intake import WEBHOOK_PATH, Intake, Polling, Webhook, until_stopped
from bot.telegram.lanes import Arrived, Lanes
from bot.telegram.pace import Pacer
from bot.telegram.pinned import BOARD_EDIT_SECONDS, PinnedBoards
from bot.telegram.routes import add_routes
from bot.telegram.sending import Sender
from bot.telegram.updates import Updates
from bot.telegram.web import WebServer, wants_web, web_application
from locales import DEFAULT_LANGUAGE, Translator

log = logging.getLogger(__name__)
DEFAULT_BASE_URL = "https://api.telegram.org"
COMMAND_LANGUAGES = {"": DEFAULT_LANGUAGE, "zh": "zh-Hans", "en": "en"}
__all__ = ["TelegramFrontEnd", "build_application", "front_end", "run", "run_telegram"]
Telegram = Application[Any, Any, Any, Any, Any, Any]


def server_root(base_url: str | None) -> str:
    """`TELEGRAM_BASE_URL` as the server root: both `http://host:8081` and PTB's `http://host:8081/bot`."""
    root = (base_url or DEFAULT_BASE_URL).rstrip("/")
    return root.removesuffix("/bot")


@dataclass
class TelegramFrontEnd:
    """The front end's parts, constructed with the open referee and the initialized application's
    bot: what the intake, the heartbeat, the web server, tests and benchmarks call."""

    referee: Referee
    application: Telegram
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    board_interval: float = BOARD_EDIT_SECONDS
    pacer: Pacer = field(default_factory=Pacer)
    connections: Connections = field(init=False)
    chats: Chats = field(init=False)
    sender: Sender = field(init=False)
    pinned: PinnedBoards = field(init=False)
    updates: Updates = field(init=False)
    lanes: Lanes = field(init=False)

    def __post_init__(self) -> None:
        self.connections = Connections(self.referee, self.referee.inbox(), self.application.bot)
        self.chats = Chats(self.connections)
        self.sender = Sender(self.connections, self.chats, self.policy, self.pacer)
        self.pinned = PinnedBoards(self.connections, self.chats, self.sender, self.board_interval)
        self.updates = Updates(self.connections, self.chats, self.sender, self.pinned)
        self.lanes = Lanes(self.connections, self.chats, self.updates.process)

    @property
    def bot(self) -> Bot:
        return self.connections.bot

    async def start(self) -> None:
        """Tidy the ledger, warm what a first line would build, read the privacy mode, and queue what
        the inbox still holds (a crash's leftovers) before any new update arrives; then the menus."""
        await self.connections.inbox.prune()
        await self.referee.tidy()
        await self.referee.warm()
        await self.chats.read_privacy()
        if not self.chats.reads_all:
            log.warning("privacy mode is on: plain words in groups are not seen (BotFather /setprivacy)")
        for row in await self.connections.inbox.pending():
            self.lanes.enqueue(Arrived.of(row), Update.de_json(row.body, self.bot), await self.lanes.lane(row.chat))
        await register_commands(self.application)

    async def stop(self) -> None:
        """Stop working; rows not done stay in the inbox for the next start."""
        await self.lanes.stop()
        await self.sender.outbox.stop()
        await self.sender.tidy.stop()
        await self.pinned.live.stop()
        await self.connections.inbox.flush()

    def health(self) -> str | None:
        """What the heartbeat says of the bot's parts besides its loop: the drawing process."""
        return self.referee.services.charts.health()

    async def idle(self) -> None:
        """Wait until every queued update is processed and every answer delivered (tests, bench)."""
        sender = self.sender
        while self.lanes.busy() or sender.outbox.waiting() or sender.tidy.pending() or self.pinned.live.pending():
            await self.lanes.finished()
            await sender.outbox.idle()
            await sender.tidy.idle()
            await self.pinned.live.idle()

    def working(self) -> bool:
        """Whether updates are being processed (bot/telegram/lanes.py): what the heartbeat vouches for."""
        return self.lanes.working()

    async def accept(self, update: Update) -> None:
        """Store an update in the inbox and queue it for its chat (returns once it is committed)."""
        await self.lanes.accept(update)

    async def accept_all(self, updates: Sequence[Update]) -> None:
        """Store a batch (returns once every update is committed), the chats side by side."""
        await self.lanes.accept_all(updates)

    async def process(self, row: Arrived, update: Update) -> bool:
        """Handle one update now (bot/telegram/updates.py); False when it is to be handled again."""
        return await self.updates.process(row, update)


async def register_commands(application: Telegram) -> None:
    """Command menus per scope and language (Telegram takes two-letter language codes)."""
    for code, language in COMMAND_LANGUAGES.items():
        translator = Translator(language)
        scopes = (
            (Menu.GROUP, BotCommandScopeAllGroupChats()),
            (Menu.PRIVATE, BotCommandScopeAllPrivateChats()),
            (Menu.ADMINS, BotCommandScopeAllChatAdministrators()),
        )
        for which, scope in scopes:
            commands = [BotCommand(spec.slash[0], translator.t(f"cmd.{spec.name}")[:256]) for spec in menu(which)]
            if not commands:  # a menu no command is listed in is not set
                continue
            try:
                await application.bot.set_my_commands(commands, scope=scope, language_code=code or None)
            except TelegramError as error:  # menus are a convenience: never a reason not to start
                log.warning("command menu not set: %s", error)


def build_application(token: str, base_url: str | None = None, request: BaseRequest | None = None) -> Telegram:
    """The application: the bot's client, no updater (updates come in through bot/telegram/intake.py,
    stored before they are confirmed). `request`: a transport of one's own (benchmarks)."""
    root = server_root(base_url)
    builder = ApplicationBuilder().token(token).base_url(f"{root}/bot").base_file_url(f"{root}/file/bot").updater(None)
    if request is not None:
        builder = builder.request(request).get_updates_request(request)
    return builder.build()


@contextlib.asynccontextmanager
async def front_end(
    token: str,
    db_path: str,
    base_url: str | None = None,
    request: BaseRequest | None = None,
    rate_limit: bool = True,
    policy: RetryPolicy | None = None,
    board_interval: float = BOARD_EDIT_SECONDS,
    pacer: Pacer | None = None,
    chart_seconds: float | None = None,
    busy_timeout: float | None = None,
    rules_dir: Path | None = None,
    time_zone: str = DEFAULT_ZONE,
) -> AsyncIterator[TelegramFrontEnd]:
    """The composition root: the referee opened first (on this event loop), then `async with
    application`, the front end constructed with both and started, the application started; on the
    way out the same in reverse. `request` and `rate_limit=False` are for benchmarks and tests that
    record instead of send (no Telegram limits to keep within: every message goes at once). With
    `rate_limit`, every message waits for its chat's turn (bot/telegram/pace.py; `pacer`, when given:
    other limits, for tests). `board_interval` (BOARD_EDIT_SECONDS): the least time between two edits
    of a chat's pinned board; `chart_seconds`, `busy_timeout`: CHART_SECONDS and REFEREE_BUSY_TIMEOUT
    (None: defaults); `rules_dir` (RULES_DIR): house rules files any group may open a night with;
    `time_zone` (TIME_ZONE): the days of a group that has not set its own (/tz)."""
    referee = await Referee.open(db_path, rules_dir=rules_dir, chart_seconds=chart_seconds, busy_timeout=busy_timeout)
    referee.services.time_zone = time_zone
    try:
        application = build_application(token, base_url, request)
        async with application:  # initialize (getMe) ... shutdown
            front = TelegramFrontEnd(
                referee,
                application,
                policy or RetryPolicy(),
                board_interval,
                pacer or (Pacer() if rate_limit else Pacer.unlimited()),
            )
            await front.start()
            await application.start()
            try:
                yield front
            finally:
                if application.running:
                    await application.stop()
                await front.stop()  # workers stop; undone rows stay in the inbox
    finally:
        await referee.close()


async def run(settings: Settings) -> int:
    """The process: the front end composed from the settings, its way in (long polling, or a webhook
    when WEBHOOK_URL is set), and the bot's web server (in webhook mode, or when a setting asks for
    pages of the bot's own: bot/telegram/web.py), until SIGINT or SIGTERM."""
    assert settings.token, "python -m bot run checks the token first"
    async with front_end(
        settings.token,
        settings.database,
        settings.base_url,
        board_interval=settings.board_edit_seconds,
        chart_seconds=settings.chart_seconds,
        busy_timeout=settings.busy_timeout,
        rules_dir=Path(settings.rules_dir) if settings.rules_dir else None,
        time_zone=settings.time_zone,
    ) as front:
        heartbeat = Heartbeat(settings.heartbeat, status=front.health, working=front.working)
        health = partial(check_health, settings)
        extra = partial(add_routes, front=front, settings=settings)  # the Mini App's routes, in any mode
        intake: Intake
        server: WebServer | None = None
        if settings.webhook_url:
            intake = Webhook(
                front.bot,
                front.accept,
                url=settings.webhook_url.rstrip("/") + WEBHOOK_PATH,
                listen=settings.listen,
                port=settings.port,
                secret=webhook_secret(settings.webhook_secret),
                heartbeat=heartbeat,
                health=health,
                extra=extra,
            )
        else:
            intake = Polling(front.bot, front.accept_all, heartbeat=heartbeat)
            if wants_web(settings):
                server = WebServer(web_application(health, extra), settings.listen, settings.port)
        if server is not None:
            await server.start()
        try:
            return await until_stopped(intake)
        finally:
            if server is not None:
                await server.stop()


def run_telegram(settings: Settings) -> int:
    """`python -m bot run`. Pending updates are never dropped. One process per database: a second
    one, or a database that cannot be opened, exits at once (3); a token Telegram refuses exits 1
    (bot/settings.py, EXIT_CODES), and a ledger this start created is removed again."""
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=settings.log_level_number)
    logging.getLogger("httpx").setLevel(max(logging.WARNING, settings.log_level_number))
    new_ledger = not os.path.lexists(settings.database)
    try:
        with owned(settings.database):
            return asyncio.run(run(settings))
    except DatabaseUnavailable as error:
        print(Translator(settings.language).t(error.key, **error.params), file=sys.stderr)
        return EXIT_DATABASE
    except InvalidToken as error:
        _forget(settings.database, new_ledger)
        print(f"python -m bot run: Telegram refused TELEGRAM_BOT_TOKEN ({error})", file=sys.stderr)
        return EXIT_REFUSED
    except TelegramError as error:  # getMe, deleteWebhook or setWebhook at start, after their retries
        _forget(settings.database, new_ledger)
        print(f"python -m bot run: Telegram could not be reached or refused the start: {error}", file=sys.stderr)
        return EXIT_REFUSED
    except sqlite3.Error as error:  # opening the ledger or migrating its schema (rolled back whole)
        print(f"python -m bot run: the database {settings.database} cannot be used: {error}", file=sys.stderr)
        return EXIT_DATABASE


def _forget(database: str, new_ledger: bool) -> None:
    """A start refused before any update came in leaves no ledger it created: the next start, with
    the right token, makes it afresh. An existing ledger is never touched, nor a new one that holds
    anything (a webhook may have stored an update before setWebhook failed)."""
    if not new_ledger or not _holds_nothing(database):
        return
    for leftover in (database, f"{database}-wal", f"{database}-shm", f"{database}-journal"):
        with contextlib.suppress(OSError):
            os.unlink(leftover)
    with contextlib.suppress(OSError):
        os.unlink(f"{os.path.realpath(database)}.lock")


def _holds_nothing(database: str) -> bool:
    try:
        connection = sqlite3.connect(f"{Path(database).resolve().as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            return not any(connection.execute(f'SELECT 1 FROM "{table}" LIMIT 1').fetchone() for table in tables)
        finally:
            connection.close()
    except sqlite3.Error:
        return False


def webhook_secret(configured: str | None) -> str:
    """`WEBHOOK_SECRET`, or a random one for this run: a webhook never accepts unsigned updates
    (Telegram sends the secret in X-Telegram-Bot-Api-Secret-Token; the webhook answers 403 without it)."""
    return configured or secrets.token_urlsafe(32)
