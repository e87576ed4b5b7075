"""A win typed again, changed, right after it: a correction of it, or the next hand's win? Asked.

`李四: 胡 王五 清一色 对对胡 花3` (#2), then at once `李四: 胡 王五 清一色 花3`: a player who saw #2 come out
wrong and typed it again would be charged a second win. A win ends its hand, so a second win by the same
winner on the same discarder (or a second self-draw by the same winner), with nothing typed between, is
far more likely a correction than a new hand — when it could be the first retyped (`may_be_retyped`: the
same tiles but for a slip, or no tiles to tell; or typed within a minute of it); a dealer's next win with
another hand is recorded at once. The table says which (docs/rules.md, 16d):
[改 #2] records the line as `/fix 2 <the line>`, [下一盘又胡了] as a new win, [都不是] nothing. The question
is kept and answered like the repeat question (bot/chat/handlers/repeats.py): it outlives a restart, its
buttons carry its id, it is answered once and expires with it. Not asked: the same line again (the repeat
question asks that), another winner on the same discard (the 一炮多响 question asks that), another winner
or discarder, anything typed between, a line that says `also`, and a win tapped through the guided flow
(its winner and discarder were picked and its preview confirmed: a new win by design; a wrong one is
fixed with /fix).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime

from bot.chat.handlers import corrections, repeats, table_events
from bot.chat.handlers.common import Context, PendingRepeat, Refusal, ask, recording_night
from bot.chat.parser import parse
from bot.night.night import Night
from bot.night.seating import seated_names
from bot.text.replies import Choice, Reply, Response
from bot.views.said import describe
from engine.errors import EngineError
from engine.events import Win, WinInput


def retyped_win(night: Night, event: Win) -> int | None:
    """The place of the win just played that `event` may be typed again to correct: the same winners on
    the same discarder (both self-drawn: none), said differently, and nothing typed since. A win sent
    again unchanged is the repeat question's (table_events.repeated_win)."""
    if event.joins is not None or table_events.repeated_win(night, event) is not None:
        return None
    played = night.whole_fold().played
    if not played or not isinstance(played[-1].event, Win):
        return None
    last = played[-1].event
    root = last.joins if last.joins is not None and night.whole_fold().joined_group(last.joins) else played[-1].place
    winners = {c.winner for c in event.claims}
    for candidate in night.whole_fold().joined_group(root):  # one claim of a 一炮多响 may be the one retyped
        previous = candidate.event
        assert isinstance(previous, Win)
        if previous.discarder == event.discarder and {c.winner for c in previous.claims} == winners:
            return candidate.place if table_events.nothing_typed_since(night, played[-1].place) else None
    return None


def won(night: Night, place: int) -> int:
    """What the winners of the win at `place` took, in flowers (its payments, as played now)."""
    played = next(p for p in night.whole_fold().played if p.place == place)
    assert isinstance(played.event, Win)
    winners = {c.winner for c in played.event.claims}
    return sum(p.amount for p in played.payments if p.payee in winners) - sum(
        p.amount for p in played.payments if p.payer in winners
    )


async def ask_retyped(context: Context, night: Night, event: Win, same: int) -> Response:
    """Hold the win and ask: a correction of #same, or the next hand's win? No money moves before the
    answer; the question is kept like the repeat question (bot/chat/handlers/repeats.py)."""
    night.check(event)  # what the table refuses as a new win is refused, not asked about
    speaker = context.incoming.speaker.name
    text, asked_at = context.incoming.text.strip(), context.services.clock()
    held = PendingRepeat(
        night.id, night.state.hand_no, same, event, speaker, text, asked_at, after=night.log_size(), retyped=True
    )
    held = await repeats.remember(context.services, context.incoming.chat_id, held)
    previous = next(p.event for p in night.whole_fold().played if p.place == same)
    number = night.shown(same)
    params = {"id": number, "what": describe(previous, night.seats), "total": won(night, same)}
    again = repeats.again_command(held, True)
    choices = (
        Choice(Reply("button.retyped_fix", {"id": number}), f"{again} fix"),
        Choice(Reply("button.retyped_next"), f"{again} next"),
        Choice(Reply("button.retyped_neither"), repeats.again_command(held, False)),
    )
    return replace(ask(context, Reply("hu.retyped", params), choices), event_id=same)  # a reply acts on #same


async def hu(context: Context) -> Response:
    """A typed win: asked about when it may be the win just played typed again (`retyped_win`); every
    other win goes on as table_events.hu has it (recorded, or the repeat or 一炮多响 question)."""
    night = recording_night(context)
    command = context.command
    if command.also or table_events.from_flow(context) or table_events.is_bare_hu(command):
        return await table_events.hu(context)
    try:
        event = table_events.win_event(context, command, night.state)
    except (Refusal, EngineError):
        return await table_events.hu(context)  # it says why, as it always has
    same = retyped_win(night, event)
    if same is None or not table_events.fits(night, event):
        return await table_events.hu(context)
    if not may_be_retyped(night, event, same) and not await typed_soon_after(context, night, same):
        return await table_events.hu(context)  # another hand's tiles, typed later: the next hand's win
    return await ask_retyped(context, night, event, same)


SLIP_TILES = 2  # tiles a retyped hand may differ by (each way): a slip of the fingers, not another hand
RETYPE_SECONDS = 60  # a win typed within this of the one before it may be that one typed again, whatever it says


def tiles_of(claim: WinInput) -> Counter[int] | None:
    """The tiles of a claim typed with its hand (each meld's too); None for a win declared by patterns."""
    if claim.winning is None:
        return None
    found = Counter(claim.concealed)
    found[claim.winning] += 1
    for meld in claim.melds:
        found[meld.tile] += meld.size
    return found


def may_be_retyped(night: Night, event: Win, same: int) -> bool:
    """Whether `event` could be the win at `same` typed again (docs/rules.md 16d): each winner's hand the
    same tiles but for a slip (at most SLIP_TILES in, SLIP_TILES out), or no tiles to tell (a win
    declared by patterns, on either side: only its flowers, patterns and flags can differ)."""
    previous = next(p.event for p in night.whole_fold().played if p.place == same)
    assert isinstance(previous, Win)
    before = {c.winner: tiles_of(c) for c in previous.claims}
    for claim in event.claims:
        old, new = before.get(claim.winner), tiles_of(claim)
        if old is not None and new is not None and max((old - new).total(), (new - old).total()) > SLIP_TILES:
            return False
    return True


async def typed_soon_after(context: Context, night: Night, same: int) -> bool:
    """Whether the win at `same` (its latest version) was recorded less than RETYPE_SECONDS ago."""
    played = next(p for p in night.whole_fold().played if p.place == same)
    row = night.event(played.event_id)
    if row is None:
        return True  # not in memory: not known, so asked
    recorded = (await night.texts([row]))[row.id].created_at
    then = datetime.fromisoformat(recorded.replace("Z", "+00:00")).timestamp()
    return context.services.clock() - then < RETYPE_SECONDS


async def fix_with(context: Context, night: Night, pending: PendingRepeat) -> Response:
    """The held line recorded as `/fix N <the line>`: read at #N's place, as /fix reads it."""
    number = night.number_of(pending.same_id)
    if number is None:
        raise Refusal(Reply("repeat.gone", {"id": night.shown(pending.same_id)}))
    text = f"/fix {number} {pending.text}"
    command = parse(text, seated_names(night.seats))
    if command is None or command.name != "fix":
        raise Refusal(Reply("fix.usage"))
    return await corrections.fix(replace(context, command=command, incoming=replace(context.incoming, text=text)))
