"""Parse one chat line into a command: `/pong Bob`, `碰 李四 东`, `胡 自摸 123m456m789m234p5p+5p 花2`.

A line is read in two steps. `scan` cuts it into pieces (bot/chat/scanner.py); then the command is
built from the pieces by its grammar row (bot/chat/grammar.py).

Silence is a feature: a plain line (no `/`) is a command only when every piece of it is a word of
that command's grammar — `花杠呢？`, `胡说八道` and `花杠 Carl` (no Carl at the table) are chatter and
parse to None. A `/command` is always an attempt, so its unknown words are kept for the command
layer to explain (`no player Carl`), and an unknown `/name` parses to the `unknown` command.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.chat import scanner
from bot.chat.command import Command, Inner
from bot.chat.grammar import BY_SLASH, GRAMMAR_BY_NAME, Grammar, fixed_words, is_name, only_looks
from bot.chat.lexicon import FLAG, NAME, PARTICLE, SEAT, SELF, SENTENCE_PARTICLES, TILE, UNKNOWN, VERB, WORD
from bot.chat.scanner import MAX_DIGITS, Piece, split_words
from bot.chat.tokens import CLAIM_ROWS
from bot.text.replies import Reply
from bot.text.vocabulary import normalize_width
from engine.errors import EngineError
from engine.notation import parse_tile

TRAILING_MARKS = "!。.~…"


def scan(line: str, known: Sequence[str] = ()) -> list[Piece]:
    """The pieces of a (width-normalized) line."""
    return scanner.scan(line, known, fixed_words())


@dataclass(frozen=True)
class PlainLine:
    """A plain line (no `/`) that starts with a command word, cut into pieces once: what the grammar
    builds its command from, and what a near-command's hint reads when it builds none
    (bot/chat/near_miss.py)."""

    line: str  # width-normalized, its trailing marks off
    pieces: tuple[Piece, ...]
    name: str  # the command its word starts
    lead: tuple[Piece, ...]  # the names before the command word (乙 杠 丙 5s)
    args: tuple[Piece, ...]  # the pieces after it


def plain_line(line: str, known: Sequence[str]) -> PlainLine | None:
    """A (width-normalized) plain line's pieces and its command word; None for talk no command can
    be: a question, a line ending in a sentence particle (吗, 呢 …), one with no command word."""
    if "?" in line:
        return None
    line = line.rstrip(TRAILING_MARKS).rstrip()
    if not line or line[-1] in SENTENCE_PARTICLES:
        return None
    pieces = scan(line, known)
    found = verb(pieces)
    if found is None:
        return None
    name, lead, args = found
    return PlainLine(line, tuple(pieces), name, lead, args)


@dataclass(frozen=True)
class ReadLine:
    """A chat line read once, with the names seated when it was read: its command (None: not for the
    referee) or the error that refused it. A front end may ask it whether the line only asks, then
    hands it to the referee with the line (`Incoming.read`), which does not read it again; a plain
    line that is no command keeps its pieces for the near-command hint (`plain`)."""

    text: str
    known: tuple[str, ...] | None  # None: not read (the chat's night could not be loaded)
    command: Command | None = None
    error: EngineError | None = None
    plain: PlainLine | None = None  # a plain line's pieces, when it starts with a command word

    @property
    def asks_only(self) -> bool:
        """Whether the line is a question (/score, /summary, 查分 …): answered alike whoever asks, so a
        front end need not look up the speaker's rights in the chat (an admin list) to answer it."""
        return self.command is not None and only_looks(self.command)


def read_line(text: str, known: Sequence[str] = ()) -> ReadLine:
    """The line read with the seated names `known`: its command, or the error that refused it."""
    try:
        command, plain = _read(text, known)
    except EngineError as error:
        return ReadLine(text, tuple(known), error=error)
    return ReadLine(text, tuple(known), command, plain=plain)


def asks_only(text: str) -> bool:
    """Whether the line is a question, read without the table's names: a line that needs them to be
    read is not taken for a question."""
    return read_line(text).asks_only


_SLASH_HEAD = re.compile(r"(\S*)\s*(.*)", re.DOTALL)


def parse(text: str, known_names: Sequence[str] = ()) -> Command | None:
    """The command in `text`, or None if the line is not addressed to the referee."""
    return _read(text, known_names)[0]


def _read(text: str, known: Sequence[str]) -> tuple[Command | None, PlainLine | None]:
    """The command in `text`, and a plain line's pieces when it starts with a command word."""
    raw = text.strip()
    line = normalize_width(raw)
    if line.startswith("/"):
        return _parse_slash(raw, line, known), None
    plain = plain_line(line, known)
    return (_parse_plain(raw, plain, known) if plain is not None else None), plain


