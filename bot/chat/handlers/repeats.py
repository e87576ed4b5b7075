"""The repeat question (`和 #11 一样：…？[再记一次] [重复了，不记]`): an event the same as one already in its
hand (table_events.repeat_of) is held, asked about (`ask_repeat`), and moves money only on the table's
answer (bot/chat/handlers/again.py answers it; `again_args`, `live_questions` and `check_answerable` read
and check an answer). Unanswered questions outlive a restart.

A chat may have several questions open at once (C's and D's flower gangs, both reported twice): each
has its own id, and its buttons carry it (`/again q7`, `/again q7 no`, bot/chat/tokens.py QUESTION), so a
pressed button answers its own question and no other; a question is answered once. The open questions
are kept in the chat's settings (the ledger's `chat_settings`, append-only: a newer value replaces an
older one), with the last id given, so an id is never given twice in a chat and `再记一次` after a
restart still records the held event. A question expires like a guided flow (`REPEAT_MINUTES` after it
was asked, by the wall clock) and is stale once its hand is over; both are checked when it is answered.

The API (also for other questions that hold an event until the table answers): `remember` holds a
question and gives it its id, `open_questions` lists the chat's, `take` answers one by its id, once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from bot.chat.command import Command
from bot.chat.handlers.common import Context, PendingRepeat, Refusal, Services, ask
from bot.chat.tokens import question_of, question_token
from bot.night.codec import decode_event, encode_event, event_kind
from bot.night.night import Night
from bot.text.replies import Choice, Reply, Response
from bot.views.said import describe
from engine.errors import EngineError
from engine.events import Event, Win

SETTING = "pending_repeat"


def _question(pending: PendingRepeat) -> dict[str, Any]:
    return {
        "id": pending.question,
        "night": pending.night_id,
        "hand": pending.hand_no,
        "same": pending.same_id,
        "kind": event_kind(pending.event),
        "event": encode_event(pending.event),
        "speaker": pending.speaker,
        "text": pending.text,
        "asked_at": pending.asked_at,
        "after": pending.after,
        "retyped": pending.retyped,
    }


WITHDRAWN_KEPT = 20  # a withdrawn question's buttons are told so while it is among the chat's latest


@dataclass(frozen=True)
class HeldPayment:
    """A payment the same as the one just recorded (`付了 李四 80` sent twice), held until the table
    answers (bot/chat/handlers/paid_again.py). It is kept with the chat's other questions, its id given
    from the same count, so its buttons (`/again qN`) answer it and no other, once."""

    question: int
    same: int  # the number of the payment it repeats (付款 N)
    payload: str  # the tab entry it would record
    speaker: str  # who typed it, and what: the payment is recorded as theirs
    text: str
    asked_at: float
    writer: str = ""  # the person who typed it (bot/views/stats.Persons key): the payer, or someone else

    def stored(self) -> dict[str, Any]:
        return {
            "id": self.question,
            "same": self.same,
            "payload": self.payload,
            "speaker": self.speaker,
            "text": self.text,
            "asked_at": self.asked_at,
            "writer": self.writer,
        }


def _read_payment(data: Any) -> HeldPayment | None:
    try:
        fields = (str(data["payload"]), str(data["speaker"]), str(data["text"]), float(data["asked_at"]))
        return HeldPayment(int(data["id"]), int(data["same"]), *fields, str(data.get("writer", "")))
    except (KeyError, TypeError, ValueError):
        return None


def encode(
    questions: tuple[PendingRepeat, ...],
    last_id: int,
    withdrawn: tuple[int, ...] = (),
    payments: tuple[HeldPayment, ...] = (),
) -> str:
    data = {"last": last_id, "open": [_question(q) for q in questions], "withdrawn": list(withdrawn)}
    if payments:
        data["payments"] = [p.stored() for p in payments]
    return json.dumps(data, ensure_ascii=False)


def _read(data: Any) -> PendingRepeat | None:
    try:
        event = decode_event(str(data["kind"]), str(data["event"]))
        return PendingRepeat(
            int(data["night"]),
            int(data["hand"]),
            int(data["same"]),
            event,
            str(data["speaker"]),
            str(data["text"]),
            float(data["asked_at"]),
            int(data.get("id", 1)),
            int(data.get("after", -1)),
            bool(data.get("retyped", False)),
        )
    except (EngineError, KeyError, TypeError, ValueError, AttributeError):
        return None


def decode(stored: str | None) -> tuple[tuple[PendingRepeat, ...], int]:
    """The stored open questions and the last id given (none stored, cleared, or unreadable: none). A
    question stored alone by an earlier version is read as question 1."""
    if not stored:
        return (), 0
    try:
        data = json.loads(stored)
    except ValueError:
        return (), 0
    if isinstance(data, dict) and "open" not in data:  # one question, as an earlier version kept it
        found = _read(data)
        return ((found,), 1) if found is not None else ((), 0)
    if not isinstance(data, dict) or not isinstance(data.get("open"), list):
        return (), 0
    questions = tuple(q for q in map(_read, data["open"]) if q is not None)
    try:
        last = int(data.get("last", 0))
    except (TypeError, ValueError):
        last = 0
    return questions, max([last, *(q.question for q in questions)])


def decode_withdrawn(stored: str | None) -> tuple[int, ...]:
    """The ids of the questions a bare /undo withdrew lately (none stored, or unreadable: none)."""
    try:
        data = json.loads(stored) if stored else {}
        return tuple(int(i) for i in data.get("withdrawn", ())) if isinstance(data, dict) else ()
    except (ValueError, TypeError, AttributeError):
        return ()


def decode_payments(stored: str | None) -> tuple[HeldPayment, ...]:
    """The payments held by a question (none stored, or unreadable: none)."""
    try:
        data = json.loads(stored) if stored else {}
        found = data.get("payments", ()) if isinstance(data, dict) else ()
        return tuple(p for p in map(_read_payment, found) if p is not None)
    except (ValueError, TypeError, AttributeError):
        return ()


async def _load(services: Services, chat_id: str) -> tuple[tuple[PendingRepeat, ...], int, tuple[int, ...]]:
    """The open questions, the last id given, and the ids withdrawn lately."""
    stored = await services.nights.setting(chat_id, SETTING)
    questions, last = decode(stored)
    held = decode_payments(stored)
    return questions, max([last, *(p.question for p in held)]), decode_withdrawn(stored)


async def _store(
    services: Services,
    chat_id: str,
    questions: tuple[PendingRepeat, ...],
    last_id: int,
    withdrawn: tuple[int, ...],
    payments: tuple[HeldPayment, ...] | None = None,
) -> None:
    """Keep the chat's questions (the held payments as they are, unless given)."""
    if payments is None:
        payments = decode_payments(await services.nights.setting(chat_id, SETTING))
    services.pending_repeats[chat_id] = questions
    stored = encode(questions, last_id, withdrawn[-WITHDRAWN_KEPT:], payments)
    await services.nights.set_setting(chat_id, SETTING, stored)


