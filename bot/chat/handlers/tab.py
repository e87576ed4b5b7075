"""The tab across nights: what each person is owed or owes over every night not yet settled.

Groups do not always settle at the table. The tab sums, per person (`bot.views.stats.Persons`: an account
where a seat was bound, a name otherwise), the money of every *closed* night that is not marked
settled, adds the payments recorded between people since, and shows the fewest transfers that
settle what is left. The night still open is not in the tab until it is closed (its figures can
still change).

The chat's tab has its own append-only log (`tab_events`): `paid` (a payment between two people,
in money: the stake applied, like the summary's figures in brackets), `settled` (a night paid at
the table on its own: it leaves the tab) and `undo` (takes one of them back; the dedicated forms
`/paid undo [N]` and `/settled undo [N]`, since the table's `/undo` corrects the night being played).
Nothing is edited or deleted. Every payment moves the same amount off one balance and onto another,
so the tab always sums to zero.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from bot.chat.handlers import repeats
from bot.chat.handlers.common import Context, Refusal
from bot.chat.handlers.repeats import REPEAT_MINUTES
from bot.chat.tab_words import tab_amount_cents, tab_undo_word
from bot.night.records import NightMarks, TabEventRow
from bot.text.replies import LIST, Choice, Joined, Reply, Response
from bot.views.lines import format_money
from bot.views.stats import NightFigures, Persons, chat_figures
from engine.transfers import Transfer, minimal_transfers

PAID, SETTLED, UNDO = "paid", "settled", "undo"
EXACT_UP_TO = 10  # people with a balance: up to this many the fewest transfers are found exactly
MAX_CENTS = 100_000_000_00  # a payment above a hundred million is a typo


@dataclass(frozen=True)
class Entry:
    """One entry of the chat's tab log, with its number in this chat (1, 2, …) and whether it counts."""

    number: int
    row: TabEventRow
    active: bool

    @property
    def body(self) -> dict[str, object]:
        loaded = json.loads(self.row.payload)
        return loaded if isinstance(loaded, dict) else {}


@dataclass(frozen=True)
class Tab:
    balances: tuple[tuple[str, int], ...]  # person key, money in cents: positive is owed, negative owes
    nights: tuple[int, ...]  # the numbers of the nights in the tab
    settled: tuple[int, ...]  # closed nights marked settled on their own
    open_night: int | None  # the night being played: not in the tab yet
    payments: int  # payments that count
    transfers: tuple[tuple[str, str, int], ...]  # payer key, payee key, cents


def entries(rows: Sequence[TabEventRow]) -> list[Entry]:
    """The log with each entry's number among its kind (payment 1, 2, …) and whether it still counts."""
    undone = {row.reverses for row in rows if row.kind == UNDO and row.reverses is not None}
    counts: dict[str, int] = {}
    found: list[Entry] = []
    for row in rows:
        counts[row.kind] = counts.get(row.kind, 0) + 1
        found.append(Entry(counts[row.kind], row, row.id not in undone))
    return found


def fewest_transfers(balances: Sequence[int]) -> list[Transfer]:
    """The fewest transfers that bring every balance to zero (engine.transfers), found exactly for up
    to EXACT_UP_TO people with a balance (the exact search grows as 3^n); beyond that, pairs that
    cancel exactly first, then the largest debtor pays the largest creditor: at most n - 1."""
    nonzero = [index for index, value in enumerate(balances) if value]
    if len(nonzero) <= EXACT_UP_TO:
        return minimal_transfers(balances)
    left = list(balances)
    transfers: list[Transfer] = []
    by_value: dict[int, list[int]] = {}
    for index in nonzero:
        opposite = by_value.get(-left[index])
        if opposite:
            other = opposite.pop()
            payer, payee = (index, other) if left[index] < 0 else (other, index)
            transfers.append(Transfer(payer, payee, abs(left[index])))
            left[index] = left[other] = 0
        else:
            by_value.setdefault(left[index], []).append(index)
    while any(left):
        debtor = min(range(len(left)), key=lambda i: (left[i], i))
        creditor = max(range(len(left)), key=lambda i: (left[i], -i))
        amount = min(-left[debtor], left[creditor])
        transfers.append(Transfer(debtor, creditor, amount))
        left[debtor] += amount
        left[creditor] -= amount
    return transfers