def _parse_slash(raw: str, line: str, known: Sequence[str]) -> Command | None:
    match = _SLASH_HEAD.match(line, 1)
    assert match is not None  # the pattern matches any text
    head, rest = match.groups()
    name = head.partition("@")[0]
    spec = BY_SLASH.get(name.lower())
    if spec is None:
        # A front end drops `/foo@otherbot` before it gets here (the console has no other bots).
        return Command(UNKNOWN, raw, word="/" + name) if name else None
    if spec.name == "fix":
        command = _fix(raw, rest, False)
        return replace(command, inner=_inner(command.word, known)) if command is not None and command.word else command
    claim = CLAIM_ROWS.match(rest.strip()) if spec.name == "undo" else None
    if claim is not None:  # `/undo claim=57,58`: the button under a claim by another name (read whole)
        return Command(spec.name, raw, options={"claim": claim[0].removeprefix("claim=")})
    if spec.flow and rest.startswith("~"):  # a guided flow's step: its state, read by the flow
        return Command(spec.name, raw, word=rest.strip())
    # free text (names to seat, options, a path, a language) is read whole; other words are scanned
    tokens = split_words(rest) if spec.slash_whole else [p.text for p in scan(rest, known) if p.kind != PARTICLE]
    if spec.most_words is not None and len(tokens) > spec.most_words:
        raise EngineError("command.extra_args", extra=" ".join(tokens[spec.most_words :]))
    return spec.build(spec.name, raw, tokens, known, False)


def _parse_plain(raw: str, plain: PlainLine, known: Sequence[str]) -> Command | None:
    line, pieces, name, lead, args = plain.line, plain.pieces, plain.name, plain.lead, plain.args
    if name == "fix":
        return None if lead else _plain_fix(raw, line[pieces[0].end :], known)
    spec = GRAMMAR_BY_NAME[name]
    if spec.whole is not None:
        rest = line[pieces[len(lead)].end :]
        words = split_words(rest)
        if not ((rest and not rest[0].isspace()) or lead) and spec.whole(words):
            return spec.build(name, raw, words, known, True)
        if not spec.plain:
            return None
        # read whole or else by its pieces (统计 本月, 统计 张三): the pieces decide, as for any command
    if not _exact(spec, args):
        return None
    tokens = [p.text for p in (*lead, *args) if p.kind != PARTICLE]
    try:
        return spec.build(name, raw, tokens, known, True)
    except EngineError:
        return None  # words of the command that do not fit together (罚 跟牌 李四 10): talk, not a command


def verb(pieces: Sequence[Piece]) -> tuple[str, tuple[Piece, ...], tuple[Piece, ...]] | None:
    """The command a plain line starts with, after any names (乙 杠 丙 5s): a command word, or 自摸 or a
    win flag (杠上开花 …) standing for 胡. Returns the command, the names before it, and the rest."""
    index = 0
    while index < len(pieces) and pieces[index].kind in (NAME, SEAT):
        index += 1
    if index == len(pieces):
        return None
    first = pieces[index]
    lead = tuple(pieces[:index])
    if first.kind == VERB:
        rest = pieces[index + 1 :]
        if rest and rest[0].kind == PARTICLE:
            rest = rest[1:]
        return first.text, lead, tuple(rest)
    if first.kind in (SELF, FLAG):  # 自摸 …, 杠上开花 胡 …: the word 胡 may follow once
        rest = list(pieces[index:])
        if len(rest) > 1 and rest[1].kind == PARTICLE:  # 自摸了
            del rest[1]
        verb = next((i for i, p in enumerate(rest) if p.kind == VERB and p.text == "hu"), None)
        if verb is not None:
            del rest[verb : verb + (2 if verb + 1 < len(rest) and rest[verb + 1].kind == PARTICLE else 1)]
        return "hu", lead, tuple(rest)
    return None


def _exact(spec: Grammar, args: Sequence[Piece]) -> bool:
    """Whether every piece after the command word belongs to this command's grammar."""
    if any(piece.kind not in spec.plain for piece in args):
        return False
    if spec.most_words is not None and len(args) > spec.most_words:
        return False
    if spec.single_tile:
        tiles = [p.text for p in args if p.kind == TILE]
        return len(tiles) <= 1 and all(one_tile(tile) for tile in tiles)
    return True


def one_tile(text: str) -> bool:
    try:
        parse_tile(text)
    except EngineError:
        return False
    return True


