"""Figures across nights: `/stats` for one chat (optionally one player), `/me` for one Telegram user
across every group, showing nothing of anyone else.

A chat's nights are read from their per-night figures (`NightFigures`): each person's net, money,
hands, wins and patterns in that night, stored in `night_figures` when the night is first read
closed (at its close, or by the first /stats or /tab after it) and used as long as the night's
newest event is the one they were built after and their version is this code's: a reopen or a
correction adds an event, so the night is read again. Only the open night is folded at each call.

A person across nights is a Telegram account where a seat was bound to one, a name otherwise; every
name a player had in a night (a rename) is one more name of theirs, so a rename does not split a
career, and an unbound name that an account has used is that account (`Persons`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache

from bot.night.codec import POSITIONAL, from_data, seat_change, to_data
from bot.night.night import Night
from bot.night.nights import Nights
from bot.night.people import LEAVING, RENAMING, Person, merged_index, merged_names, player_of
from bot.night.played import Played
from bot.night.records import NightMarks, NightRow, PersonNightRow, StoredExport, StoredFigures
from bot.night.tally import joins_previous
from bot.text.replies import LIST, Joined, Reply
from bot.text.vocabulary import fold
from bot.threads import in_thread
from bot.views.export import night_export
from bot.views.lines import format_money
from engine.errors import EngineError
from engine.events import Draw, Win

log = logging.getLogger(__name__)


@dataclass
class Career:
    nights: int = 0
    hands: int = 0
    net: int = 0  # flowers (or chips): each night's own unit, summed
    money_cents: int = 0  # each night's flowers × that night's stake
    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    win_totals: list[int] = field(default_factory=list)
    patterns: Counter[str] = field(default_factory=Counter)


def _add_night(night: Night, player: int, career: Career) -> None:
    """One player's night (a player, not a seat: after a 换人 the one who left keeps their figures)."""
    seating = night.seating()
    who = player_of(seating)
    name = merged_names(seating.names)[player]  # `player` is a merged index: who left at 0 is not in people()
    person = next((p for p in night.people() if fold(p.name) == fold(name)), Person(name, 0, 0))
    career.nights += 1
    career.net += person.amount
    career.money_cents += person.money_cents
    previous: Played | None = None
    for played in night.whole_fold().played:
        event = played.event
        joined, previous = joins_previous(played, previous), played  # 一炮多响: one hand, one deal-in
        # a hand counts for whoever sat at the event that ended it: after a 换人 the rates of the one
        # who left and of the newcomer are over the hands each of them played
        if isinstance(event, Draw | Win) and not joined and any(who(played.place, seat) == player for seat in range(4)):
            career.hands += 1
        if not isinstance(event, Win):
            continue
        self_draw = event.discarder is None or any(c.flags.robbing_gang for c in event.claims)
        for winner, score in played.scores:
            if who(played.place, winner) == player:
                career.wins += 1
                career.self_draws += 1 if self_draw else 0
                career.win_totals.append(score.total)
                career.patterns.update(item.key for item in score.items if item.key not in ("pao", "hard"))
        if (
            event.discarder is not None
            and who(played.place, event.discarder) == player
            and not self_draw
            and not joined
        ):
            career.deal_ins += 1


def _career_reply(name: str, career: Career) -> Reply:
    hands = max(career.hands, 1)
    return Reply(
        "stats.player",
        {
            "name": name,
            "nights": career.nights,
            "money": format_money(career.money_cents),
            "win_rate": f"{100 * career.wins / hands:.0f}%",
            "self_draw_rate": f"{100 * career.self_draws / hands:.0f}%",
            "deal_in_rate": f"{100 * career.deal_ins / hands:.0f}%",
            "wins": _wins_of(career),
        },
        count=career.nights,
    )


def _wins_of(career: Career) -> Reply | str:
    """Average and biggest win and the favourite patterns; nothing for a player who has not won."""
    if not career.win_totals:
        return ""
    favourites = tuple(Reply(f"unit.{k}") for k, _ in career.patterns.most_common(3))
    return Reply(
        "stats.wins",
        {
            "average": sum(career.win_totals) // len(career.win_totals),
            "biggest": max(career.win_totals),
            "favourite": Reply("stats.favourite", {"patterns": Joined(favourites, LIST)}) if favourites else "",
        },
    )


