"""A win typed again, changed, right after it: a correction of it, or the next hand's win? Asked.

`李四: 胡 王五 清一色 对对胡 花3` (#2), then at once `李四: 胡 王五 清一色 花3`: a player who saw #2 come out
wrong and typed it again would be charged a second win. A win ends its hand, so a second win by the same
winner on the same discarder (or a second self-draw by the same winner), with nothing typed between, is
far more likely a correction than a new hand; the table says which (docs/rules.md, 16d):
[改 #2] records the line as `/fix 2 <the line>`, [下一盘又胡了] as a new win, [都不是] nothing. The question
is kept and answered like the repeat question (bot/chat/handlers/repeats.py): it outlives a restart, its
buttons carry its id, it is answered once and expires with it. Not asked: the same line again (the repeat
question asks that), another winner on the same discard (the 一炮多响 question asks that), another winner
or discarder, anything typed between, a line that says `also`, and a win tapped through the guided flow
(its winner and discarder were picked and its preview confirmed: a new win by design; a wrong one is
fixed with /fix).
"""

from __future__ import annotations

from dataclasses import replace

from bot.chat.command import Command
from bot.chat.handlers import corrections, repeats, table_events
from bot.chat.handlers.common import Context, PendingRepeat, Refusal, ask, recording_night
from bot.chat.parser import parse
from bot.night.night import Night
from bot.night.seating import seated_names
from bot.text.replies import Choice, Reply, Response
from bot.views.said import describe
from engine.errors import EngineError
from engine.events import Win


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
    return ask(context, Reply("hu.retyped", params), choices)


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
    return await ask_retyped(context, night, event, same)


def fix_answer(command: Command) -> tuple[Command, bool]:
    """`/again [qN] fix`: [改 #N], the held win corrects the win it was asked about."""
    return table_events.answer_ending(command, "fix")


async def again(context: Context) -> Response:
    """再记一次 / `/again …`: `fix` answers a retyped win's question with a correction; every other
    answer is table_events.again's (a retyped win's [下一盘又胡了] is its `next`, [都不是] its `no`)."""
    command, fixing = fix_answer(context.command)
    if not fixing:
        return await table_events.again(context)
    night = recording_night(context)
    question, _, drop = table_events.again_args(command)
    services, chat = context.services, context.incoming.chat_id
    asked = await repeats.open_questions(services, chat)
    if question is not None and not any(q.question == question for q in asked):  # answered already
        return await table_events.answered_already(context, question)
    waiting = [q for q in asked if q.retyped]
    if question is None:  # typed: the one retyped question open in this hand
        here = [q for q in waiting if (q.night_id, q.hand_no) == (night.id, night.state.hand_no)]
        question = here[0].question if len(here) == 1 else None
    if drop or question is None or not any(q.question == question for q in waiting):
        raise Refusal(Reply("command.extra_args", {"extra": "fix"}))  # only a retyped win is fixed by it
    pending = await repeats.take(services, chat, question)
    if pending is None:
        return Response((Reply("repeat.answered"),), context.language, spent=True)
    table_events.check_answerable(context, night, pending)
    return await fix_with(context, night, pending)


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
