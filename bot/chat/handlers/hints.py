"""The hints that answer a line one piece away from a command — a name a slip from a seated one, a
name the seat had earlier tonight, a mistyped command word, a tile that cannot be — each with the mended
line as a button that records the speaker's event, whoever presses it."""

from __future__ import annotations

from dataclasses import replace

from bot.chat.grammar import GRAMMAR_BY_NAME
from bot.chat.handlers.common import Context, Incoming, ask
from bot.chat.near_miss import NearMiss, closest_name, names_with_actor, near_command
from bot.chat.parser import ReadLine, parse
from bot.night.night import Night
from bot.night.records import Seat
from bot.night.seating import Speaker, claimable_seat, resolve, seat_of, seated_names
from bot.text.replies import Choice, Reply, Response
from bot.text.vocabulary import name_key, normalize_width
from engine.errors import EngineError


def near_miss(incoming: Incoming, read: ReadLine, night: Night | None, language: str) -> Response | None:
    """A plain line one piece away from a table event (`碰 李思 6s`): a short hint, nothing recorded,
    and the mended line as a button (the speaker's seat named, so whoever presses it records the
    speaker's event); None — silence — for talk, and when no night is open. `read`: the line as read
    among the names seated in `night`, whose whole history is loaded (its renames and swaps: a name
    the seat had earlier tonight is answered with its name now)."""
    if night is None or night.closed or incoming.private:
        return None
    miss = near_command(read, night.former_names())
    if miss is None:
        return None
    return Response(
        (Reply(miss.key, dict(miss.params)),),
        language,
        refused=True,
        choices=hint_choices(miss, night, incoming.speaker),
        night_id=night.id,
        hand_no=night.state.hand_no,
    )


def speakers_seat(seats: tuple[Seat, ...], speaker: Speaker) -> int | None:
    """The speaker's seat, or the one their account would claim by its name (not bound yet: its
    first line that records binds it)."""
    mine = seat_of(seats, speaker)
    return mine if mine is not None else claimable_seat(seats, speaker)


def hint_choices(miss: NearMiss, night: Night, speaker: Speaker) -> tuple[Choice, ...]:
    """The mended line as a button, when whose event it is is known: it names the speaker's seat
    when the event is theirs, so that whoever presses it records the speaker's event."""
    if miss.corrected is None:
        return ()
    seat = f"#{resolve(night.seats, miss.params['name'])}" if miss.bad >= 0 else ""  # the piece mended
    mine = speakers_seat(night.seats, speaker)
    if miss.needs_actor and mine is None:
        return ()
    button = miss.button(seat, f"#{mine}" if mine is not None else None)
    return (Choice(Reply("hint.button", {"line": miss.corrected}), button),)


def name_hint(context: Context, typed: str, refused: Response) -> Response | None:
    """A /command `refused` for a name no seat has: a name its seat had earlier tonight (`/gang Carol
    3m` after `/rename Carol Caroline`, or the one who left at a 换人) is answered with the seat's name
    now; one slip from a seated name (`/pong Carl 8p`) is refused as it was, and asked whether the
    mended command was meant. Either way the mended command is a button recording the speaker's
    event. None for any other name."""
    night = context.night
    if night is None or night.closed:
        return None
    key = name_key(typed.lstrip("@"))
    was = night.former_names().get(key)
    seated = was.now if was is not None else closest_name(typed, [s.name for s in night.seats if s.name])
    mended = _mended_command(context, night, key, seated) if seated is not None else None
    if mended is None:
        return None
    line, choices = mended
    if was is None:  # a slip: the refusal stands, the mended line is asked
        meant = Reply("hint.meant", {"line": line})
        asked = ask(context, meant, choices)
        return replace(asked, replies=(*refused.replies, meant), refused=True)
    params = {"typed": typed, "name": was.now, "line": line}
    return replace(
        ask(context, Reply("hint.swapped" if was.swapped else "hint.renamed", params), choices), refused=True
    )


def _mended_command(context: Context, night: Night, key: str, name: str) -> tuple[str, tuple[Choice, ...]] | None:
    """The /command with the name keyed `key` replaced by the seated `name`, and its button (when
    whose event it is is known); None when the mended line is no command."""
    words = normalize_width(context.incoming.text).split()
    at = next((i for i, word in enumerate(words) if i and name_key(word.lstrip("@")) == key), None)
    if at is None:
        return None
    line = " ".join([*words[:at], name, *words[at + 1 :]])
    try:
        command = parse(line, seated_names(night.seats))
        seat = resolve(night.seats, name)
    except EngineError:
        return None
    if command is None or command.plain:
        return None
    mine = speakers_seat(night.seats, context.incoming.speaker)
    needs_actor = len(command.names) < names_with_actor(command)
    if needs_actor and mine is None:  # whose event it is is not known: no button may record it
        return line, ()
    head = f"/{GRAMMAR_BY_NAME[command.name].slash[0]}"
    actor = [f"#{mine}"] if needs_actor else []
    button = " ".join([head, *actor, *words[1:at], f"#{seat}", *words[at + 1 :]])
    return line, (Choice(Reply("hint.button", {"line": line}), button),)
