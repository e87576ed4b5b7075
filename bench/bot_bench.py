"""Telegram front end throughput: updates per second and handling latency through
`Application.process_update`, with a request object that records instead of sending (no network),
a file database, and 200 chats playing interleaved nights; plus the process's peak RSS.

Run: python -m bench.bot_bench
"""

from __future__ import annotations

import asyncio
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from telegram import Update
from telegram.request import BaseRequest, RequestData

from bot.telegram_app import build_application

CHATS = 220
UNLOADED = 20  # the last chats run alone, to measure the latency of a single update
ROUNDS = 10  # each chat: /new, then 10 rounds of pong, gang, penalty, score, win
BOT = {"id": 1, "is_bot": True, "first_name": "Referee", "username": "referee_bot"}


class RecordingRequest(BaseRequest):
    """Answers every Bot API call locally, as Telegram would, and counts the calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.message_id = 0

    @property
    def read_timeout(self) -> float | None:
        return None

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def do_request(
        self, url: str, method: str, request_data: RequestData | None = None, **kwargs: Any
    ) -> tuple[int, bytes]:
        self.calls += 1
        name = url.rsplit("/", 1)[-1]
        params = request_data.parameters if request_data else {}
        result: Any = True
        if name == "getMe":
            result = BOT
        elif name in ("sendMessage", "editMessageText", "sendPhoto", "sendDocument"):
            self.message_id += 1
            chat = {"id": int(params.get("chat_id", 0)), "type": "supergroup", "title": "t"}
            result = {"message_id": self.message_id, "date": 0, "chat": chat, "text": "", "from": BOT}
        elif name == "getChatAdministrators":
            result = []
        return 200, json.dumps({"ok": True, "result": result}).encode()


def user(chat: int, seat: int) -> dict[str, Any]:
    return {"id": chat * 10 + seat, "is_bot": False, "first_name": f"p{chat}x{seat}", "username": f"p{chat}x{seat}"}


def updates_for(chat: int, counter: list[int]) -> list[dict[str, Any]]:
    chat_id = -1000000 - chat
    names = [f"p{chat}x{seat}" for seat in range(4)]
    lines = [(0, "/new " + " ".join(f"@{n}" for n in names))]
    for round_no in range(ROUNDS):
        a, b = round_no % 4, (round_no + 1) % 4
        lines += [
            (a, f"/pong {names[b]}"),
            (b, f"/gang {names[a]}"),
            (a, f"/penalty {names[b]} 5"),
            (b, "/score"),
            ((a + 2) % 4, f"/hu {names[a]} flowers=5"),
        ]
    updates = []
    for seat, text in lines:
        counter[0] += 1
        message = {
            "message_id": counter[0],
            "date": 0,
            "text": text,
            "from": user(chat, seat),
            "chat": {"id": chat_id, "type": "supergroup", "title": "t"},
        }
        mentions = [
            {"type": "mention", "offset": text.index("@" + n), "length": len(n) + 1} for n in names if "@" + n in text
        ]
        if mentions:
            message["entities"] = mentions
        updates.append({"update_id": counter[0], "message": message})
    return updates


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        request = RecordingRequest()
        application = build_application("1:BENCH", str(Path(folder) / "bot.sqlite3"), request=request, rate_limit=False)
        await application.initialize()
        await application.post_init(application)  # type: ignore[misc]
        counter = [0]
        per_chat = [[Update.de_json(u, application.bot) for u in updates_for(c, counter)] for c in range(CHATS)]
        latencies: list[float] = []

        async def play(updates: list[Update]) -> None:
            for update in updates:  # one chat in order; chats run side by side
                begin = time.perf_counter()
                await application.process_update(update)
                latencies.append((time.perf_counter() - begin) * 1000)

        started = time.perf_counter()
        await asyncio.gather(*(play(updates) for updates in per_chat[: CHATS - UNLOADED]))
        elapsed = time.perf_counter() - started
        loaded = list(latencies)
        latencies.clear()
        for updates in per_chat[CHATS - UNLOADED :]:  # one chat at a time: the latency of an update alone
            await play(updates)
        unloaded = list(latencies)
        await application.post_shutdown(application)  # type: ignore[misc]
        await application.shutdown()
    total = len(loaded)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"telegram front end: {total / elapsed:,.0f} updates/s"
        f" ({total:,} updates, {CHATS - UNLOADED} chats interleaved,"
    )
    print(f"  file database, synchronous=FULL, {request.calls:,} Bot API calls recorded, no rate limiter)")
    print(
        f"  latency with every chat in flight: p50 {statistics.median(loaded):.0f} ms,"
        f" p99 {p99(loaded):.0f} ms (queueing)"
    )
    print(f"  latency of one update alone ({len(unloaded)} updates, {UNLOADED} chats one after another):")
    print(f"    p50 {statistics.median(unloaded):.1f} ms, p99 {p99(unloaded):.1f} ms")
    print(f"  peak RSS {peak_mb:.0f} MB")


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.99 * (len(ordered) - 1))]


if __name__ == "__main__":
    asyncio.run(main())
