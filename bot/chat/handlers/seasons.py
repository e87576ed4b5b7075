"""A chat's seasons (`/season`) and a period's leaderboard (`/stats 本月`, `/stats 赛季 秋季赛`).

A season is a run of the chat's nights: `/season new NAME` (赛季 新 NAME) starts one and ends the one
open; `/season end` (赛季 结束) ends it; `/season` lists them (name, days, nights); `/season undo`
takes back the latest start or end. Which nights: a season started while a night is being played
counts that night (the table decided at the table tonight), one started after the night closed
counts from the next; `/season end` during a night counts that night, since the season ends with it.
So a season is nights by id, from one through another, stored with each entry: the nights never
move between seasons afterwards, and a season's figures are one indexed sum.

Anyone in the group may start, end or take back a season: it moves no money, every change is said
in the chat with the line that takes it back, and nothing is lost (the chat's own append-only log,
`season_events`, as the tab's). Names are unique in a chat (`/stats 赛季 NAME` finds one).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from bot.chat.handlers.common import Context, Refusal, chat_zone
from bot.chat.handlers.tab import typed_person
from bot.chat.periods import (
    LAST_SEASON,
    SEASON,
    THIS_SEASON,
    Period,
    days_of,
    is_a_month_name,
    span_text,
)
from bot.chat.season_words import season_words
from bot.chat.zones import DEFAULT_ZONE, local_day, today, utc_span
from bot.night.records import SeasonEventRow, SpanSums
from bot.text.replies import LIST, Attachment, Joined, Reply, Response
from bot.text.vocabulary import clean_name, fold
from bot.views.leaderboard import Standing, board_replies, chat_persons, standings, standings_csv
from bot.views.stats import Persons, chat_stats

NEW, END, UNDO = "new", "end", "undo"
NAME_MOST = 30  # characters of a season's name: a line of the list on a phone
LAST_NIGHT = 2**62  # an open season runs through every night to come
SEASON_PERIODS = (SEASON, THIS_SEASON, LAST_SEASON)


@dataclass(frozen=True)
class Season:
    number: int  # its place among the chat's seasons, oldest first
    name: str
    first_night: int  # the chat's nights with ids from this …
    last_night: int | None  # … through this one (None: open, every night to come)
    started: str  # the day (UTC) it was started
    ended: str | None


def seasons_of(rows: Sequence[SeasonEventRow], zone: str = DEFAULT_ZONE) -> list[Season]:
    """The chat's seasons from its log: each entry that is not taken back, in order. A start ends the
    season open then, with the night before its own first. Their dates are days in `zone` (the
    chat's: `chat_zone`)."""
    undone = {row.reverses for row in rows if row.kind == UNDO}
    found: list[Season] = []
    for row in rows:
        if row.kind == UNDO or row.id in undone:
            continue
        body = json.loads(row.payload)
        open_one = found[-1] if found and found[-1].last_night is None else None
        if open_one is not None:
            last = int(body["first_night"]) - 1 if row.kind == NEW else int(body["last_night"])
            found[-1] = Season(
                open_one.number, open_one.name, open_one.first_night, last, open_one.started, _day(row, zone)
            )
        if row.kind == NEW:
            found.append(
                Season(len(found) + 1, str(body["name"]), int(body["first_night"]), None, _day(row, zone), None)
            )
    return found


def _day(row: SeasonEventRow, zone: str) -> str:
    return local_day(row.created_at, zone).isoformat()


def latest_entry(rows: Sequence[SeasonEventRow]) -> SeasonEventRow | None:
    """The newest start or end that still counts: what `/season undo` takes back."""
    undone = {row.reverses for row in rows if row.kind == UNDO}
    return next((row for row in reversed(rows) if row.kind != UNDO and row.id not in undone), None)


def nights_in(season: Season, night_ids: Sequence[int]) -> int:
    last = LAST_NIGHT if season.last_night is None else season.last_night
    return max(0, bisect_right(night_ids, last) - bisect_left(night_ids, season.first_night))


def season_span(season: Season) -> Reply:
    if season.ended is None:
        return Reply("period.span.ongoing", {"first": season.started})
    return Reply("period.span.days", {"first": season.started, "last": season.ended})


def holds(season: Season, night_id: int) -> bool:
    return season.first_night <= night_id <= (LAST_NIGHT if season.last_night is None else season.last_night)


# ---- /season ------------------------------------------------------------------------------------


async def season(context: Context) -> Response:
    """`/season` lists the chat's seasons; `/season new NAME`, `/season end`, `/season undo` change them."""
    kind, name = season_words(context.command.names)
    if kind is None:
        return await _list(context)
    if kind not in (NEW, END, UNDO):
        raise Refusal(Reply("season.usage"))
    if context.incoming.private:
        raise Refusal(Reply("season.private_chat"))
    # an edited message is a new line: it would start a second season beside the first
    if (context.incoming.update_key or "").startswith("edit:"):
        raise Refusal(Reply("season.edit_refused"))
    rows = await context.services.nights.seasons.season_events(context.incoming.chat_id)
    if kind == NEW:
        return await _new(context, rows, name or "")
    if kind == END:
        return await _end(context, rows)
    return await _undo(context, rows)


async def _list(context: Context) -> Response:
    nights = context.services.nights
    chat = context.incoming.chat_id
    found = seasons_of(await nights.seasons.season_events(chat), await chat_zone(context))
    if not found:
        return Response((Reply("season.none"),), context.language)
    ids = await nights.seasons.night_ids(chat)
    replies = [Reply("season.list_header", count=len(found))]
    for one in found:
        params = {"number": one.number, "name": one.name, "span": season_span(one), "nights": nights_in(one, ids)}
        replies.append(Reply("season.line_open" if one.last_night is None else "season.line", params))
    replies.append(Reply("season.list_hint"))
    return Response(tuple(replies), context.language)


def _open_night(context: Context) -> tuple[int, int] | None:
    """The night being played (id, number), if any."""
    night = context.night
    return (night.id, night.number) if night is not None and not context.closed else None


async def _new(context: Context, rows: Sequence[SeasonEventRow], typed: str) -> Response:
    name = clean_name(re.sub(r"\s+", " ", typed))
    if not name:
        raise Refusal(Reply("season.usage"))
    if len(name) > NAME_MOST:
        raise Refusal(Reply("season.name_too_long", {"name": name, "most": NAME_MOST}))
    before = seasons_of(rows)
    if any(fold(one.name) == fold(name) for one in before):
        raise Refusal(Reply("season.name_taken", {"name": name}))
    playing = _open_night(context)
    night = context.night
    # tonight's night counts when it is being played; else the season starts with the next night
    first = playing[0] if playing is not None else (night.id + 1 if night is not None else 1)
    line = (context.line.speaker, context.line.text, context.line.update_key)
    payload = json.dumps({"name": name, "first_night": first}, ensure_ascii=False)
    await context.services.nights.seasons.append_season_event(context.incoming.chat_id, NEW, payload, line)
    replies = [Reply("season.started", {"name": name})]
    if playing is not None:
        replies.append(Reply("season.counts_tonight", {"night": playing[1]}))
    ended = before[-1] if before and before[-1].last_night is None else None
    if ended is not None:
        ids = await context.services.nights.seasons.night_ids(context.incoming.chat_id)
        closed = Season(ended.number, ended.name, ended.first_night, first - 1, ended.started, "")
        replies.append(Reply("season.ended_by_new", {"name": ended.name, "nights": nights_in(closed, ids)}))
    replies.append(Reply("season.undo_hint", {"line": "/season undo"}))
    return Response(tuple(replies), context.language, recorded=True)


async def _end(context: Context, rows: Sequence[SeasonEventRow]) -> Response:
    found = seasons_of(rows)
    current = found[-1] if found and found[-1].last_night is None else None
    if current is None:
        raise Refusal(Reply("season.none_open"))
    playing = _open_night(context)
    last = context.night.id if context.night is not None else 0  # the night being played counts
    line = (context.line.speaker, context.line.text, context.line.update_key)
    await context.services.nights.seasons.append_season_event(
        context.incoming.chat_id, END, json.dumps({"last_night": last}), line
    )
    ids = await context.services.nights.seasons.night_ids(context.incoming.chat_id)
    ended = Season(current.number, current.name, current.first_night, last, current.started, "")
    replies = [Reply("season.ended", {"name": current.name, "nights": nights_in(ended, ids)})]
    if playing is not None:
        replies.append(Reply("season.counts_tonight", {"night": playing[1]}))
    replies.append(Reply("season.see_board", {"line": f"/stats season {current.name}"}))
    replies.append(Reply("season.undo_hint", {"line": "/season undo"}))
    return Response(tuple(replies), context.language, recorded=True)


async def _undo(context: Context, rows: Sequence[SeasonEventRow]) -> Response:
    target = latest_entry(rows)
    if target is None:
        raise Refusal(Reply("season.nothing_to_undo"))
    before = seasons_of(rows)
    line = (context.line.speaker, context.line.text, context.line.update_key)
    await context.services.nights.seasons.append_season_event(
        context.incoming.chat_id, UNDO, "{}", line, reverses=target.id
    )
    if target.kind == END:
        return Response((Reply("season.end_undone", {"name": before[-1].name}),), context.language, recorded=True)
    replies = [Reply("season.new_undone", {"name": before[-1].name})]
    after = seasons_of([*rows, SeasonEventRow(0, UNDO, "{}", "", target.id, "")])
    if after and after[-1].last_night is None:  # the season this one had ended is open again
        replies.append(Reply("season.goes_on", {"name": after[-1].name}))
    return Response(tuple(replies), context.language, recorded=True)


# ---- /stats PERIOD ------------------------------------------------------------------------------


def _season_asked(period: Period, found: Sequence[Season]) -> tuple[Season, str | None]:
    """The season a period names, and the words after its name (a person's), if any."""
    if period.kind == THIS_SEASON:
        if not found or found[-1].last_night is not None:
            raise Refusal(Reply("season.none_open_stats", {"seasons": _names(found)}))
        return found[-1], None
    if period.kind == LAST_SEASON:
        ended = [one for one in found if one.last_night is not None]
        if not ended:
            raise Refusal(Reply("season.none_ended", {"seasons": _names(found)}))
        return ended[-1], None
    words = period.season
    for size in range(len(words), 0, -1):  # the longest name first: `赛季 2026 秋 张三`
        named = fold(" ".join(words[:size]))
        hit = next((one for one in found if fold(one.name) == named), None)
        if hit is not None:
            return hit, " ".join(words[size:]) or None
    raise Refusal(Reply("season.unknown", {"name": " ".join(words), "seasons": _names(found)}))


def _names(found: Sequence[Season]) -> Reply:
    if not found:
        return Reply("season.no_seasons")
    return Reply("season.known", {"names": Joined(tuple(one.name for one in found), LIST)})


def _csv_name(text: str) -> str:
    return "stats-" + (re.sub(r"[^0-9A-Za-z-]+", "_", text).strip("_") or "all") + ".csv"


@dataclass(frozen=True)
class Board:
    """What a period's leaderboard is read from: its label, its nights summed, whether the night being
    played falls in it (it joins once closed), its CSV's file name, and a person asked for, if any."""

    label: Reply
    sums: SpanSums
    pending: bool
    file_name: str
    person: str | None


async def _season_board(context: Context, period: Period) -> Board:
    nights, chat = context.services.nights, context.incoming.chat_id
    chosen, named = _season_asked(
        period, seasons_of(await nights.seasons.season_events(chat), await chat_zone(context))
    )
    last = LAST_NIGHT if chosen.last_night is None else chosen.last_night
    sums = await nights.seasons.nights_sums(chat, chosen.first_night, last)
    label = Reply("period.label.season", {"name": chosen.name, "span": season_span(chosen)})
    playing = _open_night(context)
    pending = playing is not None and holds(chosen, playing[0])
    return Board(label, sums, pending, f"stats-season-{chosen.number}.csv", named or context.command.word)


async def _days_board(context: Context, period: Period) -> Board:
    zone = await chat_zone(context)
    first, last = days_of(period, today(context.services.clock(), zone))
    sums = await context.services.nights.seasons.days_sums(context.incoming.chat_id, *utc_span(first, last, zone))
    span = span_text(first, last)
    night = context.night
    opened = local_day(night.row.created_at, zone) if night is not None and not context.closed else None
    pending = opened is not None and first <= opened <= last
    label = Reply(f"period.label.{period.kind}", {"span": span})
    return Board(label, sums, pending, _csv_name(span), context.command.word)


async def period_stats(context: Context) -> Response:
    """`/stats PERIOD [NAME] [csv]`: the period's leaderboard (one person's line, with a name), and
    the same table as a CSV file when asked."""
    period = context.command.period
    assert period is not None
    persons = await chat_persons(context.services.nights, context.incoming.chat_id)  # stale rows stored first
    if persons is None:
        raise Refusal(Reply("night.none"))
    if is_a_month_name(period) and not context.command.options and persons.find(period.text) is not None:
        # `/stats June`: June played here, so it is her career, not the month (`/stats june 2026` is)
        replies = await chat_stats(context.services.nights, context.incoming.chat_id, period.text)
        return Response(tuple(replies), context.language)
    seasonal = period.kind in SEASON_PERIODS
    board = await (_season_board(context, period) if seasonal else _days_board(context, period))
    ranked = standings(board.sums, persons)
    shown = ranked if board.person is None else _person_rows(context, persons, ranked, board.person, board.label)
    wants_csv = bool(context.command.options.get("csv"))
    csv_line = "" if wants_csv else f"{context.incoming.text.strip()} csv"
    replies = board_replies(board.label, board.sums.nights, shown, len(ranked), csv_line)
    if not seasonal and board.sums.nights:  # whose days these are (a season is its nights, whatever the zone)
        replies.append(Reply("period.zone", {"zone": await chat_zone(context)}))
    if board.pending and context.night is not None:
        replies.append(Reply("period.open_night", {"night": context.night.number}))
    attachments: tuple[Attachment, ...] = ()
    if wants_csv and board.sums.nights:
        attachments = (Attachment("document", board.file_name, standings_csv(shown)),)
    return Response(tuple(replies), context.language, attachments=attachments)


def _person_rows(
    context: Context, persons: Persons, ranked: Sequence[Standing], typed: str, label: Reply
) -> list[Standing]:
    """One person's line of the leaderboard, with their rank among everyone's."""
    key = typed_person(context, persons, typed)
    if key is None:
        everyone = Joined(persons.everyone(), LIST)
        raise Refusal(Reply("tab.stats_unknown", {"name": typed, "persons": everyone}), Reply("period.or_a_period"))
    mine = [standing for standing in ranked if standing.key == key]
    if not mine:
        raise Refusal(Reply("period.person_absent", {"name": persons.name(key), "period": label}))
    return mine
