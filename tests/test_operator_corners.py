"""The operator's corners (#48 item 10): the venv set-up docs/operating.md describes is healthy, a
missing folder for the ledger is said to be missing, a start refused for its token leaves no ledger
behind, a machine without a writable /dev/shm draws its charts in the bot's own process, and the
deployment's commands do what they say."""

from __future__ import annotations

import asyncio
import errno
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.store.backup import backup
from bot.store.database import DatabaseLost, Watch, exclusive
from bot.views import charts as charts_module
from bot.views.charts import Charts
from bot.views.plot import LineChart, Series
from tests.kit.bot_process import ROOT, BotProcess, bot_against_fake, wait_until
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.telegram import ALICE, GROUP


def bot(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    for name in ("TELEGRAM_BOT_TOKEN", "HEARTBEAT_FILE"):
        if name not in env:
            environment.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
    )


def test_the_venv_set_up_is_healthy_with_only_referee_db_set(tmp_path: Path) -> None:
    """docs/operating.md's venv start sets TELEGRAM_BOT_TOKEN and REFEREE_DB only: the heartbeat lies
    beside the ledger, where `health` with the same REFEREE_DB finds it."""
    db, log = tmp_path / "referee.sqlite3", tmp_path / "bot.log"

    async def scenario() -> None:
        async with bot_against_fake(db, log, without=("HEARTBEAT_FILE",)) as (fake, running):
            await wait_until(lambda: Path(f"{db}.alive").exists(), timeout=60)
            fake.message(GROUP, ALICE, "/help")
            await fake.wait_for(lambda: bool(fake.sent("sendMessage")), timeout=60)
            health = await asyncio.to_thread(bot, "health", env={"REFEREE_DB": str(db)})
            assert health.returncode == 0 and health.stdout.endswith("healthy\n"), health.stdout
            assert await running.stop() == 0

    asyncio.run(scenario())


def test_a_missing_folder_for_the_ledger_is_said_to_be_missing(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such"
    env = {"TELEGRAM_BOT_TOKEN": "1:x", "TELEGRAM_BASE_URL": "http://127.0.0.1:9", "REFEREE_DB": str(missing / "l.db")}
    result = bot("run", env=env)
    assert result.returncode == 3 and f"the folder {missing} does not exist" in result.stderr
    assert "not writable" not in result.stderr and "Traceback" not in result.stderr
    console = bot("console", "--db", str(missing / "c.db"), env={})
    assert console.returncode == 3 and "does not exist" in console.stderr


def test_a_start_refused_for_its_token_leaves_no_ledger_behind(tmp_path: Path) -> None:
    async def scenario() -> None:
        fake = FakeTelegram()
        fake.faults["getMe"] = [(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})] * 3
        await fake.start()
        db = tmp_path / "new.sqlite3"
        running = BotProcess(db, fake.base_url, tmp_path / "bot.log", (), {})
        try:
            await wait_until(lambda: running.poll() is not None, timeout=60)
            assert running.poll() == 1
        finally:
            running.kill()
            await fake.stop()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bot.log"]  # no ledger, -wal, -shm or .lock

    asyncio.run(scenario())


def test_a_start_refused_for_its_token_keeps_a_ledger_that_was_there(tmp_path: Path) -> None:
    env = {"TELEGRAM_BOT_TOKEN": "1:x", "TELEGRAM_BASE_URL": "http://127.0.0.1:9"}
    db = tmp_path / "kept.sqlite3"
    assert bot("console", "--db", str(db), env={}).returncode == 0  # a ledger with its schema
    size = db.stat().st_size
    assert bot("run", env={**env, "REFEREE_DB": str(db)}).returncode == 1
    assert db.stat().st_size == size


