"""The Mini App's figures (docs/miniapp.md, docs/benchmarks.md): preview answers under load, and
group messages per win recorded from the page.

`preview` (the default): T tables (default 100), each with a night open and a pong logged, on a file
database; the Mini App's API on an aiohttp server on 127.0.0.1 (the bot's own handlers, the real
command layer, a seated player's initData checked on every call); a load client in a process of its
own with T players at once, one per table, each tapping R wins (default 3) of 14 tiles with 4 hard
flowers, asking a preview after every tap (16 a win), as the page does: flat out, or with --pause
seconds between taps. Each preview's server time is taken around its handler (the event loop
shared by every table); the client's round trip besides. The run is bounded: T ≤ 500, R ≤ 20, and
it stops after --seconds (default 120, at most 600).

`record`: the real Telegram front end against the fake Bot API (tests/kit/fake_telegram.py), the page
recording N wins (default 20) in a group, each pressed twice at once: the group messages sent
(sendMessage, sendPhoto) per recorded win, and the pinned board's edits beside them.

Run: python -m bench.miniapp_bench [preview] [--tables T] [--rounds R]   ·   python -m bench.miniapp_bench record
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
from aiohttp import web

from bot.chat.service import Incoming, Referee, Speaker
from bot.web import init_data, tokens
from bot.web.api import Api, AppLine, Submitted
from bot.web.site import add_app_routes

TOKEN = "123:BENCH"
KEY = tokens.token_key(None, TOKEN)
WIN = ["1p", "1p", "5s", "6s", "7s", "7s", "9s", "E", "E", "E", "2m", "3m", "4m", "8s"]


class BenchDoor:
    """The front end's part as the bench needs it: no Telegram, every caller a member."""

    def __init__(self, referee: Referee) -> None:
        self._referee = referee

    @property
    def referee(self) -> Referee:
        return self._referee

    async def chat_key(self, chat_id: int, topic: int) -> str:
        return f"tg:{chat_id}"

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        return True

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        return False

    async def earlier(self, line: AppLine) -> Submitted | None:
        return None

    async def submit(self, line: AppLine) -> Submitted:
        raise NotImplementedError("the preview bench records nothing")


def launch(chat: int, night: int, user_id: int) -> str:
    """A seated player's (`pa`, East, bound to the account) initData for the table."""
    user = {"id": user_id, "first_name": "pa", "language_code": "zh-hans"}
    fields = {
        "user": json.dumps(user),
        "chat_instance": str(chat),
        "chat_type": "supergroup",
        "auth_date": str(int(time.time())),
        "start_param": tokens.sign(KEY, tokens.StartToken(chat, 0, night)),
    }
    fields["hash"] = init_data.sign(fields, TOKEN)
    return "tma " + urlencode(fields)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def load_client(
    port: int, nights: dict[int, int], rounds: int, seconds: float, pause: float
) -> tuple[list[float], int]:
    """One player per table tapping its wins, all tables at once: each preview's round trip, and the
    answers that were not what the tap should get."""
    return asyncio.run(_load(port, nights, rounds, seconds, pause))


async def _load(
    port: int, nights: dict[int, int], rounds: int, seconds: float, pause: float
) -> tuple[list[float], int]:
    trip_ms: list[float] = []
    refused = 0
    deadline = time.monotonic() + seconds

    async def table(session: aiohttp.ClientSession, chat: int) -> None:
        nonlocal refused
        headers = {"Authorization": launch(chat, nights[chat], 10)}
        url = f"http://127.0.0.1:{port}/app/api/preview"
        for _ in range(rounds):
            for taps in range(1, len(WIN) + 3):  # from the discarder on: a preview after every tap
                if time.monotonic() > deadline:
                    return
                body = {"winner": 2, "discarder": 0, "tiles": WIN[: min(taps, len(WIN))], "flowers": 4, "flags": []}
                began = time.perf_counter()
                async with session.post(url, json=body, headers=headers) as answer:
                    shown = await answer.json()
                trip_ms.append((time.perf_counter() - began) * 1000)
                if answer.status != 200 or (taps >= len(WIN)) != bool(shown.get("ok")):
                    refused += 1
                if pause:
                    await asyncio.sleep(pause)

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=len(nights))) as session:
        await asyncio.gather(*(table(session, chat) for chat in nights))
    return trip_ms, refused


