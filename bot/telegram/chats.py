"""What the bot knows of a chat: its ledger key (a group that became a supergroup keeps its ledger;
a forum's topics are tables of their own), who its admins are, whether the bot may pin there, and
whether it sees plain words (privacy mode). Kept in memory, looked up lazily; the keys and
migrations also in the database, for restarts."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from telegram import ChatMemberAdministrator, ChatMemberOwner, Message
from telegram.error import BadRequest, TelegramError

from bot.chat.service import Speaker
from bot.telegram.connections import Connections
from bot.telegram.input import Input, Person, display_name, read_update

log = logging.getLogger(__name__)
ADMIN_CACHE_SECONDS = 600
ADMIN_LOOKUP_SECONDS = 5.0
ADMIN_RETRY_SECONDS = 30.0
PIN_RIGHT_SECONDS = 600  # how long the bot's own right to pin in a chat is trusted before asking again


@dataclass
class Chats:
    connections: Connections
    admins: dict[int, tuple[float, frozenset[int]]] = field(default_factory=dict)
    # Looked up on every update, written only here: kept in memory, the database keeps them for restarts.
    chat_keys: dict[int, str] = field(default_factory=dict)
    pin_rights: dict[int, tuple[float, bool]] = field(default_factory=dict)  # chat -> (looked up at, may pin)
    moved: dict[int, int] = field(default_factory=dict)  # old chat id -> the supergroup it became
    reads_all: bool = True  # getMe's can_read_all_group_messages: False while privacy mode is on
    _refreshing: dict[int, asyncio.Task[tuple[float, frozenset[int]]]] = field(default_factory=dict)

    async def remember_migration(self, old: int, new: int) -> None:
        """A group upgraded to a supergroup keeps its ledger: the new id continues the old key."""
        old_key = await self.connections.inbox.alias(old) or f"tg:{old}"
        await self.connections.inbox.set_alias(new, old_key)
        self.chat_keys[new] = old_key
        self.moved[old] = new

    async def base_key(self, chat_id: int) -> str:
        """The ledger's key of a Telegram chat; follows supergroup migration."""
        if chat_id not in self.chat_keys:
            self.chat_keys[chat_id] = await self.connections.inbox.alias(chat_id) or f"tg:{chat_id}"
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
        workers run meanwhile); a lookup is not a message, so it does not wait for the chat's turn. A
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
        bot = self.connections.bot
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

    async def read_privacy(self) -> None:
        """getMe's can_read_all_group_messages: False while privacy mode is on."""
        try:
            me = await self.connections.bot.get_me()
            self.reads_all = bool(me.can_read_all_group_messages)
        except TelegramError as error:
            log.warning("getMe failed (%s): privacy mode unknown", error)

    async def may_pin(self, chat: int) -> bool:
        """In a private chat always; in a group only as an admin with can_pin_messages (looked up,
        and trusted for PIN_RIGHT_SECONDS or until the bot's membership changes)."""
        if chat > 0:
            return True
        cached = self.pin_rights.get(chat)
        if cached is not None and time.monotonic() - cached[0] < PIN_RIGHT_SECONDS:
            return cached[1]
        bot = self.connections.bot
        try:
            member = await asyncio.wait_for(bot.get_chat_member(chat, self.connections.bot.id), ADMIN_LOOKUP_SECONDS)
            allowed = isinstance(member, ChatMemberOwner) or (
                isinstance(member, ChatMemberAdministrator) and bool(member.can_pin_messages)
            )
        except (TelegramError, TimeoutError, ValueError, TypeError, KeyError) as error:  # a malformed answer too
            log.info("chat %s: the right to pin not looked up (%s)", chat, error)
            allowed = False
        self.pin_rights[chat] = (time.monotonic(), allowed)
        return allowed
