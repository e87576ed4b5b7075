"""Telegram front end (python-telegram-bot 22): a thin layer over the command layer.

Every text message (a /command or plain 碰/胡/… words) goes to `Referee.handle`; buttons carry a
command line in their callback data. Updates of one chat are handled strictly in order, different
chats in parallel; replies go out only after the ledger has committed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    MessageEntity,
    Update,
)
from telegram.constants import ChatType
from telegram.error import BadRequest
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    BaseUpdateProcessor,
    CallbackQueryHandler,
    ContextTypes,
    MessageHandler,
    filters,
)
from telegram.request import BaseRequest

from bot.commands import COMMANDS
from bot.replies import Response, render, render_response
from bot.seating import Speaker
from bot.service import Incoming, Referee
from locales import DEFAULT_LANGUAGE, Translator

log = logging.getLogger(__name__)
DEFAULT_BASE_URL = "https://api.telegram.org"
CAPTION_LIMIT = 1024
CALLBACK_LIMIT = 64
ADMIN_CACHE_SECONDS = 600
COMMAND_LANGUAGES = {"": DEFAULT_LANGUAGE, "zh": "zh-Hans", "en": "en"}


class ChatOrderedProcessor(BaseUpdateProcessor):
    """Updates of one chat run one at a time, in arrival order; different chats run in parallel."""

    def __init__(self, max_concurrent_updates: int = 256) -> None:
        super().__init__(max_concurrent_updates)
        self._locks: dict[int, asyncio.Lock] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            await coroutine
            return
        lock = self._locks.setdefault(chat.id, asyncio.Lock())
        async with lock:  # asyncio.Lock wakes waiters first-come first-served: arrival order
            await coroutine

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None


@dataclass
class TelegramFrontEnd:
    db_path: str
    admins: dict[int, tuple[float, frozenset[int]]] = field(default_factory=dict)
    # Looked up on every update, written only here: kept in memory, the ledger keeps them for restarts.
    chat_keys: dict[int, str] = field(default_factory=dict)
    boards: dict[tuple[str, int], int] = field(default_factory=dict)
    _referee: Referee | None = None

    @property
    def referee(self) -> Referee:
        assert self._referee is not None, "the ledger opens in post_init"
        return self._referee

    async def open(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """post_init: open the ledger on the application's own event loop, register the menus."""
        self._referee = await Referee.open(self.db_path)
        await register_commands(application)

    async def close(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        if self._referee is not None:
            await self._referee.close()
            self._referee = None

    # ---- who and where -------------------------------------------------------------------------

    async def chat_key(self, message: Message) -> str:
        """The ledger's chat id: a group, or one topic of a forum group; follows supergroup migration."""
        chat_id = message.chat.id
        if chat_id not in self.chat_keys:
            alias = await self.referee.chat_setting(f"tg:{chat_id}", "migrated_from")
            self.chat_keys[chat_id] = alias or f"tg:{chat_id}"
        base = self.chat_keys[chat_id]
        if message.chat.is_forum and message.message_thread_id:
            return f"{base}:topic:{message.message_thread_id}"
        return base

    @staticmethod
    def display_name(user: Any) -> str:
        """A name without spaces, so it can be typed back in commands."""
        if user.username:
            return str(user.username)
        return "".join(str(user.first_name or user.id).split())

    async def is_admin(self, context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool:
        cached = self.admins.get(chat_id)
        if cached is None or time.monotonic() - cached[0] > ADMIN_CACHE_SECONDS:
            try:
                members = await context.bot.get_chat_administrators(chat_id)
                cached = (time.monotonic(), frozenset(m.user.id for m in members))
            except BadRequest:
                cached = (time.monotonic(), frozenset())
            self.admins[chat_id] = cached
        return user_id in cached[1]

    async def speaker(self, user: Any, context: ContextTypes.DEFAULT_TYPE, chat: Any) -> Speaker:
        admin = False
        if chat.type in (ChatType.GROUP, ChatType.SUPERGROUP):
            admin = await self.is_admin(context, chat.id, user.id)
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

    async def on_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None or message.text is None or update.effective_user is None:
            return
        incoming = Incoming(
            chat_id=await self.chat_key(message),
            speaker=await self.speaker(update.effective_user, context, message.chat),
            text=message.text,
            update_key=f"msg:{message.chat.id}:{message.message_id}",
            private=message.chat.type == ChatType.PRIVATE,
            mentions=self.mentions(message),
        )
        response = await self.referee.handle(incoming)
        if response is not None:
            await self.send(context, message, response)

    async def on_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None or query.data is None or not isinstance(query.message, Message):
            return
        message = query.message
        night_text, hand_text, command = query.data.split(":", 2)
        chat_key = await self.chat_key(message)
        current = await self.referee.current_hand(chat_key)
        language = await self.referee.language(chat_key)
        if current is None or str(current[0]) != night_text or (hand_text != "*" and hand_text != str(current[1])):
            await query.answer(Translator(language).t("button.stale"), show_alert=True)
            return
        incoming = Incoming(
            chat_id=chat_key,
            speaker=await self.speaker(query.from_user, context, message.chat),
            text=command,
            update_key=f"cb:{query.id}",
            private=message.chat.type == ChatType.PRIVATE,
        )
        response = await self.referee.handle(incoming)
        await query.answer()
        if response is not None:
            await self.send(context, message, response)

    async def on_migrate(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group upgraded to a supergroup keeps its ledger: the new id points at the old key."""
        message = update.effective_message
        if message is None or message.migrate_to_chat_id is None:
            return
        old = await self.referee.chat_setting(f"tg:{message.chat.id}", "migrated_from") or f"tg:{message.chat.id}"
        await self.referee.set_chat_setting(f"tg:{message.migrate_to_chat_id}", "migrated_from", old)
        self.chat_keys.pop(message.migrate_to_chat_id, None)

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("update %r failed", update, exc_info=context.error)
        if isinstance(update, Update) and update.effective_message is not None:
            language = DEFAULT_LANGUAGE
            try:
                text = Translator(language).t("error.internal")
                await update.effective_message.reply_text(text)
            except Exception:  # the error handler must never raise
                log.exception("could not tell the chat about the error")

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

    async def send(self, context: ContextTypes.DEFAULT_TYPE, message: Message, response: Response) -> None:
        translator = Translator(response.language)
        text = render_response(response, translator)
        markup = self.keyboard(response, translator)
        thread = message.message_thread_id if message.is_topic_message else None
        photos = [a for a in response.attachments if a.kind == "photo"]
        documents = [a for a in response.attachments if a.kind == "document"]
        if photos and len(text) <= CAPTION_LIMIT:
            await context.bot.send_photo(
                message.chat.id, photos[0].data, caption=text, reply_markup=markup, message_thread_id=thread
            )
        elif text:
            await context.bot.send_message(message.chat.id, text, reply_markup=markup, message_thread_id=thread)
            for photo in photos:
                await context.bot.send_photo(message.chat.id, photo.data, message_thread_id=thread)
        for document in documents:
            await context.bot.send_document(
                message.chat.id, document.data, filename=document.filename, message_thread_id=thread
            )
        if response.scoreboard is not None and response.night_id is not None:
            await self.update_scoreboard(context, message, response, translator, thread)

    async def update_scoreboard(
        self,
        context: ContextTypes.DEFAULT_TYPE,
        message: Message,
        response: Response,
        translator: Translator,
        thread: int | None,
    ) -> None:
        """One live scoreboard message per night, edited after each event instead of a new message."""
        assert response.scoreboard is not None and response.night_id is not None
        text = render(response.scoreboard, translator)
        chat_key = await self.chat_key(message)
        night_id = response.night_id
        setting = f"board:{night_id}"
        board_id = self.boards.get((chat_key, night_id))
        if board_id is None:
            stored = await self.referee.chat_setting(chat_key, setting)
            board_id = int(stored) if stored is not None else None
        if board_id is not None:
            try:
                await context.bot.edit_message_text(text, chat_id=message.chat.id, message_id=board_id)
                self.boards[(chat_key, night_id)] = board_id
                return
            except BadRequest as error:
                if "not modified" in str(error).lower():
                    return
                log.info("scoreboard %s could not be edited (%s): sending a new one", board_id, error)
        sent = await context.bot.send_message(message.chat.id, text, message_thread_id=thread)
        await self.referee.set_chat_setting(chat_key, setting, str(sent.message_id))
        self.boards[(chat_key, night_id)] = sent.message_id


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
            await application.bot.set_my_commands(commands, scope=scope, language_code=code or None)


def build_application(
    token: str,
    db_path: str,
    base_url: str | None = None,
    request: BaseRequest | None = None,
    rate_limit: bool = True,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The bot; `request` and `rate_limit=False` are for benchmarks that record instead of send."""
    base = (base_url or DEFAULT_BASE_URL).rstrip("/")
    front = TelegramFrontEnd(db_path)
    builder = (
        ApplicationBuilder()
        .token(token)
        .base_url(f"{base}/bot")
        .base_file_url(f"{base}/file/bot")
        .concurrent_updates(ChatOrderedProcessor())
        .post_init(front.open)
        .post_shutdown(front.close)
    )
    if rate_limit:
        # PTB's builder is generic in the rate limiter type, which a conditional chain loses
        builder = builder.rate_limiter(AIORateLimiter(max_retries=3))  # type: ignore[arg-type]
    if request is not None:
        builder = builder.request(request).get_updates_request(request)
    application = builder.build()
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, front.on_migrate))
    application.add_handler(MessageHandler(filters.TEXT & ~filters.UpdateType.EDITED, front.on_text))
    application.add_handler(CallbackQueryHandler(front.on_button))
    application.add_error_handler(front.on_error)
    application.bot_data["front"] = front
    return application


def run_telegram() -> int:
    """Long polling, or a webhook when WEBHOOK_URL is set. Pending updates are never dropped."""
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    token = os.environ["TELEGRAM_BOT_TOKEN"]
    database = os.environ.get("REFEREE_DB", "referee.sqlite3")
    application = build_application(token, database, os.environ.get("TELEGRAM_BASE_URL"))
    webhook = os.environ.get("WEBHOOK_URL")
    if webhook:
        application.run_webhook(
            listen="0.0.0.0",
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
