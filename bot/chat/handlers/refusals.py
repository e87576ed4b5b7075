"""The answers to a line the referee does not record: a line that cannot be read (its error, and a
/command's right form), talk (silent, or a near-command's hint), and a command its handler refused —
said in the chat's words, with what mends it: a name the seat had earlier tonight, the seats to claim
for an account with none, the buttons the refusal carries, a /command's right form."""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.chat.handlers import corrections, kept, opening
from bot.chat.handlers.common import Context, Incoming, Refusal
from bot.chat.handlers.hints import name_hint, near_miss
from bot.chat.handlers.named_lines import named_line
from bot.chat.parser import ReadLine, reports_an_event, usage_hint
from bot.night.night import Night
from bot.night.seating import seated_names
from bot.text.replies import Reply, Response
from bot.views.said import meld_conflict, readable, refused_win
from engine.errors import EngineError
from engine.melds import LoggedMeldMissing
from engine.table import WinRefused


@dataclass(frozen=True)
class Refused:
    """The answer to a refused command, and whether it is the table's answer to its line (False: an
    English word kept silent, an update answered the first time, a seat to claim before the line)."""

    response: Response | None
    said: bool = True


def unreadable(text: str, error: EngineError, language: str) -> Response:
    """A line that cannot be read: the error, and a /command's right form."""
    replies = (Reply(error.key, error.params),)
    hint = usage_hint(text, replies)  # the line's /command in its right form
    return Response((*replies, hint) if hint else replies, language, refused=True)


async def talk(incoming: Incoming, read: ReadLine, night: Night | None, language: str) -> Response | None:
    """A plain line that is no command: silence, or a near-command's hint."""
    if night is not None and not night.closed:
        await night.load_history()  # tonight's renames and swaps: an old name gets the hint
    return near_miss(incoming, read, night, language)


async def answer(context: Context, error: Refusal | EngineError) -> Refused:
    """A command its handler refused, answered."""
    night, incoming = context.night, context.incoming
    if night is not None:
        await night.load_history()  # a refusal may name the logged events behind it
    if incoming.update_key and await context.services.nights.has_update(incoming.update_key):
        return Refused(Response((), context.language), said=False)  # a repeated update: answered the first time
    if merely_english(context):
        return Refused(None, said=False)
    response = replace(refusal(error, context), refused=True, event_id=named_line(error, night))  # a reply acts there
    if isinstance(error, EngineError) and error.key == "player.unknown":
        # a name the seat had earlier tonight (renamed, or left at a 换人), or one a slip from a
        # seated one: the seat's name now
        response = name_hint(context, str(error.params.get("name", "")), response) or response
    prompt = opening.claim_prompt(context, response)  # an account with no seat yet: which one?
    if prompt is not None:
        kept.keep(context)
        return Refused(prompt, said=False)
    if isinstance(error, Refusal) and error.choices and night is not None:  # the buttons that mend the line
        response = replace(response, choices=error.choices, night_id=night.id, hand_no=night.state.hand_no)
    hint = usage_hint(context.command, response.replies)
    if hint is not None:  # a /command in the wrong form: show the right one
        response = replace(response, replies=(*response.replies, hint))
    return Refused(response)


def merely_english(context: Context) -> bool:
    """A plain line refused that starts with an English word and means nothing of the table: talk.
    `fix 99 碰 李四` is meant, and so is an event naming the table (`Bob gang Alice 9p`)."""
    command, known = context.command, seated_names(context.seats)
    meant = corrections.reads_as_a_fix(command, known) or reports_an_event(command, known)
    return command.plain and context.incoming.text.strip()[:1].isascii() and not meant


def refusal(error: Refusal | EngineError, context: Context) -> Response:
    """The refusal in the chat's words: seats by their names, a logged meld by its event's number."""
    if isinstance(error, Refusal):
        return Response(error.replies, context.language)
    if isinstance(error, LoggedMeldMissing) and context.night is not None:
        return Response((meld_conflict(context.night, error, context.night.state.hand_no),), context.language)
    if isinstance(error, WinRefused):
        return Response(refused_win(context.seats, error), context.language)
    return Response((Reply(error.key, readable(error.params, context.seats, context.night)),), context.language)
