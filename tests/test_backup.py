"""`python -m bot backup FILE` (#47 item 2, bot/store/backup.py): a copy read from one snapshot, so a
ledger written every few milliseconds is still copied, whole and consistent, in one pass; a FILE that
cannot be written is the operator's (exit 2), the ledger's own files are refused, and a copy cut short
leaves no temporary file behind."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bot.chat.service import Referee
from bot.store.backup import TargetExists, TargetUnusable, backup, partial_name, remove_stale_partials
from tests.kit.bot_process import ROOT


def run_backup(db: Path, target: Path | str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "REFEREE_DB": str(db)}
    environment.pop("TELEGRAM_BOT_TOKEN", None)
    return subprocess.run(
        [sys.executable, "-m", "bot", "backup", str(target)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


def ledger(db: Path, rows: int = 0) -> None:
    """A real ledger (its schema made by the code), with `rows` done inbox rows of 1 KB each."""

    async def make() -> None:
        referee = await Referee.open(str(db), charts_enabled=False)
        await referee.close()

    asyncio.run(make())
    with sqlite3.connect(db) as connection:
        connection.executemany(
            "INSERT INTO inbox (update_id, chat, body, done) VALUES (?, 1, ?, 1)",
            ((n, "x" * 1000) for n in range(1, rows + 1)),
        )


class Writer(threading.Thread):
    """Another connection committing one inbox row every `every` seconds, as the bot would."""

    def __init__(self, db: Path, every: float = 0.003) -> None:
        super().__init__(daemon=True)
        self.db, self.every = db, every
        self.stopping = threading.Event()
        self.commits = 0

    def run(self) -> None:
        connection = sqlite3.connect(self.db, timeout=10, isolation_level=None)
        connection.execute("PRAGMA journal_mode = WAL")
        update_id = 10_000_000
        while not self.stopping.is_set():
            update_id += 1
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("INSERT INTO inbox (update_id, chat, body) VALUES (?, 2, ?)", (update_id, "y" * 500))
            connection.execute("COMMIT")
            self.commits += 1
            time.sleep(self.every)
        connection.close()


def test_a_backup_while_another_connection_commits_every_few_ms_finishes_and_is_consistent(tmp_path: Path) -> None:
    db, copy = tmp_path / "busy.sqlite3", tmp_path / "copy.sqlite3"
    ledger(db, rows=8_000)  # ~10 MB: many steps' worth for a copy in steps
    writer = Writer(db)
    writer.start()
    try:
        while writer.commits < 20:
            time.sleep(0.01)
        before = writer.commits
        copied = backup(db, copy)
        during = writer.commits - before
    finally:
        writer.stopping.set()
        writer.join()
    assert during > 0  # the writer went on committing while the copy was read
    assert copied.size == copy.stat().st_size and copied.pages > 2_000
    with sqlite3.connect(copy) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        kept = connection.execute("SELECT count(*) FROM inbox WHERE chat = 2").fetchone()[0]
        # one snapshot: the writer's rows up to some commit, none of them half there
        assert kept >= 20 and connection.execute("SELECT count(*) FROM inbox WHERE chat = 1").fetchone()[0] == 8_000
        ids = [row[0] for row in connection.execute("SELECT update_id FROM inbox WHERE chat = 2 ORDER BY update_id")]
        assert ids == list(range(10_000_001, 10_000_001 + kept))
    assert not Path(f"{copy}-wal").exists() and not list(tmp_path.glob("*.partial*"))


def test_the_ledger_and_the_files_sqlite_keeps_beside_it_are_refused(tmp_path: Path) -> None:
    db = tmp_path / "l.sqlite3"
    ledger(db)
    for name in ("l.sqlite3-journal", "l.sqlite3-wal", "l.sqlite3-shm"):
        with pytest.raises(TargetUnusable, match="a file SQLite keeps beside the ledger"):
            backup(db, tmp_path / name)
        result = run_backup(db, tmp_path / name)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    with pytest.raises(TargetExists):
        backup(db, db)
    assert run_backup(db, db).returncode == 2


def test_a_missing_folder_is_exit_2_saying_the_folder_is_missing(tmp_path: Path) -> None:
    db = tmp_path / "l.sqlite3"
    ledger(db)
    result = run_backup(db, tmp_path / "no" / "such" / "copy.sqlite3")
    assert result.returncode == 2 and "does not exist" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anywhere")
def test_a_folder_that_cannot_be_written_is_exit_2(tmp_path: Path) -> None:
    db, locked = tmp_path / "l.sqlite3", tmp_path / "locked"
    ledger(db)
    locked.mkdir(mode=0o500)
    result = run_backup(db, locked / "copy.sqlite3")
    assert result.returncode == 2 and "cannot write" in result.stderr and result.stderr.count("\n") == 1


def test_a_full_disk_is_exit_2_and_leaves_nothing(tmp_path: Path) -> None:
    """A full disk, played by a file-size limit (RLIMIT_FSIZE; its signal ignored, a write past it fails)."""
    db, copy = tmp_path / "l.sqlite3", tmp_path / "copy.sqlite3"
    ledger(db, rows=2_000)
    probe = (
        "import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN);"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000));"
        "from bot.__main__ import main; sys.exit(main(['backup', sys.argv[1]]))"
    )
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "REFEREE_DB": str(db)}
    result = subprocess.run(
        [sys.executable, "-c", probe, str(copy)], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and "cannot write" in result.stderr, result.stderr
    assert not copy.exists() and not list(tmp_path.glob(".copy*"))


def test_a_killed_backup_s_temporary_file_is_removed_by_the_next_backup(tmp_path: Path) -> None:
    db = tmp_path / "l.sqlite3"
    ledger(db)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a process id that no longer runs: the killed backup's
    stale = partial_name(tmp_path / "monday.sqlite3", gone.pid)
    stale.write_bytes(b"half a copy")
    Path(f"{stale}-journal").write_bytes(b"")
    mine = partial_name(tmp_path / "other.sqlite3")  # this process's: still running, kept
    mine.write_bytes(b"")
    assert remove_stale_partials(tmp_path) != []
    assert not stale.exists() and not Path(f"{stale}-journal").exists() and mine.exists()
    stale.write_bytes(b"half a copy")
    assert run_backup(db, tmp_path / "tuesday.sqlite3").returncode == 0
    assert not stale.exists()


def test_a_backup_stopped_by_sigterm_leaves_no_temporary_file(tmp_path: Path) -> None:
    db, copy = tmp_path / "big.sqlite3", tmp_path / "copy.sqlite3"
    ledger(db, rows=60_000)  # ~70 MB: long enough to be stopped halfway
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "REFEREE_DB": str(db)}
    running = subprocess.Popen(
        [sys.executable, "-m", "bot", "backup", str(copy)], cwd=ROOT, env=environment, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 30
    while not list(tmp_path.glob(".copy.sqlite3.*.partial")) and running.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    running.send_signal(signal.SIGTERM)
    status = running.wait(timeout=30)
    assert running.stderr is not None
    said = running.stderr.read()
    if status == 0:  # it finished first: a whole copy, nothing left beside it
        assert copy.exists()
    else:
        assert status == -signal.SIGTERM and "not written" in said and not copy.exists()
    assert not list(tmp_path.glob(".copy*"))
