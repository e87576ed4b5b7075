"""`python -m bot backup FILE`: a consistent copy of the ledger, taken while the bot runs.

SQLite's online backup API copies the database page by page as one reader would see it (a WAL
reader never waits for the bot's writes, nor the bot for it); the bot's own lock (an flock on the
file, bot/store/database.py) is not SQLite's and does not stop a reader. The copy is written next to
FILE under a temporary name, checked (`PRAGMA quick_check`) and only then renamed to FILE, so FILE is
either a whole, checked copy or absent. A FILE that exists is never overwritten — above all not the
ledger itself.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

from bot.telegram.settings import EXIT_CONFIG, EXIT_DATABASE, EXIT_OK, Settings

PAGES_A_STEP = 1024  # copied between two looks at the source: the bot's writes are never held up long


def backup(database: str | Path, target: str | Path) -> int:
    """Copy `database` to `target` (a new file); the number of pages copied. Raises sqlite3.Error,
    FileExistsError or OSError."""
    source_path, target_path = Path(database), Path(target)
    if not source_path.is_file():
        raise sqlite3.OperationalError(f"no database at {source_path}")
    if target_path.exists():
        raise FileExistsError(f"{target_path} exists already; choose a new file (nothing is overwritten)")
    partial = target_path.with_name(f".{target_path.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        pages = _copy(source_path, partial)
        os.replace(partial, target_path)
    finally:
        partial.unlink(missing_ok=True)  # a copy cut short leaves nothing behind
    return pages


def _copy(source_path: Path, partial: Path) -> int:
    source = sqlite3.connect(f"{source_path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy, pages=PAGES_A_STEP)
            copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no -wal beside it
            pages = int(copy.execute("PRAGMA page_count").fetchone()[0])
            verdict = copy.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            copy.close()
    finally:
        source.close()
    if verdict != "ok":
        raise sqlite3.DatabaseError(f"the copy failed its check: {verdict}")
    return pages


def main(settings: Settings, target: str) -> int:
    """Exit 0 with the copy written, 2 when FILE exists or cannot be written, 3 when the ledger
    cannot be read."""
    try:
        pages = backup(settings.database, target)
    except FileExistsError as error:
        print(f"python -m bot backup: {error}", file=sys.stderr)
        return EXIT_CONFIG
    except sqlite3.Error as error:
        print(f"python -m bot backup: cannot copy {settings.database}: {error}", file=sys.stderr)
        return EXIT_DATABASE
    except OSError as error:
        print(f"python -m bot backup: cannot write {target}: {error.strerror or error}", file=sys.stderr)
        return EXIT_CONFIG
    size = Path(target).stat().st_size
    print(f"backup of {settings.database} written to {target} ({pages} pages, {size / 1e6:.1f} MB)")
    return EXIT_OK
