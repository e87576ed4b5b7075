"""A quiet chat: what a recorded event's reply shows, and when the scoreboard comes with it.

A chat's `board` setting decides. `hand` (the default): an event's reply is one line, two at most
(`✅ #12 丁 明杠 甲 9p · 甲 → 丁：20 花（20）`), its warnings kept on their own lines, and the
scoreboard follows only when the hand changes (a win, a 荒庄, a correction that moves the hand) and
on /score. `each`: the reply in full with the scoreboard after every event that moved money, as before.
This is transport-neutral: the console and Telegram both print what it returns. Telegram's pinned
live board (bot/telegram_app.py) is extra, from `Response.scoreboard`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cache

from bot.replies import LIST, Joined, Reply, Response
from bot.vocabulary import catalog_words, fold

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


def shaped(response: Response, mode: str, hand_before: int | None) -> Response:
    """The reply as the chat's board setting wants it. Only a recorded event's reply (one that
    carries the board) changes; questions, hints and refusals stay as they are."""
    board = response.scoreboard
    if not response.recorded or board is None:
        return response
    hand_changed = hand_before is not None and response.hand_no != hand_before
    if mode == EACH:
        shown = response.moved_money or hand_changed
        return replace(response, replies=(*response.replies, board)) if shown else response
    replies = quiet(response.replies)
    return replace(response, replies=(*replies, board) if hand_changed else replies)


def quiet(replies: Sequence[Reply]) -> tuple[Reply, ...]:
    """The event's line with its payments after it on the same line (or the next one); a win's
    itemisation, notices and warnings are kept line by line: a quiet chat loses no warning."""
    if not replies or replies[0].key != "event.recorded":
        return tuple(replies)
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
        return tuple(replies)
    summary = [*doubled, *pay_summary(payments)]
    head: tuple[Reply, ...]
    if len(summary) == 1 or (doubled and len(summary) == 2):
        head = (Reply("quiet.joined", {"event": replies[0], "payments": Joined(tuple(summary), " · ")}),)
    else:
        head = (replies[0], Reply("quiet.more", {"payments": Joined(tuple(summary), " · ")}))
    return (*head, *replies[end:])


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
