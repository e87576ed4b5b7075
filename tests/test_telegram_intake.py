"""The bot's own way in (bot/telegram/intake.py): only the update types it reads are asked for and
stored, the getUpdates offset never passes an update that is not in the inbox yet, a webhook body
that is not an update is refused, and the heartbeat follows the loop (bot/telegram/health.py). Also: only the
Telegram front end's modules import python-telegram-bot.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bot.telegram.health import Heartbeat, check
from bot.telegram.input import Kind, read_update
from bot.telegram.intake import ALLOWED_UPDATES, SECRET_HEADER, Polling, Webhook
from tests.kit.bot_process import bot_against_fake, count, wait_until
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.telegram import ALICE, GROUP, Running

ROOT = Path(__file__).resolve().parent.parent
CHAT = {"id": GROUP, "type": "supergroup", "title": "Table"}
MESSAGE = {"message_id": 7, "date": 0, "chat": CHAT, "from": ALICE, "text": "/score"}
SAMPLES: dict[str, dict[str, Any]] = {  # one update of each type the bot asks for, shaped as in the Bot API docs
    "message": MESSAGE,
    "edited_message": {**MESSAGE, "edit_date": 1},
    "callback_query": {"id": "q1", "from": ALICE, "chat_instance": "c", "data": "x", "message": MESSAGE},
    "my_chat_member": {
        "chat": CHAT,
        "from": ALICE,
        "date": 0,
        "old_chat_member": {"status": "left", "user": {"id": 99, "is_bot": True, "first_name": "referee"}},
        "new_chat_member": {"status": "member", "user": {"id": 99, "is_bot": True, "first_name": "referee"}},
    },
}


def test_the_bot_asks_for_exactly_the_update_types_it_reads() -> None:
    assert set(ALLOWED_UPDATES) == set(SAMPLES)
    for kind, body in SAMPLES.items():
        assert read_update({"update_id": 1, kind: body}).kind is not Kind.OTHER, kind
    # a channel's own post, a reaction, someone else's membership: nothing the referee reads
    for kind in ("channel_post", "message_reaction", "chat_member", "inline_query"):
        assert read_update({"update_id": 1, kind: {}}).kind is Kind.OTHER, kind


async def test_polling_asks_telegram_for_those_types_only_and_stores_nothing_else(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, "/help")
        assert fake.allowed_updates == list(ALLOWED_UPDATES)
        reaction = {"chat": CHAT, "message_id": 7, "date": 0, "user": ALICE, "old_reaction": [], "new_reaction": []}
        fake.raw({"update_id": fake.next_update_id, "message_reaction": reaction})
        fake.next_update_id += 1
        await bot.say(ALICE, "/help")
    # two /help lines in the inbox; the reaction Telegram was told not to send never came in
    assert count(db, "SELECT COUNT(*) FROM inbox") == 2


class StubBot:
    """getUpdates hands out the given batches, one a call, then waits (a long poll with no news)."""

    def __init__(self, batches: list[list[Any]]) -> None:
        self.batches = batches
        self.offsets: list[int | None] = []

    async def delete_webhook(self, drop_pending_updates: bool = False) -> bool:
        return True

    async def get_updates(self, offset: int | None = None, **_: Any) -> list[Any]:
        self.offsets.append(offset)
        if self.batches:
            return self.batches.pop(0)
        await asyncio.sleep(3600)
        return []


class StubUpdate:
    def __init__(self, update_id: int) -> None:
        self.update_id = update_id


async def test_the_offset_never_passes_an_update_not_yet_stored(tmp_path: Path) -> None:
    """An inbox write that hangs (a locked file) holds the whole loop: no getUpdates call confirms
    the update being written, nor any other of its batch (they may be written meanwhile)."""
    stored: list[int] = []
    release = asyncio.Event()

    async def accept_all(updates: Any) -> None:
        for update in updates:
            if update.update_id == 12:
                await release.wait()  # the write of 12 has not committed yet
            stored.append(update.update_id)

    bot = StubBot([[StubUpdate(11), StubUpdate(12), StubUpdate(13)], [StubUpdate(14)]])
    beat = tmp_path / "alive"
    polling = Polling(bot, accept_all, timeout=1, heartbeat=Heartbeat(beat))  # type: ignore[arg-type]
    await polling.start()
    await asyncio.sleep(0.2)
    assert stored == [11] and bot.offsets == [None] and polling.offset is None
    assert not beat.exists()  # the round is not over: no heartbeat yet
    release.set()
    for _ in range(100):
        if len(bot.offsets) >= 3:
            break
        await asyncio.sleep(0.02)
    # 11–13 stored before the second call confirms them (offset 14); 14 before the third (15)
    assert stored == [11, 12, 13, 14] and bot.offsets[:3] == [None, 14, 15]
    assert beat.exists()
    await polling.stop()


async def test_a_batch_that_could_not_be_stored_is_asked_for_again(monkeypatch: Any, tmp_path: Path) -> None:
    """Issue #39: storing fails outside the inbox's own retries (a migration's note, the ledger
    locked): polling goes on, the offset stays, and Telegram hands the same updates again."""
    import sqlite3

    from bot.telegram import intake

    monkeypatch.setattr(intake, "FIRST_POLL_BACKOFF", 0.01)
    stored: list[int] = []
    failures = [sqlite3.OperationalError("database is locked")]

    async def accept_all(updates: Any) -> None:
        if failures:
            raise failures.pop()
        stored.extend(update.update_id for update in updates)

    batch = [StubUpdate(21), StubUpdate(22)]
    bot = StubBot([batch, batch])  # not confirmed: Telegram sends it again
    polling = Polling(bot, accept_all, timeout=1, heartbeat=Heartbeat(tmp_path / "alive"))  # type: ignore[arg-type]
    await polling.start()
    for _ in range(100):
        if len(bot.offsets) >= 3:
            break
        await asyncio.sleep(0.02)
    assert bot.offsets[:3] == [None, None, 23] and stored == [21, 22]
    assert polling.failed is not None and not polling.failed.done()  # still polling
    await polling.stop()


class Lanes:
    """What `Lanes.accept_all` (bot/telegram/lanes.py) asks of the front end: a row, a lane (the chat), a store
    that takes its time. Chat 1's first update is slow to store (its row rides with its line)."""

    def __init__(self) -> None:
        self.started: list[int] = []
        self.stored: list[int] = []
        self.release = asyncio.Event()

    async def row_of(self, update: Any) -> Any:
        return update

    async def lane(self, chat: int) -> str:
        return f"chat {chat}"

    async def store(self, row: Any, update: Any) -> None:
        self.started.append(update.update_id)
        if update.update_id == 1:
            await self.release.wait()
        self.stored.append(update.update_id)


