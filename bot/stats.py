"""Figures across nights: `/stats` for one chat (optionally one player), `/me` for one Telegram user
across every group, showing nothing of anyone else."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from bot.ledger import Ledger, NightRow
from bot.replies import Joined, Reply
from bot.seating import SEAT_EVENTS, seats_now


@dataclass
class Career:
    nights: int = 0
    hands: int = 0
    net: int = 0
    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    win_totals: list[int] = field(default_factory=list)
    patterns: Counter[str] = field(default_factory=Counter)


async def _add_night(ledger: Ledger, night: NightRow, seat: int, career: Career) -> None:
    events = await ledger.events_of_kinds(night.id, ("win", "draw"))
    undone = await ledger.reversed_among([e.id for e in events])
    amounts, _ = await ledger.balances(night.id)
    career.nights += 1
    career.net += amounts[seat]
    for event in events:
        if event.kind not in ("win", "draw") or event.id in undone:
            continue
        career.hands += 1
        if event.kind == "draw":
            continue
        raw = json.loads(event.payload)
        results = raw.get("results", [])
        for result in results:
            if result["winner"] == seat:
                career.wins += 1
                career.self_draws += 1 if result.get("self_draw") else 0
                career.win_totals.append(result["total"])
                career.patterns.update(k for k in result["keys"] if k not in ("pao", "hard"))
        if raw.get("discarder") == seat and not any(r.get("self_draw") for r in results):
            career.deal_ins += 1


def _career_reply(name: str, career: Career) -> Reply:
    hands = max(career.hands, 1)
    average = sum(career.win_totals) // len(career.win_totals) if career.win_totals else 0
    favourite = Joined(tuple(Reply(f"unit.{k}") for k, _ in career.patterns.most_common(3)), " ")
    return Reply(
        "stats.player",
        {
            "name": name,
            "nights": career.nights,
            "net": career.net,
            "win_rate": f"{100 * career.wins / hands:.0f}%",
            "self_draw_rate": f"{100 * career.self_draws / hands:.0f}%",
            "deal_in_rate": f"{100 * career.deal_ins / hands:.0f}%",
            "average": average,
            "biggest": max(career.win_totals, default=0),
            "favourite": favourite,
        },
    )


async def chat_stats(ledger: Ledger, chat_id: str, only: str | None) -> list[Reply]:
    """Per player name across all nights of this chat."""
    nights = await ledger.nights(chat_id)
    if not nights:
        return [Reply("night.none")]
    careers: dict[str, Career] = {}
    for night in nights:
        seats = seats_now(night, await ledger.events_of_kinds(night.id, SEAT_EVENTS))
        for seat, player in enumerate(seats):
            if not player.name or (only and player.name.casefold() != only.lstrip("@").casefold()):
                continue
            await _add_night(ledger, night, seat, careers.setdefault(player.name, Career()))
    if not careers:
        return [Reply("player.unknown", {"name": only or "", "players": ""})]
    replies = [Reply("stats.header", {"nights": len(nights)})]
    for name, career in sorted(careers.items(), key=lambda item: -item[1].net):
        replies.append(_career_reply(name, career))
    return replies


async def my_stats(ledger: Ledger, user_id: str) -> list[Reply]:
    """One Telegram user's own figures across every group; nothing of anyone else."""
    career = Career()
    name = ""
    for night in await ledger.nights_of_user(user_id):
        seats = seats_now(night, await ledger.events_of_kinds(night.id, SEAT_EVENTS))
        for seat, player in enumerate(seats):
            if player.user_id == user_id:
                name = player.name
                await _add_night(ledger, night, seat, career)
    if not career.nights:
        return [Reply("me.nothing")]
    return [_career_reply(name, career)]
