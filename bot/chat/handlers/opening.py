"""Handlers that open, seat, close and reopen a night, and set the chat's language."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from decimal import Decimal

from bot.chat.command import Command
from bot.chat.handlers import returning
from bot.chat.handlers.common import Context, Incoming, Refusal, open_night
from bot.chat.handlers.house import check_room, opening_rules
from bot.chat.handlers.kept import release as release_kept_line
from bot.night.codec import SeatChange
from bot.night.nights import Nights
from bot.night.records import Seat
from bot.night.seating import Speaker, claimable_seat, may_record, names_match, player_list, resolve, seat_of
from bot.text.replies import BUTTON_COMMAND_BYTES, Choice, Reply, Response
from bot.text.vocabulary import INVISIBLE, clean_name, fold, name_key
from bot.views.chat_export import store_export_after_close
from bot.views.lines import SEAT_KEYS, format_money
from bot.views.stats import store_after_close
from engine.events import SEATS
from engine.preset import MOST, preset_from_dict
from locales import LANGUAGES, normalize_language


async def new(context: Context) -> Response:
    incoming, command = context.incoming, context.command
    if incoming.private:
        raise Refusal(Reply("night.private_chat"))
    if context.night is not None and not context.closed:
        raise Refusal(Reply("night.already_open", {"players": player_list(context.seats)}))
    seats = await returning.seated_again(context, seats_for_new(command, incoming))  # a group come back
    preset_name, preset_json = await preset_choice(context, command)
    if "start" in command.options:
        preset_json = {**preset_json, "start": start_points_of(command.options["start"])}
    stake_cents = stake_cents_of(command.options.get("stake", "1"))
    check_room(stake_cents, preset_from_dict(preset_json))  # every number checked, and the two together
    dealer = resolve(seats, command.options["dealer"]) if "dealer" in command.options else 0
    nights = context.services.nights
    night = await nights.open(
        incoming.chat_id,
        seats,
        preset_name,
        json.dumps(preset_json, ensure_ascii=False),
        stake_cents,
        dealer,
        incoming.speaker.id,
        context.line,
    )
    language = context.language
    if await nights.setting(incoming.chat_id, "language") is None and normalize_language(incoming.speaker.language):
        await nights.set_setting(incoming.chat_id, "language", language)
    opened = {
        "night": night.number,
        "preset": preset_name,
        "stake": format_money(stake_cents),
        "dealer": seats[dealer].name,
    }
    replies = [Reply("night.opened", {**opened, "dealer": seats[dealer].name or "?"})]
    replies.extend(
        Reply("night.seat", {"seat": Reply(key), "name": s.name or Reply("night.free_seat")})
        for key, s in zip(SEAT_KEYS, seats, strict=True)
    )
    choices: tuple[Choice, ...] = ()
    if any(not s.name for s in seats):
        replies.append(Reply("night.join_hint"))
        choices = (Choice(Reply("button.join"), "/join"),)
    if not incoming.speaker.by_name:  # Telegram: a seat opened by plain name is claimed by a tap
        choices += tuple(claim_button(seats, s) for s in unclaimed(seats))
    return Response(tuple(replies), language, choices=choices, recorded=True, night_id=night.id, hand_no=1)


def checked_name(raw: str) -> str:
    """A name as it enters the night, cleaned (`clean_name`); one that was only invisible characters
    is refused, shown with those characters spelled out (U+200B) rather than acting on the screen."""
    name = clean_name(raw)
    if raw and not name:
        shown = "".join(f"U+{ord(char):04X}" if char in INVISIBLE else char for char in raw)
        raise Refusal(Reply("name.empty", {"name": shown.strip() or repr(raw)}))
    return name


def seats_for_new(command: Command, incoming: Incoming) -> tuple[Seat, ...]:
    mentioned = {(m.username or "").casefold(): m for m in incoming.mentions if m.username}
    by_name = {m.name.casefold(): m for m in incoming.mentions}
    seats: list[Seat] = []
    for token in command.names:
        user = mentioned.get(token.lstrip("@").casefold()) or by_name.get(token.casefold())
        if user is not None and not user.by_name:
            seats.append(Seat(checked_name(user.name), user.id or None, user.username))
        else:
            seats.append(Seat(checked_name(token.lstrip("@"))))
    if len(seats) > SEATS:
        raise Refusal(Reply("new.too_many_players", {"count": len(seats)}))
    folded = [fold(s.name) for s in seats]  # 张三 and 張三 are one name: typed names match across scripts
    if len(set(folded)) != len(folded):
        raise Refusal(Reply("new.duplicate_name"))
    seats += [Seat("")] * (SEATS - len(seats))
    return openers_seat(tuple(seats), incoming.speaker)


def openers_seat(seats: tuple[Seat, ...], opener: Speaker) -> tuple[Seat, ...]:
    """The seat opened by plain name that is the opener's own (`names_match`) is the opener's account
    from the start: no stranger can claim it before the opener records a line. None matching, or
    the opener seated by an @mention already, or two matching: the seats as typed."""
    if opener.by_name or not opener.id or not opener.names or seat_of(seats, opener) is not None:
        return seats  # the console, a channel or an anonymous admin (no account of a person), or seated
    hits = [i for i, s in enumerate(seats) if s.user_id is None and not s.username and names_match(s.name, opener)]
    if len(hits) != 1:
        return seats
    seat = hits[0]
    return (*seats[:seat], Seat(seats[seat].name, opener.id, opener.username), *seats[seat + 1 :])


async def preset_choice(context: Context, command: Command) -> tuple[str, dict[str, object]]:
    """The rules named (`preset=`, `rules=`, `规则=`: a built-in preset, the group's house rules, an
    operator's file), else the group's default, else nanjing (bot/chat/handlers/house.py)."""
    named = command.options.get("rules", command.options.get("preset"))
    return await opening_rules(context, named)


MAX_STAKE_CENTS = 1_000_000  # 10000 per flower: anything above is a typo
STAKE = re.compile(r"^\d{1,7}(?:\.\d{1,2})?$")  # ASCII digits, at most two decimals: no NaN, inf, 1e30

MAX_START = MOST  # a number of the rules, bounded as every other (engine/preset.py)


def start_points_of(text: str) -> int:
    """`start=1000`: the points each balance starts from (a whole number, 0 or more)."""
    if not text.isascii() or not text.isdigit() or len(text) > len(str(MAX_START)) or int(text) > MAX_START:
        raise Refusal(Reply("new.bad_start", {"start": text}))
    return int(text)


def stake_cents_of(text: str) -> int:
    """A stake per flower: finite, positive, at most two decimals, at most 10000."""
    if not text.isascii() or not STAKE.match(text):
        raise Refusal(Reply("new.bad_stake", {"stake": text}))
    cents = int(Decimal(text) * 100)
    if not 0 < cents <= MAX_STAKE_CENTS:
        raise Refusal(Reply("new.bad_stake", {"stake": text}))
    return cents


async def join(context: Context) -> Response:
    night = open_night(context)
    speaker = context.incoming.speaker
    if seat_of(context.seats, speaker) is not None:
        raise Refusal(Reply("join.already_seated", {"name": speaker.name}))
    claimed = None
    if speaker.id and not speaker.by_name:  # `我是 李四`, or a plain /join by the one whose name a seat carries
        word = context.command.word
        claimed = claim(context.seats, word) if word else claimable_seat(context.seats, speaker)
        if claimed is None and word and re.fullmatch(r"#[0-3]", word):  # a long name's seat, taken meanwhile
            raise Refusal(Reply("button.used"))
    if claimed is not None:  # `我是 李四`: the presser's account takes the seat opened by that name
        current = context.seats[claimed]
        change = SeatChange(claimed, current.name, speaker.id, speaker.username)
        bind_id = await night.record_seat(context.line, "bind", change)
        release_kept_line(context)  # the line the account sent before it had a seat is recorded now
        await first_claim(context.services.nights, context.incoming.chat_id, speaker.id)  # asked: said every time
        said = Reply("telegram.claimed", {"name": current.name})
        response = Response((said,), context.language, recorded=True, night_id=night.id)
        return response if names_match(current.name, speaker) else unmatched_claim(response, speaker, current, bind_id)
    free = [i for i, s in enumerate(context.seats) if not s.name]
    if not free:
        raise Refusal(Reply("join.table_full", {"players": player_list(context.seats)}))
    name = context.command.word if context.command.word and speaker.is_admin else speaker.name
    if not context.command.word and speaker.id and not speaker.by_name:
        name = distinct_label(context.seats, speaker)  # two Telegram users both called Alex
    name = checked_name(name)
    if any(name_key(s.name) == name_key(name) for s in context.seats if s.name):
        raise Refusal(Reply("new.duplicate_name"))
    seat = free[0]
    change = SeatChange(seat, name, None if speaker.by_name else speaker.id, speaker.username)
    await night.record_seat(context.line, "join", change)
    return Response(
        (Reply("join.done", {"name": name, "seat": Reply(SEAT_KEYS[seat])}),),
        context.language,
        recorded=True,
        night_id=night.id,
    )


CLAIM_SAID = "claim_said:{account}"  # chat setting, "1": the account was told once which seat it took (🔗)


async def first_claim(nights: Nights, chat_id: str, account: str) -> bool:
    """Whether this is the first time in the chat an account takes a seat by its name (the 🔗 line is
    said then, not every night); it is remembered from now on."""
    key = CLAIM_SAID.format(account=account)
    if await nights.setting(chat_id, key):
        return False
    await nights.set_setting(chat_id, key, "1")
    return True


UNDO_CLAIM = "/undo claim="  # the undo-claim button's line: `/undo claim=BIND` or `/undo claim=BIND,LINE`


def undo_claim_line(bind_id: int, line_id: int | None = None) -> str:
    """The line the undo-claim button sends: the claim's `bind` row, and the row of the line it
    recorded (a line kept while the account had no seat), by their ledger ids."""
    return f"{UNDO_CLAIM}{bind_id}" if line_id is None else f"{UNDO_CLAIM}{bind_id},{line_id}"


def unmatched_claim(claimed: Response, speaker: Speaker, seat: Seat, bind_id: int) -> Response:
    """A claim by an account whose name is not the seat's (`names_match`) is said so, on the claim's own
    reply (no message more), with a button any other seated player or an admin may press to undo it."""
    said = Reply("claim.unmatched", {"name": seat.name, "account": speaker.name})
    button = Choice(Reply("button.undo_claim", {"name": seat.name}), undo_claim_line(bind_id), anytime=True)
    return replace(claimed, replies=(*claimed.replies, said), choices=(*claimed.choices, button))


def with_line(reply: Reply) -> Reply:
    """The claim's warning once the claim recorded a line: the button undoes that line too."""
    return replace(reply, key="claim.unmatched_line") if reply.key == "claim.unmatched" else reply


def distinct_label(seats: tuple[Seat, ...], speaker: Speaker) -> str:
    """The joining account's label: its name, else its first + last name, else the name numbered."""
    taken = {name_key(s.name) for s in seats if s.name}
    candidates = [speaker.name, *("".join(n.split()) for n in speaker.names)]
    candidates += [f"{speaker.name}{n}" for n in range(2, 2 + len(seats) + 1)]
    return next((c for c in candidates if c and name_key(c) not in taken), speaker.name)


# Refusals of an account the table does not know yet: it may be a player whose seat is still unclaimed
UNKNOWN_ACCOUNT = frozenset({"permission.not_at_table", "player.name_the_actor"})


def claim_prompt(context: Context, refusal: Response) -> Response | None:
    """An unbound Telegram account whose line could not be placed (it names no seat, and the
    account's own name matches none): instead of a bare refusal, one button per unclaimed seat
    (`我是 李四`); nothing is recorded, the line is sent again once the seat is claimed."""
    night, speaker = context.night, context.incoming.speaker
    if night is None or context.closed or context.incoming.private or speaker.by_name or not speaker.id:
        return None
    if not refusal.replies or refusal.replies[0].key not in UNKNOWN_ACCOUNT:
        return None
    if seat_of(context.seats, speaker) is not None:
        return None
    free = unclaimed(context.seats)
    if not free:
        return None
    choices = tuple(claim_button(context.seats, s) for s in free)
    if any(not s.name for s in context.seats):  # a newcomer may be none of them: a free seat to join
        choices = (*choices, Choice(Reply("button.join"), "/join"))
    # the example records for another seated player; a night of one named seat has none to name
    other = next((s.name for s in context.seats if s.name and s.name != free[0].name), None)
    which = Reply("claim.which_seat", {"name": free[0].name, "other": other}) if other else Reply("claim.which_one")
    return Response(
        (which,),
        context.language,
        choices=choices,
        refused=True,
        night_id=night.id,
        hand_no=night.state.hand_no,
    )


def unclaimed(seats: tuple[Seat, ...]) -> list[Seat]:
    """Seats opened by plain name that no Telegram account holds yet."""
    return [s for s in seats if s.name and s.user_id is None and not s.username]


def claim(seats: tuple[Seat, ...], word: str | None) -> int | None:
    """The unclaimed seat `word` names: by its name, or `#N` (a long name's button)."""
    if not word:
        return None
    if re.fullmatch(r"#[0-3]", word):
        index = int(word[1])
        return index if seats[index] in unclaimed(seats) else None
    hits = [i for i, s in enumerate(seats) if s in unclaimed(seats) and fold(s.name) == fold(word)]
    return hits[0] if len(hits) == 1 else None


def claim_button(seats: tuple[Seat, ...], seat: Seat) -> Choice:
    """Take this seat: `/join Name`, or `/join #N` for a name too long for a button's data."""
    command = f"/join {seat.name}"
    if len(command.encode()) > BUTTON_COMMAND_BYTES:
        command = f"/join #{seats.index(seat)}"
    return Choice(Reply("telegram.claim", {"name": seat.name}), command)


async def close(context: Context) -> Response:
    night = open_night(context)  # a seat freed by /unseat does not keep a night from being closed
    if context.incoming.private:
        raise Refusal(Reply("night.private_chat"))
    if not may_record(night.row, context.seats, context.incoming.speaker):
        raise Refusal(Reply("permission.not_at_table", {"players": player_list(context.seats)}))
    pending = context.services.pending_close
    if context.incoming.chat_id not in pending and context.command.plain:
        return Response((Reply("close.summary_first"),), context.language)
    pending.discard(context.incoming.chat_id)
    await night.record_mark(context.line, "close")
    await store_after_close(context.services.nights, night)  # /stats and /tab read the closed night from these figures
    await store_export_after_close(context.services.nights, night)  # and /export all its rows
    return Response((Reply("close.done", {"night": night.number}),), context.language, recorded=True, night_id=night.id)


async def reopen(context: Context) -> Response:
    night = context.night
    if night is None or not context.closed:
        raise Refusal(Reply("reopen.not_closed"))
    if not may_record(night.row, context.seats, context.incoming.speaker):
        raise Refusal(Reply("permission.not_at_table", {"players": player_list(context.seats)}))
    await night.record_mark(context.line, "reopen")
    return Response(
        (Reply("reopen.done", {"night": night.number}),), context.language, recorded=True, night_id=night.id
    )


async def lang(context: Context) -> Response:
    """A group's language is the table's: changed by whoever may record at its latest night (seated
    players, the opener, admins), by anyone before the group's first night and in a private chat."""
    night, speaker = context.night, context.incoming.speaker
    if night is not None and not context.incoming.private and not may_record(night.row, context.seats, speaker):
        raise Refusal(Reply("permission.lang", {"players": player_list(context.seats)}))
    choice = normalize_language(context.command.word)
    if choice is None:
        raise Refusal(Reply("lang.unknown", {"given": context.command.word or "", "known": ", ".join(LANGUAGES)}))
    await context.services.nights.set_setting(context.incoming.chat_id, "language", choice)
    return Response((Reply("lang.done"),), choice)


def involves(event: object, seat: int) -> bool:
    """Whether a table event names this seat (as actor, feeder, offender, winner or discarder)."""
    seats = {getattr(event, name, None) for name in ("actor", "feeder", "offender", "discarder")}
    seats |= {claim.winner for claim in getattr(event, "claims", ())}
    return seat in seats


async def unseat(context: Context) -> Response:
    """Free a seat taken by mistake (admins and the opener), if its player did nothing this hand."""
    night = open_night(context)
    speaker = context.incoming.speaker
    if not (speaker.is_admin or speaker.id == night.row.opened_by):
        raise Refusal(Reply("unseat.not_allowed"))
    names = context.command.names or ((context.command.word,) if context.command.word else ())
    if len(names) != 1:
        raise Refusal(Reply("unseat.usage", {"players": player_list(context.seats)}))
    seat = resolve(context.seats, names[0])
    hand = night.state.hand_no
    played_here = [p for p in night.whole_fold().played if p.hand_no == hand]
    if any(involves(p.event, seat) or any(seat in (x.payer, x.payee) for x in p.payments) for p in played_here):
        raise Refusal(Reply("unseat.has_events", {"name": context.seats[seat].name, "hand": hand}))
    name = context.seats[seat].name
    await night.record_seat(context.line, "unseat", SeatChange(seat))
    return Response(
        (Reply("unseat.done", {"name": name, "seat": Reply(SEAT_KEYS[seat])}),),
        context.language,
        recorded=True,
        night_id=night.id,
        choices=(Choice(Reply("button.join"), "/join"),),
    )
