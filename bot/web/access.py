"""Who may use a night's Mini App (docs/miniapp.md, "Every call"): the launch validated
(bot/web/init_data.py), the start token read (bot/web/tokens.py), then the person authorized — seated
or bound in that night, or a member of that chat as Telegram says (asked once, kept a few minutes).
Every refusal is one `Denied` with its HTTP status and message key; nothing is recorded for it."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.web import init_data, tokens
from bot.web.init_data import InitData
from bot.web.tokens import StartToken

GROUP_TYPES = ("group", "supergroup")
MEMBER_SECONDS = 600.0  # a membership Telegram confirmed is trusted this long
MEMBERS_KEPT = 10_000


class Denied(Exception):
    def __init__(self, status: int, key: str, language: str | None = None) -> None:
        super().__init__(key)
        self.status = status
        self.key = key
        self.language = language  # the caller's, once their initData was read


@dataclass(frozen=True)
class Caller:
    """A validated, authorized call: who, at which chat and night."""

    launch: InitData
    token: StartToken

    @property
    def user_id(self) -> str:
        return str(self.launch.user.id)


@dataclass
class Members:
    """getChatMember's answers, kept MEMBER_SECONDS (a stranger's too: a page polling must not make
    one Bot API call a second)."""

    ask: Callable[[int, int], Awaitable[bool]]
    clock: Callable[[], float] = time.monotonic
    _known: OrderedDict[tuple[int, int], tuple[float, bool]] = field(default_factory=OrderedDict)

    async def member(self, chat_id: int, user_id: int) -> bool:
        cached = self._known.get((chat_id, user_id))
        if cached is not None and self.clock() - cached[0] < MEMBER_SECONDS:
            return cached[1]
        answer = await self.ask(chat_id, user_id)
        self._known[(chat_id, user_id)] = (self.clock(), answer)
        self._known.move_to_end((chat_id, user_id))
        while len(self._known) > MEMBERS_KEPT:
            self._known.popitem(last=False)
        return answer


def authenticate(header: str | None, bot_token: str, key: bytes, now: float) -> Caller:
    """The launch and the token of a call's `Authorization: tma <initData>`, or Denied (403)."""
    scheme, _, raw = (header or "").partition(" ")
    if scheme.lower() != "tma" or not raw:
        raise Denied(403, "app.forged")
    try:
        launch = init_data.validate(raw.strip(), bot_token, now)
    except init_data.Refused as refused:
        raise Denied(403, refused.key) from None
    token = tokens.read(key, launch.start_param or "")
    if token is None:
        raise Denied(403, "app.forged")
    if launch.chat_type not in GROUP_TYPES:
        raise Denied(403, "app.not_group")
    return Caller(launch, token)
