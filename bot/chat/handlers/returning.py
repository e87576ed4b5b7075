"""A group that comes back is known: a name seated by plain name is held by the account that played it.

On a group's first night each player taps `我是 周敏` (or records a line) to tie their account to a
seat opened by plain name. A week later the same four names are typed again: the chat already knows
who played them (`/tab` and `/stats` count careers by it, bot/views/stats.Persons), so each name an
account played in this chat is that account's seat again from `/new` on — no tap, no claim line, no
warning that the account's own name is another. Only a name one account played is given, and an
account is seated once (two accounts who played the same name, or one account that played two of
tonight's names, are left to claim as on a first night). A name seated by 换人 is held the same way.
`/unseat NAME` frees such a seat, as it frees a claimed one.
"""

from __future__ import annotations

from bot.chat.handlers.common import Context
from bot.night.records import Seat
from bot.text.vocabulary import fold
from bot.views.stats import chat_figures


async def played_here(context: Context) -> dict[str, set[str]]:
    """Each folded name the chat's nights seated an account under, with the accounts that played it."""
    played: dict[str, set[str]] = {}
    for _, figures in await chat_figures(context.services.nights, context.incoming.chat_id):
        for person in figures.persons:
            account = person.user_id
            if account:
                for name in person.names:
                    played.setdefault(name, set()).add(account)
    return played


async def seated_again(context: Context, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
    """`seats` with each plain name that one account played in the chat's earlier nights held by it."""
    free = [i for i, s in enumerate(seats) if s.name and s.user_id is None and not s.username]
    if not free or context.incoming.speaker.by_name:  # the console: no accounts to know
        return seats
    played = await played_here(context)
    accounts = {i: played.get(fold(seats[i].name), set()) for i in free}
    given = {i: next(iter(found)) for i, found in accounts.items() if len(found) == 1}
    taken = [s.user_id for s in seats if s.user_id] + list(given.values())
    return tuple(
        Seat(seat.name, given[i]) if i in given and taken.count(given[i]) == 1 else seat for i, seat in enumerate(seats)
    )


async def account_of(context: Context, seats: tuple[Seat, ...], seat: int, name: str) -> str | None:
    """The account a name seated at `seat` by 换人 is held by: the one that played it here, unless that
    account sits at another seat tonight (None: the seat is claimed as on a first night)."""
    if context.incoming.speaker.by_name:
        return None
    found = (await played_here(context)).get(fold(name), set())
    account = next(iter(found)) if len(found) == 1 else None
    elsewhere = {s.user_id for i, s in enumerate(seats) if i != seat and s.user_id}
    return account if account not in elsewhere else None