async def remember(services: Services, chat_id: str, pending: PendingRepeat) -> PendingRepeat:
    """Hold the question with a new id (committed before the question is sent); returns it with its id.
    The same question asked again while it is open (a third report of the same gang) replaces it:
    the table answers it once."""
    questions, last, withdrawn = await _load(services, chat_id)
    asked = replace(pending, question=last + 1)
    kept = tuple(q for q in questions if not same_question(q, asked))
    await _store(services, chat_id, (*kept, asked), asked.question, withdrawn)
    return asked


def same_question(one: PendingRepeat, other: PendingRepeat) -> bool:
    key = (one.night_id, one.hand_no, one.same_id, one.event)
    return key == (other.night_id, other.hand_no, other.same_id, other.event)


async def open_questions(services: Services, chat_id: str) -> tuple[PendingRepeat, ...]:
    """The chat's questions not answered yet, oldest first (expired or stale ones too: `take` says so)."""
    return (await _load(services, chat_id))[0]


async def take(services: Services, chat_id: str, question: int | None = None) -> PendingRepeat | None:
    """Question `question`, answered once: it is removed (in the ledger too) as it is taken; None when
    it is not open (answered already, or never asked). Without an id: the chat's one open question,
    None when there are more (an answer must say which)."""
    questions, last, withdrawn = await _load(services, chat_id)
    if question is None:
        found = questions[0] if len(questions) == 1 else None
    else:
        found = next((q for q in questions if q.question == question), None)
    if found is not None:
        await _store(services, chat_id, tuple(q for q in questions if q is not found), last, withdrawn)
    return found


