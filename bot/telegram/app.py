"""Telegram front end (python-telegram-bot 22): a thin layer over the command layer, built and run
here from parts that each hold one idea:

- bot/telegram/connections.py: what the front end talks to, opened in post_init (the command layer
  over the ledger, the inbox, Telegram);
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
- bot/telegram/settings.py: every environment variable, read once.

The application keeps the front end in `bot_data["front"]`; its parts are created with it and reach
the command layer, the inbox and Telegram through one `Connections`, opened in post_init.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
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
from bot.store.queue import Row
from bot.telegram.chats import Chats
from bot.telegram.connections import Connections
from bot.telegram.delivery import RetryPolicy
from bot.telegram.health import Heartbeat, check_health
from bot.telegram.input import read_update
from bot.telegram.intake import WEBHOOK_PATH, Intake, Polling, Webhook, serve
from bot.telegram.lanes import Lanes
from bot.telegram.mini_app import WithSite, mini_app
from bot.telegram.pace import Pacer
from bot.telegram.pinned import BOARD_EDIT_SECONDS, PinnedBoards
from bot.telegram.sending import Sender
from bot.telegram.settings import EXIT_DATABASE, EXIT_REFUSED, Settings
from bot.telegram.updates import Updates
from locales import DEFAULT_LANGUAGE, Translator

log = logging.getLogger(__name__)
DEFAULT_BASE_URL = "https://api.telegram.org"
COMMAND_LANGUAGES = {"": DEFAULT_LANGUAGE, "zh": "zh-Hans", "en": "en"}
__all__ = ["TelegramFrontEnd", "build_application", "update_key"]


def server_root(base_url: str | None) -> str:
    """`TELEGRAM_BASE_URL` as the server root: both `http://host:8081` and PTB's `http://host:8081/bot`."""
    root = (base_url or DEFAULT_BASE_URL).rstrip("/")
    return root.removesuffix("/bot")


def update_key(update: Update) -> str | None:
    """What the ledger records an update's events under (bot/telegram/input.py)."""
    return read_update(update).key