async def test_without_a_writable_dev_shm_charts_are_drawn_in_the_bot_s_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process pool's locks live in /dev/shm: without it (a read-only one in a container) the pool
    cannot be made — the bot says so in one log line and draws in its worker threads."""

    def no_shm(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(charts_module, "ProcessPoolExecutor", no_shm)
    charts = Charts()
    charts.start_drawing()
    await charts.ready()
    image = await charts.chart(("night", 1, "en"), LineChart("t", "x", "y", (0, 1), (Series("A", (10, 20)),)), "PNG")
    assert image.startswith(b"\x89PNG") and charts.health() is None
    charts.stop_drawing()


def test_the_webhook_deployment_sets_bot_domain_once_and_pins_caddy() -> None:
    """`echo BOT_DOMAIN=… >> .env` appended a second line to a file that had the key: the doc's
    command replaces the line (or adds it once); Caddy's image is pinned as the Python one is."""
    operating = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
    command = next(line for line in operating.splitlines() if "BOT_DOMAIN=referee.example.org" in line)
    env = Path("/tmp") / f"bot-domain-{os.getpid()}.env"
    try:
        env.write_text("TELEGRAM_BOT_TOKEN=1:x\nBOT_DOMAIN=old.example.org\n", encoding="utf-8")
        for _ in range(2):
            subprocess.run(["sh", "-c", command.replace(".env", str(env))], check=True, timeout=30)
        assert env.read_text(encoding="utf-8") == "TELEGRAM_BOT_TOKEN=1:x\nBOT_DOMAIN=referee.example.org\n"
        env.write_text("TELEGRAM_BOT_TOKEN=1:x\n", encoding="utf-8")
        subprocess.run(["sh", "-c", command.replace(".env", str(env))], check=True, timeout=30)
        assert env.read_text(encoding="utf-8") == "TELEGRAM_BOT_TOKEN=1:x\nBOT_DOMAIN=referee.example.org\n"
    finally:
        env.unlink(missing_ok=True)
    compose = (ROOT / "deploy" / "docker-compose.webhook.yml").read_text(encoding="utf-8")
    assert re.search(r"image: caddy:2\.\d+\.\d+(-alpine)?(@sha256:[0-9a-f]{64})?\s", compose), compose


def test_a_backup_copied_into_the_live_ledger_file_is_noticed(tmp_path: Path) -> None:
    """`cp backup ledger` writes into the same file (the same inode, so the identity check cannot
    see it); but the ledger says WAL in its header while it runs and a backup does not."""
    db, copy = tmp_path / "live.sqlite3", tmp_path / "copy.sqlite3"
    live = sqlite3.connect(db, isolation_level=None)
    live.execute("PRAGMA journal_mode = WAL")
    live.execute("CREATE TABLE t (x)")
    live.execute("INSERT INTO t VALUES (1)")
    with exclusive(db):  # the front end's lock: the header is read through its descriptor
        watch = Watch.of(db)
        watch.check()  # as it was opened
        backup(db, copy)
        shutil.copyfile(copy, db)  # what `cp` does: the same file, other bytes
        with pytest.raises(DatabaseLost) as lost:
            watch.check()
    assert lost.value.params["what"] == "database.what_overwritten"
    live.close()


def test_a_bot_whose_ledger_a_backup_is_copied_into_stops_before_acknowledging(tmp_path: Path) -> None:
    db, copy, log = tmp_path / "bot.sqlite3", tmp_path / "copy.sqlite3", tmp_path / "bot.log"
    chat = -100402

    async def scenario() -> None:
        async with bot_against_fake(db, log) as (fake, running):
            await fake.settle(fake.message(chat, ALICE, "/new @alice @bob @carol @dave"), timeout=60)
            made = await asyncio.to_thread(bot, "backup", str(copy), env={"REFEREE_DB": str(db)})
            assert made.returncode == 0, made.stderr
            shutil.copyfile(copy, db)  # the operator restores with `cp` while the bot runs
            update = fake.message(chat, ALICE, "/flowergang")
            await wait_until(lambda: running.poll() is not None, timeout=60)
            said = log.read_text(encoding="utf-8")
            assert running.poll() == 3 and "另一个文件被复制到了它上面" in said, said
            assert fake._confirmed <= update  # Telegram still holds it

    asyncio.run(scenario())