def tab_of(found: Sequence[tuple[NightMarks, NightFigures]], log: Sequence[Entry], persons: Persons) -> Tab:
    settled_ids = {int(str(e.body["night_id"])) for e in log if e.active and e.row.kind == SETTLED}
    balances: dict[str, int] = {}
    nights: list[int] = []
    settled: list[int] = []
    open_night = None
    for marks, figures in found:
        if not marks.closed:
            open_night = marks.number
            continue
        if marks.night_id in settled_ids:
            settled.append(marks.number)
            continue
        nights.append(marks.number)
        for person in figures.persons:
            key = persons.key_of(person)
            balances[key] = balances.get(key, 0) + person.money_cents
    payments = [e for e in log if e.active and e.row.kind == PAID]
    for entry in payments:  # the payer owes that much less, the payee is owed that much less
        payer, payee = persons.resolve(str(entry.body["payer"])), persons.resolve(str(entry.body["payee"]))
        cents = int(str(entry.body["cents"]))
        balances[payer] = balances.get(payer, 0) + cents
        balances[payee] = balances.get(payee, 0) - cents
    order = sorted(balances, key=lambda key: (-balances[key], persons.name(key)))
    values = [balances[key] for key in order]
    transfers = tuple((order[t.payer], order[t.payee], t.amount) for t in fewest_transfers(values))
    shown = tuple((key, balances[key]) for key in order if balances[key])
    return Tab(shown, tuple(nights), tuple(settled), open_night, len(payments), transfers)


async def read_tab(context: Context) -> tuple[Tab, Persons, list[Entry], list[tuple[NightMarks, NightFigures]]]:
    chat = context.incoming.chat_id
    found = await chat_figures(context.services.nights, chat)
    persons = Persons([figures for _, figures in found])
    log = entries(await context.services.nights.tab.tab_events(chat))
    return tab_of(found, log, persons), persons, log, found


def signed_money(cents: int) -> str:
    return f"+{format_money(cents)}" if cents > 0 else f"−{format_money(-cents)}" if cents < 0 else "0"


def runs(numbers: Sequence[int]) -> Joined:
    """Night numbers as runs, short enough for a phone after 500 nights: 1–28, 30."""
    parts: list[str] = []
    start = previous = None
    for number in [*numbers, None]:
        if start is not None and previous is not None and number == previous + 1:
            previous = number
            continue
        if start is not None and previous is not None:
            parts.append(str(start) if start == previous else f"{start}–{previous}")
        start = previous = number
    return Joined(tuple(parts), LIST)


def tab_replies(tab: Tab, persons: Persons) -> list[Reply]:
    numbers = runs(tab.nights)
    replies = [Reply("tab.header", {"nights": numbers, "payments": tab.payments}, count=len(tab.nights))]
    if not tab.nights:
        replies = [Reply("tab.no_unsettled")]
    if tab.nights or tab.payments:
        if not tab.balances:
            replies.append(Reply("tab.all_square"))
        for key, cents in tab.balances:
            replies.append(Reply("tab.balance", {"name": persons.name(key), "money": signed_money(cents)}))
        if tab.transfers:
            replies.append(Reply("tab.transfers_header", count=len(tab.transfers)))
        for payer, payee, cents in tab.transfers:
            params = {"payer": persons.name(payer), "payee": persons.name(payee), "money": format_money(cents)}
            replies.append(Reply("tab.transfer", params))
    if tab.settled:
        replies.append(Reply("tab.settled_nights", {"nights": runs(tab.settled)}, count=len(tab.settled)))
    if tab.open_night is not None:
        replies.append(Reply("tab.open_night", {"night": tab.open_night}))
    return replies


# ---- handlers -----------------------------------------------------------------------------------