@dataclass
class TelegramFrontEnd:
    """The front end's parts, put together: the application's post_init, post_stop and post_shutdown,
    and what the intake, the heartbeat, tests and benchmarks call."""

    db_path: str
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    board_interval: float = BOARD_EDIT_SECONDS
    pacer: Pacer = field(default_factory=Pacer)
    lookup_request: BaseRequest | None = None  # the lookup client's transport when the application's is given
    chart_seconds: float | None = None  # CHART_SECONDS (None: the referee's default)
    busy_timeout: float | None = None  # REFEREE_BUSY_TIMEOUT (None: the ledger's default)
    rules_dir: Path | None = None  # RULES_DIR: the operator's house rules files, for every group
    time_zone: str = DEFAULT_ZONE  # TIME_ZONE: the days of a group that has not set its own (/tz)
    connections: Connections = field(init=False)
    chats: Chats = field(init=False)
    sender: Sender = field(init=False)
    pinned: PinnedBoards = field(init=False)
    updates: Updates = field(init=False)
    lanes: Lanes = field(init=False)

    def __post_init__(self) -> None:
        self.connections = Connections()
        self.chats = Chats(self.connections)
        self.sender = Sender(self.connections, self.chats, self.policy, self.pacer)
        self.pinned = PinnedBoards(self.connections, self.chats, self.sender, self.board_interval)
        self.updates = Updates(self.connections, self.chats, self.sender, self.pinned)
        self.lanes = Lanes(self.connections, self.chats, self.updates.process)

    @property
    def referee(self) -> Referee:
        return self.connections.referee

    @property
    def bot(self) -> Bot:
        return self.connections.bot

    async def open(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """post_init: open the ledger on the application's own event loop, register the menus, and
        queue what the inbox still holds (a crash's leftovers) before any new update arrives."""
        await self.connections.open(
            self.db_path, application.bot, self.lookup_request, self.chart_seconds, self.busy_timeout, self.rules_dir
        )
        self.connections.referee.services.time_zone = self.time_zone
        await self.connections.inbox.prune()
        await self.connections.referee.tidy()
        await self.connections.referee.warm()
        await self.chats.read_privacy()
        if not self.chats.reads_all:
            log.warning("privacy mode is on: plain words in groups are not seen (BotFather /setprivacy)")
        for row in await self.connections.inbox.pending():
            self.lanes.enqueue(row, Update.de_json(row.body, application.bot), await self.lanes.lane(row.chat))
        await register_commands(application)

    async def stop(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """post_stop: stop working; rows not done stay in the inbox for the next start."""
        await self.lanes.stop()
        await self.sender.outbox.stop()
        await self.sender.tidy.stop()
        await self.pinned.live.stop()
        await self.connections.inbox.flush()

    async def close(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        await self.connections.close()

    def health(self) -> str | None:
        """What the heartbeat says of the bot's parts besides its loop: the drawing process."""
        return self.connections.referee.services.charts.health() if self.connections.opened() else None

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

    async def process(self, row: Row, update: Update) -> bool:
        """Handle one update now (bot/telegram/updates.py); False when it is to be handled again."""
        return await self.updates.process(row, update)


async def register_commands(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
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


def build_application(
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
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The bot; `request` and `rate_limit=False` are for benchmarks and tests that record instead of
    send (no Telegram limits to keep within: every message goes at once). With `rate_limit`, every
    message waits for its chat's turn (bot/telegram/pace.py), which keeps the bot within Telegram's
    limits (`pacer`, when given: other limits, for tests). `board_interval` (BOARD_EDIT_SECONDS): the
    least time between two edits of a chat's pinned board; `chart_seconds`, `busy_timeout`: the
    settings CHART_SECONDS and REFEREE_BUSY_TIMEOUT (None: defaults); `rules_dir` (RULES_DIR): house
    rules files any group may open a night with."""
    root = server_root(base_url)
    pacer = pacer or (Pacer() if rate_limit else Pacer.unlimited())
    front = TelegramFrontEnd(
        db_path,
        policy or RetryPolicy(),
        board_interval=board_interval,
        pacer=pacer,
        lookup_request=request,
        chart_seconds=chart_seconds,
        busy_timeout=busy_timeout,
        rules_dir=rules_dir,
        time_zone=time_zone,
    )
    builder = (
        ApplicationBuilder()
        .token(token)
        .base_url(f"{root}/bot")
        .base_file_url(f"{root}/file/bot")
        .updater(None)  # updates come in through bot/telegram/intake.py, stored before they are confirmed
        .post_init(front.open)
        .post_stop(front.stop)
        .post_shutdown(front.close)
    )
    if request is not None:
        builder = builder.request(request).get_updates_request(request)
    application = builder.build()
    application.bot_data["front"] = front
    return application


def run_telegram(settings: Settings) -> int:
    """Long polling, or a webhook when WEBHOOK_URL is set. Pending updates are never dropped. One
    process per database: a second one, or a database that cannot be opened, exits at once (3); a
    token Telegram refuses exits 1 (bot/telegram/settings.py, EXIT_CODES)."""
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=settings.log_level_number)
    logging.getLogger("httpx").setLevel(max(logging.WARNING, settings.log_level_number))
    assert settings.token, "python -m bot run checks the token first"
    try:
        with owned(settings.database):
            return _serve(settings)
    except DatabaseUnavailable as error:
        print(Translator(settings.language).t(error.key, **error.params), file=sys.stderr)
        return EXIT_DATABASE
    except InvalidToken as error:
        print(f"python -m bot run: Telegram refused TELEGRAM_BOT_TOKEN ({error})", file=sys.stderr)
        return EXIT_REFUSED
    except TelegramError as error:  # getMe, deleteWebhook or setWebhook at start, after their retries
        print(f"python -m bot run: Telegram could not be reached or refused the start: {error}", file=sys.stderr)
        return EXIT_REFUSED
    except sqlite3.Error as error:  # opening the ledger or migrating its schema (rolled back whole)
        print(f"python -m bot run: the database {settings.database} cannot be used: {error}", file=sys.stderr)
        return EXIT_DATABASE


def webhook_secret(configured: str | None) -> str:
    """`WEBHOOK_SECRET`, or a random one for this run: a webhook never accepts unsigned updates
    (Telegram sends the secret in X-Telegram-Bot-Api-Secret-Token; the webhook answers 403 without it)."""
    return configured or secrets.token_urlsafe(32)


def _serve(settings: Settings) -> int:
    assert settings.token
    application = build_application(
        settings.token,
        settings.database,
        settings.base_url,
        board_interval=settings.board_edit_seconds,
        chart_seconds=settings.chart_seconds,
        busy_timeout=settings.busy_timeout,
        rules_dir=Path(settings.rules_dir) if settings.rules_dir else None,
        time_zone=settings.time_zone,
    )
    front: TelegramFrontEnd = application.bot_data["front"]
    heartbeat = Heartbeat(settings.heartbeat_file, status=front.health, working=front.working)
    app_routes = mini_app(settings, front)  # the Mini App (MINIAPP_URL): None when it is not set up
    intake: Intake
    if settings.webhook_url:
        intake = Webhook(
            application.bot,
            front.accept,
            url=settings.webhook_url.rstrip("/") + WEBHOOK_PATH,
            listen=settings.listen,
            port=settings.port,
            secret=webhook_secret(settings.webhook_secret),
            heartbeat=heartbeat,
            health=lambda: check_health(settings),
            routes=app_routes,
        )
    else:
        intake = Polling(application.bot, front.accept_all, heartbeat=heartbeat)
        if app_routes is not None:
            intake = WithSite(intake, app_routes, settings.listen, settings.port)
    return asyncio.run(serve(application, intake))
