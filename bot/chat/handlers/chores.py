"""Table chores, each an event of the night (undoable, shown in /history): 改名, 换人, 改底, 定庄."""

from __future__ import annotations

from bot.chat.handlers import returning
from bot.chat.handlers.common import Context, Refusal, open_night, recorded_reply, recorded_response
from bot.chat.handlers.house import check_room
from bot.chat.handlers.opening import checked_name, stake_cents_of
from bot.night.codec import SWAP, SeatChange, StakeChange
from bot.night.night import Night
from bot.night.seating import may_record, player_list, resolve
from bot.text.replies import Reply, Response
from bot.text.vocabulary import fold, name_key
from bot.views.lines import SEAT_KEYS, format_money
from engine.errors import EngineError
from engine.events import SetDealer

# A seat named by its wind, as the table says it (换人 东 钱七).
SEAT_WORDS = {
    **dict.fromkeys(("东", "e", "east"), 0),
    **dict.fromkeys(("南", "s", "south"), 1),
    **dict.fromkeys(("西", "w", "west"), 2),
    **dict.fromkeys(("北", "n", "north"), 3),
}


def chore_night(context: Context) -> Night:
    """An open night, in the group, typed by someone who may record."""
    night = open_night(context)
    if context.incoming.private:
        raise Refusal(Reply("night.private_chat"))
    if not may_record(night.row, context.seats, context.incoming.speaker):
        raise Refusal(Reply("permission.not_at_table", {"players": player_list(context.seats)}))
    return night


def two_words(context: Context, usage: str) -> tuple[str, str]:
    words = context.command.names
    if len(words) != 2:
        raise Refusal(Reply(usage, {"players": player_list(context.seats)}))
    return words[0], words[1].lstrip("@")


def new_name(context: Context, name: str) -> str:
    """A name nobody at the table has (张三 and 張三 are one name), cleaned of invisible characters."""
    name = checked_name(name)
    if not name or any(name_key(seat.name) == name_key(name) for seat in context.seats if seat.name):
        raise Refusal(Reply("new.duplicate_name"))
    return name


def seat_of_word(context: Context, word: str) -> int:
    """A seated player's name, or a seat by its wind (东/E/east …)."""
    try:
        return resolve(context.seats, word)
    except EngineError:
        seat = SEAT_WORDS.get(fold(word))
        if seat is None:
            raise
        return seat


async def rename(context: Context) -> Response:
    night = chore_night(context)
    old, name = two_words(context, "rename.usage")
    seat = resolve(context.seats, old)
    current = context.seats[seat]
    name = new_name(context, name)  # the reply names the player as recorded: cleaned, never as typed
    change = SeatChange(seat, name, current.user_id, current.username)
    event_id = await night.record_seat(context.line, "rename", change)
    return chore_response(
        context, night, Reply("rename.done", {"id": night.shown(event_id), "old": current.name, "new": name}), event_id
    )


async def swap(context: Context) -> Response:
    night = chore_night(context)
    which, name = two_words(context, "swap.usage")
    seat = seat_of_word(context, which)
    old = context.seats[seat].name
    name = new_name(context, name)
    account = await returning.account_of(context, context.seats, seat, name)  # one who played here before
    event_id = await night.record_seat(context.line, SWAP, SeatChange(seat, name, account))
    params = {"id": night.shown(event_id), "old": old or "?", "new": name, "seat": Reply(SEAT_KEYS[seat])}
    return chore_response(context, night, Reply("swap.done", params), event_id)


async def stake(context: Context) -> Response:
    night = chore_night(context)
    words = context.command.names
    if len(words) != 1:
        raise Refusal(Reply("stake.usage"))
    cents = stake_cents_of(words[0])
    check_room(cents, night.preset, night.next_preset)  # a stake the rules in force could overflow
    state = night.state
    # never in the middle of a hand, as the night places a 改底 when it reads its log
    from_hand = state.hand_no + 1 if night.hand_begun() else state.hand_no
    event_id = await night.record_stake(context.line, StakeChange(cents, from_hand))
    return chore_response(
        context,
        night,
        Reply("stake.done", {"id": night.shown(event_id), "stake": format_money(cents), "hand": from_hand}),
        event_id,
    )


async def dealer(context: Context) -> Response:
    night = chore_night(context)
    words = context.command.names
    if len(words) != 1:
        raise Refusal(Reply("dealer.usage", {"players": player_list(context.seats)}))
    seat = seat_of_word(context, words[0])
    return recorded_response(context, night, await night.record(context.line, SetDealer(seat)))


def chore_response(context: Context, night: Night, reply: Reply, event_id: int) -> Response:
    # the board goes with it (no money moved: shown in the chat only if the hand changed) so that a
    # pinned live board shows the new names and stake at once; `event_id`: the row its #N reports
    return recorded_reply(context, night, (reply,), moved_money=False, event_id=event_id)