async def show(context: Context) -> Response:
    """`/tab` (账本): the unsettled nights summed per person and the fewest transfers."""
    tab, persons, _, found = await read_tab(context)
    if not found:
        raise Refusal(Reply("tab.no_nights"))
    return Response(tuple(tab_replies(tab, persons)), context.language)


def _group_only(context: Context) -> None:
    if context.incoming.private:
        raise Refusal(Reply("night.private_chat"))
    # an edited message is a new line (a table event's edit is its /fix): for money between people that
    # would record a second payment beside the first, so an edit records nothing here
    if (context.incoming.update_key or "").startswith("edit:"):
        raise Refusal(Reply("tab.edit_refused"))


def may_write(context: Context, persons: Persons) -> None:
    """A payment or a settle mark is recorded by someone who played in this chat, or an admin."""
    speaker = context.incoming.speaker
    me = persons.find(speaker.name, None if speaker.by_name else speaker.id)
    if me is None and not speaker.is_admin:
        raise Refusal(Reply("tab.not_a_player"))


def _line(context: Context) -> tuple[str, str, str | None]:
    return context.line.speaker, context.line.text, context.line.update_key


def typed_person(context: Context, persons: Persons, typed: str) -> str | None:
    """The person a typed name is (a name, an @username, or an account the line mentions by it),
    among those who played in the chat; None when it is no one (the tab's and /stats' one lookup)."""
    word = typed.lstrip("@").casefold()
    mentioned = next(
        (m for m in context.incoming.mentions if word in {(m.username or "").casefold(), m.name.casefold()}), None
    )
    return persons.find(typed, mentioned.id if mentioned is not None and not mentioned.by_name else None)


def _person(context: Context, persons: Persons, typed: str) -> str:
    key = typed_person(context, persons, typed)
    if key is None:
        everyone = Joined(persons.everyone(), LIST)
        raise Refusal(Reply("tab.unknown_person", {"name": typed, "persons": everyone}))
    return key


def cents_of(text: str) -> int:
    cents = tab_amount_cents(text)
    if cents is None or not 0 < cents <= MAX_CENTS:
        raise Refusal(Reply("tab.bad_amount", {"amount": text}))
    return cents


async def paid(context: Context) -> Response:
    """`/paid Bob Alice 120` (付了): Bob paid Alice 120; `/paid Alice 120`: the speaker paid Alice."""
    _group_only(context)
    words = list(context.command.names)
    if words and tab_undo_word(words[0]):
        return await _undo(context, PAID, words[1:])
    if len(words) not in (2, 3):
        raise Refusal(Reply("tab.paid_usage"))
    _, persons, log, found = await read_tab(context)
    if not found:
        raise Refusal(Reply("tab.no_nights"))
    may_write(context, persons)
    cents = cents_of(words[-1])
    payer = _person(context, persons, words[0]) if len(words) == 3 else _speaker_person(context, persons)
    payee = _person(context, persons, words[-2])
    if payer == payee:
        raise Refusal(Reply("tab.same_person", {"name": persons.name(payer)}))
    body = {"payer": persons.stable_node(payer), "payee": persons.stable_node(payee), "cents": cents}
    payload = json.dumps(body, ensure_ascii=False)
    same = await repeated_payment(context, log, persons, payload)
    if same is not None:  # sent twice, or paid twice: the table says which, never silence
        return await ask_repeat(context, persons, same, payload)
    writer = _speaker_key(context, persons)
    return await record_payment(context, payload, _line(context), writer, (persons, log, found))


async def ask_repeat(context: Context, persons: Persons, same: Entry, payload: str) -> Response:
    """Hold the payment and ask, as a table event sent twice is asked (bot/chat/handlers/repeats.py: kept,
    its buttons carry its id, answered once); the money moves only on 再记一次 (again.py)."""
    speaker, text, _ = _line(context)
    writer = _speaker_key(context, persons) or ""
    held = repeats.HeldPayment(0, same.number, payload, speaker, text, context.services.clock(), writer)
    held = await repeats.remember_payment(context.services, context.incoming.chat_id, held)
    choices = (  # good in any hand: a payment is the chat's, not a hand's (a button names a night all the same)
        Choice(Reply("button.again"), repeats.again_command(held, True), anytime=True),
        Choice(Reply("button.not_again"), repeats.again_command(held, False), anytime=True),
    )
    night = context.night.id if context.night is not None else None  # the chat's latest, closed or not
    asked = Reply("tab.paid_repeat", payment_params(persons, same))
    return Response((asked,), context.language, choices=choices, night_id=night)


