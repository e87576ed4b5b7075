"""The one command table: a row per command names its grammar (how its line is read and what it may
do, bot/chat/grammar.py), its handler (bot/chat/handlers/) and the menus it is listed in. A new command
is its grammar row, one row here, its handler and its catalog lines (`help.<name>`, `cmd.<name>`,
`words.command.<name>`).

The table sits above the handlers, which read the grammar themselves (a fix parses its inner line),
so the grammar cannot name them without an import circle.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum

from bot.chat.grammar import GRAMMAR_BY_NAME, Grammar
from bot.chat.handlers import board, chores, corrections, flows, opening, questions, tab, table_events, tile_flow
from bot.chat.handlers.common import Context
from bot.chat.lexicon import UNKNOWN
from bot.text.replies import Response

Handler = Callable[[Context], Awaitable[Response]]


class Menu(Enum):
    """A command menu a front end shows (Telegram's scopes: every group, every private chat, and a
    group's admins)."""

    GROUP = "group"
    PRIVATE = "private"
    ADMINS = "admins"


EVERY_CHAT = frozenset({Menu.GROUP, Menu.PRIVATE})
NO_MENU: frozenset[Menu] = frozenset()  # typed as a word of another command (`/gang add`, `/gang self`)


@dataclass(frozen=True)
class CommandRow:
    grammar: Grammar
    handler: Handler
    menus: frozenset[Menu] = EVERY_CHAT

    @property
    def name(self) -> str:
        return self.grammar.name


def _row(name: str, handler: Handler, menus: frozenset[Menu] = EVERY_CHAT) -> CommandRow:
    return CommandRow(GRAMMAR_BY_NAME[name], handler, menus)


# In the grammar's order, which is the order of the menus and of /help.
COMMANDS: tuple[CommandRow, ...] = (
    _row("new", opening.new),
    _row("join", opening.join),
    _row("pong", table_events.pong),
    _row("gang", flows.guided_gang),
    _row("added_gang", table_events.gang, NO_MENU),
    _row("concealed_gang", table_events.gang, NO_MENU),
    _row("flower_gang", table_events.flower_gang),
    _row("penalty", flows.guided_penalty),
    _row("winds", table_events.winds),
    _row("range", table_events.range_mark),
    _row("hu", tile_flow.guided_hu),
    _row("draw", table_events.draw),
    _row("undo", corrections.undo),
    _row("again", table_events.again),
    _row("fix", corrections.fix),
    _row("unseat", opening.unseat),
    _row("rename", chores.rename),
    _row("swap", chores.swap),
    _row("stake", chores.stake),
    _row("dealer", chores.dealer),
    _row("score", questions.score),
    _row("history", questions.history),
    _row("rules", questions.rules),
    _row("summary", questions.summary),
    _row("close", opening.close),
    _row("reopen", opening.reopen),
    _row("stats", questions.stats),
    _row("tab", tab.show),
    _row("paid", tab.paid),
    _row("settled", tab.settled),
    _row("me", questions.me),
    _row("export", questions.export_),
    _row("lang", opening.lang),
    _row("board", board.board),
    _row("help", questions.help_),
)
ROW_BY_NAME = {row.name: row for row in COMMANDS}


def handler_of(name: str) -> Handler | None:
    """The handler of a parsed command: its row's, or the answer to a `/word` that is no command."""
    if name == UNKNOWN:
        return questions.unknown_command
    row = ROW_BY_NAME.get(name)
    return row.handler if row is not None else None


def menu(which: Menu) -> tuple[Grammar, ...]:
    """The commands listed in a menu, in the table's order."""
    return tuple(row.grammar for row in COMMANDS if which in row.menus)
