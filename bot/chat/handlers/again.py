"""再记一次 / `/again`: the answer to every question that holds a line until the table says what it was.

Four questions hold a line and move no money before they are answered, each kept with the chat's others
(bot/chat/handlers/repeats.py: it outlives a restart, its buttons carry its id, it is answered once and
lasts `REPEAT_MINUTES`; a bare `/undo` right after it withdraws the held line):
- a table event the same as one already in its hand (`和 #2 一样：…，又一次？`, repeats.py): [再记一次]
  records it, [重复了，不记] drops it;
- a second winner on the discard just won on (`和 #6 同一张牌吗？`, table_events.py): [一炮多响] joins it,
  [是下一盘] (`next`) records it as a win of its own;
- a win typed again, changed (`这一条是改 #9，还是下一盘又胡了？`, retyped.py): [改 #9] (`fix`) records it
  as `/fix 9 <the line>`, [下一盘又胡了] (`next`) as a new win, [都不是] (`no`) nothing;
- a payment the same as the one just recorded (`和付款 1 一样：…，又付了一次？`, tab.py): a payment belongs to
  the chat, not to a night, so it is asked and answered with or without a night open.
"""

from __future__ import annotations

from bot.chat.command import Command
from bot.chat.handlers import repeats, retyped, tab, table_events
from bot.chat.handlers.common import Context, PendingRepeat, Refusal, recorded_response, recording_night
from bot.chat.handlers.repeats import (
    HeldPayment,
    again_args,
    answer_ending,
    answered_already,
    check_answerable,
    live_questions,
    next_hand_answer,
    takes_next,
    which_question,
)
from bot.chat.tokens import question_of
from bot.night.fold import Line
from bot.night.night import Night
from bot.text.replies import Reply, Response
from engine.events import Win


def _asked(context: Context) -> tuple[int | None, bool, bool]:
    """The answer's question id (a button's `qN`), whether it drops the line, and whether it is one a
    payment's question can take at all (not `next`, `fix` or a line's number)."""
    words = (context.command.word or "").lower().split()
    drop = bool(words) and words[-1] == "no"
    rest = words[:-1] if drop else words
    if not rest:
        return None, drop, True
    question = question_of(rest[0]) if len(rest) == 1 else None
    return question, drop, question is not None


async def _held(context: Context) -> tuple[HeldPayment | None, bool]:
    """The held payment the answer is about (None: it is the table's), and whether it drops it."""
    question, drop, fits = _asked(context)
    if not fits:
        return None, drop
    services, chat = context.services, context.incoming.chat_id
    held = await repeats.open_payments(services, chat)
    if question is not None:
        return next((p for p in held if p.question == question), None), drop
    waiting = [p for p in held if tab.in_time(context, p)]
    if not waiting:
        return None, drop
    newest = max(waiting, key=lambda p: p.question)
    night = context.night
    if night is not None and not night.closed:  # a table question asked after it is the one answered
        table = await repeats.open_questions(services, chat)
        here = [q for q in table if (q.night_id, q.hand_no) == (night.id, night.state.hand_no)]
        if any(q.question > newest.question and not repeats.expired(context, q) for q in here):
            return None, drop
    return newest, drop


async def again(context: Context) -> Response:
    """再记一次 / `/again [qN] [no|next|fix]`: a held payment's answer here, a retyped win's [改] (`fix`) by
    `fixed`, every other by `table_again`. A button pressed after its question was answered (or
    withdrawn) is told so."""
    held, drop = await _held(context)
    if held is None:
        question, _, _ = _asked(context)
        asked = await repeats.open_questions(context.services, context.incoming.chat_id)
        if question is not None and not any(q.question == question for q in asked):
            return await answered_already(context, question)  # with or without a night open
        if context.night is None or context.closed:  # no table question without a night: none is waiting
            raise Refusal(Reply("repeat.nothing"))
        command, fixing = answer_ending(context.command, "fix")
        return await fixed(context, command) if fixing else await table_again(context)
    if context.incoming.private:
        raise Refusal(Reply("night.private_chat"))
    _, persons, log, _ = await tab.read_tab(context)
    tab.may_write(context, persons)
    taken = await repeats.take_payment(context.services, context.incoming.chat_id, held.question)
    if taken is None:
        return await answered_already(context, held.question)
    if not tab.in_time(context, taken):
        raise Refusal(Reply("repeat.expired"))
    same = next((e for e in log if e.row.kind == tab.PAID and e.number == taken.same), None)
    if same is None or not same.active:  # taken back since: nothing is left for the answer to be about
        raise Refusal(Reply("tab.paid_repeat_gone", {"number": taken.same}))
    if drop:
        said = Reply("tab.paid_repeat_dropped", tab.payment_params(persons, same))
        return Response((said,), context.language, settles=True)
    line = (taken.speaker, taken.text, context.incoming.update_key)  # the line as first typed
    return await tab.record_payment(context, taken.payload, line, taken.writer or None)


