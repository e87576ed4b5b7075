"""Who may open the database file: one process at a time, and only a file SQLite can write.

A second process on the same file would keep its own caches of the nights and answer from stale
state, so each front end holds an exclusive OS lock (`<database>.lock`, flock) for as long as it
runs; a second start refuses with a clear message and a non-zero exit. A file that is not an SQLite
database, or cannot be written, is refused the same way before anything starts.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no flock; the rule is then the operator's to keep
    fcntl = None  # type: ignore[assignment]

EXIT_UNAVAILABLE = 3


class DatabaseUnavailable(Exception):
    """The database cannot be used by this process: a message key and its parameters."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


def check_writable(path: str | Path) -> None:
    """Open the file as SQLite and take (and give back) the write lock, failing within seconds."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        if target.exists() and not os.access(target, os.W_OK):
            raise sqlite3.OperationalError("the file is read-only")
        if not os.access(directory, os.W_OK):
            raise sqlite3.OperationalError(f"the folder {directory} is not writable")
        connection = sqlite3.connect(str(target), timeout=3, isolation_level=None)
        try:
            connection.execute("PRAGMA schema_version").fetchone()
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("ROLLBACK")
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise DatabaseUnavailable("database.unopenable", path=str(target), why=str(error)) from error


@contextmanager
def exclusive(path: str | Path) -> Iterator[None]:
    """Hold `<path>.lock` for the life of the process; a second holder is refused at once."""
    if fcntl is None:
        yield
        return
    lock_path = Path(f"{path}.lock")
    try:
        handle = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 (held open for the whole run)
    except OSError as error:
        raise DatabaseUnavailable("database.unopenable", path=str(path), why=str(error)) from error
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            handle.seek(0)
            holder = handle.read().strip() or "?"
            raise DatabaseUnavailable("database.in_use", path=str(path), pid=holder) from error
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        yield
    finally:
        handle.close()  # closing the file releases the lock


@contextmanager
def owned(path: str | Path) -> Iterator[None]:
    """The lock, then the file check: what both front ends do before opening the ledger."""
    with exclusive(path):
        check_writable(path)
        yield
