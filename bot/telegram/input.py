"""One place that knows Telegram's shapes: an update (the Bot API's JSON) read into what the command
layer needs — who speaks, at which table, what kind of line.

Pure: no I/O, no python-telegram-bot objects (a PTB `Update` is read through its `to_dict()`), so it
is tested on update JSON shaped like the Bot API docs' own examples.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from bot.chat.tokens import question_of

PER_PRESSER = ("/join", "/claim")  # buttons whose meaning depends on who presses them: single-use per person
GROUP_TYPES = ("group", "supergroup")


class Kind(Enum):
    NEW = "new"  # a line typed (or a caption written) by the speaker
    EDITED = "edited"  # an edit of an earlier line: a correction
    FORWARDED = "forwarded"  # someone else's words passed on: never recorded, no reply
    VIA_BOT = "via_bot"  # composed by an inline bot: not the speaker's line
    AUTOMATIC_FORWARD = "automatic_forward"  # a linked channel's post copied into its discussion group
    BUTTON = "button"  # an inline button pressed
    MEMBER = "member"  # the bot's own membership changed (added, removed, promoted)
    MIGRATION = "migration"  # a group became a supergroup
    OTHER = "other"  # nothing for the referee (a photo without caption, a poll, a service message)


@dataclass(frozen=True)
class Person:
    """The sender as the referee sees them. A channel (or an anonymous admin) posting through
    `sender_chat` is its own sender, keyed `chat:<id>`, never the shared placeholder user."""

    id: str
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language: str | None = None
    is_bot: bool = False
    is_channel: bool = False
    anonymous_admin: bool = False  # posted "as the group" by one of its admins


@dataclass(frozen=True)
class Mention:
    """A person named in the line: `@username` (no id) or a text mention (one person, id known)."""

    text: str
    person: Person | None = None


@dataclass(frozen=True)
class Document:
    """A file sent as a document (its caption is the line): what getFile needs, and what it says of itself."""

    file_id: str
    name: str
    size: int | None  # Telegram may leave it out


@dataclass(frozen=True)
class Input:
    kind: Kind
    update_id: int
    chat_id: int | None = None
    chat_type: str | None = None
    topic: int | None = None  # the forum topic the line belongs to (None: the chat, or the General topic)
    message_id: int | None = None
    sender: Person | None = None
    text: str | None = None  # the text or the caption
    edit_date: int | None = None
    button_data: str | None = None
    callback_id: str | None = None
    mentions: tuple[Mention, ...] = ()
    replied_to: Person | None = None  # the author of the message this one replies to
    reply_to: int | None = None  # the id of the message (in this chat) this one replies to
    replies_elsewhere: bool = False  # replies to a message of another chat (Telegram's `external_reply`)
    migrate_to: int | None = None
    migrate_from: int | None = None
    member_status: str | None = None  # my_chat_member: the bot's new status
    member_can_read: bool | None = None  # my_chat_member: administrators read every message
    document: Document | None = None  # a file sent with the line (a rules file with the caption /rules)

    @property
    def group(self) -> bool:
        return self.chat_type in GROUP_TYPES

    @property
    def private(self) -> bool:
        return self.chat_type == "private"

    @property
    def key(self) -> str | None:
        """What the ledger records the update's events under, so a repeat is recorded once: a line by
        chat and message id, an edit by the message id and its edit date, a press by its message."""
        if self.chat_id is None or self.message_id is None:
            return None
        if self.kind is Kind.NEW:
            return f"msg:{self.chat_id}:{self.message_id}"
        if self.kind is Kind.EDITED:
            return f"edit:{self.chat_id}:{self.message_id}:{self.edit_date or 0}"
        if self.kind is Kind.BUTTON and self.button_data is not None:
            # one keyboard records once whichever of its buttons is pressed (a guided flow's steps
            # record under the flow's own key); a button that means something else for each presser
            # (join, claim) by its data and the presser too; a question's button by its question
            key = f"cb:{self.chat_id}:{self.message_id}"
            command = self.button_data.split(":", 2)[-1]
            if command.startswith(PER_PRESSER) and self.sender is not None:
                key += f":{self.button_data}:{self.sender.id}"
            elif (question := question_of(command)) is not None:
                key += f":q{question}"  # one message may ask several questions: each is answered once
            return key
        return None


def person(user: dict[str, Any]) -> Person:
    return Person(
        str(user["id"]),
        str(user.get("first_name") or user["id"]),
        user.get("last_name") or None,
        user.get("username") or None,
        user.get("language_code") or None,
        bool(user.get("is_bot")),
    )


def sender_of(message: dict[str, Any]) -> Person | None:
    """`sender_chat` wins over `from` (which then holds a placeholder bot shared by every channel)."""
    chat = message.get("sender_chat")
    if chat is not None:
        own_group = chat.get("id") == message.get("chat", {}).get("id")
        name = str(chat.get("title") or chat.get("username") or chat["id"])
        return Person(
            f"chat:{chat['id']}",
            "".join(name.split()),
            None,
            chat.get("username") or None,
            is_channel=not own_group,
            anonymous_admin=own_group,
        )
    user = message.get("from")
    return person(user) if user else None


def utf16_slice(text: str, offset: int, length: int) -> str:
    """Telegram's entity offsets count UTF-16 code units."""
    encoded = text.encode("utf-16-le")
    return encoded[offset * 2 : (offset + length) * 2].decode("utf-16-le", errors="ignore")


