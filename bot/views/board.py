"""A quiet chat: what a recorded event's reply shows, and when the scoreboard comes with it.

A chat's `board` setting decides. `hand` (the default): an event's reply is one line, two at most
(`✅ #12 丁 明杠 甲 9p · 甲 → 丁：20 花（20）`), its warnings kept on their own lines, and the
scoreboard follows only when the hand changes (a win, a 荒庄, a correction that moves the hand) and
on /score. `each`: the reply in full with the scoreboard after every event that moved money, as before.
This is transport-neutral: the console and Telegram both print what it returns. Telegram's pinned
live board (bot/telegram/pinned.py) is extra, from `Response.scoreboard`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cache

from bot.text.replies import LIST, Choice, Joined, Reply, Response, Trimmed
from bot.text.vocabulary import catalog_words, fold

EACH, HAND = "each", "hand"
MODES = (HAND, EACH)
SETTING = "board"
DEFAULT_MODE = HAND


@cache
def mode_words() -> dict[str, str]:
    """Folded word → mode, in every language (`words.board.each`, `words.board.hand`)."""
    return {fold(word): mode for mode in MODES for word in (mode, *catalog_words(f"board.{mode}", with_name=False))}


def mode_of(word: str | None) -> str | None:
    return mode_words().get(fold(word.strip())) if word else None


END_OF_HAND = frozenset({"table.next_hand", "table.dealer_stays"})  # what the board's header says again
DETAILS = "/history #{id}"  # a win's full breakdown, as the 明细 button asks for it


def shaped(response: Response, mode: str, hand_before: int | None) -> Response:
    """The reply as the chat's board setting wants it. Only a recorded event's reply (one that
    carries the board) changes; questions, hints and refusals stay as they are. In `hand` mode the
    reply also carries its `live` form, for a chat whose board is pinned (bot/telegram/pinned.py), and
    a win its 明细 button."""
    board = response.scoreboard
    if not response.recorded or board is None:
        return response
    hand_changed = hand_before is not None and response.hand_no != hand_before
    if mode == EACH:
        shown = response.moved_money or hand_changed
        return replace(response, replies=(*response.replies, board)) if shown else response
    replies = quiet(response.replies)
    if hand_changed:  # the board comes next (or is pinned): its header says the hand, the dealer, 连庄
        replies = tuple(reply for reply in replies if reply.key not in END_OF_HAND)
    return replace(
        response,
        replies=(*replies, board) if hand_changed else replies,
        live=live(replies),
        choices=(*response.choices, *details_choice(replies)),
    )


def details_choice(replies: Sequence[Reply]) -> tuple[Choice, ...]:
    """明细 under a win: its full breakdown, good all night (it asks, it records nothing)."""
    if not any(reply.key == "score.breakdown" for reply in replies):
        return ()
    recorded = next((reply for reply in replies if reply.key == "event.recorded"), None)
    if recorded is None:
        return ()
    return (Choice(Reply("button.details"), DETAILS.format(id=recorded.params["id"]), anytime=True),)


def quiet(replies: Sequence[Reply]) -> tuple[Reply, ...]:
    """The event's line with its payments after it on the same line (or the next one); a win's
    itemisation, notices and warnings are kept line by line, its payments on one line: a quiet chat
    loses no warning."""
    if not replies or replies[0].key != "event.recorded":
        return one_payment_line(replies)
    end = 1
    doubled: list[Reply] = []  # a gang or a fine in a 比下胡 hand: "比下胡 ×2" goes on the line too
    while end < len(replies) and replies[end].key == "factor.bixiahu":
        doubled.append(Reply("quiet.doubled", replies[end].params))
        end += 1
    start = end
    while end < len(replies) and replies[end].key == "pay.line":
        end += 1
    payments = replies[start:end]
    if not payments:  # a win (its itemisation first), or an event that moved nothing
        return one_payment_line(replies)
    summary = [*doubled, *pay_summary(payments)]
    head: tuple[Reply, ...]
    if len(summary) == 1 or (doubled and len(summary) == 2):
        head = (Reply("quiet.joined", {"event": replies[0], "payments": Joined(tuple(summary), " · ")}),)
    else:
        head = (replies[0], Reply("quiet.more", {"payments": Joined(tuple(summary), " · ")}))
    return (*head, *replies[end:])


def one_payment_line(replies: Sequence[Reply]) -> tuple[Reply, ...]:
    """A win's payments (after its itemisation) as one line: `陈静、张伟、李娜 → 王芳：各 46 花（46）`."""
    if not any(reply.key == "score.breakdown" for reply in replies):
        return tuple(replies)
    shown: list[Reply] = []
    for index, reply in enumerate(replies):
        if reply.key != "pay.line":
            shown.append(reply)
        elif index == 0 or replies[index - 1].key != "pay.line":  # the first of a run stands for the run
            end = index
            while end < len(replies) and replies[end].key == "pay.line":
                end += 1
            shown.append(Reply("quiet.more", {"payments": Joined(tuple(pay_summary(replies[index:end])), " · ")}))
    return tuple(shown)


