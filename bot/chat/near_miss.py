"""Near-commands: a plain line one piece away from a table event (`碰 李思 6s`), and the hint that
says which piece — a name close to a seated one, a tile that cannot be, an amount not whole."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.chat.command import Command
from bot.chat.grammar import GRAMMAR_BY_NAME, ONE_SUITED_TILE, claim_words
from bot.chat.lexicon import PARTICLE, TILE, WORD
from bot.chat.parser import ReadLine, one_tile, parse, read_line
from bot.chat.scanner import Piece
from bot.chat.word_slips import Slip, plain_slip
from bot.night.seating import Former
from bot.text.vocabulary import fold, name_key, normalize_width
from engine.errors import EngineError

_NOT_WHOLE = re.compile(r"^(?:[-+]\d+|[-+]?\d*[.,/]\d+)$")  # 1.5, -5, 1/2 (a plain 5 is whole)


def not_whole_amount(word: str) -> bool:
    """A penalty amount typed as a number that is not whole flowers (`1.5`, `-5`, `1/2`): the
    scanner leaves it a word, so the line would read it as a name."""
    return _NOT_WHOLE.match(word) is not None


@dataclass(frozen=True)
class NearMiss:
    """Why a plain line is not the command it almost is: a hint key and its fields, and the line
    with the one failing piece mended (`corrected`, names as seated) when there is one."""

    key: str
    params: Mapping[str, str]
    corrected: str | None = None
    slash: str = ""  # the command's /name
    lead: tuple[str, ...] = ()  # the names typed before the command word
    args: tuple[str, ...] = ()  # the pieces after it, as typed; args[bad] is the failing one
    bad: int = 0
    needs_actor: bool = False  # the mended line's event is the speaker's (no actor named in it)

    def button(self, replacement: str, actor: str | None) -> str:
        """The mended line as a /command for a button (`/pong #3 #1 6s`): the failing piece
        replaced (by a seat token), the speaker's seat named first when the event is theirs."""
        args = [replacement if index == self.bad else text for index, text in enumerate(self.args)]
        words = [*self.lead, *([actor] if actor and self.needs_actor else []), *args]
        return " ".join([f"/{self.slash}", *words])


def closest_name(word: str, known: Sequence[str]) -> str | None:
    """The one seated name that `word` is a slip of. Of the same length (two characters or more):
    exactly one character different — the wrong character an input method offers for the same
    sound (李思 for 李四, 王伍 for 王五) — or two neighbours swapped (Bbo for Bob). Of a name of four
    characters or more, also a character dropped or added (Carl, Crol or Carrol for Carol): a short
    name one letter longer or shorter is as likely someone else (Bobb, Bo). None when no seat or more
    than one is that close."""
    folded = fold(word.lstrip("@"))
    if len(folded) < 2:
        return None
    close = {name for name in known if _one_slip(fold(name), folded)}
    return close.pop() if len(close) == 1 else None


LONG_NAME = 4  # a seated name this long is also matched with a character dropped or added


def _one_slip(name: str, typed: str) -> bool:
    """One character wrong, two neighbours swapped (Bbo for Bob: a thumb on a phone), or, in a long
    name, one character dropped or added: an edit distance of one (Damerau)."""
    if len(name) == len(typed):
        return _one_wrong_or_swapped(name, typed)
    if len(name) < LONG_NAME or abs(len(name) - len(typed)) != 1:
        return False
    shorter, longer = sorted((name, typed), key=len)
    return any(longer[:at] + longer[at + 1 :] == shorter for at in range(len(longer)))


def _one_wrong_or_swapped(name: str, typed: str) -> bool:
    wrong = [at for at, (a, b) in enumerate(zip(name, typed, strict=True)) if a != b]
    if len(wrong) == 1:
        return True
    return (
        len(wrong) == 2
        and wrong[1] == wrong[0] + 1
        and name[wrong[0]] == typed[wrong[1]]
        and name[wrong[1]] == typed[wrong[0]]
    )


def near_command(read: ReadLine, former: Mapping[str, Former] | None = None) -> NearMiss | None:
    """For a plain line read as chatter: a hint when it is a table event's word and grammar with
    exactly one piece wrong — an unknown name close to a seated one, or a tile that cannot be (`0m`)
    — or once the names seats had earlier tonight (`former`) are their names now. Talk (a question,
    a sentence particle, stray words) gets None: silence. The line's pieces are the ones its reading
    cut (`ReadLine.plain`), not cut again."""
    if former:
        miss = former_names_line(read, former)
        if miss is not None:
            return miss
    plain, known = read.plain, read.known or ()
    if plain is None:  # no command word: one mistyped (`gnag Dave 3s`, `荒装`), or talk
        slip = plain_slip(read.text, known)
        return mended_miss(slip.read, "hint.no_such_word", {"typed": slip.typed}) if slip is not None else None
    if not GRAMMAR_BY_NAME[plain.name].hinted:
        return None
    line, name, lead, args = plain.line, plain.name, plain.lead, plain.args
    spec = GRAMMAR_BY_NAME[name]
    bad = [
        p for p in args if p.kind not in spec.plain or (p.kind == TILE and spec.single_tile and not one_tile(p.text))
    ]
    if len(bad) != 1:
        return None
    piece = bad[0]
    typed = line[piece.start : piece.end]
    if piece.kind in (TILE, WORD) and ONE_SUITED_TILE.match(typed.lower()) and not one_tile(typed):
        return NearMiss("hint.no_such_tile", {"tile": typed})
    if name == "penalty" and piece.kind == WORD and not_whole_amount(typed):
        return NearMiss("penalty.bad_amount", {"amount": typed})  # 罚 李四 1.5: whole flowers only
    if piece.kind != WORD:
        return None
    seated = closest_name(typed, known)
    if seated is None:
        return _pattern_slip(name, typed)
    corrected = line[: piece.start] + seated + line[piece.end :]
    try:
        command = parse(corrected, known)
    except EngineError:
        return None
    if command is None:
        return None
    texts = tuple(line[p.start : p.end] for p in args if p.kind != PARTICLE)
    return NearMiss(
        "hint.no_such_name",
        {"typed": typed, "name": seated},
        corrected,
        GRAMMAR_BY_NAME[name].slash[0],
        tuple(line[p.start : p.end] for p in lead),
        texts,
        [p for p in args if p.kind != PARTICLE].index(piece),
        len(command.names) < names_with_actor(command),
    )