def mentions_of(message: dict[str, Any], text: str) -> tuple[Mention, ...]:
    entities = message.get("entities") if "text" in message else message.get("caption_entities")
    found: list[Mention] = []
    for entity in entities or ():
        if entity.get("type") == "text_mention" and entity.get("user"):
            found.append(Mention(utf16_slice(text, entity["offset"], entity["length"]), person(entity["user"])))
        elif entity.get("type") == "mention":
            found.append(Mention(utf16_slice(text, entity["offset"], entity["length"])))
    return tuple(found)


def topic_of(message: dict[str, Any]) -> int | None:
    """A forum topic's messages carry `is_topic_message`; a reply in the General topic carries a
    `message_thread_id` (the replied message's) without it, and belongs to the chat's one table."""
    if message.get("is_topic_message") and message.get("message_thread_id"):
        return int(message["message_thread_id"])
    return None


def replied_message(message: dict[str, Any]) -> dict[str, Any] | None:
    """The message this one replies to, when it is a reply (Bot API: `reply_to_message`, not nested
    further). In a forum topic every message carries the topic's first message (its creation) as
    `reply_to_message`: that is no reply, unless the line is in the General topic, which has no
    such message (a reply there carries the replied message's id as `message_thread_id`)."""
    replied = message.get("reply_to_message")
    if not isinstance(replied, dict) or replied.get("message_id") is None:
        return None
    topic_root = replied.get("message_id") == message.get("message_thread_id") and message.get("is_topic_message")
    if topic_root or replied.get("forum_topic_created") is not None:
        return None
    return replied


def line_kind(message: dict[str, Any], edited: bool) -> Kind:
    if message.get("is_automatic_forward"):
        return Kind.AUTOMATIC_FORWARD
    if message.get("forward_origin") or message.get("forward_date") or message.get("forward_from"):
        return Kind.FORWARDED
    if message.get("via_bot"):
        return Kind.VIA_BOT
    if message.get("migrate_to_chat_id") or message.get("migrate_from_chat_id"):
        return Kind.MIGRATION
    if message.get("text") is None and message.get("caption") is None:
        return Kind.OTHER
    return Kind.EDITED if edited else Kind.NEW


def document_of(message: dict[str, Any]) -> Document | None:
    found = message.get("document")
    if not isinstance(found, dict) or not found.get("file_id"):
        return None
    size = found.get("file_size")
    return Document(str(found["file_id"]), str(found.get("file_name") or "rules.toml"), int(size) if size else None)


def read_message(update_id: int, message: dict[str, Any], edited: bool) -> Input:
    chat = message.get("chat", {})
    text = message.get("text", message.get("caption"))
    replied = replied_message(message) or {}
    replied_user = replied.get("from")
    return Input(
        kind=line_kind(message, edited),
        update_id=update_id,
        chat_id=chat.get("id"),
        chat_type=chat.get("type"),
        topic=topic_of(message),
        message_id=message.get("message_id"),
        sender=sender_of(message),
        text=text,
        edit_date=message.get("edit_date"),
        mentions=mentions_of(message, text) if text else (),
        replied_to=person(replied_user) if replied_user and not replied.get("sender_chat") else None,
        reply_to=replied.get("message_id"),
        replies_elsewhere=message.get("external_reply") is not None,
        migrate_to=message.get("migrate_to_chat_id"),
        migrate_from=message.get("migrate_from_chat_id"),
        document=document_of(message),
    )


def read_update(update: Any) -> Input:
    """An update (a dict of the Bot API's JSON, or a PTB `Update`) read for the command layer."""
    body: dict[str, Any] = update if isinstance(update, dict) else update.to_dict()
    update_id = int(body.get("update_id", 0))
    if "message" in body:
        return read_message(update_id, body["message"], edited=False)
    if "edited_message" in body:
        return read_message(update_id, body["edited_message"], edited=True)
    query = body.get("callback_query")
    if query is not None:
        message = query.get("message") or {}
        chat = message.get("chat", {})
        return Input(
            kind=Kind.BUTTON,
            update_id=update_id,
            chat_id=chat.get("id"),
            chat_type=chat.get("type"),
            topic=topic_of(message),
            message_id=message.get("message_id"),
            sender=person(query["from"]),
            button_data=query.get("data"),
            callback_id=query.get("id"),
        )
    member = body.get("my_chat_member")
    if member is not None:
        chat = member.get("chat", {})
        new = member.get("new_chat_member", {})
        return Input(
            kind=Kind.MEMBER,
            update_id=update_id,
            chat_id=chat.get("id"),
            chat_type=chat.get("type"),
            sender=person(member["from"]) if member.get("from") else None,
            member_status=new.get("status"),
            member_can_read=new.get("status") in ("administrator", "creator"),
        )
    return Input(Kind.OTHER, update_id)


def display_name(who: Person) -> str:
    """A name without spaces, so it can be typed back in commands."""
    if who.username:
        return who.username
    return "".join(who.first_name.split()) or who.id


def addressed_elsewhere(text: str, username: str | None) -> bool:
    """`/undo@other_bot`: a command for another bot in the group."""
    first = text.split(maxsplit=1)[0] if text.strip() else ""
    if not first.startswith("/") or "@" not in first:
        return False
    return first.split("@", 1)[1].casefold() != (username or "").casefold()


def deep_link(text: str, username: str | None) -> str:
    """`/start <payload>` (a deep link) reads as `/help`; `/start` itself already is help or nothing."""
    first, _, rest = text.strip().partition(" ")
    name = first.split("@", 1)[0]
    if name == "/start" and rest.strip():
        return "/help"
    return text
