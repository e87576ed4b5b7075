"""Telegram front end (python-telegram-bot 22): a thin layer over the command layer.

Intake is durable: PTB's updater hands each update to `DurableQueue.put`, which stores it in the
inbox (bot/inbox.py) and commits before the updater may move the `getUpdates` offset past it (or
before a webhook call is answered). Each chat then has its own worker that processes its inbox rows
strictly in order, while chats run side by side, so a long backlog in one chat never delays another.
A worker never waits for a reply to be sent: answers go to the chat's outbox (bot/delivery.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    MessageEntity,
    Update,
)
from telegram.constants import ChatType
from telegram.error import BadRequest, TelegramError
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder
from telegram.request import BaseRequest

from bot.commands import COMMANDS
from bot.database import EXIT_UNAVAILABLE, DatabaseUnavailable, owned
from bot.delivery import MESSAGE_LIMIT, Outbox, Outgoing, RetryPolicy, split_text, with_retries
from bot.inbox import Inbox, Row
from bot.replies import Reply, Response, render, render_response
from bot.seating import Speaker
from bot.service import Incoming, Referee
from locales import DEFAULT_LANGUAGE, Translator

log = logging.getLogger(__name__)
DEFAULT_BASE_URL = "https://api.telegram.org"
CAPTION_LIMIT = 1024
CALLBACK_LIMIT = 64
CALLBACK_ANSWER_LIMIT = 200
ADMIN_CACHE_SECONDS = 600
ADMIN_LOOKUP_SECONDS = 5.0
COMMAND_LANGUAGES = {"": DEFAULT_LANGUAGE, "zh": "zh-Hans", "en": "en"}
PER_PRESSER = ("/join",)  # buttons whose meaning depends on who presses them: single-use per person


def server_root(base_url: str | None) -> str:
    """`TELEGRAM_BASE_URL` as the server root: both `http://host:8081` and PTB's `http://host:8081/bot`."""
    root = (base_url or DEFAULT_BASE_URL).rstrip("/")
    return root.removesuffix("/bot")


def update_key(update: Update) -> str | None:
    """What the ledger records an update's events under, so a repeat is recorded once: a message is
    keyed by chat and message id, a button press by chat and message, so one keyboard records once
    whichever of its buttons is pressed (a guided flow's steps record under the flow's own key); a
    button that means something else for each presser (join) by its data and the presser too."""
    if update.message is not None:
        return f"msg:{update.message.chat.id}:{update.message.message_id}"
    query = update.callback_query
    if query is not None and isinstance(query.message, Message) and query.data is not None:
        key = f"cb:{query.message.chat.id}:{query.message.message_id}"
        if query.data.split(":", 2)[-1].startswith(PER_PRESSER):
            key += f":{query.data}:{query.from_user.id}"
        return key
    return None


def addressed_elsewhere(text: str, username: str | None) -> bool:
    """`/undo@other_bot`: a command for another bot in the group."""
    first = text.split(maxsplit=1)[0] if text.strip() else ""
    if not first.startswith("/") or "@" not in first:
        return False
    return first.split("@", 1)[1].casefold() != (username or "").casefold()


class DurableQueue(asyncio.Queue[object]):
    """PTB's update queue, made durable: `put` returns once the update is committed to the inbox."""

    def __init__(self) -> None:
        super().__init__()
        self.front: TelegramFrontEnd | None = None

    async def put(self, item: object) -> None:
        if isinstance(item, Update) and self.front is not None:
            await self.front.accept(item)
            return
        await super().put(item)  # PTB's own signals (stop)