async def preview_load(tables: int, rounds: int, seconds: float, pause: float) -> None:
    folder = tempfile.mkdtemp(prefix="miniapp-bench-")
    referee = await Referee.open(Path(folder) / "bench.sqlite3", charts_enabled=False)
    await referee.warm()
    chats = [-1_000_000 - n for n in range(tables)]
    for chat in chats:
        opener, player = Speaker("op", "op", by_name=True), Speaker("10", "pa", names=("pa",))
        await referee.handle(Incoming(f"tg:{chat}", opener, "/new pa pb pc pd"))
        await referee.handle(Incoming(f"tg:{chat}", player, "碰 pd 9m"))  # pa's account claims East by its name
    nights = {chat: (await referee.current_hand(f"tg:{chat}") or (0, 0))[0] for chat in chats}
    server_ms: list[float] = []

    @web.middleware
    async def timed(request: web.Request, handler: Any) -> web.StreamResponse:
        began = time.perf_counter()
        response = await handler(request)
        if request.path == "/app/api/preview":
            server_ms.append((time.perf_counter() - began) * 1000)
        return response

    app = web.Application(middlewares=[timed])
    add_app_routes(app, Api(BenchDoor(referee), TOKEN, KEY))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    began = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(1) as pool:  # the load client: a process of its own
        trip_ms, refused = await asyncio.to_thread(pool.apply, load_client, (port, nights, rounds, seconds, pause))
    wall = time.perf_counter() - began
    await runner.cleanup()
    await referee.close()
    print(
        f"{tables} tables previewing at once, {len(server_ms)} previews in {wall:.1f} s ({len(server_ms) / wall:.0f}/s)"
    )
    print(
        f"server time: p50 {statistics.median(server_ms):.1f} ms, p99 {percentile(server_ms, 0.99):.1f} ms, "
        f"max {max(server_ms):.1f} ms"
    )
    print(
        "round trip (the load client a process of its own, both on the 2 shared cores): "
        f"p50 {statistics.median(trip_ms):.1f} ms, p99 {percentile(trip_ms, 0.99):.1f} ms"
    )
    print(f"answers not as expected: {refused}")


async def record_count(wins: int) -> None:
    from tests.kit.fake_telegram import FakeTelegram
    from tests.kit.mini_app import app_site
    from tests.kit.telegram import ALICE, BOB, CAROL, DAVE, GROUP, NEW, Running

    fake = FakeTelegram()
    fake.pinners.add(GROUP)
    await fake.start()
    folder = tempfile.mkdtemp(prefix="miniapp-bench-")
    try:
        async with Running(fake, Path(folder) / "bench.sqlite3", board_interval=10.0) as running:
            front = running.front
            app = app_site(front)
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            await running.say(ALICE, NEW)
            for who in (ALICE, BOB, CAROL, DAVE):
                await running.say(who, "/score")
            await running.say(BOB, "碰 dave 9m")
            await front.idle()
            await asyncio.sleep(1)
            key = tokens.token_key(None, "123:TEST")
            fields = {
                "user": json.dumps({"id": ALICE["id"], "first_name": "Alice", "username": "alice"}),
                "chat_type": "supergroup",
                "auth_date": str(int(time.time())),
                "start_param": tokens.sign(key, tokens.StartToken(GROUP, 0, 1)),
            }
            fields["hash"] = init_data.sign(fields, "123:TEST")
            headers = {"Authorization": "tma " + urlencode(fields)}
            sends = len([c for c in fake.calls if c.method in ("sendMessage", "sendPhoto")])
            edits = len([c for c in fake.calls if c.method == "editMessageText"])
            recorded = 0
            async with aiohttp.ClientSession() as session:
                for number in range(wins):
                    winner = number % 4
                    body = {"winner": winner, "discarder": (winner + 1) % 4, "tiles": WIN, "flowers": 4, "flags": []}
                    body["nonce"] = f"bench-win-{number:04d}"
                    url = f"http://127.0.0.1:{port}/app/api/record"
                    twice = [session.post(url, json=body, headers=headers) for _ in range(2)]
                    answers = [await answer.json() for answer in await asyncio.gather(*twice)]
                    recorded += answers[0].get("ok") is True
                    await front.idle()
            await asyncio.sleep(1.5)
            await front.idle()
            sent = len([c for c in fake.calls if c.method in ("sendMessage", "sendPhoto")]) - sends
            edited = len([c for c in fake.calls if c.method == "editMessageText"]) - edits
            await runner.cleanup()
    finally:
        await fake.stop()
    print(f"{recorded} wins recorded from the page (each pressed twice at once)")
    print(f"group messages sent: {sent} ({sent / max(recorded, 1):.2f} per win); pinned board edits: {edited}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", default="preview", choices=("preview", "record"))
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--wins", type=int, default=20)
    parser.add_argument("--pause", type=float, default=0.0, help="seconds between a player's taps (0: flat out)")
    args = parser.parse_args()
    if args.what == "record":
        asyncio.run(record_count(min(args.wins, 200)))
    else:
        asyncio.run(
            preview_load(min(args.tables, 500), min(args.rounds, 20), min(args.seconds, 600.0), max(args.pause, 0.0))
        )


if __name__ == "__main__":
    main()
