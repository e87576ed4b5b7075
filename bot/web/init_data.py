"""Telegram's `initData` validated as Telegram documents it ("Validating data received via the Mini
App", core.telegram.org/bots/webapps), with the standard library only:

- the data-check-string is every received field but `hash`, as `key=value` with the value decoded,
  sorted by key, joined by `\\n`;
- the secret key is HMAC-SHA256 of the bot token under the key `WebAppData`;
- `hash` must be the hex HMAC-SHA256 of the data-check-string under the secret key.

Besides: a field given twice is refused (which one would be meant?), and so is an `auth_date` older
than `max_age` (a night) or from the future. The text itself is never logged: it is a bearer secret
for as long as it is fresh."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl

MAX_AGE_SECONDS = 24 * 3600  # a night: a page left open longer is opened again from the chat
FUTURE_SKEW_SECONDS = 300  # a clock a few minutes ahead is the phone's, not a forgery
MAX_LENGTH = 8192  # Telegram's initData is a few hundred bytes; anything far bigger is not it


class Refused(Exception):
    """initData that cannot be trusted: `key` says why (app.forged or app.expired)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


@dataclass(frozen=True)
class WebAppUser:
    id: int
    first_name: str
    last_name: str | None
    username: str | None
    language_code: str | None


@dataclass(frozen=True)
class InitData:
    user: WebAppUser
    auth_date: int
    chat_type: str | None
    start_param: str | None


def secret_key(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def sign(fields: dict[str, str], bot_token: str) -> str:
    """The `hash` Telegram would give these fields (tests and benchmarks make initData with it)."""
    return hmac.new(secret_key(bot_token), check_string(fields).encode(), hashlib.sha256).hexdigest()


def validate(text: str, bot_token: str, now: float, max_age: float = MAX_AGE_SECONDS) -> InitData:
    """The user and the launch's fields, or Refused."""
    if not text or len(text) > MAX_LENGTH:
        raise Refused("app.forged")
    try:
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=True, errors="strict")
    except (ValueError, UnicodeDecodeError):
        raise Refused("app.forged") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):  # a field given twice
        raise Refused("app.forged")
    given = fields.get("hash", "")
    if not hmac.compare_digest(given.encode(), sign(fields, bot_token).encode()):
        raise Refused("app.forged")
    try:
        auth_date = int(fields.get("auth_date", ""))
        user = json.loads(fields.get("user", ""))
        person = WebAppUser(
            int(user["id"]),
            str(user.get("first_name") or user["id"]),
            user.get("last_name") or None,
            user.get("username") or None,
            user.get("language_code") or None,
        )
    except (ValueError, TypeError, KeyError):  # signed by Telegram but not what a launch from a chat gives
        raise Refused("app.forged") from None
    if not now - max_age <= auth_date <= now + FUTURE_SKEW_SECONDS:
        raise Refused("app.expired")
    return InitData(person, auth_date, fields.get("chat_type"), fields.get("start_param"))