def payment_params(persons: Persons, entry: Entry) -> dict[str, object]:
    """A payment's number, payer, payee and money, as its lines name them."""
    body = entry.body
    return {
        "number": entry.number,
        "payer": persons.name(persons.resolve(str(body["payer"]))),
        "payee": persons.name(persons.resolve(str(body["payee"]))),
        "money": format_money(int(str(body["cents"]))),
    }


async def repeated_payment(context: Context, log: Sequence[Entry], persons: Persons, payload: str) -> Entry | None:
    """The payment just recorded, if `payload` says the same (the same payer, payee and amount) and it
    is the chat's newest word on money: the newest entry of the tab, with nothing recorded in the
    night being played since. A repeated update of the line itself is no question (recorded once)."""
    key = context.incoming.update_key
    if not log or (key and await context.services.nights.has_update(key)):
        return None
    newest = log[-1]
    if newest.row.kind != PAID or not newest.active or not await _newest_word(context, newest.row):
        return None
    now, then = json.loads(payload), newest.body
    same_people = all(persons.resolve(str(now[k])) == persons.resolve(str(then[k])) for k in ("payer", "payee"))
    return newest if same_people and int(str(then["cents"])) == int(now["cents"]) else None


async def _newest_word(context: Context, row: TabEventRow) -> bool:
    """Whether no event of the night being played was recorded after the tab entry `row`."""
    if context.night is None or context.closed:
        return True
    latest = await context.services.nights.latest_event_time(context.night.id)
    return latest is None or latest <= row.created_at


TabRead = tuple[Persons, list[Entry], list[tuple[NightMarks, NightFigures]]]


async def record_payment(
    context: Context,
    payload: str,
    line: tuple[str, str, str | None],
    writer: str | None,
    read: TabRead | None = None,
) -> Response:
    """Write the payment (typed, or held by a question and answered 再记一次) and say what it did to the
    tab: who wrote it (`writer`, the person who typed it) when the payer did not, and, paid beyond what
    the tab owed, what the tab becomes."""
    if read is None:
        _, persons, log, found = await read_tab(context)
    else:
        persons, log, found = read
    await context.services.nights.tab.append_tab_event(context.incoming.chat_id, PAID, payload, line)
    body = json.loads(payload)
    payer, payee, cents = persons.resolve(str(body["payer"])), persons.resolve(str(body["payee"])), int(body["cents"])
    number = sum(e.row.kind == PAID for e in log) + 1
    done = {"number": number, "payer": persons.name(payer), "payee": persons.name(payee), "money": format_money(cents)}
    replies = [Reply("tab.paid_done", done)]
    if writer != payer:  # typed by someone else (the one owed, say): the payer sees who wrote it
        replies.append(Reply("tab.paid_by", {"speaker": line[0], "payer": persons.name(payer)}))
    before = dict(tab_of(found, log, persons).balances)
    after = dict(tab_of(found, [*log, _entry(PAID, payload)], persons).balances)
    owed = max(0, min(-before.get(payer, 0), before.get(payee, 0)))  # what the tab had the payer owe the payee
    undo = f"/paid undo {number}"
    flipped = _flipped(before, after, payer, payee)
    if flipped:  # more than was owed: the payment now reads as a debt the other way
        warn = {**done, "owed": format_money(owed), "debt": format_money(flipped), "line": undo}
        replies.append(Reply("tab.warn_paid", warn))
    elif cents > owed:  # beyond what the tab owed, though no debt turned: what the two stand at now
        over = {
            **done,
            "owed": format_money(owed),
            "over": format_money(cents - owed),
            "payer_after": signed_money(after.get(payer, 0)),
            "payee_after": signed_money(after.get(payee, 0)),
        }
        replies.append(Reply("tab.warn_overpaid", over))
    replies.append(Reply("tab.undo_hint", {"line": undo}))
    return await _recorded(context, replies)


