"""The board a table can see (#48 item 5): on a short night at an ordinary pace the pinned live board
gets a turn within 30 s of any change even when answers take every slot, and nothing is sent about a
night after it closed except what closing says. Against the real Telegram front end, Telegram's
limits enforced, on a simulated clock (tests/kit/busy_table.py, tests/kit/virtual_time.py)."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bot.telegram.delivery import Outgoing
from bot.telegram.pace import Pacer
from tests.kit.busy_table import NAMES, BusyTable, build_application
from tests.kit.virtual_time import run

BOARD_WITHIN = 30.0  # seconds from a change to the pinned board showing it, at the latest
PACE = 4.0  # seconds between lines: an ordinary table

# Three hands: a pong, a gang, a penalty, then a win, as a table types them (p0 deals; a win by
# another player passes the deal on).
HANDS = (
    ((0, "碰 p1"), (2, "杠 p3"), (1, "罚 跟牌 p0"), (3, "胡 p2 花5")),
    ((1, "碰 p0"), (3, "杠 p1"), (2, "胡 p0 花3")),
    ((0, "杠 p2"), (1, "罚 跟牌 p3"), (3, "碰 p2"), (0, "胡 p1 花4")),
)


@dataclass
class Night:
    closed_at: float = 0.0
    board_calls: list[tuple[float, str]] = field(default_factory=list)  # (when, method) of the board's
    lags: list[float] = field(default_factory=list)  # a change to the board showing it
    unshown: list[float] = field(default_factory=list)  # changes never shown while the night was open
    delays: list[float] = field(default_factory=list)  # each line to its answer


class ShortNight(BusyTable):
    async def night(self) -> Night:
        found = Night()
        self.application = build_application(
            "1:BUSY", str(self.folder / "busy.sqlite3"), request=self.telegram, pacer=Pacer()
        )
        await self.application.initialize()
        await self.application.post_init(self.application)
        self.watch()
        live = self.front.pinned.live
        publish = live.publish

        async def published(item: Outgoing) -> bool:
            before = len(self.telegram.calls)
            done = await publish(item)
            found.board_calls += [(c.at, c.method) for c in self.telegram.calls[before:] if c.tag is None]
            return done

        live.publish = published
        await self.line(0, "/new " + " ".join(f"@{n}" for n in NAMES) + " preset=nanjing")
        for hand in HANDS:
            for seat, text in hand:
                await asyncio.sleep(PACE)
                await self.line(seat, text)
        await asyncio.sleep(PACE)
        await self.line(0, "/summary")
        await asyncio.sleep(PACE)
        await self.line(0, "/close")
        found.closed_at = self.now()
        found.unshown = [at for at, shown in self.boards if not shown and at < found.closed_at - BOARD_WITHIN]
        await self.front.idle()
        await asyncio.sleep(120.0)  # two minutes more: nothing more comes of the closed night
        await self.front.idle()
        found.lags = list(self.figures.board_lags)
        found.delays = self.figures.delays()
        await self.application.post_stop(self.application)
        await self.application.post_shutdown(self.application)
        await self.application.shutdown()
        return found


async def short_night() -> Night:
    with tempfile.TemporaryDirectory() as folder:
        return await ShortNight(Path(folder), 15, 1.0, seed=5).night()


def test_the_pinned_board_keeps_up_with_an_ordinary_table_and_goes_quiet_at_the_close() -> None:
    night = run(short_night())
    sent = [at for at, method in night.board_calls if method == "sendMessage"]
    pinned = [at for at, method in night.board_calls if method == "pinChatMessage"]
    assert sent and pinned, night.board_calls
    assert sent[0] < night.closed_at and pinned[0] < night.closed_at  # the board is up while the night is open
    assert night.lags and max(night.lags) <= BOARD_WITHIN, night.lags
    assert not night.unshown
    assert all(at < night.closed_at for at, _ in night.board_calls), (night.closed_at, night.board_calls)
    # the answers: every one within 5 s (#41), the board's turns taken where an answer stays in time
    assert max(night.delays) <= 5.0, night.delays
