"""Sending: a chat's coalesced batch of answers delivered through the Bot API (text split when long,
a photo with its caption, files, the buttons of the last answer, a guided flow's step written over
its message), a press answered, and what a python-telegram-bot error means to delivery. When and
how often is the outbox's (bot/telegram/delivery.py, transport-neutral); how is this file's."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, ChatMigrated, NetworkError, RetryAfter, TelegramError, TimedOut

from bot.telegram.callback import CallbackData, CallbackTooLong
from bot.telegram.chats import Chats
from bot.telegram.connections import Connections
from bot.telegram.delivery import (
    MESSAGE_LIMIT,
    Failure,
    Note,
    Outbox,
    Outgoing,
    RetryPolicy,
    split_text,
    with_retries,
)
from bot.telegram.intake import retry_after_seconds
from bot.text.replies import Response, render
from locales import DEFAULT_LANGUAGE, Translator

log = logging.getLogger(__name__)
CAPTION_LIMIT = 1024
ROW_LIMIT = 8  # buttons in one inline keyboard row
CALLBACK_ANSWER_LIMIT = 200
NO_NIGHT_BUTTON = "/new"  # the one button of no night: the privacy note's, data `-:*:/new`


@dataclass
class Sender:
    connections: Connections
    chats: Chats
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    outbox: Outbox = field(init=False)

    def __post_init__(self) -> None:
        self.outbox = Outbox(self.send_batch, self.policy, telegram_failure)

    def keyboard(self, response: Response, translator: Translator) -> InlineKeyboardMarkup | None:
        if not response.choices:
            return None
        if response.night_id is None and any(c.command != NO_NIGHT_BUTTON for c in response.choices):
            return None  # a button belongs to a night; only /new (the privacy note's) to none
        rows: list[list[InlineKeyboardButton]] = []
        row_of_last: int | None = None
        for choice in response.choices:
            try:
                data = CallbackData.of(response.night_id, None if choice.anytime else response.hand_no, choice.command)
            except CallbackTooLong as error:  # a bug of the chat layer's (tests/test_buttons.py): said, not hidden
                log.error("button %r dropped: its data is %s", choice.command, error)
                continue
            button = InlineKeyboardButton(render(choice.label, translator), callback_data=data.text)
            # a button joins the row before it: two a row, or all of one `row` (up to Telegram's 8)
            width = 2 if choice.row is None else ROW_LIMIT
            if rows and choice.row == row_of_last and len(rows[-1]) < width:
                rows[-1].append(button)
            else:
                rows.append([button])
            row_of_last = choice.row
        return InlineKeyboardMarkup(rows) if rows else None

    async def send_batch(self, chat: int, batch: list[Outgoing], text: str, notes: tuple[Note, ...] = ()) -> None:
        """Deliver a batch; a group that became a supergroup meanwhile gets it under its new id.
        `notes`: the answers the text shows, kept with the message for a reply to it."""
        try:
            await self._send_batch(self.chats.moved.get(chat, chat), batch, text, notes)
        except ChatMigrated as error:
            new = int(error.new_chat_id)
            self.chats.moved[chat] = new
            await self.chats.remember_migration(chat, new)
            await self._send_batch(new, batch, text, notes)

    def keep(self, chat: int, message_id: int, shown: str, notes: Sequence[Note]) -> None:
        """What a message sent to a group carried, for a reply to it (bot/chat/handlers/reply_to.py):
        the answers whose first line it shows; all of them for a piece that shows none (the rest of
        a long answer). Kept by Telegram's id of the bot's own message, never read from its text."""
        if chat > 0 or not notes:  # a private chat records nothing: a reply there has nothing to act on
            return
        inside = [note for note in notes if note.text and note.text in shown] or list(notes)
        self.connections.referee.remember_answer(chat, message_id, [(n.event_id, n.recorded) for n in inside])

    async def _send_batch(self, chat: int, batch: list[Outgoing], text: str, notes: tuple[Note, ...] = ()) -> None:
        """Deliver one coalesced batch: replaced keyboards, the text (split if long), photos and files.
        Raises only if the text itself could not be sent."""
        bot = self.connections.bot
        for item in batch:
            if item.clear_keyboard is not None:
                await self.quietly(bot.edit_message_reply_markup(chat, item.clear_keyboard, reply_markup=None))
        thread = batch[0].thread if batch else None
        response = batch[-1].response if batch else None
        translator = Translator(response.language if response else DEFAULT_LANGUAGE)
        markup = self.keyboard(response, translator) if response else None
        photos = [a for a in response.attachments if a.kind == "photo"] if response else []
        documents = [a for a in response.attachments if a.kind == "document"] if response else []
        edit = batch[-1].edit if batch else None
        if edit is not None and text and not photos:
            try:
                await with_retries(
                    lambda: bot.edit_message_text(
                        text[:MESSAGE_LIMIT], chat_id=chat, message_id=edit, reply_markup=markup
                    ),
                    self.policy,
                    telegram_failure,
                )
            except BadRequest as error:
                if not not_modified(error):  # a double tap: the message already says this
                    raise
            self.keep(chat, edit, text[:MESSAGE_LIMIT], notes)  # a guided flow's result, over its message
        elif photos and len(text) <= CAPTION_LIMIT:
            sent = await with_retries(
                lambda: bot.send_photo(
                    chat, photos[0].data, caption=text, reply_markup=markup, message_thread_id=thread
                ),
                self.policy,
                telegram_failure,
                resend=False,
            )
            self.keep(chat, sent.message_id, text, notes)
            photos = photos[1:]
        elif text:
            pieces = split_text(text)
            for index, piece in enumerate(pieces):
                last = index == len(pieces) - 1
                sent = await with_retries(
                    lambda piece=piece, last=last: bot.send_message(  # type: ignore[misc]
                        chat, piece, reply_markup=markup if last else None, message_thread_id=thread
                    ),
                    self.policy,
                    telegram_failure,
                    resend=False,
                )
                self.keep(chat, sent.message_id, piece, notes)
        for photo in photos:
            await self.quietly(
                with_retries(
                    lambda p=photo: bot.send_photo(chat, p.data, message_thread_id=thread),  # type: ignore[misc]
                    self.policy,
                    telegram_failure,
                    resend=False,
                )
            )
        for document in documents:
            await self.quietly(
                with_retries(
                    lambda d=document: bot.send_document(  # type: ignore[misc]
                        chat, d.data, filename=d.filename, message_thread_id=thread
                    ),
                    self.policy,
                    telegram_failure,
                    resend=False,
                )
            )

    @staticmethod
    async def quietly(call: Any) -> None:
        """A part of a delivery whose failure must not make the rest look undelivered."""
        try:
            await call
        except TelegramError as error:
            if not not_modified(error):
                log.warning("a part of an answer was not delivered: %s", error)

    @staticmethod
    async def answer(query: CallbackQuery, text: str | None, alert: bool = True) -> None:
        """Answer a press (a short note to the presser: an alert to dismiss, or with `alert=False` a
        toast at the top of the chat that goes by itself); an expired query is not worth more."""
        try:
            await query.answer(text[:CALLBACK_ANSWER_LIMIT] if text else None, show_alert=bool(text) and alert)
        except TelegramError as error:
            log.info("callback %s not answered: %s", query.id, error)


def telegram_failure(error: BaseException) -> Failure | None:
    """A python-telegram-bot error as delivery sees it (bot/telegram/delivery.py is transport-neutral). A
    request that went out and got no answer (a read timeout, the connection closed before the
    answer) may have been carried out; one that never left (connect or pool timeout, a refused
    connection, a write cut short: Telegram acts only on a whole request) and a 5xx were not."""
    if isinstance(error, RetryAfter):
        return Failure(wait=retry_after_seconds(error))
    if isinstance(error, BadRequest) or (isinstance(error, TelegramError) and not isinstance(error, NetworkError)):
        return Failure(retry=False)  # the request itself is wrong, a chat that moved, a bot removed
    if not isinstance(error, NetworkError):
        return None
    cause = error.__cause__
    never_left = httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout | httpx.WriteError | httpx.WriteTimeout
    if isinstance(cause, never_left):
        return Failure()
    if isinstance(error, TimedOut) or isinstance(cause, httpx.ReadError | httpx.RemoteProtocolError):
        return Failure(maybe_delivered=True)
    return Failure()  # a 5xx, a proxy's error page: Telegram answered, nothing was done


def not_modified(error: TelegramError) -> bool:
    """Telegram's answer to an edit that changes nothing (a double tap): harmless."""
    return isinstance(error, BadRequest) and "not modified" in str(error).lower()