async def chat_stats(nights: Nights, chat_id: str, only: str | None) -> list[Reply]:
    """Per person across all nights of this chat, from the nights' stored figures."""
    found = await chat_figures(nights, chat_id)
    if not found:
        return [Reply("night.none")]
    persons = Persons([figures for _, figures in found])
    wanted = persons.find(only) if only else None
    if only and wanted is None:
        return [Reply("tab.stats_unknown", {"name": only, "persons": Joined(persons.everyone(), LIST)})]
    careers: dict[str, Career] = {}
    keys: dict[str, str] = {}  # node -> person: looked up once each
    for _, figures in found:
        for person in figures.persons:
            node = Persons.node_of(person)
            key = keys.get(node) or keys.setdefault(node, persons.resolve(node))
            if wanted is None or key == wanted:
                career = careers.get(key)  # (a Career made only for a person not met before)
                person.add_to(career if career is not None else careers.setdefault(key, Career()))
    replies = [Reply("stats.header", {"nights": len(found)}, count=len(found))]
    for key, career in sorted(careers.items(), key=lambda item: -item[1].money_cents):  # money: stakes differ
        replies.append(_career_reply(persons.name(key), career))
    return replies


# ---- per-night figures --------------------------------------------------------------------------


@dataclass(frozen=True)
class PersonNight:
    """One person's night: who they were (names, account) and what they made of it."""

    name: str  # as the night last called them
    names: tuple[str, ...]  # every name they had that night, folded
    user_id: str | None
    username: str | None
    amount: int  # flowers (or chips), net
    money_cents: int  # at the stake of each hand, as /summary counts it
    hands: int
    wins: int
    self_draws: int
    deal_ins: int
    win_totals: tuple[int, ...]
    patterns: tuple[tuple[str, int], ...]

    def add_to(self, career: Career) -> None:
        career.nights += 1
        career.hands += self.hands
        career.net += self.amount
        career.money_cents += self.money_cents
        career.wins += self.wins
        career.self_draws += self.self_draws
        career.deal_ins += self.deal_ins
        career.win_totals.extend(self.win_totals)
        for pattern, count in self.patterns:  # (Counter.update checks its argument's type each call)
            career.patterns[pattern] += count


@dataclass(frozen=True)
class NightFigures:
    night_id: int
    number: int
    persons: tuple[PersonNight, ...]


# A code change that alters what the figures hold or how they are counted changes this version, so
# every stored night is read again once (bump FIGURES_CODE when the counting itself changes).
FIGURES_CODE = 1
FIGURES_VERSION = (
    f"{FIGURES_CODE}:"
    + hashlib.sha256(
        repr([f.name for f in fields(PersonNight)] + [f.name for f in fields(NightFigures)]).encode()
    ).hexdigest()[:12]
)


def _seat_identities(night: Night) -> list[tuple[set[str], str | None, str | None]]:
    """Per occupancy index (as `bot.night.people.occupancy` numbers them): every folded name it had, and
    the Telegram account (id, username) bound to it, if any."""
    identities = [({fold(s.name)} - {""}, s.user_id, s.username) for s in night.row.seats]
    current = list(range(len(identities)))
    for event in night.events:
        if event.id not in night.active or (event.kind not in LEAVING and event.kind not in RENAMING):
            continue
        change = seat_change(event.body)
        if event.kind in LEAVING:
            identities.append(({fold(change.name)} - {""}, change.user_id, change.username))
            current[change.seat] = len(identities) - 1
            continue
        names, user_id, username = identities[current[change.seat]]
        names.add(fold(change.name))
        if change.user_id is not None:  # a join or bind: the account now holds this player
            user_id, username = change.user_id, change.username
        identities[current[change.seat]] = (names - {""}, user_id, username)
    return identities


def night_figures(night: Night) -> NightFigures:
    """The night's figures per person (a person as `Night.people` lists them)."""
    seating = night.seating()
    merged = merged_index(seating.names)
    names: dict[int, set[str]] = {}
    accounts: dict[int, tuple[str, str | None]] = {}
    for index, (aliases, user_id, username) in enumerate(_seat_identities(night)):
        names.setdefault(merged[index], set()).update(aliases)
        if user_id is not None:
            accounts.setdefault(merged[index], (user_id, username))
    folded = [fold(name) for name in merged_names(seating.names)]
    persons: list[PersonNight] = []
    for person in night.people():
        if not person.name:
            continue
        player = folded.index(fold(person.name))
        career = Career()
        _add_night(night, player, career)
        user_id, username = accounts.get(player, (None, None))
        persons.append(
            PersonNight(
                person.name,
                tuple(sorted(names.get(player, set()) | {fold(person.name)})),
                user_id,
                username,
                person.amount,
                person.money_cents,
                career.hands,
                career.wins,
                career.self_draws,
                career.deal_ins,
                tuple(career.win_totals),
                tuple(sorted(career.patterns.items())),
            )
        )
    return NightFigures(night.id, night.number, tuple(persons))


