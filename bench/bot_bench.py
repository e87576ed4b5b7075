"""Telegram front end: updates per second through the durable intake (stored in the inbox, then
processed per chat) with a request object that records instead of sending (no network), a file
database, and 200 chats playing interleaved nights; a 300-command backlog in one chat against
another chat's /score; recording throughput with Telegram's rate limits on and replies coalesced;
and the real `python -m bot` killed with SIGKILL mid-burst, restarted, and timed until 1,000 queued
updates are recorded (against the fake Bot API server the tests use); plus peak RSS.

Run: python -m bench.bot_bench
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from telegram import Update
from telegram.request import RequestData

from bot.store.inbox import Row
from bot.store.ledger import Ledger
from bot.telegram.app import TelegramFrontEnd, build_application
from tests.kit.limited_bot import BOT, AnsweredHere

LEVELS = (200, 20, 1)  # chats in flight at once
CHATS = sum(LEVELS)
ROUNDS = 10  # each chat: /new, then 10 rounds of pong, gang, penalty, score, win


class RecordingRequest(AnsweredHere):
    """Answers every Bot API call locally, as Telegram would, and counts the calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.message_id = 0
        self.sent: list[tuple[float, int]] = []  # (when, chat) of each message sent

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
            if name != "editMessageText":
                self.sent.append((time.perf_counter(), int(params.get("chat_id", 0))))
            self.message_id += 1
            chat = {"id": int(params.get("chat_id", 0)), "type": "supergroup", "title": "t"}
            result = {"message_id": self.message_id, "date": 0, "chat": chat, "text": "", "from": BOT}
        elif name == "getChatAdministrators":
            result = []
        elif name == "getChatMember":  # the bot is no admin: no pinned live board
            result = {"status": "member", "user": BOT}
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


class Timed:
    """Notes when each update has been processed (the front end does it in the background)."""

    def __init__(self, front: TelegramFrontEnd) -> None:
        self.done: dict[int, asyncio.Event] = {}
        self.finished: dict[int, float] = {}
        original = front.lanes.process

        async def process(row: Row, update: Update) -> bool:
            handled = await original(row, update)
            self.finished[row.update_id] = time.perf_counter()
            waiting = self.done.pop(row.update_id, None)
            if waiting is not None:
                waiting.set()
            return handled  # False: not written yet, handled again (and timed when it is)

        front.lanes.process = process

    async def wait(self, update_id: int) -> None:
        if update_id not in self.finished:
            await self.done.setdefault(update_id, asyncio.Event()).wait()


async def started(request: RecordingRequest, folder: str, name: str, rate_limit: bool) -> Any:
    application = build_application("1:BENCH", str(Path(folder) / name), request=request, rate_limit=rate_limit)
    await application.initialize()
    await application.post_init(application)
    return application


async def stopped(application: Any) -> None:
    await application.post_stop(application)
    await application.post_shutdown(application)
    await application.shutdown()