@dataclass
class TelegramFrontEnd:
    db_path: str
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    admins: dict[int, tuple[float, frozenset[int]]] = field(default_factory=dict)
    # Looked up on every update, written only here: kept in memory, the database keeps them for restarts.
    chat_keys: dict[int, str] = field(default_factory=dict)
    boards: dict[tuple[str, int], int] = field(default_factory=dict)
    _referee: Referee | None = None
    _inbox: Inbox | None = None
    _bot: Bot | None = None
    _queues: dict[int | None, deque[tuple[Row, Update]]] = field(default_factory=dict)
    _workers: dict[int | None, asyncio.Task[None]] = field(default_factory=dict)
    _refreshing: dict[int, asyncio.Task[tuple[float, frozenset[int]]]] = field(default_factory=dict)
    outbox: Outbox = field(init=False)

    def __post_init__(self) -> None:
        self.outbox = Outbox(self.send_batch, self.policy)

    @property
    def referee(self) -> Referee:
        assert self._referee is not None, "the ledger opens in post_init"
        return self._referee

    @property
    def inbox(self) -> Inbox:
        assert self._inbox is not None, "the ledger opens in post_init"
        return self._inbox

    @property
    def bot(self) -> Bot:
        assert self._bot is not None, "the bot is set in post_init"
        return self._bot

    async def open(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """post_init: open the ledger on the application's own event loop, register the menus, and
        queue what the inbox still holds (a crash's leftovers) before any new update arrives."""
        self._referee = await Referee.open(self.db_path)
        self._inbox = self.referee.inbox()
        self._bot = application.bot
        await self.inbox.prune()
        for row in await self.inbox.pending():
            self.enqueue(row, Update.de_json(row.body, application.bot))
        await register_commands(application)

    async def stop(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """post_stop: stop working; rows not done stay in the inbox for the next start."""
        for task in list(self._workers.values()):
            task.cancel()
        await asyncio.gather(*self._workers.values(), return_exceptions=True)
        await self.outbox.stop()
        await self.inbox.flush()

    async def close(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        if self._referee is not None:
            await self._referee.close()
            self._referee = None

    async def idle(self) -> None:
        """Wait until every queued update is processed and every answer delivered (tests, bench)."""
        while self._workers or self.outbox.waiting():
            await asyncio.gather(*self._workers.values(), return_exceptions=True)
            await self.outbox.idle()

    # ---- intake and scheduling -----------------------------------------------------------------

    async def accept(self, update: Update) -> None:
        """Store an update in the inbox and queue it for its chat; a migration is noted here, in
        arrival order, so that updates of the new supergroup in the same batch already find it."""
        message = update.message
        if message is not None and message.migrate_to_chat_id:
            await self.remember_migration(message.chat.id, message.migrate_to_chat_id)
        if message is not None and message.migrate_from_chat_id:
            await self.remember_migration(message.migrate_from_chat_id, message.chat.id)
        chat = update.effective_chat
        row = Row(update.update_id, chat.id if chat else None, update_key(update), update.to_dict())
        if await self.inbox.add(row):
            self.enqueue(row, update)

    def enqueue(self, row: Row, update: Update) -> None:
        self._queues.setdefault(row.chat, deque()).append((row, update))
        if row.chat not in self._workers:
            self._workers[row.chat] = asyncio.create_task(self._work(row.chat))

    async def _work(self, chat: int | None) -> None:
        """One chat's updates, one at a time, in order. Other chats' workers run meanwhile."""
        queue = self._queues[chat]
        try:
            while queue:
                row, update = queue[0]
                await self.process(row, update)
                queue.popleft()
        finally:
            del self._workers[chat]
            if not queue:
                self._queues.pop(chat, None)

    async def process(self, row: Row, update: Update) -> None:
        recorded = False
        try:
            if update.callback_query is not None:
                recorded = await self.on_button(update.callback_query, row)
            elif update.message is not None and update.message.text is not None:
                recorded = await self.on_text(update.message, row)
        except Exception:
            log.exception("update %s failed", row.update_id)
            await self.report_failure(update, row)
        # A line's events mark its row done in their own transaction (the inbox trigger); a guided
        # flow's last step records under the flow's key, so a press is marked here (a replay finds
        # the flow recorded).
        if not (recorded and row.key) or update.callback_query is not None:
            self.inbox.mark_done(row.update_id)

    async def report_failure(self, update: Update, row: Row) -> None:
        """Say what is true: nothing recorded, unless the update's events were committed."""
        message = update.effective_message
        if not isinstance(message, Message):
            return
        try:
            chat_key = await self.chat_key(message)
            user = update.effective_user
            language = await self.referee.language(chat_key, user.language_code if user else None)
            recorded = await self.inbox.is_done(row.update_id)
        except Exception:
            log.exception("could not find out what update %s recorded", row.update_id)
            return
        key = "error.internal_recorded" if recorded else "error.internal"
        if update.callback_query is not None:
            await self.answer(update.callback_query, Translator(language).t(key))
            return
        self.outbox.push(Outgoing(message.chat.id, self.thread(message), chat_key, Response((Reply(key),), language)))

    async def remember_migration(self, old: int, new: int) -> None:
        """A group upgraded to a supergroup keeps its ledger: the new id continues the old key."""
        old_key = await self.inbox.alias(old) or f"tg:{old}"
        await self.inbox.set_alias(new, old_key)
        self.chat_keys[new] = old_key

    # ---- who and where -------------------------------------------------------------------------

    async def chat_key(self, message: Message) -> str:
        """The ledger's chat id: a group, or one topic of a forum group; follows supergroup migration."""
        chat_id = message.chat.id
        if chat_id not in self.chat_keys:
            self.chat_keys[chat_id] = await self.inbox.alias(chat_id) or f"tg:{chat_id}"
        base = self.chat_keys[chat_id]
        if message.chat.is_forum and message.message_thread_id:
            return f"{base}:topic:{message.message_thread_id}"
        return base

    @staticmethod
    def thread(message: Message) -> int | None:
        return message.message_thread_id if message.is_topic_message else None

    @staticmethod
    def display_name(user: Any) -> str:
        """A name without spaces, so it can be typed back in commands."""
        if user.username:
            return str(user.username)
        return "".join(str(user.first_name or user.id).split())

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        """From a list kept per chat. An expired list is still used while a fresh one is fetched in
        the background, so recording never waits behind the chat's queued replies (the Bot API
        call shares the group's rate limit)."""
        cached = self.admins.get(chat_id)
        if cached is None:
            cached = await self.fetch_admins(chat_id)
        elif time.monotonic() - cached[0] > ADMIN_CACHE_SECONDS and chat_id not in self._refreshing:
            task = asyncio.create_task(self.fetch_admins(chat_id))
            self._refreshing[chat_id] = task
            task.add_done_callback(lambda _: self._refreshing.pop(chat_id, None))
        return user_id in cached[1]

    async def fetch_admins(self, chat_id: int) -> tuple[float, frozenset[int]]:
        try:
            members = await asyncio.wait_for(self.bot.get_chat_administrators(chat_id), ADMIN_LOOKUP_SECONDS)
            cached = (time.monotonic(), frozenset(m.user.id for m in members))
        except BadRequest:
            cached = (time.monotonic(), frozenset())
        except (TelegramError, TimeoutError):  # no answer now: nobody is an admin for this update
            return (time.monotonic(), self.admins.get(chat_id, (0.0, frozenset()))[1])
        self.admins[chat_id] = cached
        return cached

    async def speaker(self, user: Any, chat: Any) -> Speaker:
        admin = False
        if chat.type in (ChatType.GROUP, ChatType.SUPERGROUP):
            admin = await self.is_admin(chat.id, user.id)
        return Speaker(str(user.id), self.display_name(user), user.username, admin, user.language_code)

    def mentions(self, message: Message) -> tuple[Speaker, ...]:
        found: list[Speaker] = []
        for entity, text in message.parse_entities([MessageEntity.MENTION, MessageEntity.TEXT_MENTION]).items():
            if entity.type == MessageEntity.TEXT_MENTION and entity.user is not None:
                user = entity.user
                found.append(Speaker(str(user.id), self.display_name(user), user.username))
            else:
                username = text.lstrip("@")
                found.append(Speaker("", username, username))
        if message.reply_to_message and message.reply_to_message.from_user:
            user = message.reply_to_message.from_user
            if not user.is_bot:
                found.append(Speaker(str(user.id), self.display_name(user), user.username))
        return tuple(found)

    # ---- handlers ------------------------------------------------------------------------------

    async def on_text(self, message: Message, row: Row) -> bool:
        """A chat line; True when it recorded something."""
        if message.from_user is None or message.text is None or addressed_elsewhere(message.text, self.bot.username):
            return False
        chat_key = await self.chat_key(message)
        incoming = Incoming(
            chat_id=chat_key,
            speaker=await self.speaker(message.from_user, message.chat),
            text=message.text,
            update_key=row.key,
            private=message.chat.type == ChatType.PRIVATE,
            mentions=self.mentions(message),
        )
        response = await self.referee.handle(incoming)
        if response is not None and (response.replies or response.attachments):
            self.outbox.push(Outgoing(message.chat.id, self.thread(message), chat_key, response))
        return response is not None and response.recorded

    async def on_button(self, query: CallbackQuery, row: Row) -> bool:
        """A button press: recorded once; later presses, strangers' and forged ones get an answer
        to the presser alone, never a group message."""
        message = query.message
        if query.data is None or not isinstance(message, Message) or row.key is None:
            await self.answer(query, None)
            return False
        chat_key = await self.chat_key(message)
        translator = Translator(await self.referee.language(chat_key, query.from_user.language_code))
        recorded_as = await self.inbox.earlier(row.key, row.update_id)
        if recorded_as is not None:
            await self.answer(query, translator.t("button.already_recorded", id=recorded_as))
            return False
        parts = query.data.split(":", 2)
        if len(parts) != 3 or not parts[2].startswith("/") or not await self.button_is_current(chat_key, *parts[:2]):
            await self.answer(query, translator.t("button.stale"))
            return False
        incoming = Incoming(
            chat_id=chat_key,
            speaker=await self.speaker(query.from_user, message.chat),
            text=parts[2],
            update_key=row.key,
            private=message.chat.type == ChatType.PRIVATE,
        )
        response = await self.referee.handle(incoming)
        if response is None or not (response.recorded or response.choices or response.edits):
            text = render_response(response, translator) if response is not None else ""
            await self.answer(query, text or translator.t("button.used"))
            return False
        await self.answer(query, None)
        if response.edits:  # a guided flow: its next step (or its result) is written over the same message
            self.outbox.push(
                Outgoing(message.chat.id, self.thread(message), chat_key, response, edit=message.message_id)
            )
            return response.recorded
        keep = parts[2].startswith(PER_PRESSER)  # the join button stays while seats are free
        clear = None if keep else message.message_id
        self.outbox.push(Outgoing(message.chat.id, self.thread(message), chat_key, response, clear_keyboard=clear))
        return response.recorded

    async def button_is_current(self, chat_key: str, night_text: str, hand_text: str) -> bool:
        """A button belongs to one night (and hand, for most): pressed later, it is stale."""
        current = await self.referee.current_hand(chat_key)
        if current is None or str(current[0]) != night_text:
            return False
        return hand_text in ("*", str(current[1]))

    async def answer(self, query: CallbackQuery, text: str | None) -> None:
        """Answer a press (a short note to the presser); an expired query is not worth more."""
        try:
            await query.answer(text[:CALLBACK_ANSWER_LIMIT] if text else None, show_alert=bool(text))
        except TelegramError as error:
            log.info("callback %s not answered: %s", query.id, error)

    # ---- replies -------------------------------------------------------------------------------

    def keyboard(self, response: Response, translator: Translator) -> InlineKeyboardMarkup | None:
        if not response.choices or response.night_id is None:
            return None
        hand = "*" if response.hand_no is None else str(response.hand_no)
        rows: list[list[InlineKeyboardButton]] = []
        for choice in response.choices:
            data = f"{response.night_id}:{hand}:{choice.command}"
            if len(data.encode()) > CALLBACK_LIMIT:
                continue
            button = InlineKeyboardButton(render(choice.label, translator), callback_data=data)
            if rows and len(rows[-1]) < 2:
                rows[-1].append(button)
            else:
                rows.append([button])
        return InlineKeyboardMarkup(rows) if rows else None

    async def send_batch(self, chat: int, batch: list[Outgoing], text: str) -> None:
        """Deliver one coalesced batch: replaced keyboards, the text (split if long), photos and files,
        then the live scoreboard. Raises only if the text itself could not be sent."""
        for item in batch:
            if item.clear_keyboard is not None:
                await self.quietly(self.bot.edit_message_reply_markup(chat, item.clear_keyboard, reply_markup=None))
        thread = batch[0].thread if batch else None
        response = batch[-1].response if batch else None
        translator = Translator(response.language if response else DEFAULT_LANGUAGE)
        markup = self.keyboard(response, translator) if response else None
        photos = [a for a in response.attachments if a.kind == "photo"] if response else []
        documents = [a for a in response.attachments if a.kind == "document"] if response else []
        edit = batch[-1].edit if batch else None
        if edit is not None and text and not photos:
            await with_retries(
                lambda: self.bot.edit_message_text(
                    text[:MESSAGE_LIMIT], chat_id=chat, message_id=edit, reply_markup=markup
                ),
                self.policy,
            )
        elif photos and len(text) <= CAPTION_LIMIT:
            await with_retries(
                lambda: self.bot.send_photo(
                    chat, photos[0].data, caption=text, reply_markup=markup, message_thread_id=thread
                ),
                self.policy,
            )
            photos = photos[1:]
        elif text:
            pieces = split_text(text)
            for index, piece in enumerate(pieces):
                last = index == len(pieces) - 1
                await with_retries(
                    lambda piece=piece, last=last: self.bot.send_message(  # type: ignore[misc]
                        chat, piece, reply_markup=markup if last else None, message_thread_id=thread
                    ),
                    self.policy,
                )
        for photo in photos:
            await self.quietly(
                with_retries(lambda p=photo: self.bot.send_photo(chat, p.data, message_thread_id=thread), self.policy)  # type: ignore[misc]
            )
        for document in documents:
            await self.quietly(
                with_retries(
                    lambda d=document: self.bot.send_document(  # type: ignore[misc]
                        chat, d.data, filename=d.filename, message_thread_id=thread
                    ),
                    self.policy,
                )
            )
        boards = [item for item in batch if item.response.scoreboard is not None and item.response.night_id]
        if boards:
            await self.quietly(self.update_scoreboard(chat, boards[-1]))

    @staticmethod
    async def quietly(call: Any) -> None:
        """A part of a delivery whose failure must not make the rest look undelivered."""
        try:
            await call
        except TelegramError as error:
            log.warning("a part of an answer was not delivered: %s", error)

    async def update_scoreboard(self, chat: int, item: Outgoing) -> None:
        """One live scoreboard message per night, edited after each event instead of a new message."""
        response = item.response
        assert response.scoreboard is not None and response.night_id is not None
        text = render(response.scoreboard, Translator(response.language))
        night_id = response.night_id
        setting = f"board:{night_id}"
        board_id = self.boards.get((item.chat_key, night_id))
        if board_id is None:
            stored = await self.referee.chat_setting(item.chat_key, setting)
            board_id = int(stored) if stored is not None else None
        if board_id is not None:
            try:
                await with_retries(
                    lambda: self.bot.edit_message_text(text, chat_id=chat, message_id=board_id), self.policy
                )
                self.boards[(item.chat_key, night_id)] = board_id
                return
            except BadRequest as error:
                if "not modified" in str(error).lower():
                    return
                log.info("scoreboard %s could not be edited (%s): sending a new one", board_id, error)
        sent = await with_retries(lambda: self.bot.send_message(chat, text, message_thread_id=item.thread), self.policy)
        await self.referee.set_chat_setting(item.chat_key, setting, str(sent.message_id))
        self.boards[(item.chat_key, night_id)] = sent.message_id


async def register_commands(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Command menus per scope and language (Telegram takes two-letter language codes)."""
    for code, language in COMMAND_LANGUAGES.items():
        translator = Translator(language)
        commands = [
            BotCommand(spec.slash[0], translator.t(f"cmd.{spec.name}")[:256])
            for spec in COMMANDS
            if spec.slash[0] not in ("addgang", "selfgang")
        ]
        for scope in (BotCommandScopeAllGroupChats(), BotCommandScopeAllPrivateChats()):
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
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The bot; `request` and `rate_limit=False` are for benchmarks that record instead of send."""
    root = server_root(base_url)
    front = TelegramFrontEnd(db_path, policy or RetryPolicy())
    queue = DurableQueue()
    queue.front = front
    builder = (
        ApplicationBuilder()
        .token(token)
        .base_url(f"{root}/bot")
        .base_file_url(f"{root}/file/bot")
        .update_queue(queue)
        .post_init(front.open)
        .post_stop(front.stop)
        .post_shutdown(front.close)
    )
    if rate_limit:
        # Telegram's limits (30 a second, 20 a minute per group); retries are delivery's own
        builder = builder.rate_limiter(AIORateLimiter(max_retries=0))  # type: ignore[arg-type]
    if request is not None:
        builder = builder.request(request).get_updates_request(request)
    application = builder.build()
    application.bot_data["front"] = front
    return application


def run_telegram() -> int:
    """Long polling, or a webhook when WEBHOOK_URL is set. Pending updates are never dropped. One
    process per database: a second one, or a database that cannot be opened, exits at once."""
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    token = os.environ["TELEGRAM_BOT_TOKEN"]
    database = os.environ.get("REFEREE_DB", "referee.sqlite3")
    try:
        with owned(database):
            return _serve(token, database)
    except DatabaseUnavailable as error:
        print(Translator(DEFAULT_LANGUAGE).t(error.key, **error.params), file=sys.stderr)
        return EXIT_UNAVAILABLE


def _serve(token: str, database: str) -> int:
    application = build_application(token, database, os.environ.get("TELEGRAM_BASE_URL"))
    webhook = os.environ.get("WEBHOOK_URL")
    if webhook:
        application.run_webhook(
            listen=os.environ.get("LISTEN", "0.0.0.0"),
            port=int(os.environ.get("PORT", "8443")),
            url_path="telegram",
            webhook_url=webhook.rstrip("/") + "/telegram",
            secret_token=os.environ.get("WEBHOOK_SECRET"),
            drop_pending_updates=False,
            allowed_updates=Update.ALL_TYPES,
        )
    else:
        application.run_polling(drop_pending_updates=False, allowed_updates=Update.ALL_TYPES)
    return 0