def encode_figures(figures: NightFigures) -> str:
    body = {
        "night_id": figures.night_id,
        "number": figures.number,
        "persons": [to_data(person, POSITIONAL) for person in figures.persons],
    }
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


@lru_cache(maxsize=8192)
def decode_figures(text: str) -> NightFigures | None:
    """What `encode_figures` wrote; None when it does not fit (the night is read again). Kept by its
    text: the figures are frozen, and a chat's nights are read again at every /stats and /tab."""
    try:
        raw = json.loads(text)
        persons = tuple(from_data(PersonNight, row, POSITIONAL) for row in raw["persons"])
        return NightFigures(int(raw["night_id"]), int(raw["number"]), persons)
    except (EngineError, KeyError, TypeError, ValueError):
        return None


def fresh(marks: NightMarks) -> NightFigures | None:
    """The night's stored figures, if they still count (this version, built after its newest event)."""
    if marks.stored is None or not marks.closed:
        return None
    version, built_after, text = marks.stored
    if version != FIGURES_VERSION or built_after != marks.last_event_id:
        return None
    return decode_figures(text)


def person_rows(figures: NightFigures) -> tuple[PersonNightRow, ...]:
    """The night's rows per person, as a period's figures sum them (`Ledger.period_sums`)."""
    return tuple(
        PersonNightRow(
            figures.night_id,
            Persons.node_of(p),
            p.amount,
            p.money_cents,
            p.hands,
            p.wins,
            p.self_draws,
            p.deal_ins,
            max(p.win_totals, default=0),
        )
        for p in figures.persons
    )


def stored_row(night: Night, figures: NightFigures) -> StoredFigures:
    return night.id, FIGURES_VERSION, night.log_size(), encode_figures(figures), person_rows(figures)


async def store_closed(nights: Nights, night: Night) -> NightFigures:
    """The figures of a night just read; stored when it is closed, so the next reader need not fold it."""
    figures = await in_thread(night_figures, night)  # a long night: other chats are answered meanwhile
    if night.closed:
        await nights.history.store_figures([stored_row(night, figures)])
    return figures


async def store_after_close(nights: Nights, night: Night) -> None:
    """At a close: store the night's figures. They are a cache, and the close is already committed:
    if this write fails the close still stands, and the next /stats or /tab builds them."""
    try:
        await store_closed(nights, night)
    except (sqlite3.Error, OSError):
        log.exception("night %s: figures not stored at its close", night.id)


async def chat_figures(nights: Nights, chat_id: str) -> list[tuple[NightMarks, NightFigures]]:
    """Every night of the chat with its figures (`figures_of`)."""
    marks = await nights.history.night_marks(chat_id)
    stale = any(fresh(mark) is None for mark in marks)
    return await figures_of(nights, await nights.night_rows(chat_id) if stale else [], marks)


async def figures_of(
    nights: Nights, rows: Sequence[NightRow], marks: Sequence[NightMarks]
) -> list[tuple[NightMarks, NightFigures]]:
    """Each night's figures: stored ones where they still count; the others (the open night, a
    night reopened or corrected since, an older database) are read, and stored once closed (in one
    write for all of them, with their rows per person; a night whose figures were stored without
    those rows gets them from its figures, not folded). `rows` holds at least the nights to read."""
    by_id = {row.id: row for row in rows}
    result: list[tuple[NightMarks, NightFigures]] = []
    to_store: list[StoredFigures] = []
    exports: list[StoredExport] = []
    for mark in marks:
        figures = fresh(mark)
        if figures is not None and mark.stored is not None and not mark.summed:
            # closed by code before the rows per person: they are written from its stored figures
            version, built_after, text = mark.stored
            # the figures as stored name the night they were built from; the rows are this night's
            people = person_rows(replace(figures, night_id=mark.night_id))
            to_store.append((mark.night_id, version, built_after, text, people))
        if figures is None:
            night = await nights.load(by_id[mark.night_id])
            figures = await in_thread(night_figures, night)
            if night.closed:
                to_store.append(stored_row(night, figures))
                exports.append(await in_thread(night_export, night))  # read once, for /export all too
        result.append((mark, figures))
    if to_store:
        await nights.history.store_figures(to_store)
        await nights.exports.store(exports)
    return result


# ---- persons across nights ----------------------------------------------------------------------