def live(replies: Sequence[Reply]) -> tuple[Reply, ...]:
    """The reply where the board is pinned and live: a win reads in three lines (who won on whom,
    the total with its items on one line, who pays what); its full breakdown is one tap away (明细,
    or /history #N). How the payments came from the total (比下胡, 垒宝塔, 包牌) stays on the total's
    line; which patterns came from the log is left to the breakdown. What the pinned board's header
    says (the next hand, its dealer, 连庄) is not said again, nor a 包牌 the total's line names."""
    winners = sum(reply.key == "score.breakdown" for reply in replies)
    liable = {str(reply.params["liable"]) for reply in replies if reply.key.startswith("factor.liable")}
    shown: list[Reply] = []
    index = 0
    while index < len(replies):
        reply = replies[index]
        index += 1
        if reply.key in END_OF_HAND or (reply.key == "table.liable" and str(reply.params["seat"]) in liable):
            continue
        if reply.key != "score.breakdown":
            shown.append(reply)
            continue
        factors: list[Reply] = []
        while index < len(replies) and (
            replies[index].key.startswith("factor.") or replies[index].key == "score.from_log"
        ):
            if replies[index].key.startswith("factor."):
                factors.append(replies[index])
            index += 1
        shown.append(one_line(reply, factors, named=winners > 1))
    return tuple(folded(shown))


ON_THE_EVENT = {"win.merged": "compact.merged", "win.in_hand": "compact.fix_tip"}  # said on the event's line


def folded(replies: Sequence[Reply]) -> list[Reply]:
    """The 比下胡 warning for the next hand at the end of the line before it (who pays, or 荒庄): the
    pinned board's header says ×2 as well, the warning says why, and the hand ends in three lines.
    Which win a second winner joined (一炮多响) and, in the first hand, how to fix a line, go at the end
    of the event's own line, shortened: the board says the hand."""
    shown: list[Reply] = []
    on_event: list[Reply] = []
    for reply in replies:
        if reply.key in ON_THE_EVENT:
            on_event.append(reply)
        elif reply.key == "table.next_doubled" and shown:
            shown[-1] = Reply("compact.joined", {"line": shown[-1], "notice": reply})
        else:
            shown.append(reply)
    event = next((i for i, reply in enumerate(shown) if reply.key == "event.recorded"), None)
    if event is None:  # no event's line to say them on: said in full, as before
        return [*shown, *on_event]
    for said in on_event:
        shown[event] = Reply(
            "compact.joined", {"line": shown[event], "notice": Reply(ON_THE_EVENT[said.key], said.params)}
        )
    return shown


def one_line(breakdown: Reply, factors: Sequence[Reply], named: bool) -> Reply:
    """`  跑20 硬花×4 8 风碰2 缺一门2 压档2 = 34 花 · 比下胡 ×2`: a winner's items, total and factors."""
    items = tuple(
        Reply("compact.item_count" if item.params["count"] else "compact.item", compact_item(item))
        for item in breakdown.params["items"]
    )
    extra = Reply("compact.factors", {"factors": Joined(tuple(Trimmed(f) for f in factors), " · ")}) if factors else ""
    params = {
        "winner": breakdown.params["winner"],
        "items": Joined(items, Reply("compact.separator")),
        "total": breakdown.params["total"],
        "factors": extra,
    }
    return Reply("compact.total_named" if named else "compact.total", params)


def compact_item(item: Reply) -> dict[str, object]:
    """A `score.item`'s name, count (×4 without the sign) and flowers."""
    count = str(item.params["count"]).strip().lstrip("×")
    return {"name": item.params["name"], "count": count, "flowers": item.params["flowers"]}


def pay_summary(payments: Sequence[Reply]) -> list[Reply]:
    """Payments of one event in as few words as they allow: three players paying one the same
    (暗杠, 花杠) or one paying three the same (跟牌) is one phrase; otherwise one phrase each."""
    params = [p.params for p in payments]
    same = {(p["amount"], p["money"]) for p in params}
    if len(params) > 1 and len(same) == 1:
        first = params[0]
        if len({p["payee"] for p in params}) == 1:
            payers = Joined(tuple(p["payer"] for p in params), LIST)
            return [Reply("quiet.from_each", {**first, "payers": payers})]
        if len({p["payer"] for p in params}) == 1:
            payees = Joined(tuple(p["payee"] for p in params), LIST)
            return [Reply("quiet.to_each", {**first, "payees": payees})]
    return [Reply("quiet.pay", p) for p in params]
