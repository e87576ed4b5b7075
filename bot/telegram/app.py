"""Telegram front end (python-telegram-bot 22): a thin layer over the command layer.

Intake is durable and the front end's own (bot/telegram/intake.py: the application has no PTB
updater): each update goes to `accept`, which stores it in the inbox (bot/store/inbox.py) and commits
before the `getUpdates` offset may move past it (or before a webhook call is answered). Each chat
then has its own worker that processes its inbox rows strictly in order, while chats run side by
side, so a long backlog in one chat never delays another. A worker never waits for a reply to be
sent: answers go to the chat's outbox (bot/telegram/delivery.py), and a recorded event's board to the
chat's pinned live board (`LiveBoards`, edited in place, coalesced).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import sqlite3
import sys
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import httpx
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    CallbackQuery,
    ChatMemberAdministrator,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    Update,
)
from telegram.error import (
    BadRequest,
    ChatMigrated,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder
from telegram.request import BaseRequest

from bot.chat.commands import Menu, menu
from bot.chat.service import Incoming, Referee, Speaker
from bot.store.database import DatabaseUnavailable, owned
from bot.store.inbox import Inbox, Row
from bot.store.writer import storage_unavailable
from bot.telegram.callback import CallbackData, CallbackTooLong
from bot.telegram.delivery import (
    MESSAGE_LIMIT,
    Failure,
    LiveBoards,
    Outbox,
    Outgoing,
    RetryPolicy,
    split_text,
    with_retries,
)
from bot.telegram.health import Heartbeat, check_health
from bot.telegram.input import (
    PER_PRESSER,
    Input,
    Kind,
    Person,
    addressed_elsewhere,
    deep_link,
    display_name,
    read_update,
)
from bot.telegram.intake import WEBHOOK_PATH, Intake, Polling, Webhook, retry_after_seconds, serve
from bot.telegram.settings import EXIT_DATABASE, EXIT_REFUSED, Settings
from bot.text.replies import Choice, Reply, Response, render, render_response
from locales import DEFAULT_LANGUAGE, Translator

log = logging.getLogger(__name__)
DEFAULT_BASE_URL = "https://api.telegram.org"
CAPTION_LIMIT = 1024
ROW_LIMIT = 8  # buttons in one inline keyboard row
CALLBACK_ANSWER_LIMIT = 200
ADMIN_CACHE_SECONDS = 600
ADMIN_LOOKUP_SECONDS = 5.0
ADMIN_RETRY_SECONDS = 30.0
COMMAND_LANGUAGES = {"": DEFAULT_LANGUAGE, "zh": "zh-Hans", "en": "en"}
STORE_FIRST_DELAY = 0.2  # seconds: an inbox write that failed is retried, doubling up to the cap
STORE_MAX_DELAY = 5.0
NO_NIGHT_BUTTON = "/new"  # the one button of no night: the privacy note's, data `-:*:/new`
PRIVACY_WARNED = "privacy_warned"  # chat setting: "1" while the chat was told plain words are not seen
BOARD_EDIT_SECONDS = 10.0  # the pinned board is edited at most this often per chat (BOARD_EDIT_SECONDS)
WORK_STALL_SECONDS = 60.0  # a worker that finished no update for this long while some wait is stuck
PIN_RIGHT_SECONDS = 600  # how long the bot's own right to pin in a chat is trusted before asking again
__all__ = ["PER_PRESSER", "TelegramFrontEnd", "addressed_elsewhere", "build_application", "update_key"]


class NotWrittenYet(Exception):
    """The ledger could not be written (locked by another program, a full disk): the update recorded
    nothing and is handled again, after a pause, before anything later in its chat."""


def server_root(base_url: str | None) -> str:
    """`TELEGRAM_BASE_URL` as the server root: both `http://host:8081` and PTB's `http://host:8081/bot`."""
    root = (base_url or DEFAULT_BASE_URL).rstrip("/")
    return root.removesuffix("/bot")


def update_key(update: Update) -> str | None:
    """What the ledger records an update's events under (bot/telegram/input.py)."""
    return read_update(update).key


