"""Which line an answer names, so that a reply to it acts on that line (docs/players.md, "A reply names
the line"; the table of answers there).

An answer that records a line reports it (`✅ #N`, `✏️ #N`, `↩️ #N`, `✅ #N 规则改了`): its Response's
`event_id`. A refusal that names another line as the thing to undo or fix (`#3 是碰：…要删掉它用 撤销 3`,
`这一条已经记过了：#5`, `#4 碰 6s 不在胡的牌里：…或先 撤销 4`, `这样改之后 #7 就不成立了`) names it here,
so that `撤销` or `改 …` sent as a reply to that refusal acts on the line it names, exactly as the
`/undo N` or `/fix N …` it spells out would: a refused line records nothing, but its answer is a
pointer to a line all the same. A question about a line (`和 #2 一样`, `和 #6 同一张牌吗`, `这一条是改 #9`)
names it the same way, where it is asked (repeats.py, table_events.py, retyped.py): a reply acts on the
line, a bare `/undo` withdraws the held one. The Telegram front end keeps what each answer names by its message
id (bot/store/answers.py); bot/chat/handlers/reply_to.py reads it.
"""

from __future__ import annotations

from bot.chat.handlers.common import Refusal
from bot.night.night import Night
from engine.errors import EngineError
from engine.melds import LoggedMeldMissing

# engine refusals whose `id` is the ledger row of the line they name (bot/night/checks.py, bot/night/fold.py)
ROW_KEYS = frozenset({"event.already_recorded", "win.joined_apart", "win.joined_other_discard"})


def meld_row(night: Night, error: LoggedMeldMissing, hand: int) -> int | None:
    """The row of the logged meld a typed win does not hold (the line `meld_conflict` names)."""
    events = night.meld_events(int(str(error.params["seat"])), hand)
    return events[error.index] if error.index < len(events) else None


def named_line(error: Exception, night: Night | None) -> int | None:
    """The row of the line a refusal names for its undo or fix, None when it names none."""
    if isinstance(error, Refusal):
        return error.line
    if night is None or not isinstance(error, EngineError):
        return None
    if isinstance(error, LoggedMeldMissing):
        return meld_row(night, error, night.state.hand_no)
    named = error.params.get("id")
    return named if error.key in ROW_KEYS and isinstance(named, int) else None
