"""Every button the bot can make fits Telegram's 64 bytes of callback data (#42 item 7), with the
largest night id and hand the data budgets for (bot/telegram/callback.py): a night is played through
the command layer with long names, and every button it offers is pressed in turn, collecting the
buttons each press offers, until none is new."""

from __future__ import annotations

import re

import pytest

from bot.chat.service import Incoming
from bot.night.seating import Speaker
from bot.telegram.callback import (
    CALLBACK_LIMIT,
    COMMAND_BUDGET,
    HAND_DIGITS,
    NIGHT_DIGITS,
    CallbackData,
    CallbackTooLong,
)
from bot.text.replies import BUTTON_COMMAND_BYTES, Choice, Response
from tests.kit.harness import Table

LONG = ("欧阳" * 8, "司马" * 8, "Bartholomew-Alexander", "诸葛" * 8)  # 48 bytes each in UTF-8, but one
NIGHT, HAND = int("9" * NIGHT_DIGITS), int("9" * HAND_DIGITS)
OPENERS = (
    "/hu",
    "/gang",
    "/penalty",
    "/pong",
    "/hu self",
    f"{LONG[1]}: 碰 {LONG[2][:-1]} 6s",  # a near miss: the mended line as a button
    "/summary",
    "/flowergang",
    "/undo",
    "/score",
)


def worst_case(command: str) -> str:
    """A flow's state names its night, hand and minute again: as large as the budget allows."""
    return re.sub(r"~t\d+g\d+d\d+", f"~t{'9' * 8}g{NIGHT}d{HAND}", command)


def check(choice: Choice, seen: dict[str, int]) -> None:
    data = CallbackData.of(NIGHT, None if choice.anytime else HAND, worst_case(choice.command))
    seen[choice.command] = len(data.text.encode())


async def test_every_button_a_night_offers_fits_with_the_largest_night_and_hand(table: Table) -> None:
    speakers = [LONG[0], LONG[1], LONG[2], LONG[3]]
    seen: dict[str, int] = {}
    waiting: list[tuple[str, Choice]] = []

    def offer(speaker: str, response: Response | None) -> None:
        for choice in response.choices if response is not None else ():
            if choice.command not in seen:
                check(choice, seen)
                waiting.append((speaker, choice))

    offer(LONG[0], await table.respond(f"{LONG[0]}: /new {' '.join(LONG)}"))  # claim buttons: /join by name
    for line in OPENERS:
        speaker, text = line.split(": ", 1) if ": " in line else (speakers[1], line)
        offer(speaker, await table.respond(f"{speaker}: {text}"))
        presses = 0
        while waiting and presses < 300:
            speaker, choice = waiting.pop()
            presses += 1
            offer(speaker, await table.respond(f"{speaker}: {choice.command}"))
    assert len(seen) > 60  # the walk reached the flows' steps, not only the first keyboards
    assert max(seen.values()) <= CALLBACK_LIMIT


async def test_a_seat_opened_by_a_long_name_is_claimed_by_its_number(table: Table) -> None:
    """Telegram accounts (not typed names): the claim buttons of seats opened by name. A long name's
    button presses `/join #N`; a short one's keeps the name."""
    referee = table.referee

    def account(number: int, name: str) -> Speaker:
        return Speaker(id=str(number), name=name, by_name=False, username=None)

    opened = await referee.handle(Incoming("tg", account(1, "Ann"), f"/new Ann {LONG[1]} Bo {LONG[3]}"))
    assert opened is not None
    claims = {c.command for c in opened.choices if c.label.key == "telegram.claim"}
    assert claims == {"/join Ann", "/join #1", "/join Bo", "/join #3"}
    for choice in opened.choices:
        check(choice, {})
    taken = await referee.handle(Incoming("tg", account(2, "Sima"), "/join #1"))
    assert taken is not None and taken.recorded and taken.replies[0].params == {"name": LONG[1]}
    again = await referee.handle(Incoming("tg", account(3, "Late"), "/join #1"))
    assert again is not None and again.refused and again.replies[0].key == "button.used"


def test_the_chat_layers_budget_is_what_the_data_leaves_for_a_command() -> None:
    assert COMMAND_BUDGET == BUTTON_COMMAND_BYTES == CALLBACK_LIMIT - len(f"{NIGHT}:{HAND}:")


def test_the_data_type_cannot_hold_more_than_64_bytes() -> None:
    assert CallbackData.of(None, None, "/new").text == "-:*:/new"
    assert len(CallbackData.of(NIGHT, HAND, "x" * (CALLBACK_LIMIT - NIGHT_DIGITS - HAND_DIGITS - 2)).text) == 64
    with pytest.raises(CallbackTooLong):
        CallbackData.of(NIGHT, HAND, "x" * (CALLBACK_LIMIT - NIGHT_DIGITS - HAND_DIGITS - 1))
    with pytest.raises(CallbackTooLong):
        CallbackData("/join " + "欧" * 20)  # 6 + 60 bytes
