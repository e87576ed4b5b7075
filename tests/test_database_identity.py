"""One process per database *file*, and only while it is the file that was opened: the real
processes (`python -m bot console`, `python -m bot`) against links, a removed lock note, a removed
WAL and a database replaced under a running bot.

Money, worked by hand from docs/rules.md: a flower gang (花杠) is paid 6 by each of the three others.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.kit.bot_process import ROOT, bot_against_fake, count, wait_until
from tests.kit.telegram import ALICE, BOB, NEW

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "zh_CN.UTF-8"}  # operator messages in LANG
ENV.pop("TELEGRAM_BOT_TOKEN", None)
IN_USE = "一个数据库只能由一个进程使用"
LOST = "被替换或删除了"


class Console:
    """An interactive `python -m bot console`, fed line by line."""

    def __init__(self, db: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bot", "console", "--db", str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=ENV,
        )
        self.say_and_wait("/new A B C D", "第 1 局开始")

    def say_and_wait(self, line: str, expected: str) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if expected in self.process.stdout.readline():
                return
        raise TimeoutError(f"no {expected!r} after {line!r}")

    def finish(self, line: str) -> tuple[int, str]:
        """Type a last line and end the input; the exit status and what it printed to stderr."""
        _, err = self.process.communicate(line + "\n", timeout=60)
        return self.process.returncode, err

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


def second_console(db: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "console", "--db", str(db), "--script", os.devnull],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_no_name_of_the_file_bypasses_the_lock(tmp_path: Path) -> None:
    db = tmp_path / "night.sqlite3"
    first = Console(db)
    try:
        symlink = tmp_path / "alias.sqlite3"
        symlink.symlink_to(db)
        hard = tmp_path / "hard.sqlite3"
        os.link(db, hard)
        relative = os.path.relpath(tmp_path / "sub" / ".." / "night.sqlite3", ROOT)
        (tmp_path / "sub").mkdir()
        for name in (db, symlink, hard, relative):
            refused = second_console(name)
            assert refused.returncode == 3, name
            assert IN_USE in refused.stderr and str(first.process.pid) in refused.stderr, name
        # the note beside the file only names the holder: removing it frees nothing
        (tmp_path / "night.sqlite3.lock").unlink()
        refused = second_console(hard)
        assert refused.returncode == 3 and str(first.process.pid) in refused.stderr
        first.say_and_wait("B: /flowergang", "B 花杠")  # the first one goes on
    finally:
        first.kill()
    assert second_console(symlink).returncode == 0  # released when the holder ends


def test_a_process_of_the_older_version_holding_the_lock_file_is_respected(tmp_path: Path) -> None:
    """Before, the lock was `<database>.lock` alone: during an upgrade the old process holds that."""
    db = tmp_path / "night.sqlite3"
    with open(f"{db}.lock", "a+", encoding="utf-8") as old:
        fcntl.flock(old, fcntl.LOCK_EX | fcntl.LOCK_NB)
        old.write("4242")
        old.flush()
        refused = second_console(db)
    assert refused.returncode == 3 and IN_USE in refused.stderr and "4242" in refused.stderr


def test_a_removed_wal_stops_the_console_before_it_records(tmp_path: Path) -> None:
    db = tmp_path / "night.sqlite3"
    console = Console(db)
    try:
        os.unlink(f"{db}-wal")
        status, err = console.finish("B: /flowergang")
        assert status == 3 and LOST in err and f"{db}-wal" in err
    finally:
        console.kill()


def test_a_replaced_database_stops_the_console_and_the_replacement_is_untouched(tmp_path: Path) -> None:
    db, other = tmp_path / "night.sqlite3", tmp_path / "backup.sqlite3"
    console = Console(db)
    try:
        with sqlite3.connect(db) as source, sqlite3.connect(other) as target:
            source.backup(target)  # a backup of the night as it is: one open event
        os.replace(other, db)
        status, err = console.finish("B: /flowergang")
        assert status == 3 and LOST in err
    finally:
        console.kill()
    assert count(db, "SELECT COUNT(*) FROM events WHERE kind = 'flower_gang'") == 0
    assert count(db, "SELECT COUNT(*) FROM payments") == 0


def test_a_bot_whose_database_is_replaced_stops_before_acknowledging_the_update(tmp_path: Path) -> None:
    db, backup, log = tmp_path / "bot.sqlite3", tmp_path / "backup.sqlite3", tmp_path / "bot.log"
    chat = -100401

    async def scenario() -> None:
        async with bot_against_fake(db, log) as (fake, bot):
            await fake.settle(fake.message(chat, ALICE, NEW), timeout=60)
            with sqlite3.connect(db) as source, sqlite3.connect(backup) as target:
                source.backup(target)  # the operator restores a backup over the live file
            for leftover in (f"{db}-wal", f"{db}-shm"):
                os.unlink(leftover)
            os.replace(backup, db)
            update = fake.message(chat, BOB, "/flowergang")
            await wait_until(lambda: bot.poll() is not None, timeout=60)
            assert bot.poll() == 3 and LOST in log.read_text(encoding="utf-8")
            assert fake._confirmed <= update  # Telegram still holds it
            bot.restart()  # started again on the restored file
            await wait_until(lambda: count(db, "SELECT COUNT(*) FROM events WHERE kind = 'flower_gang'") == 1)
            # bob's flower gang, recorded once on the file that is there now: 6 from each of three
            assert count(db, "SELECT SUM(amount) FROM payments WHERE payee = 1") == 18
            assert await bot.stop() == 0

    asyncio.run(scenario())
