"""A payment sent twice is asked about, as a table event sent twice is (docs/players.md, the tab).

`付了 李四 80`, then `付了 李四 80` again with nothing between: a thumb that sent the line twice would
put 80 on the tab that nobody paid. The second is held (bot/chat/handlers/tab.py `ask_repeat`) and
asked about with the repeat question's words and buttons: [再记一次] records it, [重复了，不记]
drops it. The question is kept with the chat's other questions (bot/chat/handlers/repeats.py): it
outlives a restart, its buttons carry its id, it is answered once and lasts `REPEAT_MINUTES`; a bare
`/undo` right after it withdraws the held line, never the payment before it. A payment belongs to the
chat, not to a night: it is asked and answered with or without a night open.

`again` answers `再记一次` / `/again …` for a held payment, and hands every other answer to the table's
(bot/chat/handlers/retyped.py, bot/chat/handlers/table_events.py).
"""

from __future__ import annotations

from bot.chat.handlers import repeats, retyped, tab, table_events
from bot.chat.handlers.common import Context, Refusal
from bot.chat.handlers.repeats import HeldPayment
from bot.chat.tokens import question_of
from bot.text.replies import Reply, Response


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
        if any(q.question > newest.question and not table_events.expired(context, q) for q in here):
            return None, drop
    return newest, drop


async def again(context: Context) -> Response:
    """再记一次 / `/again [qN] [no]`: the held payment recorded, or dropped; any other question's answer
    is the table's. A button pressed after its question was answered (or withdrawn) is told so."""
    held, drop = await _held(context)
    if held is None:
        question, _, _ = _asked(context)
        asked = await repeats.open_questions(context.services, context.incoming.chat_id)
        if question is not None and not any(q.question == question for q in asked):
            return await table_events.answered_already(context, question)  # with or without a night open
        if context.night is None or context.closed:  # no table question without a night: none is waiting
            raise Refusal(Reply("repeat.nothing"))
        return await retyped.again(context)
    if context.incoming.private:
        raise Refusal(Reply("night.private_chat"))
    _, persons, log, _ = await tab.read_tab(context)
    tab.may_write(context, persons)
    taken = await repeats.take_payment(context.services, context.incoming.chat_id, held.question)
    if taken is None:
        return await table_events.answered_already(context, held.question)
    if not tab.in_time(context, taken):
        raise Refusal(Reply("repeat.expired"))
    same = next((e for e in log if e.row.kind == tab.PAID and e.number == taken.same), None)
    if same is None or not same.active:  # taken back since: nothing is left for the answer to be about
        raise Refusal(Reply("tab.paid_repeat_gone", {"number": taken.same}))
    if drop:
        said = Reply("tab.paid_repeat_dropped", tab.payment_params(persons, same))
        return Response((said,), context.language, settles=True)
    return await tab.record_payment(context, taken.payload, (taken.speaker, taken.text, context.incoming.update_key))
