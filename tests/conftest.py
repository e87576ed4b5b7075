from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import settings

from bot.chat.service import Referee
from bot.store.ledger import Ledger
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table

# Property tests are deterministic (the same examples on every run and machine) and never timed.
settings.register_profile("deterministic", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("deterministic")


@pytest.fixture
async def ledger(tmp_path: Path) -> AsyncIterator[Ledger]:
    opened = await Ledger.open(tmp_path / "ledger.sqlite3")
    yield opened
    await opened.close()


@pytest.fixture
def referee(ledger: Ledger, tmp_path: Path) -> Referee:
    return Referee(ledger, rules_dir=tmp_path, charts_enabled=False)


@pytest.fixture
def table(referee: Referee) -> Table:
    return Table(referee, "group-1")


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    """A fake Telegram Bot API server on 127.0.0.1, up for the test and stopped after it."""
    server = FakeTelegram()
    await server.start()
    yield server
    await server.stop()
