"""A period's leaderboard (`/stats 本月`, `/stats 赛季 秋季赛`): one line per person, sorted by net money,
short enough for a phone; and the same table as CSV (`/stats 本月 csv`).

Its figures are the period's closed nights' rows per person (`night_people`), summed by the ledger in
one read (`Nights.days_sums`, `Nights.nights_sums`), then joined into people (`Persons`: an account,
or every name a player had, so a rename or a 换人 never splits or merges anyone). Money, not flowers:
nights played at different stakes add up in money (each hand at its own stake, as /summary counts).
"Biggest" is the biggest win's total in flowers (the hand's size, whatever the stake).

A person's rank is shared with whoever has the same money (1, 2, 2, 4), those listed by name.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from bot.night.nights import Nights
from bot.night.records import SpanSums
from bot.text.replies import Reply
from bot.views.export import cell
from bot.views.lines import format_money
from bot.views.stats import Persons, chat_figures

BOARD_ROWS = 30  # a phone's screen or two; the CSV has everyone
NONE = "—"  # a rate over no hands, a biggest win with no win
CSV_HEADER = (
    "rank",
    "person",
    "nights",
    "hands",
    "money",
    "money_per_hand",
    "wins",
    "self_draws",
    "deal_ins",
    "biggest",
)


@dataclass(frozen=True)
class Standing:
    """One person's figures over a period, and their place in it."""

    rank: int
    key: str  # the person (`Persons`)
    name: str
    nights: int
    hands: int
    money_cents: int
    wins: int
    self_draws: int
    deal_ins: int
    biggest: int  # the biggest win's total in flowers; 0: no win

    @property
    def per_hand_cents(self) -> int | None:
        """Money per hand played, to the cent (half away from zero); None with no hand played."""
        if not self.hands:
            return None
        per_hand = (Decimal(self.money_cents) / self.hands).quantize(Decimal(1), rounding=ROUND_HALF_UP)
        return int(per_hand)


async def chat_persons(nights: Nights, chat_id: str) -> Persons | None:
    """Who is who across every night of the chat (None: no night yet). Reading every night's figures
    first also writes the rows per person of any night whose rows are missing or stale, so the sums
    read after it are whole."""
    found = await chat_figures(nights, chat_id)
    return Persons([figures for _, figures in found]) if found else None


def standings(sums: SpanSums, persons: Persons) -> list[Standing]:
    """Each person's sums (the rows of each name or account they were stored under added), ranked."""
    totals: dict[str, list[int]] = {}
    for node, row in sums.people:
        key = persons.resolve(node)
        figures = (row.night_id, row.hands, row.money_cents, row.wins, row.self_draws, row.deal_ins)
        found = totals.get(key)
        if found is None:
            totals[key] = [*figures, row.biggest]
        else:
            totals[key] = [*(a + b for a, b in zip(found[:6], figures, strict=True)), max(found[6], row.biggest)]
    order = sorted(totals, key=lambda key: (-totals[key][2], persons.name(key)))
    ranked: list[Standing] = []
    for place, key in enumerate(order, 1):
        nights, hands, money, wins, self_draws, deal_ins, biggest = totals[key]
        rank = ranked[-1].rank if ranked and ranked[-1].money_cents == money else place
        ranked.append(Standing(rank, key, persons.name(key), nights, hands, money, wins, self_draws, deal_ins, biggest))
    return ranked


def signed_money(cents: int) -> str:
    return f"+{format_money(cents)}" if cents > 0 else f"−{format_money(-cents)}" if cents < 0 else "0"


def row_reply(standing: Standing) -> Reply:
    per_hand = standing.per_hand_cents
    return Reply(
        "period.board.row",
        {
            "rank": standing.rank,
            "name": standing.name,
            "money": signed_money(standing.money_cents),
            "nights": standing.nights,
            "hands": standing.hands,
            "per_hand": NONE if per_hand is None else signed_money(per_hand),
            "wins": standing.wins,
            "self_draws": standing.self_draws,
            "deal_ins": standing.deal_ins,
            "biggest": standing.biggest if standing.wins else NONE,
        },
    )


def board_replies(label: Reply, nights: int, ranked: Sequence[Standing], everyone: int, csv_line: str) -> list[Reply]:
    """The header (the period, its nights and people), a legend, a line per person (BOARD_ROWS at
    most; the rest are in the CSV, whose line is named). `everyone`: the people of the period, when
    `ranked` is one person's line."""
    if not nights:
        return [Reply("period.board.empty", {"period": label})]
    header = Reply("period.board.header", {"period": label, "nights": nights, "people": everyone}, count=nights)
    replies = [header, Reply("period.board.legend")]
    replies.extend(row_reply(standing) for standing in ranked[:BOARD_ROWS])
    if len(ranked) > BOARD_ROWS:
        replies.append(Reply("period.board.more", {"count": len(ranked) - BOARD_ROWS, "line": csv_line}))
    return replies


def standings_csv(ranked: Sequence[Standing]) -> bytes:
    """The leaderboard as a spreadsheet reads it (UTF-8 with a BOM, for Chinese): money in plain
    decimals, negative with a minus; a rate over no hands and a biggest win with no win empty."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_HEADER)
    for s in ranked:
        per_hand = s.per_hand_cents
        writer.writerow(
            [
                s.rank,
                cell(s.name),
                s.nights,
                s.hands,
                format_money(s.money_cents),
                "" if per_hand is None else format_money(per_hand),
                s.wins,
                s.self_draws,
                s.deal_ins,
                s.biggest if s.wins else "",
            ]
        )
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")
