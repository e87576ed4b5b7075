"""Telegram's Mini App `initData`, signed as Telegram signs it, for tests: the data-check-string of every
field but `hash`, sorted, joined by newlines; the key HMAC-SHA256("WebAppData", bot token)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import urlencode

TEST_TOKEN = "123456:TEST-token-of-the-pad"


def sign_init_data(
    user_id: int,
    first_name: str,
    start_param: str,
    *,
    token: str = TEST_TOKEN,
    chat_type: str = "group",
    auth_date: int | None = None,
    language_code: str = "zh-hans",
) -> str:
    """The raw `initData` string Telegram would hand the page of `user_id`, opened with `start_param`."""
    user = {"id": user_id, "first_name": first_name, "language_code": language_code}
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