@dataclass
class TelegramFrontEnd:
    db_path: str
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    admins: dict[int, tuple[float, frozenset[int]]] = field(default_factory=dict)
    # Looked up on every update, written only here: kept in memory, the database keeps them for restarts.
    chat_keys: dict[int, str] = field(default_factory=dict)
    boards: dict[tuple[str, int], int] = field(default_factory=dict)  # (chat key, night) -> its pinned board
    board_interval: float = BOARD_EDIT_SECONDS
    pin_rights: dict[int, tuple[float, bool]] = field(default_factory=dict)  # chat -> (looked up at, may pin)
    moved: dict[int, int] = field(default_factory=dict)  # old chat id -> the supergroup it became
    lookup_bot: Bot | None = None  # admin lookups: a client without the replies' rate limiter
    lookup_request: BaseRequest | None = None  # its transport when the application's is given (benchmarks)
    reads_all: bool = True  # getMe's can_read_all_group_messages: False while privacy mode is on
    _referee: Referee | None = None
    _inbox: Inbox | None = None
    _bot: Bot | None = None
    _queues: dict[str | None, deque[tuple[Row, Update]]] = field(default_factory=dict)
    progressed: float = field(default_factory=time.monotonic)  # an update last finished (or work began)
    _workers: dict[str | None, asyncio.Task[None]] = field(default_factory=dict)
    _refreshing: dict[int, asyncio.Task[tuple[float, frozenset[int]]]] = field(default_factory=dict)
    outbox: Outbox = field(init=False)
    live: LiveBoards = field(init=False)

    def __post_init__(self) -> None:
        self.outbox = Outbox(self.send_batch, self.policy, telegram_failure)
        self.live = LiveBoards(self.publish_board, self.board_interval, classify=telegram_failure)

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
        if application.bot.rate_limiter is not None:
            self.lookup_bot = Bot(
                application.bot.token,
                base_url=application.bot.base_url.removesuffix(application.bot.token),
                request=self.lookup_request,
            )
            await self.lookup_bot.initialize()
        await self.inbox.prune()
        await self.referee.tidy()
        await self.referee.warm()
        await self.read_privacy()
        if not self.reads_all:
            log.warning("privacy mode is on: plain words in groups are not seen (BotFather /setprivacy)")
        for row in await self.inbox.pending():
            self.enqueue(row, Update.de_json(row.body, application.bot), await self.lane(row.chat))
        await register_commands(application)

    async def stop(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """post_stop: stop working; rows not done stay in the inbox for the next start."""
        for task in list(self._workers.values()):
            task.cancel()
        await asyncio.gather(*self._workers.values(), return_exceptions=True)
        await self.outbox.stop()
        await self.live.stop()
        await self.inbox.flush()

    async def close(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        if self.lookup_bot is not None:
            await self.lookup_bot.shutdown()
            self.lookup_bot = None
        if self._referee is not None:
            await self._referee.close()
            self._referee = None

    def health(self) -> str | None:
        """What the heartbeat says of the bot's parts besides its loop: the drawing process."""
        return self._referee.services.charts.health() if self._referee is not None else None

    async def idle(self) -> None:
        """Wait until every queued update is processed and every answer delivered (tests, bench)."""
        while self._workers or self.outbox.waiting() or self.live.pending():
            await asyncio.gather(*self._workers.values(), return_exceptions=True)
            await self.outbox.idle()
            await self.live.idle()

    def working(self) -> bool:
        """Whether updates are being processed (what the heartbeat vouches for): nothing waits, or
        an update was finished within WORK_STALL_SECONDS. A loop that takes updates in while every
        worker hangs is not healthy."""
        waiting = any(self._queues.values())
        return not waiting or time.monotonic() - self.progressed < WORK_STALL_SECONDS

    # ---- intake and scheduling -----------------------------------------------------------------

    async def accept(self, update: Update) -> None:
        """Store an update in the inbox and queue it for its chat (returns once it is committed)."""
        await self.store(await self.row_of(update), update)

    async def accept_all(self, updates: Sequence[Update]) -> None:
        """Store a batch (returns once every update is committed): each chat's updates one after
        another, in order, and the chats side by side. One after another across chats, a chat whose
        row rides with its line's events (up to `RIDE_SECONDS`) would hold every chat behind it in the
        batch: twenty tables asking `/summary` at once were answered one by one."""
        lanes: dict[str | None, list[tuple[Row, Update]]] = {}
        for update in updates:  # in arrival order: a migration is noted before the lanes are read
            row = await self.row_of(update)
            lanes.setdefault(await self.lane(row.chat), []).append((row, update))

        async def in_order(items: list[tuple[Row, Update]]) -> None:
            for row, update in items:
                await self.store(row, update)

        done = await asyncio.gather(*(in_order(items) for items in lanes.values()), return_exceptions=True)
        failed = [outcome for outcome in done if isinstance(outcome, BaseException)]
        if failed:  # every chat's updates were stored or failed: the offset stays before the batch
            raise failed[0]

    async def row_of(self, update: Update) -> Row:
        """The update's inbox row; a migration is noted here, in arrival order, so that updates of
        the new supergroup in the same batch already find it."""
        read = read_update(update)
        if read.chat_id is not None and read.migrate_to:
            await self.remember_migration(read.chat_id, read.migrate_to)
        if read.chat_id is not None and read.migrate_from:
            await self.remember_migration(read.migrate_from, read.chat_id)
        return Row(update.update_id, read.chat_id, read.key, update.to_dict())

    async def store(self, row: Row, update: Update) -> None:
        """The inbox write, retried with backoff while storage fails (locked, full, I/O error): the
        updater does not move its offset past an update until this returns, so polling never stops
        and never skips an update that was not written."""
        delay = STORE_FIRST_DELAY
        lane = await self.lane(row.chat)
        queued: list[bool] = []

        def queue_now() -> None:  # a quiet chat's update is processed while its row waits: one commit
            queued.append(True)
            self.enqueue(row, update, lane)

        while True:
            try:
                added = await self.inbox.add(row, queue_now if lane not in self._workers else None)
                break
            except (sqlite3.Error, OSError) as error:
                log.error("update %s not stored yet (%s): retrying in %.1f s", row.update_id, error, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, STORE_MAX_DELAY)
        if added and not queued:
            self.enqueue(row, update, lane)

    async def lane(self, chat: int | None) -> str | None:
        """The queue an update joins: its ledger key, so a group and the supergroup it became (a
        backlog under the old id, new lines under the new one) share one worker, one night."""
        return await self.base_key(chat) if chat is not None else None

    def enqueue(self, row: Row, update: Update, lane: str | None) -> None:
        if not any(self._queues.values()):
            self.progressed = time.monotonic()  # idle until now: the clock of "stuck" starts here
        self._queues.setdefault(lane, deque()).append((row, update))
        if lane not in self._workers:
            self._workers[lane] = asyncio.create_task(self._work(lane))

    async def _work(self, chat: str | None) -> None:
        """One chat's updates, one at a time, in order. Other chats' workers run meanwhile."""
        queue = self._queues[chat]
        try:
            while queue:
                row, update = queue[0]
                await self.process_until_written(row, update)
                queue.popleft()
                self.progressed = time.monotonic()
        finally:
            del self._workers[chat]
            if not queue:
                self._queues.pop(chat, None)

    async def process_until_written(self, row: Row, update: Update) -> None:
        """An update whose line could not be written (the ledger locked longer than its busy timeout)
        is handled again, with backoff, until it is: it is neither answered "nothing recorded" nor
        marked done, and the chat's later updates wait behind it, in order."""
        delay = STORE_FIRST_DELAY
        while not await self.process(row, update):
            log.warning(
                "update %s not recorded yet (the ledger is not writable): again in %.1f s", row.update_id, delay
            )
            await asyncio.sleep(delay)
            delay = min(delay * 2, STORE_MAX_DELAY)

    async def process(self, row: Row, update: Update) -> bool:
        """Handle one update; False when the storage failed before anything was recorded (try again)."""
        recorded = False
        read = read_update(update)
        try:
            if read.kind is Kind.BUTTON and update.callback_query is not None:
                recorded = await self.on_button(update.callback_query, read, row)
            elif read.kind is Kind.NEW:
                recorded = await self.on_text(read, row)
            elif read.kind is Kind.EDITED:
                recorded = await self.on_edit(read, row)
            elif read.kind is Kind.MEMBER:
                await self.on_member(read)
            # forwarded, via a bot, a channel's automatic forward: someone else's words, never recorded
        except NotWrittenYet:
            return False
        except Exception as error:
            if storage_unavailable(error):  # a setting of the chat's, not written: handling it again is safe
                log.warning("update %s: the ledger is not writable (%s)", row.update_id, error)
                return False
            log.exception("update %s failed", row.update_id)
            await self.report_failure(update, row)
        # A line's events mark its row done in their own transaction (the inbox trigger); a guided
        # flow's last step records under the flow's key, so a press is marked here (a replay finds
        # the flow recorded).
        if not (recorded and row.key) or update.callback_query is not None:
            self.inbox.mark_done(row.update_id)
        return True

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
        self.moved[old] = new

    # ---- who and where -------------------------------------------------------------------------

    async def base_key(self, chat_id: int) -> str:
        """The ledger's key of a Telegram chat; follows supergroup migration."""
        if chat_id not in self.chat_keys:
            self.chat_keys[chat_id] = await self.inbox.alias(chat_id) or f"tg:{chat_id}"
        return self.chat_keys[chat_id]

    async def chat_key(self, message: Message | Input) -> str:
        """The ledger's chat id: a group, or one topic of a forum group (the General topic is the
        chat's own table)."""
        read = message if isinstance(message, Input) else read_update({"message": message.to_dict()})
        assert read.chat_id is not None
        base = await self.base_key(read.chat_id)
        return f"{base}:topic:{read.topic}" if read.topic else base

    @staticmethod
    def thread(message: Message | Input) -> int | None:
        if isinstance(message, Input):
            return message.topic
        return message.message_thread_id if message.is_topic_message else None

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        """From a list kept per chat for a few minutes. An expired list is still used while a fresh one
        is fetched in the background, so recording never waits behind the chat's queued replies; the
        first lookup waits at most ADMIN_LOOKUP_SECONDS, in this chat's worker only (other chats'
        workers run meanwhile), on a Bot API client of its own outside the replies' rate limiter. A
        failed lookup falls back to the last list (none: nobody is an admin for now) and is tried
        again after ADMIN_RETRY_SECONDS, not on every line."""
        cached = self.admins.get(chat_id)
        if cached is None:
            cached = await self.fetch_admins(chat_id)
        elif time.monotonic() - cached[0] > ADMIN_CACHE_SECONDS and chat_id not in self._refreshing:
            task = asyncio.create_task(self.fetch_admins(chat_id))
            self._refreshing[chat_id] = task
            task.add_done_callback(lambda _: self._refreshing.pop(chat_id, None))
        return user_id in cached[1]

    async def fetch_admins(self, chat_id: int) -> tuple[float, frozenset[int]]:
        bot = self.lookup_bot or self.bot
        try:
            members = await asyncio.wait_for(bot.get_chat_administrators(chat_id), ADMIN_LOOKUP_SECONDS)
            cached = (time.monotonic(), frozenset(m.user.id for m in members))
        except BadRequest:
            cached = (time.monotonic(), frozenset())
        except (TelegramError, TimeoutError) as error:
            known = self.admins.get(chat_id, (0.0, frozenset()))[1]
            log.warning("chat %s: admins not looked up (%s), using %d known", chat_id, error, len(known))
            # kept as if fetched ADMIN_RETRY_SECONDS before expiry: tried again soon, not on every line
            cached = (time.monotonic() - ADMIN_CACHE_SECONDS + ADMIN_RETRY_SECONDS, known)
        self.admins[chat_id] = cached
        return cached

    async def speaker(self, who: Person, read: Input, rights: bool = True) -> Speaker:
        """A channel is its own sender, with no admin rights; an anonymous admin (posting as the
        group) is an admin of that group; a user's rights come from the chat's admin list, looked up
        only when the line may need them (`rights`: not for a question, which anyone may ask; the
        first line of a chat after a restart would wait for the lookup)."""
        admin = who.anonymous_admin
        if rights and read.group and not who.is_channel and not who.anonymous_admin and read.chat_id is not None:
            admin = await self.is_admin(read.chat_id, int(who.id))
        names = (who.first_name, f"{who.first_name}{who.last_name or ''}", f"{who.first_name} {who.last_name or ''}")
        own = () if who.is_channel or who.anonymous_admin else tuple(dict.fromkeys(n.strip() for n in names))
        return Speaker(who.id, display_name(who), who.username, admin, who.language, names=own)

    @staticmethod
    def mentions(read: Input) -> tuple[Speaker, ...]:
        found: list[Speaker] = []
        for mention in read.mentions:
            if mention.person is not None:  # a text mention: one person, however many words
                who = mention.person
                found.append(Speaker(who.id, display_name(who), who.username))
            else:
                username = mention.text.lstrip("@")
                found.append(Speaker("", username, username))
        if read.replied_to is not None and not read.replied_to.is_bot:
            who = read.replied_to
            found.append(Speaker(who.id, display_name(who), who.username))
        return tuple(found)

    # ---- handlers ------------------------------------------------------------------------------

    async def on_text(self, read: Input, row: Row, text: str | None = None) -> bool:
        """A chat line (or a caption); True when it recorded something."""
        line = text if text is not None else read.text
        if read.sender is None or line is None or addressed_elsewhere(line, self.bot.username):
            return False
        chat_key = await self.chat_key(read)
        said = await self.referee.read(chat_key, deep_link(line, self.bot.username))  # read once
        incoming = Incoming(
            chat_id=chat_key,
            speaker=await self.speaker(read.sender, read, rights=not said.asks_only),
            text=said.text,
            update_key=row.key,
            private=read.private,
            mentions=self.mentions(read),
            read=said,
        )
        response = await self.referee.handle(incoming)
        if response is not None and response.unwritten:
            raise NotWrittenYet(row.update_id)
        if response is not None and (response.replies or response.attachments):
            assert read.chat_id is not None
            shown = await self.as_shown(read.chat_id, await self.with_privacy(response, chat_key))
            self.post(Outgoing(read.chat_id, read.topic, chat_key, shown))
        return response is not None and response.recorded

    async def on_edit(self, read: Input, row: Row) -> bool:
        """An edit is a correction: of the event its line recorded (`/fix N <edited line>`), or, when
        the line recorded nothing, a new line."""
        if read.text is None or read.chat_id is None or read.message_id is None:
            return False
        chat_key = await self.chat_key(read)
        found = await self.referee.event_of_message(chat_key, read.chat_id, read.message_id)
        if found is None:
            return await self.on_text(read, row)
        number, _ = found  # the line's current version: a second edit replaces the first one's fix
        if number is None:  # a seat claim, a line of another night: nothing tonight to correct
            language = await self.referee.language(chat_key, read.sender.language if read.sender else None)
            self.post(Outgoing(read.chat_id, read.topic, chat_key, Response((Reply("edit.no_line"),), language)))
            return False
        return await self.on_text(read, row, f"/fix {number} {read.text}")

    async def on_member(self, read: Input) -> None:
        """The bot added to a group, or its rights changed: getMe is read again (privacy turned off
        at BotFather shows once the bot is re-added), and an administrator reads every message. With
        privacy on, say at once what it cannot see, with /new as a button; once it sees plain words
        again in a chat it warned, say so once. Any change of membership looks up the pin right afresh."""
        if read.chat_id is not None:
            self.pin_rights.pop(read.chat_id, None)
        if not read.group or read.chat_id is None or read.member_status not in ("member", "administrator"):
            return
        await self.read_privacy()
        chat_key = await self.base_key(read.chat_id)
        warned = await self.referee.chat_setting(chat_key, PRIVACY_WARNED) == "1"
        sees = self.reads_all or bool(read.member_can_read)
        if sees == (not warned):  # nothing new to say: it saw before, or it was told it does not
            if sees and not self.reads_all:  # an administrator with privacy on: the /new reply knows
                await self.referee.set_chat_setting(chat_key, PRIVACY_WARNED, "0")
            return
        language = await self.referee.language(chat_key, read.sender.language if read.sender else None)
        if sees:
            pins = await self.may_pin(read.chat_id)
            reply = Reply("telegram.privacy_off" if pins else "telegram.privacy_off_no_pin")
            response = Response((reply,), language)
        else:
            new = (Choice(Reply("telegram.new_button"), "/new"),)
            response = Response((Reply("telegram.privacy"),), language, choices=new)
        await self.referee.set_chat_setting(chat_key, PRIVACY_WARNED, "0" if sees else "1")
        self.outbox.push(Outgoing(read.chat_id, None, chat_key, response))

    async def read_privacy(self) -> None:
        """getMe's can_read_all_group_messages: False while privacy mode is on."""
        try:
            me = await (self.lookup_bot or self.bot).get_me()
            self.reads_all = bool(me.can_read_all_group_messages)
        except TelegramError as error:
            log.warning("getMe failed (%s): privacy mode unknown", error)

    async def as_shown(self, chat: int, response: Response) -> Response:
        """A recorded event's reply where the chat's board is pinned and live (the bot may pin there):
        its live form (bot/views/board.py `live`), with no board after a hand and a win in three lines."""
        if response.live is None or not response.recorded or not await self.may_pin(self.moved.get(chat, chat)):
            return response
        return replace(response, replies=response.live)

    async def with_privacy(self, response: Response, chat_key: str) -> Response:
        """The /new reply says in one line when plain words are not seen (privacy mode), unless the
        bot is known to see them in this chat (an administrator there)."""
        if self.reads_all or not response.replies or response.replies[0].key != "night.opened":
            return response
        if await self.referee.chat_setting(chat_key.split(":topic:")[0], PRIVACY_WARNED) == "0":
            return response
        return replace(response, replies=(*response.replies, Reply("telegram.privacy")))

    async def on_button(self, query: CallbackQuery, read: Input, row: Row) -> bool:
        """A button press: recorded once; later presses, strangers' and forged ones get an answer
        to the presser alone, never a group message."""
        message = query.message
        if query.data is None or not isinstance(message, Message) or row.key is None:
            await self.answer(query, None)
            return False
        chat_key = await self.chat_key(message)
        translator = Translator(await self.referee.language(chat_key, query.from_user.language_code))
        recorded_as = await self.inbox.earlier(row.key, row.update_id)
        if recorded_as is not None:  # a second press: a toast, not an alert to dismiss
            number = await self.referee.number_of_event(chat_key, recorded_as)
            said = translator.t("button.recorded_before")
            shown = said if number is None else translator.t("button.already_recorded", id=number)
            await self.answer(query, shown, alert=False)
            return False
        parts = query.data.split(":", 2)
        if len(parts) != 3 or not parts[2].startswith("/") or not await self.button_is_current(chat_key, *parts[:2]):
            await self.answer(query, translator.t("button.stale"), alert=False)
            return False
        incoming = Incoming(
            chat_id=chat_key,
            speaker=await self.speaker(read.sender, read) if read.sender else Speaker(str(query.from_user.id), ""),
            text=parts[2],
            update_key=row.key,
            private=read.private,
            press=f"cbq:{query.id}",
        )
        response = await self.referee.handle(incoming)
        if response is not None and response.unwritten:  # the press is answered once it is written
            raise NotWrittenYet(row.update_id)
        if response is None or not (response.recorded or response.choices or response.edits or response.settles):
            text = render_response(response, translator) if response is not None else ""
            # a button spent already (its question answered): a toast; a refusal worth reading: an alert
            spent = response is None or response.spent or not text
            await self.answer(query, text or translator.t("button.used"), alert=not spent)
            return False
        await self.answer(query, None)
        response = await self.as_shown(message.chat.id, response)
        if response.edits:  # a guided flow: its next step (or its result) is written over the same message
            self.post(Outgoing(message.chat.id, self.thread(message), chat_key, response, edit=message.message_id))
            return response.recorded
        keep = parts[2].startswith(PER_PRESSER)  # the join button stays while seats are free
        clear = None if keep else message.message_id
        self.post(Outgoing(message.chat.id, self.thread(message), chat_key, response, clear_keyboard=clear))
        return response.recorded

    async def button_is_current(self, chat_key: str, night_text: str, hand_text: str) -> bool:
        """A button belongs to one night (and hand, for most): pressed later, it is stale."""
        if night_text == "-":  # a button of no night (/new on the privacy note)
            return hand_text == "*"
        current = await self.referee.current_hand(chat_key)
        if current is None or str(current[0]) != night_text:
            return False
        return hand_text in ("*", str(current[1]))

    async def answer(self, query: CallbackQuery, text: str | None, alert: bool = True) -> None:
        """Answer a press (a short note to the presser: an alert to dismiss, or with `alert=False` a
        toast at the top of the chat that goes by itself); an expired query is not worth more."""
        try:
            await query.answer(text[:CALLBACK_ANSWER_LIMIT] if text else None, show_alert=bool(text) and alert)
        except TelegramError as error:
            log.info("callback %s not answered: %s", query.id, error)

    # ---- replies -------------------------------------------------------------------------------

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

    async def send_batch(self, chat: int, batch: list[Outgoing], text: str) -> None:
        """Deliver a batch; a group that became a supergroup meanwhile gets it under its new id."""
        try:
            await self._send_batch(self.moved.get(chat, chat), batch, text)
        except ChatMigrated as error:
            new = int(error.new_chat_id)
            self.moved[chat] = new
            await self.remember_migration(chat, new)
            await self._send_batch(new, batch, text)

    async def _send_batch(self, chat: int, batch: list[Outgoing], text: str) -> None:
        """Deliver one coalesced batch: replaced keyboards, the text (split if long), photos and files.
        Raises only if the text itself could not be sent."""
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
            try:
                await with_retries(
                    lambda: self.bot.edit_message_text(
                        text[:MESSAGE_LIMIT], chat_id=chat, message_id=edit, reply_markup=markup
                    ),
                    self.policy,
                    telegram_failure,
                )
            except BadRequest as error:
                if not not_modified(error):  # a double tap: the message already says this
                    raise
        elif photos and len(text) <= CAPTION_LIMIT:
            await with_retries(
                lambda: self.bot.send_photo(
                    chat, photos[0].data, caption=text, reply_markup=markup, message_thread_id=thread
                ),
                self.policy,
                telegram_failure,
                resend=False,
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
                    telegram_failure,
                    resend=False,
                )
        for photo in photos:
            await self.quietly(
                with_retries(
                    lambda p=photo: self.bot.send_photo(chat, p.data, message_thread_id=thread),  # type: ignore[misc]
                    self.policy,
                    telegram_failure,
                    resend=False,
                )
            )
        for document in documents:
            await self.quietly(
                with_retries(
                    lambda d=document: self.bot.send_document(  # type: ignore[misc]
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

    # ---- the pinned live board ------------------------------------------------------------------

    def post(self, item: Outgoing) -> None:
        """An answer to the chat's outbox; a recorded event's board to the chat's pinned live board."""
        self.outbox.push(item)
        if item.response.recorded and item.response.scoreboard is not None and item.response.night_id is not None:
            self.live.push(item)

    async def publish_board(self, item: Outgoing) -> bool:
        """The night's pinned board, edited in place; the night's first board is sent and pinned. A
        chat where the bot may not pin gets no live board (the board comes at the end of each hand)
        and, once per chat, a short note saying how to give the right. A 429 is left to the caller; True when
        Telegram was called (the next edit waits the chat's interval)."""
        response = item.response
        assert response.scoreboard is not None and response.night_id is not None
        chat, night_id = self.moved.get(item.chat, item.chat), response.night_id
        text = render(response.scoreboard, Translator(response.language))
        if len(text) > MESSAGE_LIMIT:  # names too long for one message: the hand-end boards are split instead
            log.info("chat %s: the board is too long to pin", chat)
            return False
        board_id = await self.board_message(item.chat_key, night_id)
        if board_id is not None:
            try:
                await self.bot.edit_message_text(text, chat_id=chat, message_id=board_id)
                return True
            except BadRequest as error:
                if not_modified(error):  # the same board again (an event that moved nothing): nothing to do
                    return True
                log.info("chat %s: pinned board %s not edited (%s): pinning a new one", chat, board_id, error)
                self.boards.pop((item.chat_key, night_id), None)
        if not await self.may_pin(chat):
            await self.ask_for_pin_right(item)
            return False
        try:
            sent = await with_retries(
                lambda: self.bot.send_message(chat, text, message_thread_id=item.thread, disable_notification=True),
                self.policy,
                telegram_failure,
                resend=False,
            )
        except NetworkError as error:
            failure = telegram_failure(error)
            if failure is None or not failure.maybe_delivered:
                raise
            # the board may be in the chat, unpinned: not sent twice now; the next event's board is pinned
            log.warning("chat %s: the new board may not have been sent (%s)", chat, error)
            return True
        try:
            await self.bot.pin_chat_message(chat, sent.message_id, disable_notification=True)
        except BadRequest as error:  # the right was taken away since it was looked up
            log.info("chat %s: the board could not be pinned (%s)", chat, error)
            self.pin_rights[chat] = (time.monotonic(), False)
            await self.ask_for_pin_right(item)
            return True
        await self.remember_board(chat, item.chat_key, night_id, sent.message_id)
        return True

    async def board_message(self, chat_key: str, night_id: int) -> int | None:
        """The night's pinned board: kept in memory, and in the chat's settings for a restart."""
        board_id = self.boards.get((chat_key, night_id))
        if board_id is None:
            stored = await self.referee.chat_setting(chat_key, f"board:{night_id}")
            # only a board this bot pinned: an older version kept an unpinned live board under the same key
            if stored and stored == await self.referee.chat_setting(chat_key, "board:pinned"):
                self.boards[(chat_key, night_id)] = board_id = int(stored)
        return board_id

    async def remember_board(self, chat: int, chat_key: str, night_id: int, message_id: int) -> None:
        """A new night's board replaces the last night's at the top of the chat: the old one is unpinned
        (it stays in the history as that night's last board)."""
        earlier = await self.referee.chat_setting(chat_key, "board:pinned")
        await self.referee.set_chat_setting(chat_key, f"board:{night_id}", str(message_id))
        await self.referee.set_chat_setting(chat_key, "board:pinned", str(message_id))
        self.boards[(chat_key, night_id)] = message_id
        if earlier and int(earlier) != message_id:
            await self.quietly(self.bot.unpin_chat_message(chat, message_id=int(earlier)))

    async def may_pin(self, chat: int) -> bool:
        """In a private chat always; in a group only as an admin with can_pin_messages (looked up,
        and trusted for PIN_RIGHT_SECONDS or until the bot's membership changes)."""
        if chat > 0:
            return True
        cached = self.pin_rights.get(chat)
        if cached is not None and time.monotonic() - cached[0] < PIN_RIGHT_SECONDS:
            return cached[1]
        bot = self.lookup_bot or self.bot
        try:
            member = await asyncio.wait_for(bot.get_chat_member(chat, self.bot.id), ADMIN_LOOKUP_SECONDS)
            allowed = isinstance(member, ChatMemberOwner) or (
                isinstance(member, ChatMemberAdministrator) and bool(member.can_pin_messages)
            )
        except (TelegramError, TimeoutError, ValueError, TypeError, KeyError) as error:  # a malformed answer too
            log.info("chat %s: the right to pin not looked up (%s)", chat, error)
            allowed = False
        self.pin_rights[chat] = (time.monotonic(), allowed)
        return allowed

    async def ask_for_pin_right(self, item: Outgoing) -> None:
        """Once per chat (remembered across restarts): the issue is the group's admins', and a
        group that chose not to give the right is not reminded every night."""
        asked = "board:asked"
        if await self.referee.chat_setting(item.chat_key, asked):
            return
        await self.referee.set_chat_setting(item.chat_key, asked, "1")
        note = Response((Reply("telegram.pin_ask"),), item.response.language)
        self.outbox.push(Outgoing(item.chat, item.thread, item.chat_key, note))


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
            if not commands:  # a menu no command is listed in (the admins' today) is not set
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
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The bot; `request` and `rate_limit=False` are for benchmarks that record instead of send.
    `board_interval` (BOARD_EDIT_SECONDS): the least time between two edits of a chat's pinned board."""
    root = server_root(base_url)
    front = TelegramFrontEnd(db_path, policy or RetryPolicy(), board_interval=board_interval)
    front.lookup_request = request
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
    if rate_limit:
        # Telegram's limits (30 a second, 20 a minute per group); retries are delivery's own
        builder = builder.rate_limiter(AIORateLimiter(max_retries=0))  # type: ignore[arg-type]
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
        settings.token, settings.database, settings.base_url, board_interval=settings.board_edit_seconds
    )
    front: TelegramFrontEnd = application.bot_data["front"]
    heartbeat = Heartbeat(settings.heartbeat_file, status=front.health, working=front.working)
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
        )
    else:
        intake = Polling(application.bot, front.accept_all, heartbeat=heartbeat)
    return asyncio.run(serve(application, intake))