# Errors that mean a /command was typed in the wrong form (not that the table refused it): the reply
# adds the command's right form. Plain lines never get here in the wrong form: they are chatter.
USAGE_ERRORS = frozenset(
    {
        "player.unknown",
        "tile.unknown",
        "tile.not_one",
        "meld.malformed",
        "hand.no_winning_tile",
        "hand.two_winning_tiles",
        "hu.needs_flowers",
        "hu.whose_discard",
        "penalty.needs_amount",
        "command.too_many_names",
        "command.extra_args",
        "number.too_big",
        "undo.bad_id",
        "history.bad_page",
        "board.unknown",
    }
)


def usage_hint(command: Command | str | None, replies: Sequence[Reply]) -> Reply | None:
    """The one-line right form of a /command (a Command, or the text of a line that did not parse)
    refused for its form; None for plain lines and other refusals."""
    if isinstance(command, str):
        line = normalize_width(command).strip()
        match = _SLASH_HEAD.match(line, 1) if line.startswith("/") else None
        spec = BY_SLASH.get(match[1].partition("@")[0].lower()) if match else None
    else:
        spec = GRAMMAR_BY_NAME.get(command.name) if command is not None and not command.plain else None
    if spec is None or not any(reply.key in USAGE_ERRORS for reply in replies):
        return None
    return Reply("command.usage", {"usage": Reply(f"help.{spec.name}", {"example": spec.example})})


def _fix(raw: str, rest: str, plain: bool) -> Command | None:
    """`/fix N <corrected line>`: the number, and the line kept whole (parsed again by the handler).
    A plain 改 not followed by a number is chatter (改天再打)."""
    number_text, _, line = rest.strip().partition(" ")
    number_text = number_text.lstrip("#")
    if not number_text.isascii() or not number_text.isdigit():
        if plain:
            return None
        raise EngineError("fix.usage")
    if len(number_text) > MAX_DIGITS:
        raise EngineError("number.too_big", text=number_text)
    return Command("fix", raw, number=int(number_text), word=line.strip() or None, plain=plain)


def _plain_fix(raw: str, rest: str, known: Sequence[str]) -> Command | None:
    """改 is a fix only in the fix grammar, `改 N <line>` with a line that is itself a command, or
    that holds a command's word (`改 2 丁 胡 乙 …`: 丁 stood up since, so the line reads as a
    command only among the players of then — the handler reads it there, and answers either way):
    `改 1 下` and `改天再打` are talk."""
    command = _fix(raw, rest, True)
    if command is None or command.word is None:
        return None
    line = command.word
    inner = _inner(line, known)
    command = replace(command, inner=inner)
    if inner.error is not None:
        return command  # a /command in the wrong form: the fix's handler explains it
    if inner.command is None and reads_with_names_of_then(line, known):
        return command  # a correction all the same: never silently lost
    return command if inner.command is not None else None


def _inner(line: str, known: Sequence[str]) -> Inner:
    """A fix's corrected line, read once with the names the fix is read with."""
    try:
        return Inner(tuple(known), parse(line, known))
    except EngineError as error:
        return Inner(tuple(known), None, error)


def inner_command(command: Command, known: Sequence[str]) -> Command | None:
    """A fix's corrected line read with `known`: the one read with the fix when `known` holds the same
    names (one who stood up since makes the line read again); raises what refused it."""
    inner = command.inner
    if inner is None or set(known) != set(inner.known):
        return parse(command.word or "", known)
    if inner.error is not None:
        raise inner.error
    return inner.command


def reads_with_names_of_then(line: str, known: Sequence[str]) -> bool:
    """Whether the unknown words where a line names its players (before its command word, or right
    after it: `丁 胡 乙`, `甲 胡 丁`) make it a command once read as names: players who stood up since.
    A stray word elsewhere (`… flowers=3 谢谢`) leaves it talk."""
    pieces = scan(line, known)
    verb = next((i for i, p in enumerate(pieces) if p.kind in (VERB, SELF)), None)
    if verb is None:
        return False
    places = [*pieces[:verb], *pieces[verb + 1 : verb + 2]]
    words = [p.text for p in places if p.kind == WORD]
    return bool(words) and parse(line, [*known, *words]) is not None


def reports_an_event(command: Command, known: Sequence[str]) -> bool:
    """Whether a plain line is a table event that names a seated player or a tile (`Bob gang Alice
    9p`, `pong Carol 6s`): the whole grammar of a report, so its refusal is answered whatever the
    script — unlike a bare English word that merely starts a chat message (`yes`, `dealer wins`)."""
    spec = GRAMMAR_BY_NAME.get(command.name)
    if spec is None or not spec.hinted:
        return False
    return bool(command.tile or command.hand_text or any(is_name(name, known) for name in command.names))