async def throughput(folder: str) -> None:
    request = RecordingRequest()
    application = await started(request, folder, "bot.sqlite3", rate_limit=False)
    front: TelegramFrontEnd = application.bot_data["front"]
    timed = Timed(front)
    counter = [0]
    per_chat = [[Update.de_json(u, application.bot) for u in updates_for(c, counter)] for c in range(CHATS)]
    latencies: list[float] = []

    async def play(updates: list[Update]) -> None:
        for update in updates:  # one chat in order, each line once the last was handled; chats side by side
            begin = time.perf_counter()
            await front.accept(update)
            await timed.wait(update.update_id)
            latencies.append((time.perf_counter() - begin) * 1000)

    results: list[tuple[int, float, list[float]]] = []
    start = 0
    for in_flight in LEVELS:  # fresh chats for each level: 200, then 20, then 1 in flight at once
        latencies.clear()
        begin = time.perf_counter()
        await asyncio.gather(*(play(updates) for updates in per_chat[start : start + in_flight]))
        results.append((in_flight, time.perf_counter() - begin, list(latencies)))
        start += in_flight
    await front.idle()
    await stopped(application)
    print("telegram front end (each update stored in the inbox first, then recorded; commands arriving together")
    print(f"  share a commit; file database, synchronous=FULL, {request.calls:,} Bot API calls, no rate limiter):")
    for in_flight, elapsed, measured in results:
        print(
            f"  {in_flight:>3} chats in flight: {len(measured) / elapsed:,.0f} updates/s,"
            f" p50 {statistics.median(measured):.1f} ms, p99 {p99(measured):.1f} ms per update"
        )
    print(f"  peak RSS so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


def penalties(chat: int, count: int, counter: list[int]) -> list[dict[str, Any]]:
    """`/new`, then `count` custom penalties (a command with no per-hand limit)."""
    names = [f"p{chat}x{seat}" for seat in range(4)]
    updates = updates_for(chat, counter)[:1]
    for _ in range(count):
        counter[0] += 1
        message = {
            "message_id": counter[0],
            "date": 0,
            "text": f"/penalty {names[1]} 5",
            "from": user(chat, 0),
            "chat": {"id": -1000000 - chat, "type": "supergroup", "title": "t"},
        }
        updates.append({"update_id": counter[0], "message": message})
    return updates


async def backlog(folder: str, counter: list[int]) -> None:
    """Rate limiter on: 300 commands queued in chat A, then chat B's /score."""
    request = RecordingRequest()
    application = await started(request, folder, "backlog.sqlite3", rate_limit=True)
    front: TelegramFrontEnd = application.bot_data["front"]
    timed = Timed(front)
    chat_a = [Update.de_json(u, application.bot) for u in penalties(900, 300, counter)]
    chat_b = [Update.de_json(u, application.bot) for u in updates_for(901, counter)]
    for update in (chat_a[0], chat_b[0]):  # both nights open
        await front.accept(update)
        await timed.wait(update.update_id)
    await front.idle()
    begin = time.perf_counter()
    for update in chat_a[1:]:
        await front.accept(update)
    score = next(u for u in chat_b if u.message is not None and u.message.text == "/score")
    asked = time.perf_counter()
    await front.accept(score)
    chat_b_id = -1000000 - 901
    while not any(chat == chat_b_id and at > asked for at, chat in request.sent):
        await asyncio.sleep(0.005)
    answered = min(at for at, chat in request.sent if chat == chat_b_id and at > asked) - asked
    await asyncio.gather(*(timed.wait(u.update_id) for u in chat_a[1:]))
    recorded_in = max(timed.finished[u.update_id] for u in chat_a[1:]) - begin
    print(
        f"backlog: 300 commands queued in one chat; another chat's /score answered in {answered * 1000:.0f} ms"
        f" (the 300 recorded in {recorded_in:.2f} s; rate limiter on)"
    )
    await front.idle()
    await stopped(application)


async def many_chats(folder: str, counter: list[int]) -> None:
    """Rate limiter on: 1,000 chats open a night at once; a new chat's /help waits for its turn."""
    request = RecordingRequest()
    application = await started(request, folder, "many.sqlite3", rate_limit=True)
    front: TelegramFrontEnd = application.bot_data["front"]
    opening = [Update.de_json(updates_for(2000 + chat, counter)[0], application.bot) for chat in range(1000)]
    help_update = Update.de_json(updates_for(3001, counter)[0], application.bot)
    assert help_update.message is not None
    help_update = Update.de_json(
        {"update_id": help_update.update_id, "message": {**help_update.message.to_dict(), "text": "/help"}},
        application.bot,
    )
    for update in opening:
        await front.accept(update)
    asked = time.perf_counter()
    await front.accept(help_update)
    chat = -1000000 - 3001
    while not any(c == chat for _, c in request.sent):
        await asyncio.sleep(0.005)
    answered = min(at for at, c in request.sent if c == chat) - asked
    print(f"1,000 chats opening a night at once: a new chat's /help answered in {answered * 1000:.0f} ms")
    await front.idle()
    await stopped(application)


async def coalesced(folder: str, counter: list[int]) -> None:
    """Rate limiter on: 1,000 commands in one chat, recorded while their replies are coalesced."""
    request = RecordingRequest()
    application = await started(request, folder, "coalesced.sqlite3", rate_limit=True)
    front: TelegramFrontEnd = application.bot_data["front"]
    timed = Timed(front)
    updates = [Update.de_json(u, application.bot) for u in penalties(902, 1000, counter)]
    await front.accept(updates[0])
    await timed.wait(updates[0].update_id)
    await front.idle()
    sent_before = len(request.sent)
    begin = time.perf_counter()
    for update in updates[1:]:
        await front.accept(update)
    await asyncio.gather(*(timed.wait(u.update_id) for u in updates[1:]))
    recorded_in = time.perf_counter() - begin
    await front.idle()
    delivered_in = time.perf_counter() - begin
    messages = len(request.sent) - sent_before
    print(
        f"coalesced: 1,000 commands in one chat recorded in {recorded_in:.2f} s ({1000 / recorded_in:,.0f}/s,"
        f" intake included); their replies went out in {messages} messages within {delivered_in:.0f} s"
        " (Telegram allows 20 a minute per group)"
    )
    await stopped(application)


async def inbox_drain(folder: str, counter: list[int]) -> None:
    """1,000 updates left stored but not processed (what a crash between intake and recording
    leaves): the time a start takes to record them all, before anything new."""
    database = str(Path(folder) / "drain.sqlite3")
    ledger = await Ledger.open(database)
    inbox = ledger.inbox()
    rows = []
    for chat in range(903, 907):
        for update in penalties(chat, 250, counter):
            message = update["message"]
            key = f"msg:{message['chat']['id']}:{message['message_id']}"
            rows.append(Row(update["update_id"], message["chat"]["id"], key, update))
    await asyncio.gather(*(inbox.add(row) for row in rows))
    await ledger.close()
    request = RecordingRequest()
    begin = time.perf_counter()
    application = await started(request, folder, "drain.sqlite3", rate_limit=True)
    front: TelegramFrontEnd = application.bot_data["front"]
    while front.lanes._workers:  # every queued row processed (replies may still be going out)
        await asyncio.gather(*front.lanes._workers.values())
    drained = time.perf_counter() - begin
    print(
        f"inbox drain at start: {len(rows):,} stored updates (4 chats) recorded in {drained:.2f} s"
        f" ({len(rows) / drained:,.0f}/s, start-up included)"
    )
    await stopped(application)


async def kill_and_restart(folder: str) -> None:
    """The real process, killed with SIGKILL while 1,000 updates are queued, then restarted."""
    from tests.kit.fake_telegram import FakeTelegram  # aiohttp: imported only here, to keep it out of the RSS above

    fake = FakeTelegram()
    await fake.start()
    db = Path(folder) / "kill.sqlite3"
    root = Path(__file__).resolve().parent.parent
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": "123:BENCH",
        "TELEGRAM_BASE_URL": fake.base_url,
        "REFEREE_DB": str(db),
        "PYTHONPATH": str(root),
    }

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", "bot"], cwd=root, env=env, stderr=subprocess.DEVNULL)

    def count(sql: str) -> int:
        with sqlite3.connect(db) as connection:
            return int(connection.execute(sql).fetchone()[0])

    chats = [-100900 - i for i in range(4)]
    alice = {"id": 1, "is_bot": False, "first_name": "Alice", "username": "alice"}
    process = start()
    try:
        for chat in chats:
            fake.message(chat, alice, "/new @alice @bob @carol @dave")
        await fake.wait_for(lambda: len(fake.sent("sendMessage")) >= 4, timeout=60)
        ids = [fake.message(chat, alice, "/penalty bob 5") for _ in range(250) for chat in chats]
        await fake.wait_for(lambda: fake._confirmed > ids[99], timeout=60)  # Telegram hands out 100 a call
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        sql = "SELECT COUNT(*) FROM events WHERE kind = 'penalty'"
        at_kill = count(sql)
        stored = count("SELECT COUNT(*) FROM inbox WHERE done = 0")
        begin = time.perf_counter()
        process = start()
        while count(sql) < len(ids):
            await asyncio.sleep(0.01)
        drained = time.perf_counter() - begin
        print(
            f"SIGKILL mid-burst: 1,000 updates queued at Telegram; at the kill {at_kill} recorded, {stored} stored"
            f" but not done; the restarted process fetched and recorded all 1,000 in {drained:.2f} s (start-up"
            " included),"
            f" each exactly once: {count(sql) == len(ids)}"
        )
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        await fake.stop()


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        await throughput(folder)
        counter = [10_000_000]
        await backlog(folder, counter)
        await many_chats(folder, counter)
        await coalesced(folder, counter)
        await inbox_drain(folder, counter)
        await kill_and_restart(folder)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak_mb:.0f} MB")


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.99 * (len(ordered) - 1))]


if __name__ == "__main__":
    asyncio.run(main())