def _entry(kind: str, payload: str) -> Entry:
    """An entry as it would be once recorded (for the tab after it)."""
    return Entry(0, TabEventRow(0, kind, payload, "", None, ""), True)


def _flipped(before: dict[str, int], after: dict[str, int], payer: str, payee: str) -> int:
    """What the payee owes the payer after, where before the payee was not in debt to the payer: the
    payment turned into a debt the other way (0: it did not)."""
    if after.get(payer, 0) > 0 and after.get(payee, 0) < 0 and not (before.get(payer, 0) > 0 > before.get(payee, 0)):
        return min(after[payer], -after[payee])
    return 0


def _speaker_key(context: Context, persons: Persons) -> str | None:
    speaker = context.incoming.speaker
    return persons.find(speaker.name, None if speaker.by_name else speaker.id)


def _speaker_person(context: Context, persons: Persons) -> str:
    key = _speaker_key(context, persons)
    if key is None:
        raise Refusal(Reply("tab.paid_usage"))
    return key


def _night_number(found: Sequence[tuple[NightMarks, NightFigures]], words: Sequence[str]) -> NightMarks:
    """The night a settle mark names (the chat's number), or the latest closed one."""
    if words:
        number = int(words[0]) if words[0].isdigit() and len(words) == 1 else None
        hit = next((marks for marks, _ in found if marks.number == number), None)
        if hit is None:
            raise Refusal(Reply("tab.no_such_night", {"night": words[0], "nights": len(found)}))
        return hit
    closed = [marks for marks, _ in found if marks.closed]
    if not closed:
        raise Refusal(Reply("tab.nothing_closed"))
    return closed[-1]


async def settled(context: Context) -> Response:
    """`/settled 3` (结清): night 3 was paid at the table on its own; it leaves the tab."""
    _group_only(context)
    words = list(context.command.names)
    if words and tab_undo_word(words[0]):
        return await _undo(context, SETTLED, words[1:])
    if len(words) > 1:
        raise Refusal(Reply("tab.settled_usage"))
    _, persons, log, found = await read_tab(context)
    if not found:
        raise Refusal(Reply("tab.no_nights"))
    may_write(context, persons)
    marks = _night_number(found, words)
    if not marks.closed:
        raise Refusal(Reply("tab.night_open", {"night": marks.number}))
    if any(e.active and e.row.kind == SETTLED and e.body.get("night_id") == marks.night_id for e in log):
        raise Refusal(Reply("tab.already_settled", {"night": marks.number}))
    body = {"night_id": marks.night_id, "number": marks.number}
    nights = context.services.nights
    await nights.tab.append_tab_event(context.incoming.chat_id, SETTLED, json.dumps(body), _line(context))
    replies = [Reply("tab.settled_done", {"night": marks.number})]
    replies.extend(_payments_turned(found, log, persons, _entry(SETTLED, json.dumps(body)), marks.number))
    replies.append(Reply("tab.undo_hint", {"line": f"/settled undo {marks.number}"}))
    return await _recorded(context, replies)


def _payments_turned(
    found: Sequence[tuple[NightMarks, NightFigures]], log: Sequence[Entry], persons: Persons, mark: Entry, night: int
) -> list[Reply]:
    """A payment the settle turns into a debt the other way (it was most likely that night's money,
    now counted twice): said with the figures and the line that takes it back."""
    before = dict(tab_of(found, log, persons).balances)
    after = dict(tab_of(found, [*log, mark], persons).balances)
    for entry in reversed([e for e in log if e.active and e.row.kind == PAID]):
        payer, payee = persons.resolve(str(entry.body["payer"])), persons.resolve(str(entry.body["payee"]))
        flipped = _flipped(before, after, payer, payee)
        if flipped:
            params = {
                "number": entry.number,
                "payer": persons.name(payer),
                "payee": persons.name(payee),
                "money": format_money(int(str(entry.body["cents"]))),
                "night": night,
                "debt": format_money(flipped),
            }
            return [Reply("tab.warn_settled", params)]
    return []