async def withdraw(services: Services, chat_id: str, question: int) -> PendingRepeat | None:
    """Question `question` withdrawn by a bare /undo (its line never recorded): taken like an answer,
    and its id kept so that its buttons, pressed later, are told so."""
    questions, last, withdrawn = await _load(services, chat_id)
    found = next((q for q in questions if q.question == question), None)
    if found is not None:
        await _store(services, chat_id, tuple(q for q in questions if q is not found), last, (*withdrawn, question))
    return found


async def was_withdrawn(services: Services, chat_id: str, question: int) -> bool:
    return question in (await _load(services, chat_id))[2]


async def drop(services: Services, chat_id: str, gone: tuple[PendingRepeat, ...]) -> None:
    """Forget questions that can no longer be answered (expired, or their hand is over)."""
    questions, last, withdrawn = await _load(services, chat_id)
    kept = tuple(q for q in questions if q not in gone)
    if kept != questions:
        await _store(services, chat_id, kept, last, withdrawn)


async def open_payments(services: Services, chat_id: str) -> tuple[HeldPayment, ...]:
    """The chat's held payments not answered yet, oldest first."""
    return decode_payments(await services.nights.setting(chat_id, SETTING))


async def remember_payment(services: Services, chat_id: str, held: HeldPayment) -> HeldPayment:
    """Hold a payment's question with a new id (the count the chat's other questions take theirs from);
    the same payment asked about again while it is open replaces it."""
    questions, last, withdrawn = await _load(services, chat_id)
    asked = replace(held, question=last + 1)
    kept = tuple(p for p in await open_payments(services, chat_id) if (p.same, p.payload) != (held.same, held.payload))
    await _store(services, chat_id, questions, asked.question, withdrawn, (*kept, asked))
    return asked


async def take_payment(
    services: Services, chat_id: str, question: int, withdrawing: bool = False
) -> HeldPayment | None:
    """Held payment `question`, answered (or withdrawn by a bare /undo) once; None when it is not open."""
    questions, last, withdrawn = await _load(services, chat_id)
    held = await open_payments(services, chat_id)
    found = next((p for p in held if p.question == question), None)
    if found is not None:
        gone = (*withdrawn, question) if withdrawing else withdrawn
        await _store(services, chat_id, questions, last, gone, tuple(p for p in held if p is not found))
    return found


def again_command(pending: PendingRepeat | HeldPayment, record: bool) -> str:
    """What a question's button sends: its own id, so it answers that question and no other."""
    token = question_token(pending.question)
    return f"/again {token}" if record else f"/again {token} no"


# ---- the question: asked, and its answers read ---------------------------------------------------


REPEAT_MINUTES = 10  # a repeat's question lasts as long as a guided flow


async def ask_repeat(context: Context, night: Night, event: Event, same: int) -> Response:
    """Hold the event and ask (the question outlives a restart, kept as `remember` keeps it); the money
    moves only on 再记一次 (`/again`). Its buttons carry its own id: they answer this question only."""
    speaker = context.incoming.speaker.name
    text, asked_at = context.incoming.text.strip(), context.services.clock()
    held = PendingRepeat(night.id, night.state.hand_no, same, event, speaker, text, asked_at, after=night.log_size())
    held = await remember(context.services, context.incoming.chat_id, held)
    question = Reply("repeat.ask", {"id": night.shown(same), "what": describe(event, night.seats)})
    choices = (
        Choice(Reply("button.again"), again_command(held, True)),
        Choice(Reply("button.not_again"), again_command(held, False)),
    )
    return replace(ask(context, question, choices), event_id=same)  # a reply to it acts on #same (named_lines.py)


def again_args(command: Command) -> tuple[int | None, int | None, bool]:
    """`/again [qN | N] [no]`: the question a button names (qN), or the event a typed answer names (N:
    the question `和 #N 一样`), and whether it is dropped."""
    words = (command.word or "").lower().split()
    drop = bool(words) and words[-1] == "no"
    rest = words[:-1] if drop else words
    if len(rest) > 1:
        raise Refusal(Reply("command.extra_args", {"extra": " ".join(rest[1:])}))
    if not rest:
        return None, None, drop
    question = question_of(rest[0])
    if question is not None:
        return question, None, drop
    if rest[0].lstrip("#").isdigit() and len(rest[0]) <= 9:
        return None, int(rest[0].lstrip("#")), drop
    raise Refusal(Reply("command.extra_args", {"extra": rest[0]}))


