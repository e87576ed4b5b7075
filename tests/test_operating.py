"""Running the bot as an operator (#42): the entry point and its exit codes, the settings read once and
checked, `health` (the inbox backlog and the heartbeat; the webhook's /healthz), `backup` while the bot
runs, and docs/operating.md's table rendered from the same list as `--help`."""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.chat.service import Referee
from bot.store.writer import BUSY_TIMEOUT_SECONDS
from bot.telegram.app import build_application
from bot.telegram.backup import backup
from bot.telegram.health import Heartbeat, check_health, read_backlog
from bot.telegram.intake import HEALTH_PATH, Webhook
from bot.telegram.settings import VARIABLES, BadSetting, Settings, markdown_table, operator_language
from bot.views.charts import GIVE_UP_SECONDS
from tests.kit.bot_process import ROOT, BotProcess, bot_against_fake, count, wait_until
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.telegram import ALICE, BOB, GROUP

NEW = "/new @alice @bob @carol @dave"


def bot(*args: str, env: dict[str, str] | None = None, drop: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    for name in ("TELEGRAM_BOT_TOKEN", *drop):
        if name not in (env or {}):
            environment.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
    )


# ---- the settings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PORT", "abc"),
        ("PORT", "0"),
        ("PORT", "70000"),
        ("BOARD_EDIT_SECONDS", "soon"),
        ("BOARD_EDIT_SECONDS", "-1"),
        ("BOARD_EDIT_SECONDS", "nan"),
        ("HEARTBEAT_MAX_AGE", "0"),
        ("BACKLOG_MAX_AGE", "inf"),
        ("WEBHOOK_URL", "example.org"),
        ("TELEGRAM_BASE_URL", "ftp://x"),
        ("LISTEN", "everywhere"),
        ("WEBHOOK_SECRET", "has spaces"),
        ("LOG_LEVEL", "LOUD"),
    ],
)
def test_a_bad_value_is_refused_naming_the_variable_and_what_it_takes(name: str, value: str) -> None:
    with pytest.raises(BadSetting) as refused:
        Settings.from_environment({name: value})
    accepts = next(v.accepts for v in VARIABLES if v.name == name)
    assert str(refused.value) == f"{name}={value!r} is not valid: it takes {accepts}"


def test_a_plain_http_webhook_is_only_for_a_local_bot_api_server() -> None:
    with pytest.raises(BadSetting, match=r"WEBHOOK_URL='http://example\.org' is not valid: Telegram takes an https"):
        Settings.from_environment({"WEBHOOK_URL": "http://example.org"})
    local = {"WEBHOOK_URL": "http://bot:8443", "TELEGRAM_BASE_URL": "http://127.0.0.1:8081"}
    assert Settings.from_environment(local).webhook_url == "http://bot:8443"


def test_good_values_are_read_and_empty_ones_are_unset() -> None:
    read = Settings.from_environment(
        {
            "PORT": "8080",
            "BOARD_EDIT_SECONDS": "2.5",
            "LISTEN": "0.0.0.0",
            "WEBHOOK_URL": "https://bot.example.org",
            "LOG_LEVEL": "debug",
            "LANG": "zh_TW.UTF-8",
            "REFEREE_DB": "  ",
            "WEBHOOK_SECRET": "",
        }
    )
    assert (read.port, read.board_edit_seconds, read.listen, read.log_level, read.language) == (
        8080,
        2.5,
        "0.0.0.0",
        "DEBUG",
        "zh-Hant",
    )
    assert read.database == "referee.sqlite3" and read.webhook_secret is None
    assert Settings.from_environment({}) == Settings()


def test_every_setting_has_exactly_one_variable_and_its_default_is_the_documented_one() -> None:
    from dataclasses import fields

    assert sorted(v.field for v in VARIABLES) == sorted(f.name for f in fields(Settings))
    defaults = Settings()
    for variable in VARIABLES:
        if variable.default and variable.name != "TELEGRAM_BASE_URL":  # None there means Telegram's own
            assert variable.read(variable.default) == getattr(defaults, variable.field), variable.name


def test_the_chart_and_lock_settings_default_to_what_the_referee_uses_without_them() -> None:
    """The console passes no settings: the referee's own defaults are the documented ones."""
    assert Settings().chart_seconds == GIVE_UP_SECONDS == 3.0
    assert Settings().busy_timeout == BUSY_TIMEOUT_SECONDS == 10.0


async def busy_timeouts(referee: Referee) -> tuple[int, int]:
    """The busy timeout (ms) of the ledger's reading connection and of its writer's."""
    ledger = referee.services.nights.ledger
    async with ledger._db.execute("PRAGMA busy_timeout") as cursor:
        row = await cursor.fetchone()
    assert row is not None
    written = await ledger._writer.run(lambda db: db.execute("PRAGMA busy_timeout").fetchone()[0])
    return int(row[0]), int(written)


