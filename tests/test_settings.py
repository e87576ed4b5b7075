"""Every setting has a sane range and a one-line refusal, exit 2 (#47 item 6): a value the bot could
not live with (a busy timeout of 1e306 s, a heartbeat limit of 1e-300 s, the kernel's /proc as a
folder of rules files) is refused at the door like `PORT=abc`, never found out by a traceback at
start or by a bot that is never healthy. Each variable is declared once, as a field of `Settings`
(bot/settings.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from bot.settings import VARIABLES, BadSetting, Settings, help_table
from tests.kit.bot_process import ROOT

OUT_OF_RANGE = [
    ("REFEREE_BUSY_TIMEOUT", "1e306"),
    ("REFEREE_BUSY_TIMEOUT", "3601"),
    ("REFEREE_BUSY_TIMEOUT", "-0.5"),
    ("BOARD_EDIT_SECONDS", "1e300"),
    ("BOARD_EDIT_SECONDS", "inf"),
    ("BOARD_EDIT_SECONDS", "-inf"),
    ("HEARTBEAT_MAX_AGE", "1e-300"),
    ("HEARTBEAT_MAX_AGE", "nan"),
    ("HEARTBEAT_MAX_AGE", "-90"),
    ("HEARTBEAT_MAX_AGE", "86401"),
    ("BACKLOG_MAX_AGE", "0.5"),
    ("BACKLOG_MAX_AGE", "NaN"),
    ("CHART_SECONDS", "0"),
    ("CHART_SECONDS", "1e9"),
    ("RULES_DIR", "/proc"),
    ("RULES_DIR", "/proc/self"),
    ("RULES_DIR", "/sys/kernel"),
    ("RULES_DIR", "/dev"),
    ("TELEGRAM_BOT_TOKEN", "not a token"),
    ("TELEGRAM_BOT_TOKEN", "123456:ABC DEF"),
    ("REFEREE_DB", "/"),
    ("HEARTBEAT_FILE", "/tmp"),
    ("WEBHOOK_URL", "https://" + "a" * 3000),
]


@pytest.mark.parametrize(("name", "value"), OUT_OF_RANGE)
def test_a_value_out_of_its_range_is_refused_in_one_line_naming_the_range(name: str, value: str) -> None:
    with pytest.raises(BadSetting) as refused:
        Settings.from_environment({name: value})
    accepts = next(v.accepts for v in VARIABLES if v.name == name)
    assert str(refused.value) == f"{name}={value!r} is not valid: it takes {accepts}"


@pytest.mark.parametrize(
    ("name", "value", "field", "read"),
    [
        ("REFEREE_BUSY_TIMEOUT", "0", "busy_timeout", 0.0),
        ("REFEREE_BUSY_TIMEOUT", "3600", "busy_timeout", 3600.0),
        ("BOARD_EDIT_SECONDS", "0", "board_edit_seconds", 0.0),
        ("HEARTBEAT_MAX_AGE", "1", "heartbeat_max_age", 1.0),
        ("BACKLOG_MAX_AGE", "86400", "backlog_max_age", 86400.0),
        ("CHART_SECONDS", "0.5", "chart_seconds", 0.5),
        ("TELEGRAM_BOT_TOKEN", "123456:ABC-def_g", "token", "123456:ABC-def_g"),
    ],
)
def test_the_ends_of_each_range_are_taken(name: str, value: str, field: str, read: object) -> None:
    assert getattr(Settings.from_environment({name: value}), field) == read


def test_a_rules_folder_that_exists_outside_the_kernel_s_is_taken(tmp_path: Path) -> None:
    assert Settings.from_environment({"RULES_DIR": str(tmp_path)}).rules_dir == str(tmp_path)


def test_every_field_is_one_variable_declared_with_it() -> None:
    assert [v.field for v in VARIABLES] == [f.name for f in fields(Settings)]
    assert len({v.name for v in VARIABLES}) == len(VARIABLES)
    assert all(f"  {v.name}  " in help_table() or f"  {v.name} " in help_table() for v in VARIABLES)


def test_the_heartbeat_lies_beside_the_ledger_unless_heartbeat_file_says_where() -> None:
    """The venv set-up of docs/operating.md sets only REFEREE_DB: the bot and `health` find one file."""
    assert Settings(database="/srv/l.sqlite3").heartbeat == "/srv/l.sqlite3.alive"
    assert Settings(database="/srv/l.sqlite3", heartbeat_file="/tmp/beat").heartbeat == "/tmp/beat"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("REFEREE_BUSY_TIMEOUT", "1e306"),
        ("BOARD_EDIT_SECONDS", "1e300"),
        ("HEARTBEAT_MAX_AGE", "1e-300"),
        ("RULES_DIR", "/proc"),
    ],
)
def test_the_process_refuses_it_with_exit_2_and_one_line(name: str, value: str, tmp_path: Path) -> None:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "TELEGRAM_BOT_TOKEN": "1:x", name: value}
    environment["REFEREE_DB"] = str(tmp_path / "never.sqlite3")
    for command in ("run", "health"):
        result = subprocess.run(
            [sys.executable, "-m", "bot", command],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith(f"python -m bot: {name}=") and "Traceback" not in result.stderr
    assert not (tmp_path / "never.sqlite3").exists()


PROBE = """
import atexit, sys
from bot.__main__ import main

def telegram_modules():
    loaded = sorted(m for m in sys.modules if m == "telegram" or m.startswith(("telegram.", "bot.telegram")))
    print("LOADED", loaded, file=sys.stderr)

atexit.register(telegram_modules)
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("command", [["health"], ["backup", "COPY"], ["console", "--db", "DB"]])
def test_health_backup_and_the_console_do_not_load_the_telegram_package(command: list[str], tmp_path: Path) -> None:
    """#49 item 3: the settings, `health`'s backlog and the backup are the process's and the store's."""
    db = tmp_path / "l.sqlite3"
    argv = [
        str(tmp_path / "copy.sqlite3") if a == "COPY" else str(tmp_path / "c.sqlite3") if a == "DB" else a
        for a in command
    ]
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "REFEREE_DB": str(db)}
    environment.pop("TELEGRAM_BOT_TOKEN", None)
    if command[0] == "backup":
        import sqlite3

        sqlite3.connect(db).close()
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        cwd=ROOT,
        env=environment,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "LOADED []" in result.stderr, result.stderr