async def answered_already(context: Context, question: int) -> Response:
    """A question's answer that came after it was answered (or withdrawn by /undo): told so, to the presser."""
    services, chat = context.services, context.incoming.chat_id
    said = "repeat.withdrawn" if await was_withdrawn(services, chat, question) else "repeat.answered"
    return Response((Reply(said),), context.language, spent=True)


def answer_ending(command: Command, last: str) -> tuple[Command, bool]:
    """`/again [qN] <last>`: whether the answer ends with the word `last` (a button's choice), and
    the command without it, read as any answer."""
    words = (command.word or "").split()
    if not words or words[-1].lower() != last:
        return command, False
    return replace(command, word=" ".join(words[:-1]) or None), True


def next_hand_answer(command: Command) -> tuple[Command, bool]:
    """`/again [qN] next`: [是下一盘], the held win is the next hand's; the rest read as any answer."""
    return answer_ending(command, "next")


def takes_next(pending: PendingRepeat) -> bool:
    """Whether [下一盘] answers the question: a same-discard one, or a retyped win's (retyped.py)."""
    return pending.retyped or is_same_discard(pending)


def is_same_discard(pending: PendingRepeat) -> bool:
    """Whether the question is `和 #N 同一张牌吗？` (a win held with the win it may join)."""
    return isinstance(pending.event, Win) and pending.event.joins is not None


async def live_questions(context: Context, night: Night) -> list[PendingRepeat]:
    """The questions of this hand still within their time; the others are forgotten. None at all:
    refused (`expired` when the only ones left had run out of time)."""
    services, chat = context.services, context.incoming.chat_id
    questions = await open_questions(services, chat)
    current = [q for q in questions if (q.night_id, q.hand_no) == (night.id, night.state.hand_no)]
    live = [q for q in current if not expired(context, q)]
    gone = tuple(q for q in questions if q not in live)
    if gone:
        await drop(services, chat, gone)
    if not live:
        raise Refusal(Reply("repeat.expired" if current else "repeat.nothing"))
    return live


def is_stale(night: Night, pending: PendingRepeat) -> bool:
    """Whether the event the question is about (`和 #N 一样`, `和 #N 同一张牌吗`) was undone since: a
    same-discard question while any claim of that win stands, a repeat while its event does."""
    if night.current_version(pending.same_id) is not None:
        return False
    if not is_same_discard(pending):
        return True
    played = night.whole_fold().played  # a win several claims share stands while any of its claims does
    return not any(isinstance(p.event, Win) and p.event.joins == pending.same_id for p in played)


def expired(context: Context, pending: PendingRepeat) -> bool:
    return context.services.clock() - pending.asked_at > REPEAT_MINUTES * 60


def which_question(context: Context, night: Night, waiting: list[PendingRepeat], drop: bool) -> Response:
    """Several questions open: which one does the answer answer? Each as a button of its own."""
    lines = [
        Reply("repeat.open_line", {"id": night.shown(q.same_id), "what": describe(q.event, night.seats)})
        for q in waiting
    ]
    label = "button.not_again_this" if drop else "button.again_this"
    choices = tuple(
        Choice(Reply(label, {"what": describe(q.event, night.seats)}), again_command(q, not drop)) for q in waiting
    )
    return ask(context, Reply("repeat.which", {"count": len(waiting), "questions": lines}), choices)


def check_answerable(context: Context, night: Night, pending: PendingRepeat) -> None:
    """A question taken is answered only while its hand is on, its event stands and its time is not over."""
    if (pending.night_id, pending.hand_no) != (night.id, night.state.hand_no):
        raise Refusal(Reply("repeat.nothing"))
    if is_stale(night, pending):  # its event undone since: nothing is left for the answer to be about
        raise Refusal(Reply("repeat.gone", {"id": night.shown(pending.same_id)}))
    if expired(context, pending):
        raise Refusal(Reply("repeat.expired"))