class ChatUpdate(StubUpdate):
    def __init__(self, update_id: int, chat: int) -> None:
        super().__init__(update_id)
        self.chat = chat


async def test_a_batch_stores_each_chat_in_order_and_the_chats_side_by_side() -> None:
    from bot.telegram.lanes import Lanes as ChatLanes

    lanes = Lanes()
    batch = [ChatUpdate(1, 1), ChatUpdate(2, 2), ChatUpdate(3, 1), ChatUpdate(4, 2)]
    accepting = asyncio.create_task(ChatLanes.accept_all(lanes, batch))  # type: ignore[arg-type]
    await asyncio.sleep(0.05)
    # chat 2 is not held behind chat 1's slow update; chat 1's next waits for its first
    assert lanes.stored == [2, 4] and 3 not in lanes.started and not accepting.done()
    lanes.release.set()
    await accepting
    assert lanes.stored == [2, 4, 1, 3]


async def test_a_webhook_body_that_is_not_an_update_is_refused(tmp_path: Path) -> None:
    received: list[Any] = []

    async def accept(update: Any) -> None:
        received.append(update)

    hook = Webhook(None, accept, url="", listen="127.0.0.1", port=0, secret="s3cret")  # type: ignore[arg-type]
    from aiohttp.test_utils import TestClient, TestServer

    async with TestClient(TestServer(hook.application())) as client:
        signed = {SECRET_HEADER: "s3cret"}
        assert (await client.post("/telegram", data=b"not json", headers=signed)).status == 400
        assert (await client.post("/telegram", data=b"[1, 2]", headers=signed)).status == 400
        assert (await client.post("/telegram", json={"update_id": 5, "message": MESSAGE})).status == 403
        assert (await client.post("/telegram", json={"update_id": 5}, headers={SECRET_HEADER: "S3CRET"})).status == 403
    assert received == []


