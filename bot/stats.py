"""Figures across nights: `/stats` for one chat (optionally one player), `/me` for one Telegram user
across every group, showing nothing of anyone else."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from bot.night import Night, Nights
from bot.people import Person, merged_index, merged_names, player_of
from bot.replies import LIST, Joined, Reply
from bot.views import format_money
from bot.vocabulary import fold
from engine.table import Draw, Win


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
    name = merged_names(seating)[player]  # `player` is a merged index: who left at 0 is not in people()
    person = next((p for p in night.people() if fold(p.name) == fold(name)), Person(name, 0, 0))
    career.nights += 1
    career.net += person.amount
    career.money_cents += person.money_cents
    for played in night.fold.played:
        event = played.event
        # a hand counts for whoever sat at the event that ended it: after a 换人 the rates of the one
        # who left and of the newcomer are over the hands each of them played
        if isinstance(event, Draw | Win) and any(who(played.slot, seat) == player for seat in range(4)):
            career.hands += 1
        if not isinstance(event, Win):
            continue
        self_draw = event.discarder is None or any(c.flags.robbing_gang for c in event.claims)
        for winner, score in played.scores:
            if who(played.slot, winner) == player:
                career.wins += 1
                career.self_draws += 1 if self_draw else 0
                career.win_totals.append(score.total)
                career.patterns.update(item.key for item in score.items if item.key not in ("pao", "hard"))
        if event.discarder is not None and who(played.slot, event.discarder) == player and not self_draw:
            career.deal_ins += 1


def _player_now(night: Night, seat: int) -> int:
    """The player (as in `Night.people`) sitting in `seat` now."""
    seating = night.seating()
    return merged_index(seating)[seating.now[seat]]


def _career_reply(name: str, career: Career) -> Reply:
    hands = max(career.hands, 1)
    return Reply(
        "stats.player",
        {
            "name": name,
            "nights": career.nights,
            "net": career.net,
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
    """Per player name across all nights of this chat."""
    found = await nights.of_chat(chat_id)
    if not found:
        return [Reply("night.none")]
    careers: dict[str, Career] = {}
    for night in found:
        names = [fold(name) for name in merged_names(night.seating())]
        for person in night.people():
            if not person.name or (only and fold(person.name) != fold(only.lstrip("@"))):
                continue
            _add_night(night, names.index(fold(person.name)), careers.setdefault(person.name, Career()))
    if not careers:
        return [Reply("player.unknown", {"name": only or "", "players": ""})]
    replies = [Reply("stats.header", {"nights": len(found)}, count=len(found))]
    for name, career in sorted(careers.items(), key=lambda item: -item[1].net):
        replies.append(_career_reply(name, career))
    return replies


async def my_stats(nights: Nights, user_id: str) -> list[Reply]:
    """One Telegram user's own figures across every group; nothing of anyone else."""
    career = Career()
    name = ""
    for night in await nights.of_user(user_id):
        for seat, player in enumerate(night.seats):
            if player.user_id == user_id:
                name = player.name
                _add_night(night, _player_now(night, seat), career)
    if not career.nights:
        return [Reply("me.nothing")]
    return [_career_reply(name, career)]