class Persons:
    """Who is who across a chat's nights: a union of accounts (`u:<id>`) and folded names (`n:<name>`).
    Every name a player had in a night joins them; two accounts are never joined (two people who
    once used the same name stay two), so a name shared by accounts belongs to the first one."""

    def __init__(self, nights: Sequence[NightFigures]) -> None:
        self._parent: dict[str, str] = {}
        self._account: dict[str, str | None] = {}  # root -> the account it holds
        self._name: dict[str, str] = {}  # root -> the latest name
        self._usernames: dict[str, str] = {}  # casefolded username -> node
        joined: set[tuple[str, tuple[str, ...]]] = set()  # a join done once is done: a chat's regulars repeat
        for figures in nights:
            for person in figures.persons:
                node = self.node_of(person)
                if (node, person.names) not in joined:
                    joined.add((node, person.names))
                    for name in person.names:
                        self._union(node, f"n:{name}")
                if person.username:
                    self._usernames[person.username.casefold()] = node
        handles: dict[str, str] = {}
        roots: dict[str, str] = {}  # node -> its root, fixed once every join is done
        for figures in nights:  # the latest name a person was called by
            for person in figures.persons:
                node = self.node_of(person)
                root = roots.get(node) or roots.setdefault(node, self._find(node))
                self._name[root] = person.name
                if person.username:
                    handles[root] = person.username
        self._tell_apart(handles)

    def _tell_apart(self, handles: dict[str, str]) -> None:
        """Two people last called the same (two accounts named Alex) are shown with their @username,
        or numbered: a tab line must say who it is."""
        by_name: dict[str, list[str]] = {}
        for root, name in self._name.items():
            by_name.setdefault(fold(name), []).append(root)
        for roots in by_name.values():
            if len(roots) < 2:
                continue
            for number, root in enumerate(roots, 1):
                handle = handles.get(root)
                self._name[root] += f" @{handle}" if handle else f" ({number})"

    @staticmethod
    def node_of(person: PersonNight) -> str:
        return f"u:{person.user_id}" if person.user_id else f"n:{fold(person.name)}"

    def _find(self, node: str) -> str:
        if node not in self._parent:
            self._parent[node] = node
            self._account[node] = node[2:] if node.startswith("u:") else None
        root = node
        while self._parent[root] != root:
            root = self._parent[root]
        while self._parent[node] != root:  # path compression
            self._parent[node], node = root, self._parent[node]
        return root

    def _union(self, a: str, b: str) -> None:
        ra, rb = self._find(a), self._find(b)
        if ra == rb or (self._account[ra] and self._account[rb]):
            return
        if self._account[rb]:
            ra, rb = rb, ra
        self._parent[rb] = ra  # the account's node stays the root

    def key_of(self, person: PersonNight) -> str:
        return self._find(self.node_of(person))

    def resolve(self, node: str) -> str:
        """The person a stored node (an account or a name) is now."""
        return self._find(node)

    def stable_node(self, key: str) -> str:
        """What to store for a person: their account when they have one, else their root name."""
        account = self._account.get(key)
        return f"u:{account}" if account else key

    def name(self, key: str) -> str:
        return self._name.get(key, key[2:])

    def everyone(self) -> tuple[str, ...]:
        """The name of every person who played, in the order they first did."""
        return tuple(dict.fromkeys(self._name.values()))

    def known(self, key: str) -> bool:
        return key in self._name

    def find(self, typed: str, user_id: str | None = None) -> str | None:
        """The person a typed name (or @username, or a mentioned account) is, among those who played."""
        if user_id is not None and f"u:{user_id}" in self._parent:
            return self._find(f"u:{user_id}")
        text = typed.strip()
        if text.startswith("@") and text[1:].casefold() in self._usernames:
            return self._find(self._usernames[text[1:].casefold()])
        node = f"n:{fold(text.lstrip('@'))}"
        if node in self._parent:
            key = self._find(node)
            return key if self.known(key) else None
        handle = self._usernames.get(text.lstrip("@").casefold())  # a username typed without its @
        return self._find(handle) if handle is not None else None


async def my_stats(nights: Nights, user_id: str) -> list[Reply]:
    """One Telegram user's own figures across every group, from each night's figures: the person the
    account was bound to in each night (after a 换人 too); nothing of anyone else."""
    rows = await nights.night_rows_of_user(user_id)
    marks = await nights.history.night_marks_of([row.id for row in rows])
    career = Career()
    name = ""
    for _, figures in await figures_of(nights, rows, marks):
        for person in figures.persons:
            if person.user_id == user_id:
                name = person.name
                person.add_to(career)
    if not career.nights:
        return [Reply("me.nothing")]
    return [_career_reply(name, career)]
