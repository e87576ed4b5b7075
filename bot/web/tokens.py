"""The signed start token of the Mini App's link (`https://t.me/<bot>/<app>?startapp=<token>`): the
chat, its forum topic and the night, signed by the bot, so that nobody opens another group's night
by guessing its number (docs/miniapp.md).

43 characters of `A-Za-z0-9_-` (Telegram takes at most 64 for `startapp`): base64url, unpadded, of
the chat id (signed 64 bits), the topic (0: none) and the night id (32 bits each), then the first 16
bytes of HMAC-SHA256 of those 16 bytes under the key."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import struct
from dataclasses import dataclass

_PAYLOAD = struct.Struct(">qII")
MAC_BYTES = 16
TOKEN_LENGTH = 43  # base64url of 32 bytes, unpadded
_DOMAIN = b"nanjing-referee startapp v1\n"  # a key used for anything else signs nothing here
_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


@dataclass(frozen=True)
class StartToken:
    chat_id: int  # the Telegram chat
    topic: int  # its forum topic, 0 for none (the chat's own table)
    night_id: int


def token_key(configured: str | None, bot_token: str) -> bytes:
    """MINIAPP_KEY, or one derived from the bot token (a secret the operator already keeps)."""
    if configured:
        return configured.encode()
    return hmac.new(b"startapp-key", bot_token.encode(), hashlib.sha256).digest()


def _mac(key: bytes, payload: bytes) -> bytes:
    return hmac.new(key, _DOMAIN + payload, hashlib.sha256).digest()[:MAC_BYTES]


def sign(key: bytes, token: StartToken) -> str:
    payload = _PAYLOAD.pack(token.chat_id, token.topic, token.night_id)
    return base64.urlsafe_b64encode(payload + _mac(key, payload)).decode().rstrip("=")


def read(key: bytes, text: str) -> StartToken | None:
    """The token's chat and night, or None when it is not one this key signed (any other text)."""
    if len(text) != TOKEN_LENGTH or not set(text) <= _ALPHABET:
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=")
    except (binascii.Error, ValueError):
        return None
    payload, mac = raw[: _PAYLOAD.size], raw[_PAYLOAD.size :]
    if len(mac) != MAC_BYTES or not hmac.compare_digest(mac, _mac(key, payload)):
        return None
    chat_id, topic, night_id = _PAYLOAD.unpack(payload)
    return StartToken(chat_id, topic, night_id)
