"""The Telegram front end's durable queue of updates, as the front end sees it: the one seam through
which a front end reaches storage for its intake (tests/test_layers.py holds it).

The queue is storage: its rows are committed in the ledger's transactions (a line's events mark its
update done in the same commit, bot/store/inbox.py), so it lives here, and `Inbox` is what implements
it. A front end gets one from `Referee.inbox()` and sees only `UpdateQueue`: what it may do with an
update (store it, list what is pending, mark it done, ask whether it or an earlier press recorded)
and where a migrated chat's ledger continues — never the connection or the writer behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Row:
    update_id: int
    chat: int | None  # the Telegram chat whose queue the update joins; None for chat-less updates
    key: str | None  # the command's update key (message or button), as the ledger records it
    body: dict[str, Any]


class UpdateQueue(Protocol):
    """What a front end may ask of the inbox (bot/store/inbox.py `Inbox` says how each is done)."""

    async def add(self, row: Row, meanwhile: Callable[[], None] | None = None) -> bool: ...

    async def pending(self) -> list[Row]: ...

    async def is_done(self, update_id: int) -> bool: ...

    def mark_done(self, update_id: int) -> None: ...

    async def flush(self) -> None: ...

    async def earlier(self, key: str, update_id: int) -> int | None: ...

    async def alias(self, chat: int) -> str | None: ...

    async def set_alias(self, chat: int, chat_key: str) -> None: ...

    async def prune(self) -> None: ...
