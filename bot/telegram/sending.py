"""Sending: a chat's coalesced batch of answers delivered through the Bot API (text split when long,
a photo with its caption, files, the buttons of the last answer, a guided flow's step written over
its message), a press answered, and what a python-telegram-bot error means to delivery. When and
how often is the outbox's (bot/telegram/delivery.py, transport-neutral); how is this file's."""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from telegram.error import BadRequest, ChatMigrated, NetworkError, RetryAfter, TelegramError, TimedOut

from bot.telegram.app_link import AppLink, with_button
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
    Tidy,
    split_text,
    with_retries,
)
from bot.telegram.intake import retry_after_seconds
from bot.telegram.pace import Pacer
from bot.telegram.shared import Shared, shared
from bot.text.replies import Response, render
from locales import Translator

log = logging.getLogger(__name__)
CAPTION_LIMIT = 1024
ROW_LIMIT = 8  # buttons in one inline keyboard row
CALLBACK_ANSWER_LIMIT = 200
NO_NIGHT_BUTTON = "/new"  # the one button of no night: the privacy note's, data `-:*:/new`
T = TypeVar("T")


KEYBOARDS_KEPT = 4096  # messages with buttons whose make-up is remembered (a press may write over them)


@dataclass
class Sender:
    connections: Connections
    chats: Chats
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    pacer: Pacer = field(default_factory=Pacer)
    outbox: Outbox = field(init=False)
    tidy: Tidy = field(init=False)
    # (chat, message) -> whose text and buttons are where in it, for the messages with buttons sent lately
    keyboards: OrderedDict[tuple[int, int], Shared] = field(default_factory=OrderedDict)
    link: AppLink | None = None  # the Mini App's button under the /new reply and /score (MINIAPP_URL)

    def __post_init__(self) -> None:
        self.outbox = Outbox(self.send_batch, self.policy, telegram_failure, self.pacer)
        self.tidy = Tidy(self.take_buttons_off, self.pacer)

    async def call(self, chat: int, request: Callable[[], Awaitable[T]], urgent: bool = True) -> T:
        """One call Telegram counts against the chat's messages (a send or an edit), in its turn
        (bot/telegram/pace.py); a 429 all the same stops the chat's turns for as long as Telegram asks."""
        await self.pacer.turn(chat, urgent)
        try:
            return await request()
        except RetryAfter as error:
            self.pacer.hold(chat, retry_after_seconds(error))
            raise

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
        """Deliver one coalesced batch: the text (split if long) with the buttons of every answer that
        has some, photos and files; or a guided flow's step written over its answer. The buttons of
        the answers whose question was answered are taken off later (`Tidy`). Raises only if the
        text itself could not be sent."""
        bot = self.connections.bot
        thread = batch[0].thread if batch else None
        asking = [(item, markup) for item in batch if (markup := self.buttons(item)) is not None]
        rows = [row for _, markup in asking for row in markup.inline_keyboard]
        markup = InlineKeyboardMarkup(rows) if rows else None
        response = batch[-1].response if batch else None
        photos = [a for a in response.attachments if a.kind == "photo"] if response else []
        documents = [a for a in response.attachments if a.kind == "document"] if response else []
        edit, pressed = (batch[-1].edit, batch[-1].pressed) if batch else (None, None)
        if edit is not None and text and not photos:
            written = await self.write_over(chat, edit, pressed, text, markup)
            if written is not None:
                self.keep(chat, edit, written, notes)  # a guided flow's step or result, over its answer
            else:  # what else the message carries is not known (a restart): a message of its own
                self.tidy.push(chat, edit, pressed)
                edit = None
        if edit is None and photos and len(text) <= CAPTION_LIMIT:
            sent = await self.send_photo(chat, thread, photos[0].data, text, markup)
            self.keep(chat, sent.message_id, text, notes)
            photos = photos[1:]
        elif edit is None and text:
            pieces = split_text(text)
            for index, piece in enumerate(pieces):
                last = index == len(pieces) - 1
                sent = await self.send_text(chat, thread, piece, markup if last else None)
                self.keep(chat, sent.message_id, piece, notes)
                if last and markup is not None:
                    self.remember(chat, sent.message_id, shared(piece, [(shown(item), mk) for item, mk in asking]))
        for photo in photos:
            await self.quietly(self.send_photo(chat, thread, photo.data, None, None))
        for document in documents:
            await self.quietly(
                with_retries(
                    lambda d=document: self.call(  # type: ignore[misc]
                        chat,
                        lambda: bot.send_document(chat, d.content(), filename=d.filename, message_thread_id=thread),
                    ),
                    self.policy,
                    telegram_failure,
                    resend=False,
                )
            )
        for item in batch:
            if item.clear_keyboard is not None:
                self.tidy.push(chat, item.clear_keyboard, item.pressed)

    def buttons(self, item: Outgoing) -> InlineKeyboardMarkup | None:
        markup = self.keyboard(item.response, Translator(item.response.language))
        if self.link is None or item.edit is not None:
            return markup
        return with_button(markup, self.link.under(item.response, item.chat, item.thread))

    async def send_text(self, chat: int, thread: int | None, text: str, markup: InlineKeyboardMarkup | None) -> Message:
        bot = self.connections.bot
        return await with_retries(
            lambda: self.call(
                chat, lambda: bot.send_message(chat, text, reply_markup=markup, message_thread_id=thread)
            ),
            self.policy,
            telegram_failure,
            resend=False,
        )

    async def send_photo(
        self, chat: int, thread: int | None, data: bytes, caption: str | None, markup: InlineKeyboardMarkup | None
    ) -> Message:
        bot = self.connections.bot
        return await with_retries(
            lambda: self.call(
                chat,
                lambda: bot.send_photo(chat, data, caption=caption, reply_markup=markup, message_thread_id=thread),
            ),
            self.policy,
            telegram_failure,
            resend=False,
        )

    def remember(self, chat: int, message: int, parts: Shared | None) -> None:
        """Whose text and buttons are where in a message with buttons (a press may write over one
        answer, and only that one); a message whose make-up cannot be told is not remembered."""
        if parts is None:
            return
        self.keyboards[(chat, message)] = parts
        self.keyboards.move_to_end((chat, message))
        while len(self.keyboards) > KEYBOARDS_KEPT:
            self.keyboards.popitem(last=False)

    async def write_over(
        self, chat: int, message: int, pressed: str | None, text: str, markup: InlineKeyboardMarkup | None
    ) -> str | None:
        """A guided flow's step or a win's 明细 written over the answer whose button was pressed, the
        other answers in the message kept: the message's text now. None when the message's make-up is
        not known (a restart), or the whole would be too long (it is then sent as a message of its own)."""
        parts = self.keyboards.get((chat, message))
        index = parts.holding(pressed) if parts is not None else None
        if parts is None or index is None:
            return None
        written = parts.replaced(index, text, markup)
        if len(written.text) > MESSAGE_LIMIT:
            return None
        bot = self.connections.bot
        try:
            await with_retries(
                lambda: self.call(
                    chat,
                    lambda: bot.edit_message_text(
                        written.text, chat_id=chat, message_id=message, reply_markup=written.markup()
                    ),
                ),
                self.policy,
                telegram_failure,
            )
        except BadRequest as error:
            if not not_modified(error):  # a double tap: the message already says this
                raise
        self.keyboards.pop((chat, message), None)
        self.remember(chat, message, written if written.markup() is not None else None)
        return written.text

    async def take_buttons_off(self, chat: int, message: int, pressed: frozenset[str | None]) -> None:
        """The pressed answers' buttons gone from a message, its text and the other answers' buttons
        kept (`Tidy`: in a turn no answer waits for); all of them when whose they are is not known."""
        parts = self.keyboards.pop((chat, message), None)
        if parts is not None and None not in pressed:
            for data in pressed:
                index = parts.holding(data)
                if index is not None:
                    parts = parts.without_buttons(index)
        markup = parts.markup() if parts is not None and None not in pressed else None
        if markup is not None:
            self.remember(chat, message, parts)
        bot = self.connections.bot
        await self.quietly(
            self.call(chat, lambda: bot.edit_message_reply_markup(chat, message, reply_markup=markup), urgent=False)
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
            await query.answer(within_answer_limit(text) if text else None, show_alert=bool(text) and alert)
        except TelegramError as error:
            log.info("callback %s not answered: %s", query.id, error)


def within_answer_limit(text: str) -> str:
    """A press's answer as Telegram takes it (at most 200 characters): one cut short says so."""
    return text if len(text) <= CALLBACK_ANSWER_LIMIT else text[: CALLBACK_ANSWER_LIMIT - 1] + "…"


def shown(item: Outgoing) -> tuple[str, ...]:
    """The texts an answer may show as in a coalesced message: in full (its board shown once after
    all), or in one line (a long backlog's)."""
    return (item.full(board=False), item.full(), item.short())


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
