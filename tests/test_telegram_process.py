"""The real `python -m bot` process against the fake Bot API: killed mid-burst and restarted, a second
process on the same file, an unopenable file, and webhook mode.

Money, worked by hand from docs/rules.md: a flower gang (花杠) is paid 6 by each of the three others; a
custom penalty (罚 bob 5) costs the offender 5 to each of the three others.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

from locales import Translator
from tests.kit.bot_process import ROOT, bot_against_fake, bot_environment, count, wait_until
from tests.kit.messages import rendered, says
from tests.kit.processes import gone as plot_gone
from tests.kit.telegram import ALICE, BOB, NEW

CHATS = (-100301, -100302, -100303, -100304)
BURST = 200


def test_sigkill_during_a_burst_then_restart_records_every_acknowledged_update_once(tmp_path: Path) -> None:
    db, log = tmp_path / "kill.sqlite3", tmp_path / "bot.log"

    async def scenario() -> None:
        async with bot_against_fake(db, log) as (fake, bot):
            for chat in CHATS:
                fake.message(chat, ALICE, NEW)
            await fake.wait_for(lambda: len(fake.sent("sendMessage")) >= 4, timeout=60)
            ids = [fake.message(chat, ALICE, "/penalty bob 5") for _ in range(BURST // len(CHATS)) for chat in CHATS]
            # Telegram hands out 100 a call: kill once the first 100 are acknowledged, mid-burst
            await fake.wait_for(lambda: fake._confirmed > ids[99], timeout=30)
            bot.kill()  # SIGKILL
            bot.restart()
            sql = "SELECT COUNT(*) FROM events WHERE kind = 'penalty'"
            await wait_until(lambda: count(db, sql) >= BURST)
            await wait_until(lambda: count(db, "SELECT COUNT(*) FROM inbox WHERE done = 0") == 0)
            assert count(db, sql) == BURST
            for chat in CHATS:
                # 50 custom penalties of 5 on Bob: he pays 5 to each of the three others, 15 each time
                assert count(
                    db, "SELECT COUNT(*) FROM events WHERE kind = 'penalty' AND chat_id = ?", f"tg:{chat}"
                ) == BURST // len(CHATS)
                bob = count(
                    db,
                    "SELECT SUM(CASE WHEN payee = 1 THEN amount ELSE -amount END) FROM payments p"
                    " JOIN events e ON e.id = p.event_id WHERE e.chat_id = ? AND (payee = 1 OR payer = 1)",
                    f"tg:{chat}",
                )
                assert bob == -15 * BURST // len(CHATS)
            before = len(fake.sent("sendMessage"))
            fake.message(CHATS[0], ALICE, "/score")  # and the restarted bot goes on as usual
            await fake.wait_for(lambda: len(fake.sent("sendMessage")) > before, timeout=30)
            assert await bot.stop() == 0

    asyncio.run(scenario())


def test_a_second_process_on_the_same_database_refuses_to_start(tmp_path: Path) -> None:
    db, log = tmp_path / "one.sqlite3", tmp_path / "bot.log"

    async def scenario() -> None:
        async with bot_against_fake(db, log, url_suffix="/bot") as (fake, first):  # the form with /bot works too
            fake.message(CHATS[0], ALICE, NEW)
            await fake.wait_for(lambda: bool(fake.sent("sendMessage")), timeout=30)
            started = time.monotonic()
            second = subprocess.run(
                [sys.executable, "-m", "bot", "run"],
                cwd=ROOT,
                env=bot_environment(db, fake.base_url, LANG="zh_CN.UTF-8"),  # operator messages in LANG
                capture_output=True,
                text=True,
                timeout=30,
            )
            assert second.returncode != 0 and time.monotonic() - started < 10
            assert says(second.stderr, "database.in_use", pid=first.pid)
            console = subprocess.run(
                [sys.executable, "-m", "bot", "console", "--db", str(db), "--script", os.devnull],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT), "LANG": "zh_CN.UTF-8"},  # operator messages in LANG
                capture_output=True,
                text=True,
                timeout=30,
            )
            assert console.returncode != 0 and says(console.stderr, "database.in_use")  # the console too
            before = len(fake.sent("sendMessage"))
            fake.message(CHATS[0], BOB, "/flowergang")  # the first one is unaffected
            await fake.wait_for(lambda: len(fake.sent("sendMessage")) > before, timeout=30)
            assert await first.stop() == 0

    asyncio.run(scenario())


def test_an_unopenable_database_exits_with_a_clear_message_in_both_front_ends(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_text("this is not an SQLite database\n" * 200, encoding="utf-8")
    env = bot_environment(junk, "http://127.0.0.1:9", LANG="zh_CN.UTF-8")  # operator messages in LANG
    for argv, environment in (
        (["-m", "bot", "run"], env),
        (
            ["-m", "bot", "console", "--db", str(junk), "--script", os.devnull],
            {k: v for k, v in env.items() if k != "TELEGRAM_BOT_TOKEN"},
        ),
    ):
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, *argv], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=30
        )
        assert result.returncode != 0 and time.monotonic() - started < 10
        assert says(result.stderr, "database.unopenable") and "file is not a database" in result.stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_webhook_mode_end_to_end(tmp_path: Path) -> None:
    db, log = tmp_path / "hook.sqlite3", tmp_path / "bot.log"
    port = free_port()

    async def post(session: aiohttp.ClientSession, update: dict[str, Any]) -> int:
        for _ in range(200):  # the webhook server may still be starting
            try:
                async with session.post(
                    f"http://127.0.0.1:{port}/telegram",
                    json=update,
                    headers={"X-Telegram-Bot-Api-Secret-Token": "s3cret"},
                ) as answer:
                    return answer.status
            except aiohttp.ClientConnectionError:
                await asyncio.sleep(0.1)
        raise TimeoutError("the webhook never listened")

    async def scenario() -> None:
        hook = {"WEBHOOK_URL": f"http://127.0.0.1:{port}", "LISTEN": "127.0.0.1", "PORT": str(port)}
        async with bot_against_fake(db, log, WEBHOOK_SECRET="s3cret", **hook) as (fake, bot):
            await fake.wait_for(lambda: bool(fake.sent("setWebhook")), timeout=30)
            assert fake.sent("setWebhook")[0].params["url"] == f"http://127.0.0.1:{port}/telegram"
            async with aiohttp.ClientSession() as session:
                for text, sender in ((NEW, ALICE), ("/flowergang", BOB)):
                    update_id = fake.message(CHATS[0], sender, text)
                    update = fake.updates[-1]
                    assert await post(session, update) == 200
                    # answered 200 only once stored: Telegram may forget it now
                    assert count(db, "SELECT COUNT(*) FROM inbox WHERE update_id = ?", update_id) == 1
                    before = len(fake.sent("sendMessage"))
                    await fake.wait_for(lambda before=before: len(fake.sent("sendMessage")) > before, timeout=30)
            assert any(says(t, "night.opened", night=1) for t in fake.texts())
            assert any(says(t, "what.flower_gang", actor="bob") for t in fake.texts())
            assert count(db, "SELECT COUNT(*) FROM events WHERE kind = 'flower_gang'") == 1
            assert await bot.stop() == 0

    asyncio.run(scenario())


def test_webhook_without_a_configured_secret_refuses_forged_updates(tmp_path: Path) -> None:
    """No WEBHOOK_SECRET: a random one is passed to setWebhook; a POST without it records nothing."""
    db, log = tmp_path / "hook.sqlite3", tmp_path / "bot.log"
    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram"

    async def post(session: aiohttp.ClientSession, update: dict[str, Any], secret: str | None) -> int:
        headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret is not None else {}
        async with session.post(url, json=update, headers=headers) as answer:
            return answer.status

    async def scenario() -> None:
        hook = {"WEBHOOK_URL": f"http://127.0.0.1:{port}", "PORT": str(port)}
        async with bot_against_fake(db, log, without=("WEBHOOK_SECRET",), **hook) as (fake, bot):
            await fake.wait_for(lambda: bool(fake.sent("setWebhook")), timeout=30)
            secret = str(fake.sent("setWebhook")[0].params.get("secret_token", ""))
            assert len(secret) >= 32
            async with aiohttp.ClientSession() as session:
                fake.message(CHATS[0], ALICE, NEW)
                forged = fake.updates[-1]
                for _attempt in range(200):  # the webhook server may still be starting
                    try:
                        assert await post(session, forged, None) == 403
                        break
                    except aiohttp.ClientConnectionError:
                        await asyncio.sleep(0.1)
                assert _attempt < 199
                assert await post(session, forged, "guessed") == 403
                assert count(db, "SELECT COUNT(*) FROM inbox") == 0
                assert await post(session, forged, secret) == 200
                await fake.wait_for(lambda: any(says(t, "night.opened", night=1) for t in fake.texts()), timeout=30)
            assert count(db, "SELECT COUNT(*) FROM events WHERE kind = 'open'") == 1
            assert await bot.stop() == 0

    asyncio.run(scenario())


LOCK_SECONDS = float(os.environ.get("LOCK_SECONDS", "10"))


def test_polling_survives_a_database_locked_for_ten_seconds(tmp_path: Path) -> None:
    """Another connection holds an exclusive lock for 10 s while updates arrive: the inbox writes wait
    (busy timeout) or are retried with backoff, the offset waits, and every update is recorded once
    after the lock is released."""
    db, log = tmp_path / "locked.sqlite3", tmp_path / "bot.log"
    lines = 20

    async def scenario() -> None:
        async with bot_against_fake(db, log) as (fake, bot):
            await fake.settle(fake.message(CHATS[0], ALICE, NEW), timeout=60)
            blocker = sqlite3.connect(db, timeout=30, isolation_level=None)
            blocker.execute("BEGIN EXCLUSIVE")
            try:
                for index in range(lines):
                    fake.message(CHATS[0], BOB, f"罚 bob {index + 1}")
                    await asyncio.sleep(LOCK_SECONDS / lines)
            finally:
                blocker.execute("ROLLBACK")
                blocker.close()
                released = time.monotonic()

            def recorded() -> int:
                return count(db, "SELECT COUNT(*) FROM events WHERE kind = 'penalty'")

            await fake.wait_for(lambda: recorded() >= lines, timeout=60)
            print(f"all {lines} updates recorded {time.monotonic() - released:.2f} s after the lock was released")
            await fake.settle(fake.message(CHATS[0], ALICE, "/score"), timeout=60)
            assert recorded() == lines  # once each
            assert count(db, "SELECT COUNT(*) FROM inbox") == lines + 2
            assert bot.poll() is None, "polling never stops"
            assert await bot.stop() == 0
        if LOCK_SECONDS > 10:  # longer than the writer's busy timeout: the retries did it
            assert "not stored yet" in log.read_text(encoding="utf-8")

    asyncio.run(scenario())


BUSY_SECONDS = 0.2  # the ledger's busy timeout in the test (10 s in production): a lock twice as long


def test_a_lock_held_past_the_busy_timeout_delays_updates_and_loses_none(tmp_path: Path) -> None:
    """Issue #39: a backup or a `sqlite3` shell holds the ledger locked for twice the busy timeout while
    four penalties arrive, two more after. The first one's write fails (`database is locked`): it is
    neither answered "nothing recorded" nor marked done, but handled again once the lock is gone, so
    all six are recorded once each, in order. Bob pays 5 to each of the three others per penalty
    (docs/rules.md's custom penalty): 6 × 15 = 90 out, and each other player takes 6 × 5 = 30."""
    db, log = tmp_path / "held.sqlite3", tmp_path / "bot.log"
    sql = "SELECT COUNT(*) FROM events WHERE kind = 'penalty'"

    async def scenario() -> None:
        async with bot_against_fake(db, log, REFEREE_BUSY_TIMEOUT=str(BUSY_SECONDS)) as (fake, bot):
            await fake.settle(fake.message(CHATS[0], ALICE, NEW), timeout=60)
            blocker = sqlite3.connect(db, isolation_level=None)
            blocker.execute("BEGIN EXCLUSIVE")
            try:
                locked = time.monotonic()
                during = [fake.message(CHATS[0], ALICE, "/penalty bob 5") for _ in range(4)]
                # held at least twice the busy timeout, and until a write has failed for it
                await wait_until(lambda: "database is locked" in log.read_text(encoding="utf-8"), timeout=60)
                await asyncio.sleep(max(0.0, 2 * BUSY_SECONDS - (time.monotonic() - locked)))
                assert count(db, sql) == 0
            finally:
                blocker.execute("ROLLBACK")
                blocker.close()
            released = time.monotonic()
            after = [fake.message(CHATS[0], ALICE, "/penalty bob 5") for _ in range(2)]
            await wait_until(lambda: count(db, sql) >= 6, timeout=60)
            print(f"6 penalties recorded {time.monotonic() - released:.2f} s after the lock was released")
            await fake.settle(after[-1], timeout=60)
            await wait_until(lambda: count(db, "SELECT COUNT(*) FROM inbox WHERE done = 0") == 0)
            assert count(db, sql) == 6  # once each
            with sqlite3.connect(db) as connection:  # each update recorded its own penalty, in the order sent
                by_event = [
                    r[0]
                    for r in connection.execute(
                        "SELECT update_id FROM inbox WHERE event_id IS NOT NULL ORDER BY event_id"
                    )
                ]
            assert by_event[-6:] == [*during, *after]
            bob = count(
                db,
                "SELECT SUM(CASE WHEN payee = 1 THEN amount ELSE -amount END) FROM payments"
                " WHERE payee = 1 OR payer = 1",
            )
            assert bob == -90
            nothing_recorded = Translator("zh-Hans").t("error.internal")
            assert nothing_recorded not in fake.texts(CHATS[0])
            assert bot.poll() is None
            assert await bot.stop() == 0

    asyncio.run(scenario())


def drawing_processes(parent: int) -> list[int]:
    """The bot's drawing processes: its children started by multiprocessing's spawn."""
    listed = subprocess.run(["ps", "-ww", "-o", "pid=,args=", "--ppid", str(parent)], capture_output=True, text=True)
    return [int(line.split()[0]) for line in listed.stdout.splitlines() if "spawn_main" in line]


def test_a_stopped_drawing_process_holds_neither_the_summary_nor_the_chats_next_line(tmp_path: Path) -> None:
    """Issue #39: the drawing process is stopped (SIGSTOP). /summary still answers with the night's
    figures and a note that the chart is not drawn, once CHART_SECONDS has passed; the chat's next
    penalty is recorded behind it, another chat's at once; the process is killed and replaced, the
    health check says so, and the next /summary has its chart again. Alice took 5 from Bob's custom
    penalty (docs/rules.md: the offender pays 5 to each of the three others): her summary line says 5."""
    db, log, beat = tmp_path / "draw.sqlite3", tmp_path / "bot.log", tmp_path / "alive"
    other = CHATS[1]
    env = {**os.environ, "HEARTBEAT_FILE": str(beat), "REFEREE_DB": str(db), "PYTHONPATH": str(ROOT)}

    def health() -> tuple[int, str]:
        run = subprocess.run([sys.executable, "-m", "bot", "health"], cwd=ROOT, env=env, capture_output=True, text=True)
        return run.returncode, run.stdout

    def penalties(chat: int) -> int:
        return count(db, "SELECT COUNT(*) FROM events WHERE kind = 'penalty' AND chat_id = ?", f"tg:{chat}")

    async def scenario() -> None:
        async with bot_against_fake(db, log, HEARTBEAT_FILE=str(beat), CHART_SECONDS="1") as (fake, bot):
            for chat in (CHATS[0], other):
                await fake.settle(fake.message(chat, ALICE, NEW), timeout=60)
            await fake.settle(fake.message(CHATS[0], ALICE, "/summary"), timeout=60)  # drawn: the process is up
            await fake.wait_for(lambda: len(fake.sent("sendPhoto", CHATS[0])) == 1, timeout=60)
            await fake.settle(fake.message(CHATS[0], ALICE, "/penalty bob 5"), timeout=60)  # a new chart is due
            stopped = drawing_processes(bot.pid)
            assert len(stopped) == 1
            for pid in stopped:
                os.kill(pid, signal.SIGSTOP)
            try:
                answers = len(fake.texts(CHATS[0]))

                def said() -> str:
                    return "\n".join(fake.texts(CHATS[0])[answers:])

                fake.message(CHATS[0], ALICE, "/summary")
                fake.message(CHATS[0], ALICE, "/penalty bob 5")
                fake.message(other, ALICE, "/penalty bob 5")
                await wait_until(lambda: penalties(CHATS[0]) == 2 and penalties(other) == 1, timeout=60)
                await fake.wait_for(lambda: len(fake.texts(CHATS[0])) > answers, timeout=60)
                await fake.wait_for(lambda: Translator("zh-Hans").t("summary.chart_skipped") in said(), timeout=60)
                alice = rendered("balance.both", amount=5, unit=rendered("unit_name.flowers"), money=5)  # stake 1
                assert says(
                    said(), "summary.rank", place=1, name="alice", balance=alice
                )  # the figures went out, before the chat's next penalty
                assert len(fake.sent("sendPhoto", CHATS[0])) == 1  # no chart for it
                await wait_until(lambda: all(plot_gone(pid) for pid in stopped), timeout=30)
                await wait_until(lambda: len(drawing_processes(bot.pid)) == 1, timeout=30)
                await wait_until(lambda: "replaced 1 time" in health()[1], timeout=30)
                assert health()[0] == 0
                await fake.settle(fake.message(CHATS[0], ALICE, "/summary"), timeout=60)
                await fake.wait_for(lambda: len(fake.sent("sendPhoto", CHATS[0])) == 2, timeout=60)
            finally:
                for pid in stopped:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGCONT)
            assert await bot.stop() == 0

    asyncio.run(scenario())
