"""A button's callback data: `night:hand:command` (`-` for no night, `*` for any hand), which Telegram
takes only up to 64 bytes of UTF-8. `CallbackData` cannot be made longer: its constructor checks, so
a keyboard holds no button Telegram would refuse (the whole message with it) and a button that could
not be made is logged where it is dropped (bot/telegram/sending.py `keyboard`), never silently.

What keeps buttons within it is the chat layer's: a command on a button stays within
`COMMAND_BUDGET` bytes (bot/text/replies.py BUTTON_COMMAND_BYTES: a /join by a long name presses
`/join #N`, a guided flow's state is a few letters), which leaves room for a night id of
`NIGHT_DIGITS` digits and a hand of `HAND_DIGITS` (tests/test_buttons.py presses every button a night
offers and checks them all against that prefix).
"""

from __future__ import annotations

from dataclasses import dataclass

CALLBACK_LIMIT = 64  # bytes of UTF-8: Telegram's limit for callback_data
NIGHT_DIGITS = 7  # ten million nights
HAND_DIGITS = 3
COMMAND_BUDGET = CALLBACK_LIMIT - NIGHT_DIGITS - HAND_DIGITS - 2  # the two colons: 52 bytes


class CallbackTooLong(ValueError):
    """The data would pass Telegram's 64 bytes."""


@dataclass(frozen=True)
class CallbackData:
    text: str

    def __post_init__(self) -> None:
        size = len(self.text.encode("utf-8"))
        if size > CALLBACK_LIMIT:
            raise CallbackTooLong(f"{size} bytes, over Telegram's {CALLBACK_LIMIT}: {self.text!r}")

    @classmethod
    def of(cls, night_id: int | None, hand_no: int | None, command: str) -> CallbackData:
        """A button of this night (None: of no night) and hand (None: good for the whole night)."""
        night = "-" if night_id is None else str(night_id)
        hand = "*" if hand_no is None else str(hand_no)
        return cls(f"{night}:{hand}:{command}")
