"""Undo of any past event: the night is re-derived as if it had never happened."""

from __future__ import annotations

from bot.handlers.common import Context, Refusal, board, recording_night
from bot.handlers.table_events import REVERSIBLE
from bot.ledger import EventRow
from bot.night import Night
from bot.replies import Reply, Response
from bot.views import payment_lines


def target_of(night: Night, number: int | None) -> EventRow:
    """The event to correct: #N, or the latest one that can be undone."""
    if number is None:
        target = night.last_active(REVERSIBLE)
        if target is None:
            raise Refusal(Reply("undo.nothing"))
        return target
    target = night.event(number)
    if target is None:
        raise Refusal(Reply("undo.no_such_event", {"id": number}))
    if night.reverser(target.id) is not None:
        raise Refusal(Reply("undo.already_undone", {"id": target.id}))
    if target.kind not in REVERSIBLE:
        raise Refusal(Reply("undo.not_undoable", {"id": target.id, "kind": Reply(f"kind.{target.kind}")}))
    return target


async def undo(context: Context) -> Response:
    night = recording_night(context)
    target = target_of(night, context.command.number)
    corrected = await night.correct(context.line, target, None)
    replies = [Reply("undo.done", {"id": corrected.event_id, "target": target.id, "text": target.raw_text})]
    replies.extend(payment_lines(corrected.payments, night.seats, night.preset))
    return Response(
        tuple(replies),
        context.language,
        recorded=True,
        night_id=night.id,
        hand_no=night.state.hand_no,
        scoreboard=board(night),
    )
