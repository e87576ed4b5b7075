"""The console run as a newcomer runs it: `python -m bot ARGS` in a subprocess, with no bot token."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent  # the project: tests/kit/ is two folders down
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ENV.pop("TELEGRAM_BOT_TOKEN", None)


def run_bot(cwd: Path, *args: str, stdin: str | None = None) -> str:
    """`python -m bot ARGS` as a newcomer runs it; returns what it printed."""
    result = subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=ENV,
        cwd=cwd,
        timeout=120,
        check=True,
    )
    return result.stdout
