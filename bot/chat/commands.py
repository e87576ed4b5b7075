"""The one command table: a row per command names its grammar (how its line is read and what it may
do, bot/chat/grammar.py), its handler (bot/chat/handlers/) and the menus it is listed in. A new command
is its grammar row, one row here (its menus and its place in /help), its handler and its catalog lines
(`help.<name>`, `cmd.<name>`, `words.command.<name>`).

The table sits above the handlers, which read the grammar themselves (a fix parses its inner line),
so the grammar cannot name them without an import circle.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum

from bot.chat.grammar import GRAMMAR_BY_NAME, Grammar
from bot.chat.handlers import (
    again,
    board,
    chores,
    corrections,
    flows,
    house,
    opening,
    questions,
    seasons,
    tab,
    table_events,
    tile_flow,
    zone,
)
from bot.chat.handlers.common import Context
from bot.chat.handlers.help import Section
from bot.chat.handlers.help import answer as help_answer
from bot.chat.lexicon import UNKNOWN
from bot.text.replies import Response

Handler = Callable[[Context], Awaitable[Response]]


class Menu(Enum):
    """A command menu a front end shows (Telegram's scopes: every group, every private chat, and a
    group's admins). A group's admins see their menu instead of the group's, so it lists the
    group's commands too."""

    GROUP = "group"
    PRIVATE = "private"
    ADMINS = "admins"


AT_THE_TABLE = frozenset({Menu.GROUP, Menu.ADMINS})  # the dozen a table uses during a night
IN_PRIVATE = frozenset({Menu.PRIVATE})  # what answers in a private chat: your own figures
SETTING = frozenset({Menu.ADMINS})  # the chat's settings: in its admins' menu
NO_MENU: frozenset[Menu] = frozenset()  # in /help only


@dataclass(frozen=True)
class CommandRow:
    grammar: Grammar
    handler: Handler
    menus: frozenset[Menu]
    section: Section | None  # where /help lists it after the first night (None: the first night, /help)

    @property
    def name(self) -> str:
        return self.grammar.name


def _row(name: str, handler: Handler, menus: frozenset[Menu], section: Section | None) -> CommandRow:
    return CommandRow(GRAMMAR_BY_NAME[name], handler, menus, section)


async def _help(context: Context) -> Response:
    """/help and /help WORD, read from this table (the handlers sit below it)."""
    return help_answer(context, tuple((row.grammar, row.section) for row in COMMANDS))


HAND, CORRECTIONS, END = Section.HAND, Section.CORRECTIONS, Section.END
ACROSS, SETTINGS = Section.ACROSS, Section.SETTINGS

# In the grammar's order, which is the order of the menus and of /help's groups.
COMMANDS: tuple[CommandRow, ...] = (
    _row("new", opening.new, AT_THE_TABLE, None),
    _row("join", opening.join, NO_MENU, None),  # the claim buttons seat players
    _row("pong", table_events.pong, AT_THE_TABLE, HAND),
    _row("gang", flows.guided_gang, AT_THE_TABLE, HAND),
    _row("added_gang", table_events.gang, NO_MENU, HAND),  # typed as `/gang add`
    _row("concealed_gang", table_events.gang, NO_MENU, HAND),  # typed as `/gang self`
    _row("flower_gang", table_events.flower_gang, AT_THE_TABLE, HAND),
    _row("penalty", flows.guided_penalty, AT_THE_TABLE, HAND),
    _row("winds", table_events.winds, NO_MENU, HAND),  # changkaitou only
    _row("range", table_events.range_mark, NO_MENU, HAND),  # changkaitou only
    _row("hu", tile_flow.guided_hu, AT_THE_TABLE, HAND),
    _row("draw", table_events.draw, AT_THE_TABLE, HAND),
    _row("undo", corrections.undo, AT_THE_TABLE, CORRECTIONS),
    _row("again", again.again, NO_MENU, HAND),  # the repeat question's buttons answer it
    _row("fix", corrections.fix, AT_THE_TABLE, CORRECTIONS),
    _row("unseat", opening.unseat, SETTING, SETTINGS),
    _row("rename", chores.rename, NO_MENU, CORRECTIONS),
    _row("swap", chores.swap, NO_MENU, CORRECTIONS),
    _row("stake", chores.stake, NO_MENU, SETTINGS),
    _row("dealer", chores.dealer, NO_MENU, CORRECTIONS),
    _row("score", questions.score, AT_THE_TABLE, HAND),
    _row("history", questions.history, NO_MENU, HAND),
    _row("rules", house.rules, NO_MENU, HAND),
    _row("summary", questions.summary, AT_THE_TABLE, END),
    _row("close", opening.close, NO_MENU, END),  # the summary's button closes the night
    _row("reopen", opening.reopen, SETTING, SETTINGS),
    _row("stats", questions.stats, IN_PRIVATE, ACROSS),
    _row("tab", tab.show, NO_MENU, ACROSS),
    _row("paid", tab.paid, NO_MENU, ACROSS),
    _row("settled", tab.settled, NO_MENU, ACROSS),
    _row("season", seasons.season, NO_MENU, ACROSS),
    _row("me", questions.me, IN_PRIVATE, ACROSS),  # answers in a private chat only
    _row("export", questions.export_, NO_MENU, END),
    _row("lang", opening.lang, IN_PRIVATE | SETTING, SETTINGS),
    _row("board", board.board, SETTING, SETTINGS),
    _row("tz", zone.tz, NO_MENU, SETTINGS),
    _row("help", _help, AT_THE_TABLE | IN_PRIVATE, None),  # its overview's last lines name /help WORD
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
