"""Handlers that answer and record nothing: score, history, summary, stats, me, export (help is
bot/chat/handlers/help.py, rules bot/chat/handlers/house.py)."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from bot.chat.handlers.common import Context, Refusal, chat_zone
from bot.chat.handlers.hints import hint_choices
from bot.chat.handlers.opening import claim_button, unclaimed
from bot.chat.handlers.seasons import period_stats
from bot.chat.handlers.tab import read_tab, tab_replies
from bot.chat.near_miss import slash_miss
from bot.chat.parser import parse
from bot.chat.word_slips import slash_slip
from bot.chat.zones import local_day
from bot.night.fold import table_event
from bot.night.night import Night
from bot.night.people import kept_indices, stake_runs
from bot.night.records import EventRow, LineText, PaymentRow, Seat
from bot.night.seating import seated_names
from bot.night.tally import Tally
from bot.text.replies import Attachment, Choice, Reply, Response, render
from bot.threads import in_thread
from bot.views import export
from bot.views.charts import ChartNotDrawn, night_chart
from bot.views.chat_export import write_chat_csv
from bot.views.lines import history as history_lines
from bot.views.lines import payment_lines, player_stats
from bot.views.lines import summary as summary_lines
from bot.views.personal import night_people
from bot.views.plot import format_for
from bot.views.said import board, describe, explained
from bot.views.stats import chat_stats, my_stats
from engine.errors import EngineError
from engine.events import Win
from locales import Translator

# A page of /history: 15 lines of about 100 characters stay well under Telegram's 4,096 a message.
HISTORY_LINES = 15
FLOW_MARK = " ~t"  # a guided flow's line carries its state after the command (`/hu ~t…`)
SEAT_MARK = re.compile(r"(?<!\S)#[0-3](?![0-9])")  # a button's seat by number (`/hu #1 self …`)


def any_night(context: Context) -> Night:
    if context.night is None:
        raise Refusal(Reply("night.none"))
    return context.night


async def score(context: Context) -> Response:
    night = any_night(context)
    claims: tuple[Choice, ...] = ()
    if not context.closed and not context.incoming.speaker.by_name:  # Telegram: seats still to be claimed
        claims = tuple(claim_button(night.seats, s) for s in unclaimed(night.seats))
    if not context.closed:
        return Response((board(night),), context.language, night_id=night.id, choices=claims)
    # the night is over: the board still lists whoever stood up during it, with what they keep
    replies = [Reply("night.closed_note", {"night": night.number}), board(night)]
    return Response(tuple(replies), context.language, night_id=night.id)


async def history(context: Context) -> Response:
    """One page of the night's lines (numbered per night: the lines the table typed, never a seat
    claim or a row the bot wrote itself), page 1 the latest; a long night says which page this is
    and how to see more."""
    night = any_night(context)
    if "event" in context.command.options:
        return await in_full(context, night, int(context.command.options["event"]))
    lines = night.lines()
    pages = max(1, -(-len(lines) // HISTORY_LINES))
    page = context.command.number or 1
    if page > pages:
        raise Refusal(Reply("history.no_page", {"page": page, "pages": pages}))
    end = len(lines) - (page - 1) * HISTORY_LINES
    events = lines[max(0, end - HISTORY_LINES) : end]
    undone = {e.id for e in events if e.id not in night.active}
    hands = {e.id: night.hand_in_log(e) for e in events}
    fixed_by = fixes_standing(night)
    texts = await night.texts(events)  # what was typed: the night holds none of it
    shown = flow_lines(night, events, texts)
    replies = [Reply("history.header", {"night": night.number})]
    merged = merges(night, await night.texts_of_kind("fix"))
    replies += history_lines(events, texts, undone, hands, fixed_by, shown, merged, night.shown)
    if page < pages:
        replies.append(Reply("history.page", {"page": page, "pages": pages, "next": page + 1}))
    elif pages > 1:
        replies.append(Reply("history.last_page", {"page": page, "pages": pages}))
    return Response(tuple(replies), context.language, night_id=night.id)


async def in_full(context: Context, night: Night, number: int) -> Response:
    """`/history #12` (a win's 明细): the line as recorded, then the event as the corrected night
    plays it, in full: each winner's breakdown, the factors, every payment with its money. Written
    over the message whose button asked (`edits`)."""
    row = night.numbered(number)  # #N: a line's number tonight
    if row is None:
        raise Refusal(Reply("undo.no_such_event", {"id": number}))
    fixed_by = fixes_standing(night)
    undone = {row.id} if row.id not in night.active else set()
    hands = {row.id: night.hand_in_log(row)}
    replies = [Reply("details.header", {"id": number})]
    texts, merged = await night.texts([row]), merges(night, await night.texts_of_kind("fix"))
    shown = flow_lines(night, [row], texts)
    replies.extend(history_lines([row], texts, undone, hands, fixed_by, shown, merged, night.shown))
    place = night.place_of(row.id)
    played = night.whole_fold().played.first(place) if night.current_version(place) is not None else None
    if played is not None and played.place == place:
        seating = night.seating()  # the names of who sat there at that event, after any 换人
        sitting = seating.at.get(played.event_id, seating.now)
        seats = tuple(Seat(seating.names[index]) for index in sitting)
        replies.append(
            Reply("event.recorded", {"id": night.shown(played.event_id), "what": describe(played.event, seats)})
        )
        replies.extend(explained(played, seats))
        stake = night.stake_at(played.hand_no)
        payments = [
            PaymentRow(played.event_id, p.payer, p.payee, p.amount, p.amount * stake, p.reason) for p in played.payments
        ]
        replies.extend(payment_lines(payments, seats, night.preset))
    return Response(tuple(replies), context.language, night_id=night.id, edits=True)


def fixes_standing(night: Night) -> dict[int, int]:
    """Each row a fix replaced, with that fix, while the fix still stands at its place: a line whose
    fix was undone since is said undone, never "corrected by" a fix that no longer counts."""
    return {
        e.reverses: e.id
        for e in night.events
        if e.kind == "fix" and e.reverses is not None and e.id in night.standing(night.place_of(e.id))
    }


def merges(night: Night, fixes: Mapping[int, LineText]) -> dict[int, int]:
    """The rows that joined a second winner to a win on the same discard (一炮多响), each with the
    place it joined: a claim of its own that the table said shares the discard (`Win.joins`), or, in
    older ledgers, a fix of the first win read as one win, never as a correction (`fixes`: what was
    typed for the night's fix rows, `Night.texts_of_kind`)."""
    found: dict[int, int] = {}
    names = seated_names(night.seats)
    for event in night.events:
        claim = table_event(event) if event.kind == "win" else None
        if isinstance(claim, Win) and claim.joins is not None:
            if night.current_version(claim.joins) is not None:  # with its first win undone, a win of its own
                found[event.id] = claim.joins
            continue
        if event.kind != "fix" or event.reverses is None:
            continue
        try:
            command = parse(fixes[event.id].raw_text, names)
        except EngineError:
            command = None
        if command is not None and command.name == "fix":
            continue  # typed as a correction (or a Telegram edit, read as one)
        joined, before = table_event(event), night.event(event.reverses)
        earlier = table_event(before) if before is not None else None
        if isinstance(joined, Win) and isinstance(earlier, Win) and is_joined(earlier, joined):
            found[event.id] = event.reverses
    return found


def is_joined(first: Win, both: Win) -> bool:
    """Whether `both` is `first` with more winners on the same discard."""
    claims = len(first.claims)
    same = [c.winner for c in both.claims[:claims]] == [c.winner for c in first.claims]
    return both.discarder == first.discarder and len(both.claims) > claims and same


def flow_lines(night: Night, events: list[EventRow], texts: Mapping[int, LineText]) -> dict[int, Reply]:
    """What a guided flow's token line (`/hu ~t…`) or a button's line (`/hu #1 self …`) stands for,
    with the names of who sat at that event: the record shows the event, never the token (`texts`:
    what was typed for these rows, `Night.texts`)."""
    seating = night.seating()
    shown: dict[int, Reply] = {}
    for event in events:
        typed = texts[event.id].raw_text
        if FLOW_MARK not in typed and not SEAT_MARK.search(typed):
            continue  # typed by a person: shown as typed
        decoded = table_event(event)
        if decoded is not None:
            sitting = seating.at.get(event.id, seating.now)
            shown[event.id] = describe(decoded, tuple(Seat(seating.names[index]) for index in sitting))
    return shown


def summary_replies(night: Night, tally: Tally) -> list[Reply]:
    """The night's figures, its tally's (`Night.tally`): players, not seats, so that after a 换人 each
    keeps their own."""
    names = night.player_names()
    everyone = night.people()
    stats = player_stats(tally, names)
    stats = [stats[index] for index in kept_indices(names, everyone)]  # no row for who left at 0
    return summary_lines(
        replace(night.row, stake_cents=night.stake_at(night.state.hand_no)),  # the stake in force
        tuple(Seat(p.name) for p in everyone),
        night.preset,
        [p.amount for p in everyone],
        [p.money_cents for p in everyone],
        stats,
        night.hands_played(),
        night.state.dealer_passes,
        # the current hand too: a 改底 for the next hand is the stake in force, as the header said before
        stakes=stake_runs(night.stake_schedule(), night.state.hand_no),
    )


# What a summary leaves out where the chat's board is pinned (Telegram): the standing, which the board
# shows, and each player's figures, which /stats keeps; who pays whom stays, what the table settles.
BESIDE_THE_BOARD = frozenset({"summary.rank", "summary.player_stats", "summary.player_stats_mixed"})


async def summary(context: Context) -> Response:
    """The night's figures and its chart are worked out in a worker thread: a long night's summary
    and any chart take longer than another chat should wait (the chat's own lines wait their turn)."""
    night = any_night(context)
    tally = await night.tally()  # stored with the last closed hand, and this one (or the whole night, once)
    lines = await in_thread(summary_replies, night, tally)
    attachments: list[Attachment] = []
    if context.services.charts_enabled:
        version = (night.id, night.log_size(), context.language)  # drawn again once something is recorded
        wanted = context.command.options.get("chart")
        named = wanted if wanted and Path(wanted).name not in ("", ".", "..") else None
        # a photo goes as JPEG (what Telegram makes of any photo); a file asked for by name (the
        # console's --chart x.png) is what its ending says
        image_format = format_for(named) if named else "JPEG"
        image = context.services.charts.kept(version, image_format)
        if image is None:
            shown = await in_thread(night_chart, night, tally, context.language)  # a long night's too
            try:
                image = await context.services.charts.chart(version, shown, image_format)
            except ChartNotDrawn:  # a hung drawing process: the figures go now, the chart another time
                lines.append(Reply("summary.chart_skipped"))
        if image is not None:
            chart = Attachment("photo", f"night-{night.id}.jpg", image)
            if named:  # the chat sees the file name; the console writes to the path
                chart = replace(chart, filename=Path(named).name, path=named)
            attachments.append(chart)
    choices: tuple[Choice, ...] = ()
    if not context.closed:
        lines.append(Reply("summary.confirm"))
        context.services.pending_close.add(context.incoming.chat_id)
        choices = (Choice(Reply("button.close_night"), "/close"),)
    return Response(
        tuple(lines),
        context.language,
        attachments=tuple(attachments),
        choices=choices,
        night_id=night.id,
        live=tuple(reply for reply in lines if reply.key not in BESIDE_THE_BOARD),
    )


async def unknown_command(context: Context) -> Response:
    """A `/word` that is no command; one slip from one (`/gnag Dave 3s`), the mended line too, as a button."""
    unknown = Reply("command.unknown", {"command": context.command.word or ""})
    slip = slash_slip(context.incoming.text, tuple(seated_names(context.seats)))
    miss = slash_miss(slip) if slip is not None else None
    if miss is None:
        raise Refusal(unknown)
    choices = hint_choices(miss, context.night, context.incoming.speaker) if context.night is not None else ()
    raise Refusal(Reply(miss.key, dict(miss.params)), choices=choices)


async def stats(context: Context) -> Response:
    """`/stats` and `/stats NAME`: careers across every night; `/stats PERIOD …`: that period's
    leaderboard (bot/chat/handlers/seasons.py)."""
    if context.command.period is not None:
        return await period_stats(context)
    replies = await chat_stats(context.services.nights, context.incoming.chat_id, context.command.word)
    if replies[0].key == "tab.stats_unknown":  # a word that is no one may have been meant as a period
        replies.append(Reply("period.or_a_period"))
    return Response(tuple(replies), context.language)


async def me(context: Context) -> Response:
    if not context.incoming.private:
        return Response((Reply("me.private_only"),), context.language)
    replies = await my_stats(context.services.nights, context.incoming.speaker.id)
    return Response(tuple(replies), context.language)


def night_csv(night: Night, texts: Mapping[int, LineText], language: str) -> bytes:
    """The night's CSV (`texts`: what was typed for every row and when, `Night.texts`)."""
    translator = Translator(language)  # a flow's token line is exported as what it stands for
    shown = {key: render(line, translator) for key, line in flow_lines(night, night.events, texts).items()}
    return export.night_csv(night_people(night, texts), shown)


async def export_(context: Context) -> Response:
    """Built in a worker thread, as the summary is."""
    if "all" in context.command.options:
        return await export_all(context)
    night = any_night(context)
    texts = await night.texts()  # every row's typed line and time: the night holds neither
    data = await in_thread(night_csv, night, texts, context.language)
    return Response(
        (Reply("export.done", {"night": night.number}),),
        context.language,
        attachments=(Attachment("document", f"night-{night.id}.csv", data),),
    )


async def export_all(context: Context) -> Response:
    """`/export all`: every closed night of the chat in one CSV, and the tab beside it in a second
    file (a CSV of its own: a spreadsheet reads one table a file, so the two are never mixed up).
    The nights' CSV is written to a file on disk as they are read (bot/views/chat_export.py)."""
    tab, persons, _, found = await read_tab(context)
    closed = [(marks, figures) for marks, figures in found if marks.closed]
    if not closed:
        raise Refusal(Reply("export.nothing_closed"))
    zone = await chat_zone(context)  # a night's date is the day it was opened on in the group's zone

    def day_of(opened: str) -> str:
        return local_day(opened, zone).isoformat()

    data = tempfile.TemporaryFile()  # noqa: SIM115 (the Response carries it; gone once it is let go of)
    try:
        await write_chat_csv(context.services.nights, context.incoming.chat_id, closed, persons, data, day_of)
    except BaseException:
        data.close()
        raise
    balances = [(persons.name(key), cents) for key, cents in tab.balances]
    transfers = [(persons.name(payer), persons.name(payee), cents) for payer, payee, cents in tab.transfers]
    chat = re.sub(r"[^0-9A-Za-z_-]", "_", context.incoming.chat_id)
    return Response(
        (Reply("export.all_done", {"nights": len(closed)}, count=len(closed)), *tab_replies(tab, persons)),
        context.language,
        attachments=(
            Attachment("document", f"nights-{chat}.csv", data),
            Attachment("document", f"tab-{chat}.csv", export.tab_csv(balances, transfers)),
        ),
    )
