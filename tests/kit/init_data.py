"""Telegram's Mini App `initData`, signed as Telegram signs it, for tests: the data-check-string of every
field but `hash`, sorted, joined by newlines; the key HMAC-SHA256("WebAppData", bot token)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any
from urllib.parse import urlencode

TEST_TOKEN = "123:TEST"  # the bot token tests/kit/telegram.py runs the bot with


def sign_init_data(
    who: dict[str, Any],
    start_param: str,
    *,
    token: str = TEST_TOKEN,
    chat_type: str = "group",
    auth_date: int | None = None,
) -> str:
    """The raw `initData` string Telegram would hand the page of the user `who` (as the Bot API gives a
    user; `is_bot` left out as Telegram does here), opened with `start_param`."""
    user = {key: value for key, value in who.items() if key != "is_bot"}
    fields = {
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
        "chat_instance": "-4242424242",
        "chat_type": chat_type,
        "query_id": "AAE-test",
        "start_param": start_param,
        "user": json.dumps(user, ensure_ascii=False, separators=(",", ":")),
    }
    check = "\n".join(f"{key}={value}" for key, value in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


def forged(init_data: str) -> str:
    """The same initData with its user changed after signing."""
    return init_data.replace("first_name", "first_nam3", 1)
