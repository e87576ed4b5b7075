"""Telegram's Bot API answered in process, on the event loop's clock, with Telegram's limits on
messages: 20 a minute in a group (sends and edits alike) and 30 a second in all, then 429 with
`retry_after`; a press's answer (`answerCallbackQuery`) counts against neither. Every call is
recorded with when it was answered. With the simulated clock (tests/kit/virtual_time.py) a busy
table's minutes run in a moment (bench/table_speed_bench.py, tests/test_pacing.py).

The bot is an administrator allowed to pin in every group (the live board is pinned), and each
request takes `latency` seconds to be answered.
"""

from __future__ import annotations

import asyncio
import json
import math
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from telegram.request import BaseRequest, RequestData

BOT = {"id": 1, "is_bot": True, "first_name": "Referee", "username": "referee_bot"}
MESSAGES = ("sendMessage", "sendPhoto", "sendDocument", "editMessageText", "editMessageReplyMarkup")
GROUP_LIMIT, GROUP_WINDOW = 20, 60.0
OVERALL_LIMIT, OVERALL_WINDOW = 30, 1.0


# what the caller marks its requests with (a bench: the answers a message carries), kept with each call
TAG: ContextVar[object] = ContextVar("tag", default=None)


@dataclass(frozen=True)
class Call:
    at: float  # when Telegram carried it out (the loop's clock)
    method: str
    params: dict[str, Any]
    result: Any
    tag: object = None


class AnsweredHere(BaseRequest):
    """A Bot API answered in this process: no connection to open or close, no read timeout."""

    @property
    def read_timeout(self) -> float | None:
        return None

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None


class LimitedTelegram(AnsweredHere):
    def __init__(self, latency: float = 0.1) -> None:
        self.latency = latency
        self.calls: list[Call] = []
        self.refused: list[tuple[float, str, int]] = []  # (when, method, chat) of each 429
        self.message_id = 0
        self._messages: dict[int, list[float]] = {}
        self._all: list[float] = []
        self.shown: dict[tuple[int, int], str] = {}  # (chat, message) -> its text

    async def do_request(
        self, url: str, method: str, request_data: RequestData | None = None, **kwargs: Any
    ) -> tuple[int, bytes]:
        await asyncio.sleep(self.latency)
        name = url.rsplit("/", 1)[-1]
        params = dict(request_data.parameters) if request_data else {}
        now = asyncio.get_running_loop().time()
        refused = self.limit(name, params, now)
        if refused is not None:
            self.refused.append((now, name, int(params.get("chat_id", 0))))
            body = {"ok": False, "error_code": 429, "description": f"Too Many Requests: retry after {refused}"}
            body["parameters"] = {"retry_after": refused}
            return 429, json.dumps(body).encode()
        result = self.result(name, params)
        self.calls.append(Call(now, name, params, result, TAG.get()))
        return 200, json.dumps({"ok": True, "result": result}).encode()

    def limit(self, name: str, params: dict[str, Any], now: float) -> int | None:
        """Seconds to wait (Telegram's `retry_after`), or None: the message is taken and counted."""
        if name not in MESSAGES:
            return None
        chat = int(params.get("chat_id", 0))
        recent = [t for t in self._messages.get(chat, []) if now - t < GROUP_WINDOW]
        if chat < 0 and len(recent) >= GROUP_LIMIT:
            return max(1, math.ceil(GROUP_WINDOW - (now - recent[0])))
        everyone = [t for t in self._all if now - t < OVERALL_WINDOW]
        if len(everyone) >= OVERALL_LIMIT:
            return max(1, math.ceil(OVERALL_WINDOW - (now - everyone[0])))
        self._messages[chat] = [*recent, now]
        self._all = [*everyone, now]
        return None

    def result(self, name: str, params: dict[str, Any]) -> Any:
        chat = int(params.get("chat_id", 0))
        if name == "getMe":
            return {**BOT, "can_join_groups": True, "can_read_all_group_messages": True}
        if name in ("sendMessage", "sendPhoto", "sendDocument"):
            self.message_id += 1
            self.shown[(chat, self.message_id)] = str(params.get("text", params.get("caption", "")))
            return self.message(chat, self.message_id, params)
        if name in ("editMessageText", "editMessageReplyMarkup"):
            message_id = int(params["message_id"])
            if name == "editMessageText":
                self.shown[(chat, message_id)] = str(params.get("text", ""))
            return self.message(chat, message_id, params)
        if name == "getChatMember":  # an administrator allowed to pin: the live board is pinned
            return {
                "status": "administrator",
                "user": BOT,
                **dict.fromkeys(
                    (
                        "can_be_edited",
                        "is_anonymous",
                        "can_delete_messages",
                        "can_manage_video_chats",
                        "can_restrict_members",
                        "can_promote_members",
                        "can_change_info",
                        "can_invite_users",
                        "can_post_stories",
                        "can_edit_stories",
                        "can_delete_stories",
                    ),
                    False,
                ),
                "can_manage_chat": True,
                "can_pin_messages": True,
            }
        if name == "getChatAdministrators":
            return []
        return True

    def message(self, chat: int, message_id: int, params: dict[str, Any]) -> dict[str, Any]:
        found = {
            "message_id": message_id,
            "date": 0,
            "chat": {"id": chat, "type": "supergroup" if chat < 0 else "private", "title": "t"},
            "from": BOT,
            "text": str(params.get("text", "")),
        }
        if params.get("reply_markup"):
            found["reply_markup"] = params["reply_markup"]
        return found

    def messages(self, chat: int) -> list[Call]:
        """The calls Telegram counts as the chat's messages."""
        return [c for c in self.calls if c.method in MESSAGES and int(c.params.get("chat_id", 0)) == chat]
