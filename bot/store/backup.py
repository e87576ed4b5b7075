"""A consistent copy of the ledger, taken while the bot runs (`python -m bot backup FILE`).

The copy is read from one snapshot: SQLite's backup API in a single step, one read transaction from
the first page to the last. A WAL reader never waits for the bot's writes, nor the bot for it, and the
bot's commits meanwhile do not touch the snapshot being read — so, unlike a copy in small steps
(which SQLite starts over whenever the source changed between two of them, and which never finished
on a busy ledger), it ends in a time bounded by the ledger's size however fast the bot writes
(`python -m bench.backup_bench`). The bot's own lock (an flock on the file, bot/store/database.py)
is not SQLite's and does not stop a reader.

The copy is written next to FILE under a temporary name holding this process's id, checked
(`PRAGMA quick_check`) and only then renamed to FILE, so FILE is either a whole, checked copy or
absent. A copy cut short by a signal removes its temporary file; one cut short by SIGKILL leaves it
behind, and the next backup into the same folder removes it (its process is gone). FILE must be new:
the ledger itself and the files SQLite keeps beside it (`-journal`, `-wal`, `-shm`) are refused.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SIDE_FILES = ("-journal", "-wal", "-shm", ".lock")  # what SQLite (or the bot's lock note) keeps beside a ledger
_PARTIAL = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.partial(?:-journal)?$")


class TargetUnusable(OSError):
    """FILE cannot be the copy: it is the ledger or one of its side files, or cannot be written."""


class TargetExists(TargetUnusable, FileExistsError):
    """FILE exists already: nothing is overwritten."""


@dataclass(frozen=True)
class Copied:
    pages: int
    size: int  # bytes


def partial_name(target: Path, pid: int | None = None) -> Path:
    return target.with_name(f".{target.name}.{os.getpid() if pid is None else pid}.partial")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def remove_stale_partials(folder: Path) -> list[Path]:
    """The temporary files of backups whose process is gone (killed mid-copy), removed."""
    removed: list[Path] = []
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            found = _PARTIAL.match(entry.name)
            if found and not _alive(int(found["pid"])):
                with contextlib.suppress(OSError):
                    entry.unlink()
                    removed.append(entry)
    return removed


def refuse_unusable_target(database: Path, target: Path) -> None:
    """Raises TargetUnusable when FILE is the ledger, one of its side files, exists, or its folder does not."""
    ledger = database.resolve()
    chosen = target.resolve()
    if chosen == ledger:
        raise TargetExists(f"{target} is the ledger itself; choose a new file (nothing is overwritten)")
    if any(chosen == Path(f"{ledger}{side}") for side in SIDE_FILES):
        raise TargetUnusable(f"{target} is a file SQLite keeps beside the ledger; choose a new file")
    if target.exists() or target.is_symlink():
        raise TargetExists(f"{target} exists already; choose a new file (nothing is overwritten)")
    folder = target.parent
    if not folder.is_dir():
        raise TargetUnusable(f"cannot write {target}: the folder {folder} does not exist")


def backup(database: str | Path, target: str | Path) -> Copied:
    """Copy `database` to `target` (a new file). Raises TargetUnusable (FILE cannot be written: a
    missing folder, a full disk, an existing file) or sqlite3.Error (the ledger cannot be read)."""
    source_path, target_path = Path(database), Path(target)
    if not source_path.is_file():
        raise sqlite3.OperationalError(f"no database at {source_path}")
    refuse_unusable_target(source_path, target_path)
    remove_stale_partials(target_path.parent)
    partial = partial_name(target_path)
    try:
        try:
            os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except OSError as error:
            raise TargetUnusable(f"cannot write {target_path}: {error.strerror or error}") from None
        pages = _copy_in_thread(source_path, partial, target_path)
        try:
            os.replace(partial, target_path)
        except OSError as error:
            raise TargetUnusable(f"cannot write {target_path}: {error.strerror or error}") from None
    finally:
        for leftover in _partials(partial):  # a copy cut short (an error, SIGINT, SIGTERM) leaves nothing
            leftover.unlink(missing_ok=True)
    return Copied(pages, target_path.stat().st_size)


def _partials(partial: Path) -> Iterator[Path]:
    yield partial
    yield Path(f"{partial}-journal")


def _copy_in_thread(source_path: Path, partial: Path, target: Path) -> int:
    """The copy runs in a thread the main one waits for, so a signal (SIGINT, SIGTERM turned into an
    exception by the entry point) is handled at once: the caller removes the temporary file, the
    process ends, and the thread's writes go to a file no longer named."""
    outcome: list[int | BaseException] = []

    def work() -> None:
        try:
            outcome.append(_copy(source_path, partial, target))
        except BaseException as error:  # handed to the waiting thread
            outcome.append(error)

    worker = threading.Thread(target=work, name="backup", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.2)
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result


def _copy(source_path: Path, partial: Path, target: Path) -> int:
    source = sqlite3.connect(f"{source_path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        source.execute("SELECT count(*) FROM sqlite_master").fetchone()  # not an SQLite file: raised here
        copy = sqlite3.connect(partial)
        try:
            try:
                source.backup(copy, pages=-1)  # one step: one read snapshot, never restarted by writes
                copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no -wal beside it
                pages = int(copy.execute("PRAGMA page_count").fetchone()[0])
                verdict = copy.execute("PRAGMA quick_check").fetchone()[0]
            except sqlite3.DatabaseError as error:
                if _source_broken(error):
                    raise
                raise TargetUnusable(f"cannot write {target}: {error}") from None  # a full disk, a quota
        finally:
            copy.close()
    finally:
        source.close()
    if verdict != "ok":
        raise sqlite3.DatabaseError(f"the copy failed its check: {verdict}")
    return pages


def _source_broken(error: sqlite3.DatabaseError) -> bool:
    """A ledger that is no SQLite file or is damaged; anything else in the copy step is the target's."""
    return getattr(error, "sqlite_errorname", "") in ("SQLITE_CORRUPT", "SQLITE_NOTADB")