def former_names_line(read: ReadLine, former: Mapping[str, Former]) -> NearMiss | None:
    """A plain line that is a table event once each name its seat had earlier tonight is the seat's
    name now (`杠 王五 3s` after `改名 王五 王老五`, `王五 杠 李四 5s`, `胡 赵六 …` after `换人 赵六 钱七`):
    players keep typing the old name out of habit, and such a line is no talk. The hint names the
    first old name; the button is the mended line, the speaker's seat named when the event is theirs
    (`bad` = -1: no piece is left to replace)."""
    words = normalize_width(read.text).split()
    olds = [(word, was) for word in words if (was := former.get(name_key(word.lstrip("@")))) is not None]
    if not olds or words[0].startswith("/"):
        return None
    line = " ".join(was.now if (was := former.get(name_key(word.lstrip("@")))) else word for word in words)
    mended = read_line(line, read.known or ())
    if mended.plain is None or not GRAMMAR_BY_NAME[mended.plain.name].hinted:
        return None
    typed, was = olds[0]
    seat_of_now = {name_key(now.now): f"#{now.seat}" for _, now in olds}  # a button stays short: #N
    key = "hint.swapped" if was.swapped else "hint.renamed"
    return mended_miss(mended, key, {"typed": typed, "name": was.now}, seat_of_now)


def mended_miss(
    mended: ReadLine, key: str, params: Mapping[str, str], tokens: Mapping[str, str] | None = None
) -> NearMiss | None:
    """The hint for a line whose mended form (`mended`, a plain command) is meant: the mended line is
    said and is its button (`bad` = -1: no piece is left to replace), a name in `tokens` pressed as
    its seat's token, the speaker's seat named when the event is theirs."""
    plain, command = mended.plain, mended.command
    if plain is None or command is None:
        return None

    def pressed(piece: Piece) -> str:
        text = plain.line[piece.start : piece.end]
        return (tokens or {}).get(name_key(text), text)

    return NearMiss(
        key,
        {**params, "line": plain.line},
        plain.line,
        GRAMMAR_BY_NAME[plain.name].slash[0],
        tuple(pressed(p) for p in plain.lead),
        tuple(pressed(p) for p in plain.args if p.kind != PARTICLE),
        -1,
        speakers_event(command),
    )


def speakers_event(command: Command) -> bool:
    """Whether the command is a table event of the speaker's: no actor named in it (an undo or a
    draw is no one's: its button names no seat)."""
    return GRAMMAR_BY_NAME[command.name].hinted and len(command.names) < names_with_actor(command)


def slash_miss(slip: Slip) -> NearMiss | None:
    """`/gnag Dave 3s`: the /command mended, said, and its button (the speaker's seat named when the
    event is theirs)."""
    command = slip.read.command
    if command is None:
        return None
    args = tuple(slip.line.split()[1:])
    return NearMiss(
        "command.unknown_slip",
        {"command": slip.typed, "line": slip.line},
        slip.line,
        slip.word[1:],
        (),
        args,
        -1,
        speakers_event(command),
    )


def _pattern_slip(command: str, typed: str) -> NearMiss | None:
    """A word on a win line that is one slip from a pattern or flag word (压决 for 压绝):
    said, rather than the line passing for talk and the claim going unheard."""
    if command != "hu":
        return None
    folded = fold(typed)
    if len(folded) < 2:
        return None
    close = [word for word in claim_words() if len(word) == len(folded) and _one_wrong_or_swapped(word, folded)]
    if not close:
        return None
    # 压决 is one slip from both 压绝 and 压档: each is offered, none guessed
    return NearMiss("hint.no_such_pattern", {"typed": typed, "pattern": " / ".join(sorted(close))})


def names_with_actor(command: Command) -> int:
    """How many names an event's line holds when its actor is named (the handlers read the first
    of them as the actor): two where someone fed the meld or the win, one otherwise; a penalty
    names its offender and never means the speaker."""
    if command.name == "penalty":
        return 0
    fed = command.name == "pong" or (command.name == "gang" and command.kind == "exposed")
    return 2 if fed or (command.name == "hu" and not command.self_draw and not command.flags) else 1
