"""A line kept while its sender claims a seat (`碰 李娜 北` from an account with no seat: which one are
you?), and recorded with the claim (`我是 陈静`) as if sent again: in the same hand, at most
KEPT_MINUTES after it was typed. The claim releases it (bot/chat/handlers/opening.py `join`); the
referee answers it after the claim's reply, one answer (bot/chat/service.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import takewhile

from bot.chat.handlers.common import Context, Incoming, PendingLine, Services
from bot.night.codec import EVENT_KINDS
from bot.night.night import Night
from bot.night.records import EventRow

KEPT_MINUTES = 10  # a line kept for its sender's seat claim is sent again at most this long after


def keep(context: Context) -> None:
    """Keep the line of an account with no seat: it is recorded once the account claims one."""
    night, incoming = context.night, context.incoming
    assert night is not None  # a claim prompt is only offered in an open night
    clock = context.services.clock()
    kept = PendingLine(incoming.text, night.id, night.state.hand_no, clock, incoming.update_key)
    context.services.pending_lines[(incoming.chat_id, incoming.speaker.id)] = kept


def release(context: Context) -> None:
    """The account's seat is claimed: its kept line, if any, is due to be answered after the claim."""
    account = (context.incoming.chat_id, context.incoming.speaker.id)
    kept = context.services.pending_lines.pop(account, None)
    if kept is not None:
        context.services.released_lines[account] = kept


def released(services: Services, incoming: Incoming) -> PendingLine | None:
    """The line the account's seat claim released, taken once, recorded or not."""
    return services.released_lines.pop((incoming.chat_id, incoming.speaker.id), None)


def still_due(kept: PendingLine, night: Night, now: float) -> bool:
    """A released line is recorded in the same night and hand, at most KEPT_MINUTES after it was typed."""
    return (night.id, night.state.hand_no) == (kept.night_id, kept.hand_no) and now - kept.at <= KEPT_MINUTES * 60


def sent_again(incoming: Incoming, kept: PendingLine) -> Incoming:
    """The kept line as if sent again, under its own update key (it recorded nothing when sent): its
    message stands for what it records now; a line with no key (the console's) under the claim's."""
    key = kept.update_key or (f"{incoming.update_key}:kept" if incoming.update_key else None)
    return replace(incoming, text=kept.text, update_key=key, press=None, read=None)


def row_after(events: Sequence[EventRow], bind_id: int) -> int | None:
    """The table event a claim's kept line recorded: the row right after the claim's (the chat's lines
    are answered one at a time), if it is a table event; read from the end, where it was just written."""
    rows = list(takewhile(lambda e: e.id > bind_id, reversed(events)))
    return rows[-1].id if rows and rows[-1].kind in EVENT_KINDS else None
