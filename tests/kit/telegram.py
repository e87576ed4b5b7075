"""A fake Telegram group with the referee running in it (PTB's real HTTP stack, no network): its
players, the chats, `Running` to send lines and press buttons, and the ledger's balances after."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self

from bot.store.ledger import Ledger
from bot.telegram.app import TelegramFrontEnd, build_application
from bot.telegram.delivery import RetryPolicy
from bot.telegram.intake import Polling
from bot.telegram.pace import Pacer
from tests.kit.fake_telegram import FakeTelegram, user

GROUP, OTHER_GROUP = -100111, -100222
ALICE, BOB, CAROL, DAVE, EVE = (user(i, n) for i, n in enumerate(("Alice", "Bob", "Carol", "Dave", "Eve"), start=1))


class Running:
    def __init__(
        self,
        fake: FakeTelegram,
        db: Path,
        policy: RetryPolicy | None = None,
        board_interval: float | None = None,
        pacer: Pacer | None = None,
        rules_dir: Path | None = None,
    ) -> None:
        """`pacer`: messages wait for their chat's turn (bot/telegram/pace.py); without, they go at
        once (the fake enforces no limit unless told to). `board_interval`: 0 unless given (the
        board edited after each event)."""
        self.fake = fake
        self.application = build_application(
            "123:TEST",
            str(db),
            fake.base_url,
            policy=policy,
            board_interval=board_interval or 0.0,
            rate_limit=False,
            pacer=pacer,
            rules_dir=rules_dir,
        )
        self.front: TelegramFrontEnd = self.application.bot_data["front"]
        self.intake = Polling(self.application.bot, self.front.accept_all, timeout=1)

    async def __aenter__(self) -> Self:
        await self.application.initialize()
        await self.application.post_init(self.application)  # type: ignore[misc]
        await self.application.start()
        await self.intake.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.intake.stop()
        await self.application.stop()
        await self.application.post_stop(self.application)  # type: ignore[misc]
        await self.application.post_shutdown(self.application)  # type: ignore[misc]
        await self.application.shutdown()

    async def say(self, sender: dict[str, Any], text: str, chat: int = GROUP, **extra: Any) -> str:
        """Send a line and wait for the bot's reply to it (a chart may take a second to render)."""
        before = len(self.fake.calls)
        update_id = self.fake.message(chat, sender, text, **extra)
        await self.fake.wait_for(
            lambda: any(c.method in ("sendMessage", "sendPhoto") for c in self.fake.calls[before:]), timeout=30
        )
        await self.fake.settle(update_id)
        return "\n".join(
            str(c.params.get("text", c.params.get("caption", "")))
            for c in self.fake.calls[before:]
            if c.method in ("sendMessage", "sendPhoto")
        )

    async def send_file(self, sender: dict[str, Any], caption: str, name: str, data: bytes, **extra: Any) -> str:
        """Send a document with a caption and wait for the bot's reply to it."""
        before = len(self.fake.calls)
        update_id = self.fake.document(GROUP, sender, caption, name, data, **extra)
        await self.fake.wait_for(lambda: any(c.method == "sendMessage" for c in self.fake.calls[before:]), timeout=30)
        await self.fake.settle(update_id)
        return "\n".join(str(c.params.get("text", "")) for c in self.fake.calls[before:] if c.method == "sendMessage")

    async def press(self, sender: dict[str, Any], data: str) -> str:
        keyboard = [c for c in self.fake.calls if "reply_markup" in c.params][-1]
        before = len(self.fake.calls)
        await self.fake.settle(self.fake.press(sender, keyboard, data))
        return "\n".join(
            str(c.params.get("text", ""))
            for c in self.fake.calls[before:]
            if c.method in ("sendMessage", "answerCallbackQuery")
        )


def buttons(fake: FakeTelegram) -> dict[str, str]:
    markup = [c for c in fake.calls if "reply_markup" in c.params][-1].params["reply_markup"]
    return {b["text"]: b["callback_data"] for row in markup["inline_keyboard"] for b in row}


async def balances(db: Path, chat: str = f"tg:{GROUP}") -> list[int]:
    ledger = await Ledger.open(db)
    try:
        night = await ledger.latest_night(chat)
        assert night is not None
        return (await ledger.balances(night.id))[0]
    finally:
        await ledger.close()


NEW = "/new @alice @bob @carol @dave"


def board_texts(fake: FakeTelegram) -> list[str]:
    return [str(c.params["text"]) for c in fake.sent(chat_id=GROUP) if str(c.params["text"]).startswith("📋")]
