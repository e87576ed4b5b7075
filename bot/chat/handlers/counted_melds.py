"""A win whose tiles do not add up because the log added melds says which (#48 item 9).

A win typed without melds is counted with the winner's melds logged this hand (docs/rules.md 15):
`胡 自摸 123m456m789m234p5p+5p` after B's logged 暗杠 9s is 14 typed tiles and a gang, 17. The count
alone (`17 tiles (each meld counts 3), a win needs 14`) leaves the player to guess where the other
three came from; the refusal names the logged meld by its line, so the fix is plain: leave its tiles
out of the hand, or undo the line.
"""

from __future__ import annotations

from bot.chat.handlers.common import Refusal
from bot.night.fold import table_event
from bot.night.night import Night
from bot.text.replies import LIST, Joined, Reply
from bot.views.said import tile_word
from engine.errors import EngineError
from engine.events import Gang, Pong, Win
from engine.hand import MeldKind
from engine.tiles import tile_name

TILE_COUNT = "hand.tile_count"


def with_logged_melds(night: Night, event: Win, error: EngineError) -> Refusal | None:
    """The tile-count refusal of `event` with the logged melds it counted named; None when the error
    is another, or no logged meld was added to a typed hand."""
    if error.key != TILE_COUNT:
        return None
    named = logged_melds_counted(night, event)
    if not named:
        return None
    counted = Reply("hand.counted_logged", {"melds": Joined(tuple(named), LIST)})
    return Refusal(Reply(error.key, dict(error.params)), counted)


def logged_melds_counted(night: Night, event: Win) -> list[Reply]:
    """`#2 暗杠 9条`: each meld logged this hand for a winner whose hand was typed without melds."""
    found: list[Reply] = []
    for claim in event.claims:
        if claim.melds or claim.winning is None:
            continue  # melds typed: the log adds none (a logged one missing is refused by its own words)
        for event_id in night.meld_events(claim.winner, night.state.hand_no):
            row = night.event(event_id)
            meld = table_event(row) if row is not None else None
            if not isinstance(meld, Pong | Gang):
                continue
            kind = Reply(f"meld_name.{meld.kind if isinstance(meld, Gang) else MeldKind.PONG}")
            shown = Reply("meld.named", {"kind": kind, "tile": tile_word(tile_name(meld.tile))}) if meld.tile else kind
            found.append(Reply("hand.logged_meld", {"id": night.shown(event_id), "meld": shown}))
    return found
