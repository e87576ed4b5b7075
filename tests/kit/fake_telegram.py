"""A small fake Telegram Bot API server for offline end-to-end tests (aiohttp on 127.0.0.1).

It serves the methods the bot uses, records every call with its decoded parameters, and hands out
queued updates to getUpdates. PTB posts url-encoded or multipart forms whose nested fields are JSON.

It behaves like Telegram where the bot could get it wrong: users may lack `username` and
`last_name`; `getMe` reports privacy mode; forwards, edits, `sender_chat`, captions and General-topic
replies are shaped as the Bot API sends them; and it refuses what Telegram refuses (texts over 4,096
characters, captions over 1,024, `callback_data` over 64 bytes, an edit that changes nothing, a send
to a group that became a supergroup (400 with `migrate_to_chat_id`), a send to a chat that removed
the bot (403), a keyboard row over 8 buttons or over 100 buttons in all). Files sent as documents
(`document`) are served as Telegram serves them: `getFile` gives a `file_path` (refused over 20 MB,
"file is too big"), and the bytes are downloaded from `/file/bot<token>/<file_path>`. Pinning: in a group only a
bot that is an administrator with `can_pin_messages` (`pinners`) may pin or unpin, in a private chat
always; the message must exist, and an edit of a message that does not exist is refused (its text or
its keyboard: `editMessageReplyMarkup` without `reply_markup` removes the buttons). Edits are
rate limited per chat (`edit_limit` in `edit_window` seconds, then 429 with `retry_after`). Told to
(`group_limit`, `overall_limit`), it enforces Telegram's limits on messages as Telegram does: 20 a
minute in a group, sends and edits alike, and 30 a second in all, then 429 with `retry_after`; a
press's answer (`answerCallbackQuery`) counts against neither, and its text is at most 200 characters.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

BOT_USER = {"id": 999, "is_bot": True, "first_name": "Referee", "username": "referee_bot"}
LONG_POLL_CAP = 0.2  # seconds: keeps shutdown quick


@dataclass
class Call:
    method: str
    params: dict[str, Any]


# A fault the server injects into the next calls of a method: an HTTP error status with its Bot API
# body (502, or 429 with retry_after), or "drop" to close the connection without an answer.
Fault = tuple[int, dict[str, Any]] | str


TEXT_LIMIT, CAPTION_LIMIT, CALLBACK_DATA_LIMIT = 4096, 1024, 64
CALLBACK_ANSWER_LIMIT = 200  # characters of an answerCallbackQuery's text
# what Telegram counts as a message against a group's 20 a minute and the bot's 30 a second
MESSAGES = ("sendMessage", "sendPhoto", "sendDocument", "editMessageText", "editMessageReplyMarkup")
PHOTO_BYTES_LIMIT = 10 * 1024 * 1024  # a photo sent by upload (Bot API, sendPhoto)
GET_FILE_LIMIT = 20 * 1024 * 1024  # getFile: "bots can currently download files of up to 20MB in size"
ROW_LIMIT = 8  # inline keyboard buttons in one row
BUTTON_LIMIT = 100  # inline keyboard buttons in all
CHANNEL_BOT = {"id": 136817688, "is_bot": True, "first_name": "Channel", "username": "Channel_Bot"}
GROUP_ANONYMOUS_BOT = {"id": 1087968824, "is_bot": True, "first_name": "Group", "username": "GroupAnonymousBot"}


TOPIC_CREATOR = {"id": 77, "is_bot": False, "first_name": "Host", "language_code": "zh-hans"}


def topic_root(chat_id: int, thread: int) -> dict[str, Any]:
    """A forum topic's first message: the service message that created it (its id is the topic's)."""
    return {
        "message_id": thread,
        "message_thread_id": thread,
        "date": 1700000000,
        "chat": {"id": chat_id, "type": "supergroup", "title": "Table", "is_forum": True},
        "from": TOPIC_CREATOR,
        "is_topic_message": True,
        "forum_topic_created": {"name": f"Table {thread}", "icon_color": 7322096},
    }


def user(user_id: int, name: str) -> dict[str, Any]:
    return {"id": user_id, "is_bot": False, "first_name": name, "username": name.lower(), "language_code": "zh-hans"}


def plain_user(user_id: int, first_name: str, last_name: str | None = None) -> dict[str, Any]:
    """Most Telegram users: no username, often no last name."""
    found: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": first_name, "language_code": "zh-hans"}
    if last_name:
        found["last_name"] = last_name
    return found


def bad_request(description: str, **parameters: Any) -> tuple[int, dict[str, Any]]:
    body: dict[str, Any] = {"ok": False, "error_code": 400, "description": f"Bad Request: {description}"}
    if parameters:
        body["parameters"] = parameters
    return (400, body)


def too_many_now(wait: float) -> tuple[int, dict[str, Any]]:
    """Telegram's 429: `retry_after` in whole seconds, at least 1."""
    seconds = max(1, math.ceil(wait))
    description = f"Too Many Requests: retry after {seconds}"
    return (429, {"ok": False, "error_code": 429, "description": description, "parameters": {"retry_after": seconds}})


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@dataclass
class FakeTelegram:
    calls: list[Call] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)
    admins: dict[int, list[int]] = field(default_factory=dict)
    next_update_id: int = 1
    next_message_id: int = 1000
    base_url: str = ""
    _runner: web.AppRunner | None = None
    faults: dict[str, list[Fault]] = field(default_factory=dict)
    failed: list[Call] = field(default_factory=list)  # calls answered with a fault
    _new_update: asyncio.Event = field(default_factory=asyncio.Event)
    privacy: bool = False  # True: Telegram's default, groups' plain messages are not delivered
    withheld: list[dict[str, Any]] = field(default_factory=list)  # messages privacy mode kept from the bot
    migrated: dict[int, int] = field(default_factory=dict)  # a group id -> the supergroup it became
    kicked: set[int] = field(default_factory=set)  # chats that removed the bot
    shown: dict[tuple[int, int], tuple[str, str]] = field(default_factory=dict)  # sent text and markup
    refused: list[tuple[Call, str]] = field(default_factory=list)  # calls Telegram would refuse, and why
    slow_admins: set[int] = field(default_factory=set)  # chats whose getChatAdministrators hangs until released
    release_admins: asyncio.Event = field(default_factory=asyncio.Event)
    pinners: set[int] = field(default_factory=set)  # groups where the bot is an admin allowed to pin
    bot_admins: set[int] = field(default_factory=set)  # groups where the bot is an admin without that right
    strangers: set[int] = field(default_factory=set)  # users getChatMember says are not in the group ("left")
    pinned: dict[int, list[int]] = field(default_factory=dict)  # chat -> its pinned messages, oldest first
    edit_limit: int = 20  # editMessageText calls per chat within edit_window seconds before a 429
    edit_window: float = 60.0
    _edits: dict[int, list[float]] = field(default_factory=dict)
    allowed_updates: list[str] | None = None  # as the bot last asked (getUpdates or setWebhook); None: never
    hold_edits: asyncio.Event | None = None  # set: editMessageText waits until it is released
    edit_delay: float = 0.0  # seconds each editMessageText takes to land (a busy minute's rate limiter)
    group_limit: int | None = None  # messages (sends and edits) per group in group_window s; Telegram: 20 a minute
    group_window: float = 60.0
    overall_limit: int | None = None  # messages in all in overall_window s; Telegram: 30 a second
    overall_window: float = 1.0
    clock: Callable[[], float] = time.monotonic  # what the limits are counted by
    _messages: dict[int, list[float]] = field(default_factory=dict)  # chat -> when its messages were taken
    _all_messages: list[float] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)  # file_id -> the bytes of a document sent
    downloads: list[str] = field(default_factory=list)  # file paths the bot downloaded

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("POST", "/bot{token}/{method}", self._handle)
        app.router.add_route("GET", "/file/bot{token}/{path:.+}", self._download)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    # ---- what tests do -------------------------------------------------------------------------

    def message(
        self, chat_id: int, sender: dict[str, Any], text: str, reply_to: dict[str, Any] | None = None, **extra: Any
    ) -> int:
        """Queue a text message; returns its update id. `reply_to`: the message (as the bot got it, or
        a sent message's `_result`) it replies to, carried as Telegram does (`reply_to_message`, the
        replied message without its own reply, not nested further). In a forum topic a line that is
        no reply carries the topic's first message (its creation) as `reply_to_message`."""
        if reply_to is not None:
            extra["reply_to_message"] = {k: v for k, v in reply_to.items() if k != "reply_to_message"}
        elif extra.get("is_topic_message") and extra.get("message_thread_id") and "reply_to_message" not in extra:
            extra["reply_to_message"] = topic_root(chat_id, int(extra["message_thread_id"]))
        self.next_message_id += 1
        entities = []
        if text.startswith("/"):
            entities.append({"type": "bot_command", "offset": 0, "length": len(text.split()[0])})
        position = 0
        for word in text.split(" "):
            if word.startswith("@"):
                entities.append(
                    {"type": "mention", "offset": len(text[:position].encode("utf-16-le")) // 2, "length": len(word)}
                )
            position += len(word) + 1
        chat = {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup", "title": "Table"}
        chat.update(extra.pop("chat_extra", {}))  # e.g. is_forum
        message = {
            "message_id": self.next_message_id,
            "date": int(time.time()),
            "chat": chat,
            "from": sender,
            "text": text,
        }
        if entities:
            message["entities"] = entities
        message.update(extra)
        if "caption" in extra:  # a photo (or a document) with a caption: the text's entities are the caption's
            del message["text"]
            if entities:
                message["caption_entities"] = message.pop("entities")
            if "document" not in extra:
                message.setdefault("photo", [{"file_id": "ph", "file_unique_id": "ph", "width": 9, "height": 9}])
        self.last_message = message
        if self.withheld_by_privacy(message):
            self.withheld.append(message)
            return self.next_update_id - 1  # nothing new to wait for
        return self._queue({"message": message})

    def document(
        self, chat_id: int, sender: dict[str, Any], caption: str, name: str, data: bytes, size: int | None = None
    ) -> int:
        """Queue a file sent as a document with a caption, as Telegram shapes it: `document` with its
        file_id, file_name, mime_type and file_size (`size`: what it claims, the data's length by
        default); the caption's command is a `caption_entities` bot_command. Returns its update id."""
        file_id = f"doc{len(self.files) + 1}"
        self.files[file_id] = data
        document = {
            "file_id": file_id,
            "file_unique_id": f"u{file_id}",
            "file_name": name,
            "mime_type": "application/toml",
            "file_size": len(data) if size is None else size,
        }
        return self.message(chat_id, sender, caption, caption=caption, document=document)

    def edit(self, message: dict[str, Any], text: str) -> int:
        """Queue the `edited_message` of a message sent earlier: the same id, a new text and edit_date."""
        edited = {**message, "text": text, "edit_date": int(time.time()) + self.next_update_id}
        edited.pop("entities", None)
        if text.startswith("/"):
            edited["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
        if self.withheld_by_privacy(edited):
            self.withheld.append(edited)
            return self.next_update_id - 1
        return self._queue({"edited_message": edited})

    def member(self, chat_id: int, sender: dict[str, Any], status: str = "member", before: str = "left") -> int:
        """The bot added to a group, or its status there changed (`my_chat_member`)."""
        chat = {"id": chat_id, "type": "supergroup", "title": "Table"}
        old = {"status": before, "user": BOT_USER}
        new = self._member(chat_id, int(BOT_USER["id"])) if status == "administrator" else {"status": status}
        new["user"] = BOT_USER
        return self._queue(
            {
                "my_chat_member": {
                    "chat": chat,
                    "from": sender,
                    "date": int(time.time()),
                    "old_chat_member": old,
                    "new_chat_member": new,
                }
            }
        )

    def promote(self, chat_id: int, sender: dict[str, Any], can_pin: bool = True) -> int:
        """The bot made an administrator of a group: it reads every message there whatever its
        privacy mode (Bot API: administrators receive all messages)."""
        (self.pinners if can_pin else self.bot_admins).add(chat_id)
        return self.member(chat_id, sender, "administrator", before="member")

    def turn_privacy_off(self) -> None:
        """/setprivacy Disable at BotFather: getMe says so at once."""
        self.privacy = False

    last_message: dict[str, Any] = field(default_factory=dict)

    def press(self, sender: dict[str, Any], sent: Call, data: str) -> int:
        """Queue a button press on a message the bot sent."""
        result = sent.params["_result"]
        return self._queue(
            {
                "callback_query": {
                    "id": f"cb{self.next_update_id}",
                    "from": sender,
                    "chat_instance": "ci",
                    "data": data,
                    "message": result,
                }
            }
        )

    def raw(self, update: dict[str, Any]) -> int:
        """Queue an update exactly as given (a repeated update keeps its id)."""
        self.updates.append(update)
        self._new_update.set()
        return int(update["update_id"])

    def withheld_by_privacy(self, message: dict[str, Any]) -> bool:
        """Privacy mode, as Telegram applies it: in a group the bot gets only commands, replies to
        its own messages and messages that mention it; every other line is never delivered."""
        if not self.privacy or message["chat"]["type"] == "private":
            return False
        if message["chat"]["id"] in self.pinners | self.bot_admins:
            return False  # an administrator receives every message
        text = message.get("text") or message.get("caption") or ""
        replied = message.get("reply_to_message") or {}
        return not (
            text.startswith("/")
            or (replied.get("from") or {}).get("id") == BOT_USER["id"]
            or f"@{BOT_USER['username']}" in text
        )

    def _queue(self, body: dict[str, Any]) -> int:
        update = {"update_id": self.next_update_id, **body}
        self.next_update_id += 1
        return self.raw(update)

    def sent(self, method: str = "sendMessage", chat_id: int | None = None) -> list[Call]:
        return [
            c
            for c in self.calls
            if c.method == method and (chat_id is None or int(c.params.get("chat_id", 0)) == chat_id)
        ]

    def texts(self, chat_id: int | None = None) -> list[str]:
        return [
            str(c.params.get("text", c.params.get("caption", "")))
            for c in self.calls
            if c.method in ("sendMessage", "sendPhoto") and (chat_id is None or int(c.params["chat_id"]) == chat_id)
        ]

    async def wait_for(self, condition: Callable[[], bool], timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError("the bot did not answer in time")
            await asyncio.sleep(0.02)

    async def settle(self, update_id: int, timeout: float = 15.0) -> None:
        """Wait until the bot has fetched past `update_id` and gone quiet."""
        await self.wait_for(lambda: self._confirmed > update_id, timeout)
        count = -1
        while count != len(self.calls):
            count = len(self.calls)
            await asyncio.sleep(0.15)

    _confirmed: int = 0

    # ---- the API -------------------------------------------------------------------------------

    async def _params(self, request: web.Request) -> dict[str, Any]:
        params: dict[str, Any] = {}
        if request.content_type == "application/json":
            params = await request.json()
        else:
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField) or hasattr(value, "file"):
                    data = value.file.read()  # type: ignore[union-attr]
                    params[key] = {"filename": value.filename, "size": len(data), "image": _image_of(data)}  # type: ignore[union-attr]
                    continue
                try:
                    params[key] = json.loads(value) if isinstance(value, str) and value[:1] in "[{" else value
                except json.JSONDecodeError:
                    params[key] = value
        return params

    def _message_result(self, params: dict[str, Any], **fields: Any) -> dict[str, Any]:
        self.next_message_id += 1
        chat_id = int(params["chat_id"])
        chat = {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup", "title": "Table"}
        result = {
            "message_id": self.next_message_id,
            "date": int(time.time()),
            "chat": chat,
            "from": BOT_USER,
            **fields,
        }
        if "reply_markup" in params:
            result["reply_markup"] = params["reply_markup"]
        if params.get("message_thread_id"):  # sent in a forum topic: Telegram says so on the message
            result["message_thread_id"] = int(params["message_thread_id"])
            result["is_topic_message"] = True
        return result

    def fail_next(self, method: str, *faults: Fault) -> None:
        """The next calls of `method` fail, one fault each, in order."""
        self.faults.setdefault(method, []).extend(faults)

    def bad_gateway(self) -> Fault:
        return (502, {"ok": False, "error_code": 502, "description": "Bad Gateway"})

    def too_many(self, retry_after: int = 1) -> Fault:
        description = f"Too Many Requests: retry after {retry_after}"
        return (
            429,
            {"ok": False, "error_code": 429, "description": description, "parameters": {"retry_after": retry_after}},
        )

    async def _handle(self, request: web.Request) -> web.StreamResponse:  # noqa: C901 -- the Bot API's methods in one switch, as Telegram routes them
        method = request.match_info["method"]
        params = await self._params(request)
        pending_faults = self.faults.get(method)
        if pending_faults:
            fault = pending_faults.pop(0)
            self.failed.append(Call(method, params))
            if fault == "drop":
                assert request.transport is not None
                request.transport.close()  # the connection drops: no answer at all
                return web.Response()
            status, body = fault
            return web.json_response(body, status=status)
        refusal = self._refusal(method, params)
        if refusal is not None:
            status, body = refusal
            self.refused.append((Call(method, params), str(body["description"])))
            return web.json_response(body, status=status)
        result: Any = True
        if method == "getMe":
            result = {
                **BOT_USER,
                "can_join_groups": True,
                "can_read_all_group_messages": not self.privacy,
                "supports_inline_queries": False,
            }
        elif method == "getUpdates":
            offset = int(params.get("offset", 0) or 0)
            limit = int(params.get("limit", 100) or 100)  # as Telegram: at most 100 a call
            self._confirmed = max(self._confirmed, offset)
            self._remember_allowed(params)
            pending = [u for u in self.updates if u["update_id"] >= offset and self.wanted(u)]
            if not pending:
                self._new_update.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._new_update.wait(), LONG_POLL_CAP)
                pending = [u for u in self.updates if u["update_id"] >= offset and self.wanted(u)]
            result = pending[:limit]
        elif method == "getFile":
            data = self.files.get(str(params.get("file_id")))
            if data is None:
                return web.json_response(bad_request("invalid file_id")[1], status=400)
            if len(data) > GET_FILE_LIMIT:
                return web.json_response(bad_request("file is too big")[1], status=400)
            file_id = str(params["file_id"])
            result = {
                "file_id": file_id,
                "file_unique_id": f"u{file_id}",
                "file_size": len(data),
                "file_path": f"documents/{file_id}.toml",
            }
        elif method == "getChatMember":
            result = self._member(int(params["chat_id"]), int(params["user_id"]))
        elif method == "pinChatMessage":
            self.pinned.setdefault(int(params["chat_id"]), []).append(int(params["message_id"]))
        elif method == "unpinChatMessage":
            chat_pins = self.pinned.get(int(params["chat_id"]), [])
            if "message_id" in params and int(params["message_id"]) in chat_pins:
                chat_pins.remove(int(params["message_id"]))
            elif "message_id" not in params and chat_pins:
                chat_pins.pop()
        elif method in ("sendMessage", "editMessageText", "editMessageReplyMarkup"):
            if method == "editMessageText" and self.hold_edits is not None:
                await self.hold_edits.wait()
            if method == "editMessageText" and self.edit_delay:
                await asyncio.sleep(self.edit_delay)
            result = self._message_result(params, text=params.get("text", ""))
            if method != "sendMessage" and "message_id" in params:  # an edited message keeps its id
                result["message_id"] = int(params["message_id"])
        elif method == "sendPhoto":
            width, height = (
                (params["photo"].get("image") or ("", 1, 1))[1:] if isinstance(params["photo"], dict) else (1, 1)
            )
            result = self._message_result(
                params,
                photo=[{"file_id": "p", "file_unique_id": "p", "width": width, "height": height}],
                caption=params.get("caption", ""),
            )
        elif method == "sendDocument":
            result = self._message_result(params, document={"file_id": "d", "file_unique_id": "d"})
        elif method == "getChatAdministrators":
            chat_id = int(params["chat_id"])
            if chat_id in self.slow_admins:
                await self.release_admins.wait()
            result = [
                {
                    "status": "administrator",
                    "user": user(uid, f"admin{uid}"),
                    "can_be_edited": False,
                    "is_anonymous": False,
                    "can_manage_chat": True,
                    "can_delete_messages": True,
                    "can_manage_video_chats": True,
                    "can_restrict_members": True,
                    "can_promote_members": False,
                    "can_change_info": True,
                    "can_invite_users": True,
                    "can_post_stories": False,
                    "can_edit_stories": False,
                    "can_delete_stories": False,
                }
                for uid in self.admins.get(chat_id, [])
            ]
        elif method == "setWebhook":
            self._remember_allowed(params)
        elif method not in ("deleteWebhook", "setMyCommands", "answerCallbackQuery", "close", "logOut"):
            return web.json_response({"ok": False, "error_code": 400, "description": f"fake: {method} not served"})
        if method in ("sendMessage", "editMessageText", "sendPhoto") and isinstance(result, dict):
            chat_id, message_id = int(params["chat_id"]), int(result["message_id"])
            text = params.get("caption", "") if method == "sendPhoto" else params.get("text", "")
            self.shown[(chat_id, message_id)] = (str(text), _markup(params))
        if method == "editMessageReplyMarkup" and "message_id" in params:
            key = (int(params["chat_id"]), int(params["message_id"]))
            self.shown[key] = (self.shown.get(key, ("", ""))[0], _markup(params))
        if method != "getUpdates":
            self.calls.append(Call(method, {**params, "_result": result}))
        return web.json_response({"ok": True, "result": result})

    async def _download(self, request: web.Request) -> web.StreamResponse:
        """A file's bytes by the `file_path` getFile gave (404 for any other path)."""
        path = request.match_info["path"]
        self.downloads.append(path)
        file_id = path.removeprefix("documents/").removesuffix(".toml")
        if not path.startswith("documents/") or file_id not in self.files:
            return web.Response(status=404)
        return web.Response(body=self.files[file_id])

    def _remember_allowed(self, params: dict[str, Any]) -> None:
        """`allowed_updates` is kept until the bot asks again (Telegram: "the previous setting is used")."""
        if "allowed_updates" in params and params["allowed_updates"] is not None:
            given = params["allowed_updates"]
            self.allowed_updates = list(json.loads(given) if isinstance(given, str) else given)

    def wanted(self, update: dict[str, Any]) -> bool:
        """As Telegram: only the types the bot asked for; by default all but chat_member and reactions."""
        kind = next((key for key in update if key != "update_id"), "")
        if not self.allowed_updates:
            return kind not in ("chat_member", "message_reaction", "message_reaction_count")
        return kind in self.allowed_updates

    def _member(self, chat_id: int, user_id: int) -> dict[str, Any]:
        """getChatMember: the bot is an administrator with the right to pin where `pinners` says so."""
        if user_id == BOT_USER["id"] and chat_id in self.pinners | self.bot_admins:
            return {
                "status": "administrator",
                "user": BOT_USER,
                "can_be_edited": False,
                "is_anonymous": False,
                "can_manage_chat": True,
                "can_delete_messages": False,
                "can_manage_video_chats": False,
                "can_restrict_members": False,
                "can_promote_members": False,
                "can_change_info": False,
                "can_invite_users": False,
                "can_post_stories": False,
                "can_edit_stories": False,
                "can_delete_stories": False,
                "can_pin_messages": chat_id in self.pinners,
            }
        who = BOT_USER if user_id == BOT_USER["id"] else user(user_id, f"user{user_id}")
        return {"status": "left" if user_id in self.strangers else "member", "user": who}

    def _pin_refusal(self, method: str, chat_id: int, params: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        if method in ("pinChatMessage", "unpinChatMessage"):
            if chat_id < 0 and chat_id not in self.pinners:
                return bad_request("not enough rights to manage pinned messages in the chat")
            if method == "pinChatMessage" and (chat_id, int(params.get("message_id", 0))) not in self.shown:
                return bad_request("message to pin not found")
        if method == "editMessageReplyMarkup" and (chat_id, int(params.get("message_id", 0))) not in self.shown:
            return bad_request("message to edit not found")
        if method == "editMessageText" and "message_id" in params:
            if (chat_id, int(params["message_id"])) not in self.shown:
                return bad_request("message to edit not found")
            now = time.monotonic()
            recent = [t for t in self._edits.get(chat_id, []) if now - t < self.edit_window]
            if len(recent) >= self.edit_limit:
                wait = max(1, int(self.edit_window - (now - recent[0])) + 1)
                description = f"Too Many Requests: retry after {wait}"
                body = {"ok": False, "error_code": 429, "description": description, "parameters": {"retry_after": wait}}
                return (429, body)
            self._edits[chat_id] = [*recent, now]
        return None

    def _refusal(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        """What Telegram answers a call it will not carry out."""
        if method == "answerCallbackQuery" and len(str(params.get("text", ""))) > CALLBACK_ANSWER_LIMIT:
            return bad_request("MESSAGE_TOO_LONG")
        if "chat_id" not in params or method in ("getChatAdministrators", "getChatMember"):
            return None
        chat_id = int(params["chat_id"])
        if chat_id in self.kicked:
            body = {"ok": False, "error_code": 403, "description": "Forbidden: bot was kicked from the group chat"}
            return (403, body)
        if chat_id in self.migrated:
            new = self.migrated[chat_id]
            return bad_request("group chat was upgraded to a supergroup chat", migrate_to_chat_id=new)
        if method == "sendPhoto" and isinstance(params.get("photo"), dict):
            refused = _photo_refusal(params["photo"])
            if refused is not None:
                return bad_request(refused)
        if utf16_length(str(params.get("text", ""))) > TEXT_LIMIT:
            return bad_request("message is too long")
        if utf16_length(str(params.get("caption", ""))) > CAPTION_LIMIT:
            return bad_request("message caption is too long")
        too_many = _markup_refusal(params.get("reply_markup"))
        if too_many is not None:
            return too_many
        if method in ("editMessageText", "editMessageReplyMarkup") and "message_id" in params:
            before = self.shown.get((chat_id, int(params["message_id"])))
            text = str(params.get("text", before[0] if before else ""))
            if before is not None and (text, _markup(params)) == before:
                return bad_request(
                    "message is not modified: specified new message content and reply markup are exactly the same"
                    " as a current content and reply markup of the message"
                )
        return self._pin_refusal(method, chat_id, params) or self._limit_refusal(method, chat_id)

    def _limit_refusal(self, method: str, chat_id: int) -> tuple[int, dict[str, Any]] | None:
        """Telegram's limits on messages, when enforced: a group's within `group_window`, all within
        `overall_window`. A message refused is not counted."""
        if method not in MESSAGES:
            return None
        now = self.clock()
        group = chat_id < 0 and self.group_limit is not None
        recent = [t for t in self._messages.get(chat_id, []) if now - t < self.group_window]
        if group and self.group_limit is not None and len(recent) >= self.group_limit:
            return too_many_now(self.group_window - (now - recent[0]))
        everyone = [t for t in self._all_messages if now - t < self.overall_window]
        if self.overall_limit is not None and len(everyone) >= self.overall_limit:
            return too_many_now(self.overall_window - (now - everyone[0]))
        self._messages[chat_id] = [*recent, now]
        self._all_messages = [*everyone, now]
        return None


def _markup_refusal(markup: object) -> tuple[int, dict[str, Any]] | None:
    """What Telegram answers an inline keyboard it will not show: too many buttons (8 a row, 100 in
    all: tginfo/Telegram-Limits), or a button's data over 64 bytes."""
    if not isinstance(markup, dict):
        return None
    rows = markup.get("inline_keyboard", [])
    if any(len(row) > ROW_LIMIT for row in rows) or sum(map(len, rows)) > BUTTON_LIMIT:
        return bad_request("reply markup is too long")
    for row in rows:
        for button in row:
            if len(str(button.get("callback_data", "")).encode()) > CALLBACK_DATA_LIMIT:
                return bad_request("BUTTON_DATA_INVALID")
    return None


def _image_of(data: bytes) -> tuple[str, int, int] | None:
    """(format, width, height) of an uploaded picture, or None if it is none Telegram reads."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            return (str(image.format), image.width, image.height)
    except (UnidentifiedImageError, OSError, ValueError):
        return None


def _photo_refusal(photo: dict[str, Any]) -> str | None:
    """What Telegram says of an uploaded photo it will not take (Bot API, sendPhoto: at most 10 MB,
    width and height at most 10000 together, a ratio of at most 20)."""
    image = photo.get("image")
    if image is None or image[0] not in ("JPEG", "PNG", "WEBP", "GIF", "BMP"):
        return "IMAGE_PROCESS_FAILED"
    _, width, height = image
    if photo["size"] > PHOTO_BYTES_LIMIT:
        return "file is too big"
    if width + height > 10_000 or max(width, height) > 20 * min(width, height):
        return "PHOTO_INVALID_DIMENSIONS"
    return None


def _markup(params: dict[str, Any]) -> str:
    markup = params.get("reply_markup")
    if not markup or markup == {"inline_keyboard": []}:
        return ""
    return json.dumps(markup, sort_keys=True)