async def test_the_telegram_front_end_hands_chart_seconds_and_busy_timeout_to_the_referee(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """CHART_SECONDS and REFEREE_BUSY_TIMEOUT are read by the settings only (no module reads the
    environment itself, tests/test_layers.py): the front end passes them down. 2.5 s is 2500 ms."""
    application = build_application(
        "123:TEST", str(tmp_path / "set.sqlite3"), fake.base_url, chart_seconds=0.7, busy_timeout=2.5
    )
    front = application.bot_data["front"]
    await application.initialize()
    await application.post_init(application)  # type: ignore[misc]
    try:
        assert front.referee.services.charts.give_up == 0.7
        assert await busy_timeouts(front.referee) == (2500, 2500)
    finally:
        await application.post_shutdown(application)  # type: ignore[misc]
        await application.shutdown()


async def test_the_console_s_referee_takes_the_defaults(tmp_path: Path) -> None:
    referee = await Referee.open(tmp_path / "console.sqlite3", charts_enabled=False)
    try:
        assert referee.services.charts.give_up == 3.0
        assert await busy_timeouts(referee) == (10_000, 10_000)
    finally:
        await referee.close()


@pytest.mark.parametrize(
    ("lang", "language"),
    [("zh_CN.UTF-8", "zh-Hans"), ("zh_TW.UTF-8", "zh-Hant"), ("zh_HK", "zh-Hant"), ("C.UTF-8", "en"), ("en_US", "en")],
)
def test_operator_messages_follow_lang(lang: str, language: str) -> None:
    assert operator_language(lang) == language


def test_docs_operating_holds_the_table_help_is_rendered_from() -> None:
    text = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
    assert markdown_table() in text


# ---- the entry point ----------------------------------------------------------------------------


def test_version_and_a_bogus_command_name_python_m_bot_not_the_console() -> None:
    version = bot("--version")
    assert version.returncode == 0 and version.stdout.startswith("python -m bot ")
    bogus = bot("bogus")
    assert bogus.returncode == 2 and "python -m bot: error: argument COMMAND: invalid choice: 'bogus'" in bogus.stderr


def test_run_without_a_token_exits_2_with_one_line_naming_it() -> None:
    result = bot("run")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "TELEGRAM_BOT_TOKEN" in result.stderr


def test_a_bad_variable_exits_2_with_one_line_and_no_traceback() -> None:
    token = {"TELEGRAM_BOT_TOKEN": "1:x"}
    for env in ({"PORT": "abc", **token}, {"BOARD_EDIT_SECONDS": "soon", **token}):
        result = bot("run", env=env)
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert next(iter(env)) in result.stderr


def test_extra_arguments_are_refused_not_ignored() -> None:
    result = bot("run", "--db", "foo", env={"TELEGRAM_BOT_TOKEN": "1:x"})
    assert result.returncode == 2 and "unrecognized arguments: --db foo" in result.stderr


def test_help_into_a_closed_pipe_ends_quietly() -> None:
    result = subprocess.run(
        f"{sys.executable} -m bot --help | head -1",
        shell=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.startswith("usage: python -m bot") and result.stderr == ""


def test_telegram_unreachable_at_start_exits_1_with_one_line(tmp_path: Path) -> None:
    env = {"TELEGRAM_BOT_TOKEN": "1:x", "TELEGRAM_BASE_URL": "http://127.0.0.1:9", "REFEREE_DB": str(tmp_path / "u.db")}
    result = bot("run", env=env)
    assert result.returncode == 1 and "Telegram could not be reached" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_token_telegram_refuses_exits_1(tmp_path: Path) -> None:
    async def scenario() -> None:
        fake = FakeTelegram()
        fake.faults["getMe"] = [(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})] * 3
        await fake.start()
        running = BotProcess(tmp_path / "t.sqlite3", fake.base_url, tmp_path / "bot.log", (), {})
        try:
            await wait_until(lambda: running.poll() is not None, timeout=60)
            assert running.poll() == 1
        finally:
            running.kill()
            await fake.stop()
        said = (tmp_path / "bot.log").read_text(encoding="utf-8")
        assert "Telegram refused TELEGRAM_BOT_TOKEN" in said and "Traceback" not in said

    asyncio.run(scenario())


# ---- health -------------------------------------------------------------------------------------


async def ledger_with_waiting_updates(db: Path, ages: list[float]) -> None:
    """A real ledger (its schema made by the code) whose inbox holds updates not done, this old."""
    referee = await Referee.open(str(db))
    await referee.close()
    with sqlite3.connect(db) as connection:
        for update_id, age in enumerate(ages, start=1):
            connection.execute(
                "INSERT INTO inbox (update_id, chat, body, received_at)"
                " VALUES (?, 1, '{}', strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?))",
                (update_id, f"-{age} seconds"),
            )
        connection.execute("INSERT INTO inbox (update_id, chat, body, done) VALUES (99, 1, '{}', 1)")


def test_health_names_the_backlog_and_fails_when_its_oldest_row_is_too_old(tmp_path: Path) -> None:
    db, beat = tmp_path / "b.sqlite3", tmp_path / "alive"
    asyncio.run(ledger_with_waiting_updates(db, [600, 30]))
    assert read_backlog(db).waiting == 2  # the done row is not backlog
    Heartbeat(beat).beat()
    behind = Settings(database=str(db), heartbeat_file=str(beat), backlog_max_age=300)
    healthy, report = check_health(behind)
    assert not healthy and re.search(r"^inbox backlog 2, oldest 60\d s \(limit 300 s\)", report)
    assert report.endswith("unhealthy")
    patient = Settings(database=str(db), heartbeat_file=str(beat), backlog_max_age=900)
    healthy, report = check_health(patient)
    expected = r"inbox backlog 2, oldest 60\d s\nheartbeat \d s old \(limit 90 s\)\nhealthy"
    assert healthy and re.fullmatch(expected, report)
    result = bot("health", env={"REFEREE_DB": str(db), "HEARTBEAT_FILE": str(beat), "BACKLOG_MAX_AGE": "300"})
    assert result.returncode == 1 and re.search(r"inbox backlog 2, oldest 60\d s", result.stdout)


def test_the_heartbeat_is_not_touched_while_the_workers_are_stuck(tmp_path: Path) -> None:
    beat = tmp_path / "alive"
    stuck = Heartbeat(beat, working=lambda: False)
    stuck.beat()
    assert not beat.exists()
    Heartbeat(beat, working=lambda: True).beat()
    assert beat.exists()


def test_the_front_end_is_working_while_nothing_waits_or_an_update_was_finished_lately() -> None:
    from collections import deque

    from bot.telegram.app import TelegramFrontEnd
    from bot.telegram.lanes import WORK_STALL_SECONDS

    front = TelegramFrontEnd(":memory:")
    assert front.working()  # nothing waits
    front.lanes._queues["chat"] = deque([object()])  # type: ignore[list-item]
    front.lanes.progressed = time.monotonic()
    assert front.working()  # one is being processed right now
    front.lanes.progressed = time.monotonic() - WORK_STALL_SECONDS - 1
    assert not front.working()  # one waits and none was finished for longer than the limit


async def test_the_webhook_answers_healthz_as_health_does() -> None:
    from aiohttp.test_utils import TestClient, TestServer

    verdicts = [(True, "inbox backlog 0, oldest 0 s\nhealthy"), (False, "heartbeat 200 s old\nunhealthy")]

    async def accept(update: object) -> None:
        raise AssertionError("no update comes in")

    hook = Webhook(None, accept, url="", listen="127.0.0.1", port=0, secret="s", health=verdicts.pop)  # type: ignore[arg-type]
    async with TestClient(TestServer(hook.application())) as client:
        sick = await client.get(HEALTH_PATH)
        assert sick.status == 503 and "unhealthy" in await sick.text()
        well = await client.get(HEALTH_PATH)
        assert well.status == 200 and (await well.text()).startswith("inbox backlog 0")


# ---- backup -------------------------------------------------------------------------------------


def test_backup_while_the_bot_runs_is_a_whole_checked_copy(tmp_path: Path) -> None:
    db, log, copy = tmp_path / "live.sqlite3", tmp_path / "bot.log", tmp_path / "copy.sqlite3"

    async def scenario() -> None:
        async with bot_against_fake(db, log) as (fake, running):
            fake.message(GROUP, ALICE, NEW)
            await fake.wait_for(lambda: bool(fake.sent("sendMessage")), timeout=60)
            fake.message(GROUP, BOB, "/flowergang")
            await fake.wait_for(lambda: len(fake.sent("sendMessage")) >= 2, timeout=60)
            assert count(db, "SELECT count(*) FROM events") >= 2
            env = {"REFEREE_DB": str(db)}
            result = await asyncio.to_thread(bot, "backup", str(copy), env=env)
            assert result.returncode == 0 and str(copy) in result.stdout, result.stderr
            again = await asyncio.to_thread(bot, "backup", str(copy), env=env)
            assert again.returncode == 2 and "exists already" in again.stderr  # nothing is overwritten
            fake.message(GROUP, BOB, "/score")  # the bot goes on as before
            before = len(fake.sent("sendMessage"))
            await fake.wait_for(lambda: len(fake.sent("sendMessage")) > before, timeout=30)
            assert await running.stop() == 0
        assert count(copy, "SELECT count(*) FROM events") == count(db, "SELECT count(*) FROM events")
        with sqlite3.connect(copy) as connection:
            assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
            assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert not Path(f"{copy}-wal").exists()

    asyncio.run(scenario())


def test_backup_refuses_to_overwrite_the_ledger_and_a_missing_ledger_exits_3(tmp_path: Path) -> None:
    db = tmp_path / "l.sqlite3"
    asyncio.run(ledger_with_waiting_updates(db, []))
    with pytest.raises(FileExistsError):
        backup(db, db)
    missing = bot("backup", str(tmp_path / "c.sqlite3"), env={"REFEREE_DB": str(tmp_path / "none.sqlite3")})
    assert missing.returncode == 3 and "no database" in missing.stderr
    assert not list(tmp_path.glob("*.partial")) and not (tmp_path / "c.sqlite3").exists()


# ---- deployment ---------------------------------------------------------------------------------


def test_the_image_runs_run_is_pinned_by_digest_and_checks_health() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^ARG PYTHON_IMAGE=python:3\.11-slim$", dockerfile, re.MULTILINE)
    pinned = r"PYTHON_IMAGE[:=] ?python:3\.11-slim@sha256:[0-9a-f]{64}"
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    assert re.search(pinned, compose) and re.search(pinned, (ROOT / "docs" / "operating.md").read_text("utf-8"))
    assert 'CMD ["python", "-m", "bot", "run"]' in dockerfile
    assert 'CMD ["python", "-m", "bot", "health"]' in dockerfile


def test_compose_keeps_the_ledger_on_a_named_volume_and_the_proxy_config_is_in_the_repo() -> None:
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    assert "restart: unless-stopped" in compose and "env_file: .env" in compose and "- ledger:/data" in compose
    webhook = (ROOT / "deploy" / "docker-compose.webhook.yml").read_text(encoding="utf-8")
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile" in webhook and "WEBHOOK_URL: https://" in webhook
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text(encoding="utf-8")
    assert "reverse_proxy bot:8443" in caddyfile and "handle /telegram" in caddyfile
    assert "TELEGRAM_BOT_TOKEN=" in (ROOT / ".env.example").read_text(encoding="utf-8")


def test_a_migration_that_fails_exits_3_and_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    """A ledger whose next migration cannot run (here a table in the way of one it creates): the bot
    says why and exits 3; the schema's version is unchanged, so the previous version still opens it."""
    db = tmp_path / "old.sqlite3"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE nights (id INTEGER PRIMARY KEY, junk TEXT)")  # not the ledger's
        connection.execute("PRAGMA user_version = 0")

    async def start() -> subprocess.CompletedProcess[str]:
        fake = FakeTelegram()
        await fake.start()
        try:
            env = {"TELEGRAM_BOT_TOKEN": "1:x", "REFEREE_DB": str(db), "TELEGRAM_BASE_URL": fake.base_url}
            return await asyncio.to_thread(bot, "run", env=env)
        finally:
            await fake.stop()

    result = asyncio.run(start())
    assert result.returncode == 3 and f"the database {db} cannot be used" in result.stderr
    assert "Traceback" not in result.stderr
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == 0


async def test_a_done_mark_is_committed_without_waiting_for_another_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quiet bot: an update answered without recording anything (a question) after its row was
    committed on its own used to stay "not done" until the next write, so `health` saw an old backlog."""
    from bot.store import inbox as inbox_module
    from bot.store.inbox import Row

    monkeypatch.setattr(inbox_module, "MARK_SECONDS", 0.01)
    db = tmp_path / "quiet.sqlite3"
    referee = await Referee.open(str(db))
    try:
        inbox = referee.inbox()
        assert await inbox.add(Row(7, 1, None, {"update_id": 7}))  # committed on its own
        assert read_backlog(db).waiting == 1
        inbox.mark_done(7)  # nothing else is written after it
        for _ in range(500):
            if await inbox.is_done(7):
                break
            await asyncio.sleep(0.01)
        assert read_backlog(db).waiting == 0
    finally:
        await referee.close()


@pytest.mark.parametrize("front", [["run"], ["console", "--script", os.devnull]])
def test_operator_messages_are_in_english_unless_lang_says_chinese(tmp_path: Path, front: list[str]) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_text("this is not an SQLite database\n" * 200, encoding="utf-8")
    env = {"TELEGRAM_BOT_TOKEN": "1:x", "REFEREE_DB": str(junk), "TELEGRAM_BASE_URL": "http://127.0.0.1:9"}
    arguments = [*front, "--db", str(junk)] if front[0] == "console" else front
    english = bot(*arguments, env={**env, "LANG": "C.UTF-8"})
    chinese = bot(*arguments, env={**env, "LANG": "zh_CN.UTF-8"})
    assert english.returncode == chinese.returncode == 3
    assert "cannot open the database" in english.stderr and "打不开数据库" in chinese.stderr
