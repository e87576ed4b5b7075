"""The local console, run as a newcomer runs it: `python -m bot` and `python -m bot console`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.kit.console import ENV, ROOT, run_bot

SCRIPT = """\
# a night typed as the group would
/new Alice Bob Carol Dave preset=nanjing stake=2
Bob: /pong Carol
Bob: /pong Dave
Bob: /hu Carol 11p 567s 79s [EEE] [444p] +8s flowers=4
Carol: 暗杠 9s
Dave: /hu self 123m 456m 789m 234p 5p +5p flowers=2
Alice: /undo
"""


def test_script_with_json_prints_one_object_with_the_balances(tmp_path: Path) -> None:
    script = tmp_path / "night.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    night = json.loads(
        run_bot(tmp_path, "console", "--db", str(tmp_path / "c.sqlite3"), "--script", str(script), "--json")
    )
    assert night["balances"] == {"Alice": -3, "Bob": 31, "Carol": -25, "Dave": -3}
    assert night["money"] == {"Alice": "-6", "Bob": "62", "Carol": "-50", "Dave": "-6"}
    assert night["transfers"][0] == {"from": "Carol", "to": "Bob", "amount": "50"}
    assert night["hands"] == 1 and night["preset"] == "nanjing" and night["stake"] == "2"


def test_json_shows_the_stake_in_force_after_a_stake_change(tmp_path: Path) -> None:
    script = tmp_path / "night.txt"
    script.write_text("Alice: /new Alice Bob Carol Dave stake=1\nAlice: 改底 2\n", encoding="utf-8")
    night = json.loads(
        run_bot(tmp_path, "console", "--db", str(tmp_path / "c.sqlite3"), "--script", str(script), "--json")
    )
    # nothing logged in hand 1 yet: 改底 takes effect from this hand, so 2 is the stake in force
    assert night["stake"] == "2"


def test_without_a_token_python_m_bot_opens_the_console_on_a_demo_database(tmp_path: Path) -> None:
    out = run_bot(tmp_path, stdin="/new A B C D\nB: /flowergang\n/quit\n")
    assert "第 1 局开始" in out and "B 花杠" in out
    assert (tmp_path / "referee-demo.sqlite3").exists()


def test_english_console(tmp_path: Path) -> None:
    out = run_bot(
        tmp_path, "console", "--db", str(tmp_path / "e.sqlite3"), "--lang", "en", stdin="/new A B C D\nB: /pong Zed\n"
    )
    assert "night 1 is open" in out and "no player Zed" in out


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
