"""Who is who at a night: seats, the speaker's seat, names typed in commands, permissions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from bot.night.codec import SEAT_KINDS, seat_change
from bot.store.rows import EventRow, NightRow, Seat
from bot.text.vocabulary import fold, name_key
from engine.errors import EngineError


@dataclass(frozen=True)
class Speaker:
    """Whoever typed the line."""

    id: str
    name: str
    username: str | None = None
    is_admin: bool = False  # a chat admin (Telegram looks it up for a line that may need it)
    language: str | None = None
    by_name: bool = False  # console: the typed name is the identity
    names: tuple[str, ...] = ()  # Telegram: the account's own names (first, first + last) a seat may be claimed by


def seated_names(seats: Sequence[Seat]) -> list[str]:
    names = [s.name for s in seats if s.name]
    names += [s.username for s in seats if s.username]
    return names


def seat_of(seats: Sequence[Seat], speaker: Speaker) -> int | None:
    for index, seat in enumerate(seats):
        if seat.user_id is not None and seat.user_id == speaker.id:
            return index
        if seat.username and speaker.username and seat.username.casefold() == speaker.username.casefold():
            return index
        if speaker.by_name and seat.name and name_key(seat.name) == name_key(speaker.name):
            return index
    return None


def names_match(seat_name: str, speaker: Speaker) -> bool:
    """Whether a seat's name is the account's own (docs/rules.md, "Seats and accounts"): folded (case,
    full width, Traditional as Simplified), it equals the account's first name, its first and last
    name with or without the space between, or its @username without the @. Nothing else matches: a
    seat typed 李四 is not the account Mike, however likely, so a claim of it is announced."""
    if not seat_name:
        return False
    own = {name_key(name) for name in speaker.names if name}
    if speaker.username:
        own.add(name_key(speaker.username))
    return name_key(seat_name) in own


def claimable_seat(seats: Sequence[Seat], speaker: Speaker) -> int | None:
    """The one seat opened by plain name (nobody's account yet) whose name matches the speaker's
    account (`names_match`); None when there is none, or more than one."""
    if speaker.by_name or not speaker.id or not speaker.names or seat_of(seats, speaker) is not None:
        return None
    hits = [i for i, s in enumerate(seats) if s.user_id is None and not s.username and names_match(s.name, speaker)]
    return hits[0] if len(hits) == 1 else None


def player_list(seats: Sequence[Seat]) -> str:
    return ", ".join(s.name for s in seats if s.name)


def resolve(seats: Sequence[Seat], token: str) -> int:
    """A typed name (`Bob`, `@bob`, 張三 for 张三) to a seat; unknown or ambiguous names list the seated
    players."""
    if len(token) == 2 and token[0] == "#" and token[1] in "0123" and seats[int(token[1])].name:
        return int(token[1])
    folded = name_key(token.lstrip("@"))
    hits = [index for index, keys in enumerate(_seat_keys(tuple(seats))) if folded in keys]
    if len(hits) == 1:
        return hits[0]
    key = "player.ambiguous" if hits else "player.unknown"
    raise EngineError(key, name=token, players=player_list(seats))


@lru_cache(maxsize=256)
def _seat_keys(seats: tuple[Seat, ...]) -> tuple[tuple[str, ...], ...]:
    """What each seat answers to, as matching sees it (its name's key, its @username folded): worked
    out once for a seating, not once for each name a line holds."""
    return tuple(
        (*([name_key(seat.name)] if seat.name else []), *([fold(seat.username)] if seat.username else []))
        for seat in seats
    )


def may_record(night: NightRow, seats: Sequence[Seat], speaker: Speaker) -> bool:
    """Seated players, whoever opened the night, and chat admins may record or undo."""
    return seat_of(seats, speaker) is not None or speaker.id == night.opened_by or speaker.is_admin


def seats_from(row: NightRow, events: Iterable[EventRow], active: set[int]) -> tuple[Seat, ...]:
    seats = list(row.seats)
    for event in events:
        if event.kind in SEAT_KINDS and event.id in active:
            change = seat_change(event.body)
            seats[change.seat] = Seat(change.name, change.user_id, change.username)
    return tuple(seats)


@dataclass(frozen=True)
class Former:
    """A name a seat answered to earlier tonight and no one answers to now: renamed away (改名), or
    the player who stood up at a 换人 or a 让座 (and any name they had before it)."""

    name: str  # as it was seated
    seat: int
    swapped: bool  # the player left the seat (换人, 让座); else the same player is called something new
    now: str = ""  # the seat's name now


def former_names(row: NightRow, events: Iterable[EventRow], active: set[int]) -> dict[str, Former]:
    """Tonight's former names by their key (`name_key`), each with the seat it now means: players keep
    typing the old name out of habit, and such a line is answered with the seat's name now, never
    dropped as talk. A name someone is seated under now is no former name; the latest seat wins."""
    seats = list(row.seats)
    aliases: list[list[str]] = [[] for _ in seats]  # the names the occupant of each seat had before
    former: dict[str, Former] = {}
    for event in events:
        if event.kind not in SEAT_KINDS or event.id not in active:
            continue
        change = seat_change(event.body)
        old = seats[change.seat].name
        if event.kind == "rename":
            aliases[change.seat].append(old)
            former[name_key(old)] = Former(old, change.seat, False)
        elif event.kind in ("swap", "unseat"):  # an unseat: the seat free until a join, a swap then
            for name in (*aliases[change.seat], old):
                former[name_key(name)] = Former(name, change.seat, True)
            aliases[change.seat] = []
        seats[change.seat] = Seat(change.name, change.user_id, change.username)
    seated = {name_key(seat.name) for seat in seats if seat.name}
    return {
        key: replace(who, now=seats[who.seat].name)
        for key, who in former.items()
        if key and key not in seated and seats[who.seat].name
    }
