"""Unanswered repeat questions (`和 #11 一样：…？[再记一次] [重复了，不记]`) outlive a restart.

A question is kept in the chat's settings (the ledger's `chat_settings`, append-only: a newer value
replaces an older one, an empty one means no question), so `再记一次` after a restart still records the
held event. It expires like a guided flow (`REPEAT_MINUTES` after it was asked, by the wall clock)
and is stale once its hand is over; both are checked when it is answered.
"""

from __future__ import annotations

import json

from bot.codec import decode_event, encode_event, event_kind
from bot.handlers.common import Desk, PendingRepeat
from engine.errors import EngineError

SETTING = "pending_repeat"


def encode(pending: PendingRepeat) -> str:
    return json.dumps(
        {
            "night": pending.night_id,
            "hand": pending.hand_no,
            "same": pending.same_id,
            "kind": event_kind(pending.event),
            "event": encode_event(pending.event),
            "speaker": pending.speaker,
            "text": pending.text,
            "asked_at": pending.asked_at,
        },
        ensure_ascii=False,
    )


def decode(stored: str | None) -> PendingRepeat | None:
    """The stored question, or None (none stored, cleared, or unreadable: then it is simply gone)."""
    if not stored:
        return None
    try:
        data = json.loads(stored)
        event = decode_event(str(data["kind"]), str(data["event"]))
        return PendingRepeat(
            int(data["night"]),
            int(data["hand"]),
            int(data["same"]),
            event,
            str(data["speaker"]),
            str(data["text"]),
            float(data["asked_at"]),
        )
    except (EngineError, KeyError, TypeError, ValueError):
        return None


async def remember(desk: Desk, chat_id: str, pending: PendingRepeat) -> None:
    """Hold the question: in memory and in the ledger (committed before the question is sent)."""
    desk.pending_repeats[chat_id] = pending
    await desk.nights.set_setting(chat_id, SETTING, encode(pending))


async def take(desk: Desk, chat_id: str) -> PendingRepeat | None:
    """The chat's question, answered once: it is cleared (in the ledger too) as it is taken."""
    pending = desk.pending_repeats.pop(chat_id, None)
    stored = await desk.nights.setting(chat_id, SETTING)
    if pending is None:
        pending = decode(stored)
    if stored:
        await desk.nights.set_setting(chat_id, SETTING, "")
    return pending
