"""A reply that corrects (#43): `/undo`, `撤销`, `/fix …` or `改 …` sent as a reply to the bot's answer
`✅ #N …` (or `✏️ #N`, `↩️ #N`), or to the player's line that recorded #N, acts on #N as `/undo N` and
`/fix N …` do: the line is read with N put after its command word, and answered as typed so.

Which line a message stands for is the ledger's (bot/store/answers.py): the row an answer reported
when the bot sent it, by Telegram's message id, or the row a player's message (or its latest edit)
recorded. A text that merely looks like an answer is never read for a number.

A reply to a message that stands for no line of tonight changes nothing and says why: it recorded
nothing; it recorded no numbered line (a seat, a payment); it is a line of an earlier night; or the
referee cannot tell (an answer sent before answers were kept). One that carried several lines (a
backlog sent as one message) asks which. A number typed as well must be the replied line's (any
version of it, a fix or the line it fixed): another number is refused, with both as buttons for an
undo, rather than guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.chat.handlers.common import Incoming, Replied
from bot.chat.lexicon import VERB
from bot.chat.parser import parse, scan
from bot.night.night import Night
from bot.night.nights import Nights
from bot.night.seating import seated_names
from bot.text.replies import LIST, Choice, Joined, Reply, Response
from bot.text.vocabulary import normalize_width
from engine.errors import EngineError

CORRECTIONS = ("undo", "fix")
_SLASH_HEAD = re.compile(r"(/\S*)\s*(.*)", re.DOTALL)


def with_number(text: str, number: int, known: Sequence[str]) -> str | None:
    """The line with `number` right after its command word (`改 碰 李四` → `改 5 碰 李四`, `/undo` →
    `/undo 5`), if it starts with the word of an undo or a fix (a `/command` is checked by reading it)."""
    line = normalize_width(text.strip())
    if line.startswith("/"):
        match = _SLASH_HEAD.match(line)
        assert match is not None  # the pattern matches any line starting with `/`
        head, rest = match.groups()
        return f"{head} {number} {rest}".rstrip()
    pieces = scan(line, known)
    if not pieces or pieces[0].kind != VERB or pieces[0].text not in CORRECTIONS:
        return None
    end = pieces[0].end
    return f"{line[:end]} {number} {line[end:].strip()}".rstrip()


def typed_correction(text: str, known: Sequence[str]) -> tuple[str, int | None] | None:
    """(undo or fix, the number typed) when the line is an undo or a fix with or without its number;
    None for any other line (talk starting with 改 stays talk: `改天再打`)."""
    try:
        command = parse(text, known)
    except EngineError:
        command = None  # `/fix 碰 李四`: no number yet
    if command is not None and command.name in CORRECTIONS and command.number is not None:
        return command.name, command.number
    if command is not None and command.options:  # `/undo claim=…`: a button's, never a reply's
        return None
    aimed = with_number(text, 1, known)  # any number reads the same: is the line then a correction?
    try:
        command = parse(aimed, known) if aimed is not None else None
    except EngineError:
        return None
    return (command.name, None) if command is not None and command.name in CORRECTIONS else None


def edited_line(text: str, number: int, replies: bool) -> str:
    """What an edit of a message that recorded line #number is read as: the line as it should have
    been typed, so `/fix N <the edited line>`; a message edited into a correction (`改 罚 王五 30`, a
    reply-fix edited; `撤销`) is that correction, aimed as such a line is typed: at the number it
    names, else at the line it replies to (`replies`), else at #number, its own line."""
    correction = typed_correction(text, [])  # its command word comes first: names are not needed
    if correction is None:
        return f"/fix {number} {text}"
    if correction[1] is not None or replies:
        return text
    aimed = with_number(text, number, [])
    assert aimed is not None  # typed_correction read it with a number put in
    return aimed


@dataclass(frozen=True)
class Records:
    """What the replied message recorded, as the ledger knows it."""

    event_ids: tuple[int, ...] = ()  # the rows of the lines it recorded or reports (✅ #N)
    recorded: bool = False  # it recorded something, with or without a line number (a seat, a payment)
    known: bool = True  # False: the bot's message not kept (sent before answers were), another chat's


