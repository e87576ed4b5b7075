"""The Telegram front end composed in one place (#49 item 3, bot/telegram/app.py): the referee opened
first, the application's own hooks unused, every part built with the same connections, and an update
read once where it arrives, then carried through its lane to its handler."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from bot.telegram import lanes as lanes_module
from bot.telegram.app import front_end
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.telegram import ALICE, GROUP, Running


async def test_the_parts_share_one_set_of_connections_and_no_ptb_hook_is_used(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    async with front_end("123:TEST", str(tmp_path / "c.sqlite3"), fake.base_url, rate_limit=False) as front:
        application = front.application
        assert application.post_init is None and application.post_stop is None and application.post_shutdown is None
        assert application.running and front.connections.bot is application.bot
        parts = (front.chats, front.sender, front.pinned, front.updates, front.lanes)
        assert all(part.connections is front.connections for part in parts)
        assert front.connections.referee is front.referee
    assert not application.running


async def test_an_update_is_read_once_from_its_arrival_to_its_handler(
    fake: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[int] = []
    read_update = lanes_module.read_update

    def counted(update: Any) -> Any:
        read = read_update(update)
        reads.append(read.update_id)
        return read

    for name, module in list(sys.modules.items()):  # wherever the front end could read it again
        if name.startswith("bot.telegram") and getattr(module, "read_update", None) is read_update:
            monkeypatch.setattr(module, "read_update", counted)
    async with Running(fake, tmp_path / "once.sqlite3") as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        await bot.say(ALICE, "/score")
    assert len(reads) == 2 and len(set(reads)) == 2  # each of the two updates read once
    assert fake.texts(GROUP)