def test_the_health_check_reads_the_heartbeats_age(tmp_path: Path) -> None:
    beat = tmp_path / "alive"
    assert check(beat)[0] is False  # the loop never went round
    Heartbeat(beat).beat()
    assert check(beat, max_age=90)[0] is True
    os.utime(beat, (time.time() - 120, time.time() - 120))
    healthy, message = check(beat, max_age=90)
    assert not healthy and "stuck" in message
    assert check(None)[0] is False
    Heartbeat(None).beat()  # no file configured: nothing written, nothing raised


def test_the_health_check_says_what_the_bot_says_of_its_drawing_process(tmp_path: Path) -> None:
    """Issue #39: a drawing process that does not answer makes the check fail while the heartbeat is
    fresh; one replaced earlier is only told."""
    beat = tmp_path / "alive"
    said: list[str | None] = ["stuck: the drawing process did not answer for 3 s; it was replaced"]
    heartbeat = Heartbeat(beat, status=lambda: said[-1])
    heartbeat.beat()
    healthy, message = check(beat)
    assert not healthy and message.endswith(said[0] or "")
    said.append("the drawing process did not answer and was replaced 1 time(s)")
    heartbeat.beat()
    healthy, message = check(beat)
    assert healthy and message.endswith("; the drawing process did not answer and was replaced 1 time(s)")
    said.append(None)
    heartbeat.beat()
    assert check(beat) == (True, "heartbeat 0 s old (limit 90 s)")


def test_the_running_bot_keeps_its_heartbeat_fresh_and_the_health_check_reads_it(tmp_path: Path) -> None:
    """`python -m bot` with HEARTBEAT_FILE: the file appears once the loop goes round and is touched
    again with every long poll; `python -m bot health` says alive (0), and not once the bot stopped."""
    db, log, beat = tmp_path / "beat.sqlite3", tmp_path / "bot.log", tmp_path / "alive"
    env = {**os.environ, "HEARTBEAT_FILE": str(beat), "REFEREE_DB": str(db), "PYTHONPATH": str(ROOT)}
    said: list[str] = []

    def health(max_age: str = "90") -> int:
        run = subprocess.run(
            [sys.executable, "-m", "bot", "health"],
            cwd=ROOT,
            env={**env, "HEARTBEAT_MAX_AGE": max_age},
            capture_output=True,
            text=True,
            timeout=30,
        )
        said.append(run.stdout)
        return run.returncode

    async def scenario() -> None:
        assert health() == 1  # not started
        async with bot_against_fake(db, log, HEARTBEAT_FILE=str(beat)) as (fake, bot):
            await wait_until(beat.exists, timeout=30)
            first = beat.stat().st_mtime
            fake.message(GROUP, ALICE, "/help")
            await fake.wait_for(lambda: bool(fake.sent("sendMessage")), timeout=30)
            await wait_until(lambda: beat.stat().st_mtime > first, timeout=30)  # touched again by the loop
            assert health() == 0
            assert "inbox backlog 0, oldest 0 s" in said[-1] and said[-1].endswith("healthy\n")
            assert await bot.stop() == 0
        await asyncio.sleep(1.1)
        assert health(max_age="1") == 1  # the loop is gone: the heartbeat goes stale

    asyncio.run(scenario())
