"""The Mini App's way into a Telegram chat (bot/web/api.py `Door`): a line pressed on the page goes
through the chat's inbox and lane as a line typed there goes — an update shaped as Telegram shapes a
message from that user, stored before it is processed, processed in the chat's order, recorded under
its own key once. Its update id is negative (Telegram's are positive) and made from the chat and the
page's nonce, so the same nonce twice is the same update: stored once, recorded once.

The group sees the answer of an app line only when it recorded something (the result, as if typed);
what it would ask or why it refuses is handed back to the page that waits for it (`AppAnswers`).
Membership is asked of Telegram here too (getChatMember)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from telegram import Update
from telegram.error import TelegramError

from bot.chat.service import Referee
from bot.store.queue import Row
from bot.telegram.chats import ADMIN_LOOKUP_SECONDS, Chats
from bot.telegram.connections import Connections
from bot.text.replies import Response
from bot.web.api import AppLine, Submitted

log = logging.getLogger(__name__)
WAIT_SECONDS = 30.0  # a page waits this long for its line's turn in a busy chat before it is told to look again
LOOK_SECONDS = 0.1  # how often a wait looks whether its row was handled (by an earlier call, or before a restart)
MEMBER_STATUSES = ("creator", "administrator", "member")


def app_update_id(chat_id: int, nonce: str) -> int:
    """A negative update id of 62 bits from the chat and the nonce: never one of Telegram's."""
    digest = hashlib.sha256(f"{chat_id}:{nonce}".encode()).digest()
    return -(int.from_bytes(digest[:8], "big") >> 2) - 1


def is_app_line(row: Row) -> bool:
    return row.update_id < 0


def app_update(line: AppLine, update_id: int) -> dict[str, object]:
    """The line as Telegram would shape it, typed by the user in the chat (and topic)."""
    user = line.user
    sender: dict[str, object] = {"id": user.id, "is_bot": False, "first_name": user.first_name}
    for key, value in (
        ("last_name", user.last_name),
        ("username", user.username),
        ("language_code", user.language_code),
    ):
        if value:
            sender[key] = value
    message: dict[str, object] = {
        "message_id": update_id,
        "date": int(time.time()),
        "chat": {"id": line.chat_id, "type": line.chat_type},
        "from": sender,
        "text": line.text,
    }
    if line.topic:
        message.update(message_thread_id=line.topic, is_topic_message=True)
    return {"update_id": update_id, "message": message}


@dataclass
class AppAnswers:
    """The referee's answers to app lines, for the pages waiting for them."""

    waiting: dict[int, asyncio.Future[Response | None]] = field(default_factory=dict)

    def expect(self, update_id: int) -> asyncio.Future[Response | None]:
        future = self.waiting.get(update_id)
        if future is None:
            future = self.waiting[update_id] = asyncio.get_running_loop().create_future()
        return future

    def hold(self, row: Row, response: Response | None) -> bool:
        """Hand the answer to the page; True when the group is not to see it (nothing recorded)."""
        future = self.waiting.get(row.update_id)
        if future is not None and not future.done():
            future.set_result(response)
        return response is None or not response.recorded


@dataclass
class AppLines:
    """bot/web/api.py's `Door` for a Telegram chat."""

    connections: Connections
    chats: Chats
    accept: Callable[[Update], Awaitable[None]]  # the lanes' accept: stored in the inbox, queued in order
    answers: AppAnswers

    @property
    def referee(self) -> Referee:
        return self.connections.referee

    async def chat_key(self, chat_id: int, topic: int) -> str:
        base = await self.chats.base_key(chat_id)
        return f"{base}:topic:{topic}" if topic else base

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        try:
            member = await asyncio.wait_for(
                self.connections.bot.get_chat_member(chat_id, user_id), ADMIN_LOOKUP_SECONDS
            )
        except (TelegramError, TimeoutError) as error:
            log.info("chat %s: membership not looked up (%s)", chat_id, error)
            return False
        return member.status in MEMBER_STATUSES or bool(getattr(member, "is_member", False))

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        """The chat's admin list as the chat's own lines read it (kept a few minutes)."""
        return await self.chats.is_admin(chat_id, user_id)

    async def earlier(self, line: AppLine) -> Submitted | None:
        """What an earlier call with the same nonce did (waited for, if it is being handled now)."""
        update_id = app_update_id(line.chat_id, line.nonce)
        future = self.answers.waiting.get(update_id)
        if future is not None:
            return await self.wait(line, update_id, future)
        if await self.connections.inbox.is_done(update_id):
            return Submitted(None, await self.connections.inbox.earlier(key_of(line, update_id), update_id + 1))
        return None

    async def submit(self, line: AppLine) -> Submitted:
        update_id = app_update_id(line.chat_id, line.nonce)
        future = self.answers.expect(update_id)
        await self.accept(Update.de_json(app_update(line, update_id), self.connections.bot))
        return await self.wait(line, update_id, future)

    async def wait(self, line: AppLine, update_id: int, future: asyncio.Future[Response | None]) -> Submitted:
        """The lane's answer; or, when the row was handled without one (stored before), what it recorded."""
        inbox, key = self.connections.inbox, key_of(line, update_id)
        try:
            waited = 0.0
            while not future.done() and waited < WAIT_SECONDS:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(future), LOOK_SECONDS)
                waited += LOOK_SECONDS
                if not future.done() and await inbox.is_done(update_id):
                    with contextlib.suppress(TimeoutError):  # its answer is on its way: a moment more
                        await asyncio.wait_for(asyncio.shield(future), 1.0)
                    break
            if not future.done() and not await inbox.is_done(update_id):
                return Submitted(None, None, pending=True)
            response = future.result() if future.done() else None
            event_id = response.event_id if response is not None and response.recorded else None
            if event_id is None and (response is None or response.recorded):
                event_id = await inbox.earlier(key, update_id + 1)
            return Submitted(response, event_id)
        finally:
            self.answers.waiting.pop(update_id, None)


def key_of(line: AppLine, update_id: int) -> str:
    """The update key an app line records under (bot/telegram/input.py: a message's)."""
    return f"msg:{line.chat_id}:{update_id}"
