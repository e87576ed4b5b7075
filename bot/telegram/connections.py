"""What the front end talks to, opened in post_init and used by each of its parts: the command layer
over the ledger (`Referee`), the inbox (the durable queue of updates, bot/store/queue.py), the application's
bot, and a Bot API client of its own for lookups outside the replies' rate limiter."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from telegram import Bot
from telegram.ext import ExtBot
from telegram.request import BaseRequest

from bot.chat.service import Referee
from bot.store.queue import UpdateQueue


@dataclass
class Connections:
    _referee: Referee | None = None
    _inbox: UpdateQueue | None = None
    _bot: Bot | None = None
    lookup_bot: Bot | None = None  # admin lookups: a client without the replies' rate limiter

    @property
    def referee(self) -> Referee:
        assert self._referee is not None, "the ledger opens in post_init"
        return self._referee

    @property
    def inbox(self) -> UpdateQueue:
        assert self._inbox is not None, "the ledger opens in post_init"
        return self._inbox

    @property
    def bot(self) -> Bot:
        assert self._bot is not None, "the bot is set in post_init"
        return self._bot

    @property
    def lookup(self) -> Bot:
        """The client for lookups (admins, the right to pin, getMe): the lookup bot when there is one."""
        return self.lookup_bot or self.bot

    def opened(self) -> bool:
        return self._referee is not None

    async def open(
        self,
        db_path: str,
        bot: ExtBot[Any],
        lookup_request: BaseRequest | None,
        chart_seconds: float | None = None,
        busy_timeout: float | None = None,
        rules_dir: Path | None = None,
    ) -> None:
        """Open the ledger on the running event loop; a rate-limited bot gets a lookup client.
        `chart_seconds` and `busy_timeout`: the settings CHART_SECONDS and REFEREE_BUSY_TIMEOUT (None:
        the referee's defaults); `rules_dir`: RULES_DIR, the operator's rules files."""
        self._referee = await Referee.open(
            db_path, rules_dir=rules_dir, chart_seconds=chart_seconds, busy_timeout=busy_timeout
        )
        self._inbox = self.referee.inbox()
        self._bot = bot
        if bot.rate_limiter is not None:
            self.lookup_bot = Bot(bot.token, base_url=bot.base_url.removesuffix(bot.token), request=lookup_request)
            await self.lookup_bot.initialize()

    async def close(self) -> None:
        if self.lookup_bot is not None:
            await self.lookup_bot.shutdown()
            self.lookup_bot = None
        if self._referee is not None:
            await self._referee.close()
            self._referee = None
