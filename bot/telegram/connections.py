"""What the front end's parts talk to, given to each when it is built (bot/telegram/app.py, the
composition root, builds them once the ledger is open and the application initialized): the command
layer over the ledger (`Referee`), the inbox (the durable queue of updates, bot/store/queue.py), and
the application's bot."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import Bot

from bot.chat.service import Referee
from bot.store.queue import UpdateQueue


@dataclass(frozen=True)
class Connections:
    referee: Referee
    inbox: UpdateQueue
    bot: Bot