async def table_again(context: Context) -> Response:
    """再记一次 / `/again`: record the held repeat; `/again no`: drop it. Once, within the time. A typed
    answer applies only when one question is open (or it names the event: `/again 3`); with more, it
    asks which, with buttons. A button answers its own question, and a second press is told so."""
    night = recording_night(context)
    command, next_hand = next_hand_answer(context.command)
    question, number, drop = again_args(command)
    services, chat = context.services, context.incoming.chat_id
    if question is not None:
        asked = [q for q in await repeats.open_questions(services, chat) if q.question == question]
        if next_hand and asked and not takes_next(asked[0]):
            raise Refusal(Reply("command.extra_args", {"extra": "next"}))
        pending = await repeats.take(services, chat, question)
        if pending is None:  # answered already (by this button, another one, a typed answer, or /undo)
            return await answered_already(context, question)
        return await answer_repeat(context, night, pending, drop, next_hand)
    waiting = await live_questions(context, night)
    if number is not None:
        waiting = [q for q in waiting if night.number_of(q.same_id) == number]  # `和 #N 一样`: a line's number
        if not waiting:
            raise Refusal(Reply("repeat.none_like", {"id": number}))
    if next_hand:  # `/again next` answers a same-discard question only
        waiting = [q for q in waiting if takes_next(q)]
        if not waiting:
            raise Refusal(Reply("command.extra_args", {"extra": "next"}))
    if len(waiting) > 1:
        return which_question(context, night, waiting, drop)
    pending = await repeats.take(services, chat, waiting[0].question)
    if pending is None:
        raise Refusal(Reply("repeat.nothing"))
    return await answer_repeat(context, night, pending, drop, next_hand)


async def answer_repeat(
    context: Context, night: Night, pending: PendingRepeat, drop: bool, next_hand: bool = False
) -> Response:
    """The answer to one question, taken already."""
    check_answerable(context, night, pending)
    if isinstance(pending.event, Win) and pending.event.joins is not None:  # 和 #N 同一张牌吗？
        return await table_events.answer_same_discard(context, night, pending, drop, next_hand)
    if drop:  # the chat sees the answer, and the question's buttons go (Response.settles)
        return Response(
            (Reply("repeat.dropped", {"id": night.shown(pending.same_id)}),), context.language, settles=True
        )
    line = Line(pending.speaker, pending.text, context.incoming.update_key)  # the line as first typed
    return recorded_response(context, night, await night.record(line, pending.event))


async def fixed(context: Context, command: Command) -> Response:
    """`/again [qN] fix`: [改 #N], the held win corrects the win it was asked about (retyped.py); only a
    retyped win's question takes it (a retyped win's [下一盘又胡了] is its `next`, [都不是] its `no`)."""
    night = recording_night(context)
    question, _, drop = again_args(command)
    services, chat = context.services, context.incoming.chat_id
    asked = await repeats.open_questions(services, chat)
    if question is not None and not any(q.question == question for q in asked):  # answered already
        return await answered_already(context, question)
    waiting = [q for q in asked if q.retyped]
    if question is None:  # typed: the one retyped question open in this hand
        here = [q for q in waiting if (q.night_id, q.hand_no) == (night.id, night.state.hand_no)]
        question = here[0].question if len(here) == 1 else None
    if drop or question is None or not any(q.question == question for q in waiting):
        raise Refusal(Reply("command.extra_args", {"extra": "fix"}))  # only a retyped win is fixed by it
    pending = await repeats.take(services, chat, question)
    if pending is None:
        return Response((Reply("repeat.answered"),), context.language, spent=True)
    check_answerable(context, night, pending)
    return await retyped.fix_with(context, night, pending)