async def records_of(nights: Nights, replied: Replied) -> Records:
    """The bot's own answer by what it carried when sent; a player's message by what it and its
    edits recorded (never by its text)."""
    if replied.chat is None:
        return Records(known=False)
    if replied.answer:
        carried = await nights.answer_records(replied.chat, replied.message_id)
        return Records(known=False) if carried is None else Records(carried.event_ids, carried.recorded)
    found = await nights.message_records(f"{replied.chat}:{replied.message_id}")
    return Records(found.event_ids, found.recorded)


def refused(key: str, language: str, **params: object) -> Response:
    return Response((Reply(key, dict(params)),), language, refused=True)


async def aim(incoming: Incoming, night: Night | None, nights: Nights, language: str) -> Response | str | None:
    """What a reply that corrects does: the line with the replied line's number put in (a str), a
    refusal or a question (a Response), or None to read the line as it is (no reply, no correction,
    or a number typed that is the replied line's)."""
    if incoming.replied is None or incoming.private or night is None:
        return None
    known = seated_names(night.seats)
    correction = typed_correction(incoming.text, known)
    if correction is None:
        return None
    name, typed = correction
    replied = await records_of(nights, incoming.replied)
    await night.load_history()  # numbers are read from the whole night
    numbers = numbers_tonight(night, replied)
    if not numbers:
        return refused(why_no_line(night, replied), language)
    if typed is not None:
        return None if same_line(night, typed, numbers) else mismatch(night, name, typed, numbers, language)
    if len(numbers) > 1:
        return several(night, name, numbers, language)
    aimed = with_number(incoming.text, numbers[0], known)
    assert aimed is not None  # typed_correction read it with a number put in
    return aimed


def numbers_tonight(night: Night, replied: Records) -> list[int]:
    """The numbers tonight's players know the replied message's lines by, in order, once each."""
    numbers = (night.number_of(event_id) for event_id in replied.event_ids)
    return list(dict.fromkeys(n for n in numbers if n is not None))


def why_no_line(night: Night, replied: Records) -> str:
    """Why the replied message stands for no line of tonight's: the reply's message key."""
    if not replied.known:
        return "reply_to.unknown"
    if not replied.event_ids:
        return "reply_to.no_number" if replied.recorded else "reply_to.nothing_recorded"
    if any(night.event(event_id) is None for event_id in replied.event_ids):
        return "reply_to.other_night"
    return "reply_to.no_number"  # a seat claimed tonight: no line of the table, no number


def same_line(night: Night, typed: int, numbers: Sequence[int]) -> bool:
    """Whether #typed is one of the replied lines, or another version of one (the fix of it, or the
    line a fix replaced): the same place in the night."""
    named = night.numbered(typed)
    if named is None:
        return False
    place = night.place_of(named.id)
    return any((row := night.numbered(n)) is not None and night.place_of(row.id) == place for n in numbers)


def mismatch(night: Night, name: str, typed: int, numbers: Sequence[int], language: str) -> Response:
    """A number typed that is not the replied line's: nothing is guessed. An undo gets both as
    buttons; a fix is typed again (its line does not fit a button)."""
    shown = Joined(tuple(f"#{n}" for n in numbers), LIST)
    response = refused(f"reply_to.mismatch_{name}", language, replied=shown, typed=typed)
    if name != "undo":
        return response
    named = [typed] if night.numbered(typed) is not None else []  # no button for a line that is not there
    return with_undo_buttons(night, response, [*numbers, *named])


def several(night: Night, name: str, numbers: Sequence[int], language: str) -> Response:
    """A message that carried several lines (a backlog sent as one): which? Buttons for an undo."""
    shown = Joined(tuple(f"#{n}" for n in numbers), LIST)
    response = refused(f"reply_to.several_{name}", language, ids=shown, example=numbers[-1])
    return with_undo_buttons(night, response, numbers) if name == "undo" else response


def with_undo_buttons(night: Night, response: Response, numbers: Sequence[int]) -> Response:
    choices = tuple(Choice(Reply("button.undo", {"id": n}), f"/undo {n}") for n in dict.fromkeys(numbers))
    return Response(
        response.replies,
        response.language,
        choices=choices,
        refused=True,
        night_id=night.id,
        hand_no=night.state.hand_no,
    )