async def undo_after_paid(context: Context) -> Response | None:
    """A plain `/undo` right after `/paid` takes back the payment, as people expect: when the chat's
    newest entry of either log is a payment (no event of the night being played came after it)."""
    if context.incoming.private or context.command.number is not None:
        return None
    nights = context.services.nights
    rows = await nights.tab.tab_events(context.incoming.chat_id)
    if not rows or rows[-1].kind != PAID or not await _newest_word(context, rows[-1]):
        return None
    held = await withdraw_held(context)  # the payment's question was the chat's last word: its line goes
    return held if held is not None else await _undo(context, PAID, [])


def in_time(context: Context, held: repeats.HeldPayment) -> bool:
    """Whether a payment's question is still open (it lasts as long as the table's repeat question)."""
    return context.services.clock() - held.asked_at <= REPEAT_MINUTES * 60


async def withdraw_held(context: Context) -> Response | None:
    """A bare /undo right after a payment's question: the held line is withdrawn (its question answered,
    nothing written), never the payment recorded before it. None: no payment's question is open."""
    services, chat = context.services, context.incoming.chat_id
    waiting = [p for p in await repeats.open_payments(services, chat) if in_time(context, p)]
    if not waiting:
        return None
    newest = max(waiting, key=lambda p: p.question)
    _, persons, log, _ = await read_tab(context)
    may_write(context, persons)
    await repeats.take_payment(services, chat, newest.question, withdrawing=True)
    same = next((e for e in log if e.row.kind == PAID and e.number == newest.same), None)
    params = payment_params(persons, same) if same is not None else {"number": newest.same}
    return Response((Reply("tab.paid_repeat_withdrawn", params),), context.language, settles=True)


async def _undo(context: Context, kind: str, words: Sequence[str]) -> Response:
    """Take back a payment (`/paid undo [N]`: payment N, else the latest) or a settle mark (`/settled
    undo [N]`: night N's, else the latest)."""
    if len(words) > 1 or (words and not words[0].isdigit()):
        raise Refusal(Reply("tab.paid_usage" if kind == PAID else "tab.settled_usage"))
    _, persons, log, _ = await read_tab(context)
    may_write(context, persons)
    wanted = int(words[0]) if words else None
    live = [e for e in log if e.active and e.row.kind == kind]
    if kind == PAID:
        target = next((e for e in reversed(live) if wanted is None or e.number == wanted), None)
    else:
        target = next((e for e in reversed(live) if wanted is None or e.body.get("number") == wanted), None)
    if target is None and kind == PAID:
        raise Refusal(Reply("tab.no_payments") if wanted is None else Reply("tab.no_payment", {"number": wanted}))
    if target is None:
        raise Refusal(Reply("tab.none_settled") if wanted is None else Reply("tab.not_settled", {"night": wanted}))
    await context.services.nights.tab.append_tab_event(
        context.incoming.chat_id, UNDO, "{}", _line(context), reverses=target.row.id
    )
    if kind == PAID:
        body = target.body
        params = {
            "number": target.number,
            "payer": persons.name(persons.resolve(str(body["payer"]))),
            "payee": persons.name(persons.resolve(str(body["payee"]))),
            "money": format_money(int(str(body["cents"]))),
        }
        return await _recorded(context, [Reply("tab.paid_undone", params)])
    return await _recorded(context, [Reply("tab.settled_undone", {"night": target.body.get("number", "?")})])


async def _recorded(context: Context, replies: list[Reply]) -> Response:
    """What was recorded, then the tab as it now stands."""
    tab, persons, _, _ = await read_tab(context)
    return Response((*replies, *tab_replies(tab, persons)), context.language, recorded=True)
