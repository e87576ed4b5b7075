"""The engine's table of suit shapes is built once per process, by the front end's start in a worker
(Referee.warm), not by the first win a table types on the event loop."""

from __future__ import annotations

from pathlib import Path

from bot.chat.service import Referee
from engine.suit_shapes import reading_table


async def test_warming_the_referee_builds_the_suit_shapes(tmp_path: Path) -> None:
    reading_table.cache_clear()
    referee = await Referee.open(tmp_path / "warm.sqlite3")
    try:
        await referee.warm()
        assert reading_table.cache_info().currsize == 1
        assert len(reading_table()) > 60_000  # every readable shape of each suit and of the winds
    finally:
        await referee.close()
