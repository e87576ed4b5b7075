"""The local console, run as a newcomer runs it: `python -m bot` and `python -m bot console`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ENV.pop("TELEGRAM_BOT_TOKEN", None)

SCRIPT = """\
# a night typed as the group would
/new Alice Bob Carol Dave preset=nanjing stake=2
Bob: /pong Carol
Bob: /pong Dave
Bob: /hu Carol 11p 567s 79s [EEE] [444p] +8s flowers=4
Carol: 暗杠 3m
Dave: /hu self 123m 456m 789m 234p 5p +5p flowers=2
Alice: /undo
"""


def test_script_with_json_prints_one_object_with_the_balances(tmp_path: Path) -> None:
    script = tmp_path / "night.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "console",
            "--db",
            str(tmp_path / "c.sqlite3"),
            "--script",
            str(script),
            "--json",
        ],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=tmp_path,
        timeout=120,
        check=True,
    )
    night = json.loads(result.stdout)
    assert night["balances"] == {"Alice": -3, "Bob": 31, "Carol": -25, "Dave": -3}
    assert night["money"] == {"Alice": "-6", "Bob": "62", "Carol": "-50", "Dave": "-6"}
    assert night["transfers"][0] == {"from": "Carol", "to": "Bob", "amount": "50"}
    assert night["hands"] == 1 and night["preset"] == "nanjing" and night["stake"] == "2"


def test_without_a_token_python_m_bot_opens_the_console_on_a_demo_database(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        input="/new A B C D\nB: /flowergang\n/quit\n",
        capture_output=True,
        text=True,
        env=ENV,
        cwd=tmp_path,
        timeout=120,
        check=True,
    )
    assert "第 1 局开始" in result.stdout and "B 花杠" in result.stdout
    assert (tmp_path / "referee-demo.sqlite3").exists()


def test_english_console(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bot", "console", "--db", str(tmp_path / "e.sqlite3"), "--lang", "en"],
        input="/new A B C D\nB: /pong Zed\n",
        capture_output=True,
        text=True,
        env=ENV,
        cwd=tmp_path,
        timeout=120,
        check=True,
    )
    assert "night 1 is open" in result.stdout and "no player Zed" in result.stdout


def test_engine_cli_as_a_subprocess() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "engine", "score", "1111m 22p 33p 44s 55s 6s +6s", "--json"],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 0 and json.loads(result.stdout)["total"] == 220
