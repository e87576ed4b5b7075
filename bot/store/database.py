"""Who may open the database file: one process at a time, only a file SQLite can write, and only
while it is still the file that was opened.

A second process on the same file would keep its own caches of the nights and answer from stale
state, so each front end holds an exclusive OS lock (flock) on the database file itself for as long
as it runs. The lock belongs to the file (its inode), not to a name: a symlink, a hard link or a
relative path to the same file finds it taken, and there is no lock file whose removal would free
it (`<real path>.lock` only notes the holder's pid for the message). A second start refuses with a
clear message and a non-zero exit. A file that is not an SQLite database, or cannot be written, is
refused the same way before anything starts.

While it runs, the process checks before every commit (bot/store/writer.py) that the database and its
WAL are still the files it opened (same device and inode), and that the database still says WAL
in its header (a backup copied into it, `cp`, does not). If either was removed or replaced (a
backup restored over it, a stray `rm`), whatever it committed from then on would go to a file no
one will read again: the process prints why and exits with status 3 before acknowledging anything
more, so Telegram keeps those updates for the next start.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no flock; the rule is then the operator's to keep
    fcntl = None  # type: ignore[assignment]

EXIT_UNAVAILABLE = 3
PROC_LOCKS = Path("/proc/locks")
FileId = tuple[int, int]  # (st_dev, st_ino): which file a name stands for


class DatabaseUnavailable(Exception):
    """The database cannot be used by this process: a message key and its parameters."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


class DatabaseLost(DatabaseUnavailable):
    """The database (or its WAL) is no longer the file this process opened."""


def file_id(path: str | Path) -> FileId | None:
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None
    return (status.st_dev, status.st_ino)


@dataclass
class Watch:
    """The identity of the files a writer opened: the database, and its WAL once there is one."""

    path: str  # the database's real path (symlinks resolved when it was opened)
    database: FileId | None
    wal: FileId | None = None
    # The file said "WAL" in its header when opened: while this process holds it, only another file's
    # bytes copied into it (`cp backup ledger`: the same inode) can make it say otherwise.
    wal_header: bool = False

    @classmethod
    def of(cls, path: str | Path) -> Watch:
        real = os.path.realpath(path)
        watch = cls(real, file_id(real), wal_header=bool(says_wal(real)))
        watch.note_wal()
        return watch

    def note_wal(self) -> None:
        """The WAL appears with the first write and stays while a connection is open: remember it."""
        if self.wal is None:
            self.wal = file_id(f"{self.path}-wal")

    def check(self) -> None:
        """Raise DatabaseLost if the database or its WAL was removed or replaced since opened."""
        for name, expected in ((self.path, self.database), (f"{self.path}-wal", self.wal)):
            if expected is None:
                continue
            now = file_id(name)
            if now != expected:
                what = "database.what_missing" if now is None else "database.what_replaced"
                raise DatabaseLost("database.replaced", path=name, what=what)
        if self.wal_header and says_wal(self.path) is False:
            raise DatabaseLost("database.replaced", path=self.path, what="database.what_overwritten")


def says_wal(path: str | Path) -> bool | None:
    """Whether the file's header says WAL (its read and write versions, bytes 18 and 19, are 2): the
    ledger does while a front end runs it; a backup (`python -m bot backup`, `VACUUM INTO`) does not.
    Read through the descriptor the process's lock holds (`exclusive`), never a new one: closing any
    descriptor of the file would drop the POSIX locks SQLite's connections hold on it. None when this
    process holds no lock on it (a test's ledger) or it cannot be read: left to the identity check."""
    handle = _held.get(os.path.realpath(path))
    if handle is None:
        return None
    try:
        header = os.pread(handle, 20, 0)
    except OSError:
        return None
    return header[18:20] == b"\x02\x02"


# The descriptor each database this process holds (`exclusive`) is locked through, by its real path:
# the header is read through it (`says_wal`).
_held: dict[str, int] = {}

# Set while a front end owns its database (`owned`): losing the file then stops the process.
stop_when_lost = False


def check_writable(path: str | Path) -> None:
    """Open the file as SQLite and take (and give back) the write lock, failing within seconds."""
    target = Path(path)
    try:
        _check_access(target)
        connection = sqlite3.connect(str(target), timeout=3, isolation_level=None)
        try:
            connection.execute("PRAGMA schema_version").fetchone()
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("ROLLBACK")
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise DatabaseUnavailable("database.unopenable", path=str(target), why=str(error)) from error


def _check_access(target: Path) -> None:
    directory = target.parent if str(target.parent) else Path(".")
    if target.exists() and not os.access(target, os.W_OK):
        raise sqlite3.OperationalError("the file is read-only")
    if not directory.is_dir():  # said as it is: a folder to create, not one to make writable
        raise sqlite3.OperationalError(f"the folder {directory} does not exist")
    if not os.access(directory, os.W_OK):
        raise sqlite3.OperationalError(f"the folder {directory} is not writable")


@contextmanager
def exclusive(path: str | Path) -> Iterator[None]:
    """Hold an exclusive flock on the database file for the life of the process; a second holder,
    by whatever name it reaches the file, is refused at once."""
    if fcntl is None:
        yield
        return
    try:
        _check_access(Path(path))
        # Read-only is enough for flock; the file is created (empty: SQLite's new database) if missing.
        handle = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
    except (OSError, sqlite3.Error) as error:
        raise DatabaseUnavailable("database.unopenable", path=str(path), why=str(error)) from error
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            raise DatabaseUnavailable("database.in_use", path=str(path), pid=holder(handle, path)) from error
        _held[os.path.realpath(path)] = handle
        try:
            with _noted_holder(path):
                yield
        finally:
            _held.pop(os.path.realpath(path), None)
    finally:
        # Closed last, after the front end closed its SQLite connections: closing a descriptor of
        # the file drops the process's POSIX locks on it, which SQLite's own connections use.
        os.close(handle)


def holder(handle: int, path: str | Path) -> str:
    """The pid holding the file's flock: from /proc/locks by inode, else from the note beside it."""
    status = os.fstat(handle)
    device = f"{os.major(status.st_dev):02x}:{os.minor(status.st_dev):02x}:{status.st_ino}"
    try:
        for line in PROC_LOCKS.read_text(encoding="ascii", errors="replace").splitlines():
            fields = line.split()
            if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == device:
                return fields[4]
    except OSError:
        pass
    try:
        return Path(f"{os.path.realpath(path)}.lock").read_text(encoding="utf-8").strip() or "?"
    except OSError:
        return "?"


@contextmanager
def _noted_holder(path: str | Path) -> Iterator[None]:
    """`<real path>.lock`: who holds the database, for people and systems without /proc/locks. It
    is flocked too, so a process of an older version (which locked only that file) and this one
    never run together during an upgrade; the database's own lock is the one that counts."""
    note = Path(f"{os.path.realpath(path)}.lock")
    try:
        handle = open(note, "a+", encoding="utf-8")  # noqa: SIM115 (held open for the whole run)
    except OSError:  # a folder that takes no more files: the database's lock is enough
        yield
        return
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            handle.seek(0)
            raise DatabaseUnavailable("database.in_use", path=str(path), pid=handle.read().strip() or "?") from error
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        yield
    finally:
        handle.close()


@contextmanager
def owned(path: str | Path) -> Iterator[None]:
    """The lock, then the file check: what both front ends do before opening the ledger. While
    owned, a database file that is replaced or removed stops the process (bot/store/writer.py)."""
    global stop_when_lost
    with exclusive(path):
        check_writable(path)
        stop_when_lost = True
        try:
            yield
        finally:
            stop_when_lost = False
