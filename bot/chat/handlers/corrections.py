"""Undo or fix any past event: the night is re-derived as if the corrected history had always been so.

The reply says what each player's balance moved by, which later hands were re-derived, and which hand
is open now.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.chat.command import Command
from bot.chat.handlers import house, repeats, tab
from bot.chat.handlers.common import Context, PendingRepeat, Refusal, ask, open_night, recorded_reply, recording_night
from bot.chat.handlers.named_lines import meld_row
from bot.chat.handlers.repeats import expired
from bot.chat.handlers.table_events import (
    REVERSIBLE,
    flower_gang_event,
    gang_event,
    penalty_event,
    pong_event,
    range_event,
    win_event,
    winds_event,
)
from bot.chat.lexicon import SELF, VERB, WORD
from bot.chat.parser import inner_command, parse, reads_with_names_of_then, scan
from bot.chat.tokens import SEAT_TOKEN
from bot.night.codec import EVENT_KINDS, event_kind, seat_change
from bot.night.correction import Corrected
from bot.night.fold import LaterEventBreaks, actor_of, table_event
from bot.night.night import Night
from bot.night.records import EventRow, Seat
from bot.night.seating import Speaker, player_list, resolve, seat_of, seated_names
from bot.text.replies import LIST, Choice, Joined, Reply, Response
from bot.views.lines import balance_change, balance_unit, format_money, money_first
from bot.views.said import describe, explained, meld_conflict, readable, refused_reason, refused_win, tile_word
from engine.errors import EngineError
from engine.events import Draw, Event, Win
from engine.melds import DeclaredPatternContradicted, LoggedMeldMissing
from engine.table import TableState, WinRefused

EVENT_OF_COMMAND = {
    "pong": "pong",
    "gang": "gang",
    "added_gang": "gang",
    "concealed_gang": "gang",
    "flower_gang": "flower_gang",
    "winds": "four_winds",
    "range": "range_mark",
    "penalty": "penalty",
    "hu": "win",
    "draw": "draw",
}

NEEDS_A_NAME = ("pong", "penalty")


def reads_as_a_fix(command: Command, names: list[str]) -> bool:
    """`fix 99 碰 李四`, `undo 99`: an event number (and for a fix, a table event's line), a correction
    however it is typed (a near-command, answered even when it starts with an English word)."""
    if command.name == "undo":
        return command.number is not None
    if command.name != "fix" or command.number is None or not command.word:
        return False
    try:
        inner = inner_command(command, names)
    except EngineError:
        return True  # the corrected line is wrong: that is worth saying too
    if inner is None:  # `fix 2 Dave hu Bob …` with Dave gone since (or never there): answered too
        return reads_with_names_of_then(command.word, names)
    return inner.name in EVENT_OF_COMMAND


def no_such_event(night: Night, number: int) -> Refusal:
    """No #N tonight: say so, and which numbers there are (the latest, and where to see them all)."""
    latest = night.last_number()
    if latest == 0:
        return Refusal(Reply("undo.no_such_event", {"id": number}))
    return Refusal(Reply("undo.no_such_event", {"id": number}), Reply("fix.latest_hint", {"id": latest}))


def is_claim(event: EventRow, typed: str, known: Sequence[str]) -> bool:
    """A seat claimed on its own line (`我是 李四`, `/join 李四`; `typed`: the row's line as typed): undoable
    like a join. A binding written with the event it served is not: /undo undoes that event."""
    if event.kind != "bind":
        return False
    try:
        command = parse(typed, known)  # 我是 李四 reads as a claim only with 李四 seated
    except EngineError:
        return False
    return command is not None and command.name == "join"


async def last_claim(night: Night) -> EventRow | None:
    if night.last_active(("bind",)) is None:
        return None  # no binding in force: nothing to read of the ledger
    known = seated_names(night.seats)
    texts = await night.texts_of_kind("bind")  # what each binding's line was (the night holds none)
    return night.last_row(("bind",), lambda e: e.id in night.active and is_claim(e, texts[e.id].raw_text, known))


async def target_of(night: Night, number: int | None, fixing: bool = False) -> EventRow:
    """The version to correct: with a number, the row #N names when it is in force; the line first
    typed at #N's place when a fix of it stands (an undo takes that line back whole, a fix corrects
    the version in force); a fix fixed since, for a fix (it corrects the version in force). What is
    undone already, or a fix fixed again (for an undo), is refused, saying what is in force
    (docs/rules.md 16). With no number, the latest current version that can be undone
    (bot/night/versions.py), or a seat claimed since (claims take no number)."""
    if number is None:
        target = night.last_active(REVERSIBLE)
        claimed = await last_claim(night)
        if claimed is not None and (target is None or claimed.id > target.id):
            target = claimed  # `我是 李四` pressed by mistake: undone like a join
        if target is None:
            raise Refusal(Reply("undo.nothing"))
        return target
    named = night.numbered(number)
    if named is None:
        raise no_such_event(night, number)
    place = night.place_of(named.id)
    root = night.event(place) or named  # a claim takes no number: never named here
    if root.kind not in REVERSIBLE or named.kind not in REVERSIBLE:
        raise Refusal(Reply("undo.not_undoable", {"id": number, "kind": Reply(f"kind.{named.kind}")}))
    standing = night.standing(place)
    if named.id not in standing:  # undone already: a second undo would take back what stands now
        raise Refusal(Reply("undo.already_undone", {"id": number}), await in_force(night, standing))
    current = night.event(standing[-1]) or named
    if fixing or named.id in (current.id, place):
        return named if named.id == place and not fixing else current
    later = night.shown(standing[standing.index(named.id) + 1])
    said = Reply("undo.superseded", {"id": number, "by": later})
    raise Refusal(said, await in_force(night, standing), line=current.id)  # a reply to it acts on what stands


async def in_force(night: Night, standing: Sequence[int]) -> Reply:
    """What stands at a place now, as typed (`现在算的是 #2：罚 王五 10`), or that nothing does."""
    current = night.event(standing[-1]) if standing else None
    if current is None:
        return Reply("undo.none_in_force")
    typed = (await night.texts([current]))[current.id].raw_text
    return Reply("undo.in_force", {"id": night.shown(current.id), "text": typed})


def changes_line(night: Night, corrected: Corrected) -> Reply:
    """`变动：张三 +6 花（+3 元） · 李四 −18 花（−9 元）`: what each person's figure moved by, in the
    board's own words (money alone once the night mixes stakes, docs/rules.md 17d), so the two agree."""
    if not corrected.changes:
        return Reply("correction.no_change")
    unit, mixed = balance_unit(night.state.preset), money_first(night)
    moved = tuple(
        Reply("correction.change", {"name": c.name, "change": balance_change(c.amount, unit, c.money_cents, mixed)})
        for c in corrected.changes
    )
    return Reply("correction.changes", {"changes": Joined(moved, " · ")})


def correction_replies(night: Night, corrected: Corrected) -> list[Reply]:
    replies = [changes_line(night, corrected)]
    if corrected.moved_hands:
        replies.append(Reply("correction.moved", {"hands": ", ".join(str(h) for h in corrected.moved_hands)}))
    stakes = stakes_involved(night, corrected)
    if len({cents for _, cents in stakes}) > 1:  # money moved at more than one stake: say which, where
        shown = tuple(Reply("correction.stake", {"hand": hand, "stake": format_money(cents)}) for hand, cents in stakes)
        replies.append(Reply("correction.stakes", {"stakes": Joined(shown, LIST)}))
    doubled = Reply("hand.doubled_mark", {"factor": night.preset.doubling_factor}) if night.state.doubled else ""
    # the hand now, in one short line: whoever corrects knows /fix (#48 item 9: no reminder every time)
    replies.append(Reply("correction.now_in_hand", {"hand": night.state.hand_no, "doubled": doubled}))
    return replies


def stakes_involved(night: Night, corrected: Corrected) -> list[tuple[int, int]]:
    """(hand, money per flower) of each place the correction booked money at, by hand."""
    place = night.place_of(corrected.target.id)
    root = night.event(place)
    own_hand = night.whole_fold().hand_of(place) or (root.hand_no if root is not None else night.state.hand_no)
    found: dict[int, int] = {}
    for row in corrected.payments:
        written = night.event(row.event_id)
        if written is not None and row.amount:  # the correction's own row is priced at its event's hand
            hand = own_hand if row.event_id == corrected.event_id else written.hand_no
            found.setdefault(hand, row.money_cents // row.amount)
    return sorted(found.items())


async def correct(
    context: Context, night: Night, target: EventRow, event: Event | None, then: Sequence[Seat] = ()
) -> Corrected:
    try:
        return await night.correct(context.line, target, event)
    except WinRefused as error:  # the corrected win itself: its winner as they sat then
        raise Refusal(*refused_win(then or night.seats, error)) from error
    except LoggedMeldMissing as error:
        hand = night.whole_fold().hand_of(target.id) or night.state.hand_no
        raise Refusal(meld_conflict(night, error, hand), line=meld_row(night, error, hand)) from error
    except LaterEventBreaks as error:
        if isinstance(error.cause, DeclaredPatternContradicted):  # a later declared win: name it
            raise Refusal(later_declared(night, error.place, error.cause), line=error.place) from error
        reason = Reply(error.cause.key, readable(error.cause.params, night.seats, night))
        if isinstance(error.cause, LoggedMeldMissing):  # the later win's meld, named by its event
            reason = meld_conflict(night, error.cause, night.whole_fold().hand_of(error.place) or night.state.hand_no)
        elif isinstance(error.cause, WinRefused):
            reason = refused_reason(error.cause, night.seats[error.cause.params["winner"]].name)
        breaks = Reply("fix.breaks_later", {"id": night.shown(error.place), "reason": reason})
        raise Refusal(breaks, line=error.place) from error


# The pattern a declared-pattern refusal is about, by its reason (engine.claims.check_declared)
DECLARED_PATTERN = {
    "win.declared_qingyise_suits": "qingyise",
    "win.declared_qingyise_wind": "qingyise",
    "win.declared_hunyise_suits": "hunyise",
    "win.declared_menqing": "menqing",
    "win.declared_seven_pairs": "qidui",
}


def later_declared(night: Night, place: int, cause: DeclaredPatternContradicted) -> Reply:
    """`#14 李四 报了清一色，改了以后不成立（碰 6s）`: the stored win stays as it is, the correction is
    refused (a Nanjing table would not let a fix quietly void a win everyone saw declared)."""
    pattern = Reply(f"unit.{DECLARED_PATTERN.get(cause.key, 'qingyise')}")
    kind = Reply(f"meld_name.{cause.params['kind']}")
    tile = cause.params.get("tile")
    meld = Reply("meld.named", {"kind": kind, "tile": tile_word(str(tile))}) if tile else kind
    winner = night.seats[int(cause.params["seat"])].name
    return Reply("fix.breaks_declared", {"id": night.shown(place), "winner": winner, "pattern": pattern, "meld": meld})


async def undo(context: Context) -> Response:
    if "claim" in context.command.options:  # the button under a claim by another name
        return await undo_claim(context)
    paid = await tab.undo_after_paid(context)  # `/undo` right after `/paid`: the payment
    if paid is not None:
        return paid
    night = recording_night(context)
    if context.command.number is None:
        held = await held_line(context, night)
        if held is not None:  # the table's latest word is a question about a line: that line goes
            return await withdraw(context, night, held)
    target = await target_of(night, context.command.number)
    house.check_undo(context, (night.event(night.place_of(target.id)) or target).kind)
    if context.command.number is None and context.incoming.chat_id in context.services.unrecorded:
        number = night.number_of(target.id)
        if number is not None:  # the newest line recorded nothing: an older event is undone only when named
            return await confirm_undo(context, night, target, number)
    fixed = night.standing(target.id)[1:] if night.place_of(target.id) == target.id else ()
    fixes = [night.shown(version) for version in fixed]  # taken back with the line: it goes whole
    corrected = await correct(context, night, target, None)
    number, undone = night.number_of(corrected.event_id), night.number_of(target.id)
    typed = (await night.texts([target]))[target.id].raw_text  # the line undone, as it was typed
    reported = None
    if number is None or undone is None:  # a seat claim: no line of the table, so no number either
        replies = [Reply("undo.claim_done", {"text": typed})]
    else:
        replies = [undone_line({"id": number, "target": undone, "text": typed}, fixes)]
        reported = corrected.event_id
    return recorded_reply(context, night, replies + correction_replies(night, corrected), event_id=reported)


def undone_line(params: dict[str, object], fixes: Sequence[int | str]) -> Reply:
    """`↩️ #5 撤销了 #2：…`, naming the fixes taken back with the line when it went whole."""
    if not fixes:
        return Reply("undo.done", params)
    return Reply("undo.done_whole", {**params, "fixes": Joined(tuple(f"#{n}" for n in fixes), LIST)})


async def held_line(context: Context, night: Night) -> PendingRepeat | None:
    """The newest open question of this hand, still in time, with nothing recorded since it was asked:
    the line it holds is what a bare /undo takes back (never the event recorded before it)."""
    questions = await repeats.open_questions(context.services, context.incoming.chat_id)
    here = [q for q in questions if (q.night_id, q.hand_no) == (night.id, night.state.hand_no)]
    latest = [q for q in here if not expired(context, q) and nothing_recorded_since(night, q.after)]
    return max(latest, key=lambda q: q.question) if latest else None


def nothing_recorded_since(night: Night, after: int) -> bool:
    """Whether the night's newest row is still `after` (a seat's binding, written with any line a
    known account sends, records nothing the table did)."""
    if after < 0:
        return False  # asked before questions kept it: not known
    for event in reversed(night.events):
        if event.id <= after:
            return True
        if event.kind != "bind":
            return False
    return True


async def withdraw(context: Context, night: Night, held: PendingRepeat) -> Response:
    """The held line is withdrawn: its question answered, nothing written, no money moved."""
    await repeats.withdraw(context.services, context.incoming.chat_id, held.question)
    said = Reply("undo.withdrawn", {"what": describe(held.event, night.seats), "text": held.text})
    return Response((said,), context.language, settles=True, night_id=night.id, hand_no=night.state.hand_no)


async def confirm_undo(context: Context, night: Night, target: EventRow, number: int) -> Response:
    """After a line that recorded nothing (a hint, a refusal), a bare /undo names the event it would
    undo and asks: the line just typed may be the mistake meant, and it is not in the ledger."""
    typed = (await night.texts([target]))[target.id].raw_text
    question = Reply("undo.confirm", {"id": number, "text": typed})
    asked = ask(context, question, (Choice(Reply("button.undo", {"id": number}), f"/undo {number}"),))
    return replace(asked, event_id=target.id)  # `撤销` replied to the question undoes #number, as its button


def corrected_event(context: Context, night: Night, target: EventRow) -> Event:
    """The corrected line, parsed as if typed at the corrected event's place in the night: its names
    are of who sat at the table then (丁 before `/swap 丁 Eve`), whoever sits there now."""
    command = context.command
    then = seats_then(night, night.place_of(target.id))
    known = [*seated_names(night.seats), *seated_names(then)]
    inner = inner_command(command, known)
    if inner is None or inner.name not in EVENT_OF_COMMAND:
        unknown = unknown_name(command.word or "", known)
        if unknown is not None:  # 改 2 戊 胡 乙 …: a name nobody had tonight, not a wrong form
            raise Refusal(Reply("player.unknown", {"name": unknown, "players": player_list(then)}))
        raise Refusal(Reply("fix.usage"))
    original = table_event(target)
    if original is None:
        said = Reply("fix.not_fixable_undo", {"id": night.shown(target.id), "kind": Reply(f"kind.{target.kind}")})
        raise Refusal(said, line=target.id)
    seated_then(night, then, night.place_of(target.id), inner.names)
    kind = EVENT_OF_COMMAND[inner.name]
    exposed = inner.name == "gang" and (inner.kind or "exposed") == "exposed"
    if (inner.name in NEEDS_A_NAME or exposed) and not inner.names:  # typed alone it asks with buttons: here, the line
        raise Refusal(Reply("fix.usage"))
    if kind != event_kind(original):
        raise Refusal(
            Reply("fix.other_kind", {"id": night.shown(target.id), "kind": Reply(f"kind.{event_kind(original)}")}),
            line=target.id,
        )
    # Unnamed, the actor is the corrected event's (改 3 胡 王五 … fixes that win, whoever types it)
    incoming = replace(context.incoming, speaker=speaker_for(then, original) or context.incoming.speaker)
    at_then = replace(context, command=inner, incoming=incoming, seated=then)
    try:
        event = build(at_then, inner, night.state_before(target.id))
    except LoggedMeldMissing:
        raise  # named by its event number (the service's meld_conflict)
    except EngineError as error:  # `no player`, a seat in an error: the players of then, by name
        raise Refusal(Reply(error.key, readable(error.params, then))) from error
    if isinstance(original, Win) and isinstance(event, Win):  # a claim joined to a win stays joined to it
        event = replace(event, joins=original.joins)
    return event


def unknown_name(line: str, known: Sequence[str]) -> str | None:
    """The unknown word a plain corrected line starts with before its command word (戊 in `戊 胡 乙`)."""
    pieces = scan(line, known)
    verb = next((i for i, p in enumerate(pieces) if p.kind in (VERB, SELF)), None)
    words = [p.text for p in pieces[: verb or 0] if p.kind == WORD]
    return words[0] if words else None


def seats_then(night: Night, place: int) -> tuple[Seat, ...]:
    """Who sat in each seat at the event `place`: the one sitting there now, or whoever stood up since
    (换人), called by their name now (a rename follows the person, as everywhere else)."""
    seating = night.seating()
    sitting = seating.at.get(place, seating.now)
    return tuple(
        night.seats[seat] if person == seating.now[seat] else Seat(seating.names[person])
        for seat, person in enumerate(sitting)
    )


def seated_then(night: Night, then: Sequence[Seat], place: int, names: Sequence[str]) -> None:
    """The corrected line names who sat at the table at the corrected place: a player who sat down
    later (换人) is refused, never read as whoever sat in that seat then."""
    for name in names:
        if SEAT_TOKEN.match(name):
            continue  # a seat by number: whoever sat there
        try:
            resolve(then, name)
        except EngineError:
            try:
                seat = resolve(night.seats, name)
            except EngineError:
                raise Refusal(Reply("player.unknown", {"name": name, "players": player_list(then)})) from None
            raise Refusal(
                Reply("fix.not_seated_then", {"name": name, "id": night.shown(place), "who": then[seat].name}),
                line=place,
            ) from None


def speaker_for(seats: Sequence[Seat], event: Event) -> Speaker | None:
    """Who the corrected event was about, as a speaker seated by name."""
    seat = actor_of(event)
    if isinstance(event, Win) and event.claims:
        seat = event.claims[0].winner
    if seat is None or not seats[seat].name:
        return None
    return Speaker(id=seats[seat].name, name=seats[seat].name, by_name=True)


def build(context: Context, command: Command, state: TableState) -> Event:
    if command.name == "pong":
        return pong_event(context, command)
    if command.name in ("gang", "added_gang", "concealed_gang"):
        return gang_event(context, command)
    if command.name == "flower_gang":
        return flower_gang_event(context, command)
    if command.name == "winds":
        return winds_event(context, command)
    if command.name == "range":
        return range_event(context, command, state)
    if command.name == "penalty":
        return penalty_event(context, command)
    if command.name == "hu":
        return win_event(context, command, state)
    return Draw()


async def fix(context: Context) -> Response:
    night = recording_night(context)
    if context.command.number is None or not context.command.word:
        raise Refusal(Reply("fix.usage"))
    try:
        target = await target_of(night, context.command.number, fixing=True)
    except Refusal as refused:  # what cannot be undone cannot be fixed either: said as what was asked
        if refused.replies[0].key == "undo.not_undoable":
            raise Refusal(Reply("fix.not_fixable", refused.replies[0].params)) from None
        raise
    root = (night.event(night.place_of(target.id)) or target).kind
    if root in ("join", "rules"):  # a 改规则 is undone and typed again: it has no line to correct
        said = Reply("fix.not_fixable_undo", {"id": context.command.number, "kind": Reply(f"kind.{root}")})
        raise Refusal(said, line=target.id)
    event = corrected_event(context, night, target)
    then = seats_then(night, night.place_of(target.id))  # before the correction: who played the event
    corrected = await correct(context, night, target, event, then)
    params = {"id": night.shown(corrected.event_id), "target": night.shown(target.id), "text": context.command.word}
    replies = [Reply("fix.done", params)]
    played = corrected.replacement
    if played is not None:
        # the winner as they sat then, with its 比下胡 / 垒宝塔 lines: the changes follow from them
        replies.extend(explained(played, then))
    return recorded_reply(context, night, replies + correction_replies(night, corrected), event_id=corrected.event_id)


async def undo_claim(context: Context) -> Response:
    """`/undo claim=BIND,LINE` (the button under a claim whose account's name is not the seat's): undoes
    the claim, freeing the seat for its own player, and the line the claim recorded, as two corrections
    (money re-derived). Pressed by a seated player other than the claimer, or a chat admin; a claim
    undone or superseded since is said to be gone, and nothing changes."""
    night = open_night(context)
    if context.incoming.private:
        raise Refusal(Reply("night.private_chat"))
    bind, line = await claim_rows(night, context.command.options["claim"])
    seat = seat_change(bind.body).seat
    name = night.seats[seat].name
    speaker = context.incoming.speaker
    mine = seat_of(night.seats, speaker)
    if not speaker.is_admin and (mine is None or mine == seat):
        raise Refusal(Reply("claim.undo_not_allowed", {"name": name}))
    replies = [Reply("claim.undone", {"name": name})]
    reported = None  # the line's undo (`↩️ #N`), which a reply to this answer acts on
    if line is not None:  # the line first: its money goes back while the claimer still holds the seat
        corrected = await correct(context, night, line, None)
        reported = corrected.event_id
        typed = (await night.texts([line]))[line.id].raw_text
        number, undone = night.number_of(corrected.event_id), night.number_of(line.id)
        replies.append(Reply("undo.done", {"id": number or "?", "target": undone or "?", "text": typed}))
        replies.extend(correction_replies(night, corrected))
    key = context.incoming.update_key
    second = replace(context.line, update_key=f"{key}:claim" if key and line is not None else key)
    await night.correct(second, bind, None)
    return recorded_reply(context, night, replies, moved_money=line is not None, event_id=reported)


async def claim_rows(night: Night, given: str) -> tuple[EventRow, EventRow | None]:
    """The claim's `bind` row, still in force and still its seat's account, and the current version of
    the line it recorded (None: none, or undone since). The line must be the row right after the claim
    in the night's log (a claim's kept line is answered before anything else in the chat), so a
    forged button cannot reach any other line."""
    bind_id, _, line_id = given.partition(",")
    bind = night.event(int(bind_id))
    if bind is None or bind.kind != "bind" or bind.id not in night.active:
        raise Refusal(Reply("claim.undo_gone"))
    change = seat_change(bind.body)
    typed = (await night.texts([bind]))[bind.id].raw_text
    if night.seats[change.seat].user_id != change.user_id or not is_claim(bind, typed, seated_names(night.seats)):
        raise Refusal(Reply("claim.undo_gone"))
    if not line_id:
        return bind, None
    after = [e for e in night.events if e.id > bind.id]
    if not after or after[0].id != int(line_id) or after[0].kind not in EVENT_KINDS:
        raise Refusal(Reply("claim.undo_gone"))
    return bind, night.current_version(after[0].id)
