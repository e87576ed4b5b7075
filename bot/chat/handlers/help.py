"""/help: a six-line first night, then every other command grouped by when a table needs it; and
`/help WORD`, one command in full. Where each command is listed is its row in the command table
(bot/chat/commands.py), which sits above the handlers: the table hands its rows in."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from bot.chat.grammar import BY_SLASH, GRAMMAR_BY_NAME, Grammar, verbs
from bot.chat.handlers.common import Context, Refusal
from bot.text.replies import Joined, Reply, Response
from bot.text.vocabulary import fold, normalize_width


class Section(Enum):
    """Where /help lists a command after the first night's lines, in this order."""

    HAND = "hand"  # during a hand
    CORRECTIONS = "corrections"
    END = "end"  # end of night
    ACROSS = "across"  # across nights
    SETTINGS = "settings"


FIRST_NIGHT_LINES = 6  # help.first.1 … help.first.6: a night from /new to /summary


def answer(context: Context, sections: Sequence[tuple[Grammar, Section | None]]) -> Response:
    """`/help`: the whole list; `/help WORD`: the command WORD names (a /name or a plain word)."""
    word = context.command.word
    if word is None:
        return Response(overview(sections), context.language)
    spec = command_named(word)
    if spec is None:
        raise Refusal(Reply("help.unknown", {"word": word}))
    return Response(one_command(spec), context.language)


def overview(sections: Sequence[tuple[Grammar, Section | None]]) -> tuple[Reply, ...]:
    """The first night in six lines, then each section's commands in the table's order; a command
    with no section (/new and /join, which the first night shows; /help itself) is left to
    `/help WORD`, which the last lines name."""
    lines = [Reply("help.header")]
    lines.extend(Reply(f"help.first.{number}") for number in range(1, FIRST_NIGHT_LINES + 1))
    for section in Section:
        lines.append(Reply(f"help.section.{section.value}"))
        lines.extend(help_line(spec) for spec, listed in sections if listed is section)
    lines.extend((Reply("help.more"), Reply("rules.not_enforced")))
    return tuple(lines)


def help_line(spec: Grammar) -> Reply:
    return Reply(f"help.{spec.name}", {"example": spec.example})


def one_command(spec: Grammar) -> tuple[Reply, ...]:
    """A command in full: its /names and what its menu entry says, its help line with the example,
    and the plain words that start it without a slash."""
    slashes = Joined(tuple(f"/{alias}" for alias in spec.slash), Reply("list.separator"))
    lines = [Reply("help.one", {"slash": slashes, "what": Reply(f"cmd.{spec.name}")}), help_line(spec)]
    if spec.words:
        lines.append(Reply("help.one.words", {"words": Joined(spec.words, Reply("list.separator"))}))
    return tuple(lines)


def command_named(word: str) -> Grammar | None:
    """The command a word names: one of its /names (with or without the slash or a @bot), or a plain
    word that starts it (碰, pong)."""
    typed = normalize_width(word).strip()
    slash = typed.removeprefix("/").partition("@")[0].lower()
    if slash in BY_SLASH:
        return BY_SLASH[slash]
    folded = fold(typed)
    name = next((name for plain, name in verbs() if plain == folded), None)
    return GRAMMAR_BY_NAME[name] if name is not None else None
