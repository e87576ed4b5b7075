"""Is it stuck? The bot's heartbeat (a file the running bot touches) and `python -m bot health`, which
reads it and the inbox's backlog (the container's HEALTHCHECK; the webhook's `GET /healthz` says the
same).

The heartbeat means updates are taken in *and processed*: long polling touches it after every
`getUpdates` round whose updates are all in the inbox (a long poll returns at least every
`POLL_TIMEOUT` seconds, a failed one is retried within `MAX_POLL_BACKOFF`), a webhook every
`WEBHOOK_BEAT_SECONDS` while its server listens — and either only while the front end's workers are
not stuck (`working`: nothing waits, or an update was finished lately). So a stale file means the
loop is stuck (an inbox write that keeps failing, a blocked event loop, a hung worker) or the process
is gone — not merely that the ledger file still opens.

The backlog is read from the ledger itself by the store (bot/store/backlog.py: read-only; SQLite
readers never wait for the bot's writes): how many updates wait in the inbox and how long the
oldest has waited. A backlog that drains is fine after a restart; one whose oldest row is older than
BACKLOG_MAX_AGE is not.

Each check is a function returning a `Check`; `checks` lists them, so another (the drawing process's
state) joins the list without changing the others.

The file also carries what the process says of its parts when the loop goes round (`status`, one
line): a drawing process that does not answer (`stuck: …`) makes the check fail while it lasts;
anything else (a drawing process replaced earlier) is printed with the healthy answer.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.settings import EXIT_OK, EXIT_UNHEALTHY, Settings
from bot.store.backlog import read_backlog

STUCK = "stuck"  # a status line starting so: a part of the bot does not answer (bot/views/charts.py)


@dataclass(frozen=True)
class Check:
    healthy: bool
    line: str  # one line for the operator, in English


class Heartbeat:
    """Touches `path` (nothing when None): each touch says "the loop went round just now, and the
    workers are not stuck" (`working`, when given, must say so)."""

    def __init__(
        self,
        path: str | Path | None,
        status: Callable[[], str | None] | None = None,
        working: Callable[[], bool] | None = None,
    ) -> None:
        self.path = Path(path) if path else None
        self.status = status  # what the process says of its parts, written with each beat
        self.working = working

    def beat(self) -> None:
        said = self.status() if self.status is not None else None  # asked even unwritten: it probes too
        if self.path is None or (self.working is not None and not self.working()):
            return
        try:
            fresh = self.path.with_name(f".{self.path.name}.new")  # replaced whole: never read half written
            fresh.write_text(said or "", encoding="utf-8")
            os.replace(fresh, self.path)
        except OSError as error:  # a heartbeat that cannot be written shows as unhealthy, never as a crash
            print(f"heartbeat not written: {error}", file=sys.stderr)


def check(path: str | Path | None, max_age: float = 90.0, now: float | None = None) -> tuple[bool, str]:
    """(healthy, what to print): healthy while the heartbeat is younger than `max_age` seconds."""
    if not path:
        return False, "HEARTBEAT_FILE is not set: no heartbeat to check"
    try:
        touched = Path(path).stat().st_mtime
        said = Path(path).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return False, f"no heartbeat at {path}: the bot has not started its loop"
    age = (time.time() if now is None else now) - touched
    if age > max_age:
        return False, f"heartbeat {age:.0f} s old (limit {max_age:.0f} s): the bot loop is stuck or gone"
    if said.startswith(STUCK):
        return False, f"heartbeat {age:.0f} s old, but {said}"
    return True, f"heartbeat {age:.0f} s old (limit {max_age:.0f} s)" + (f"; {said}" if said else "")


def backlog_check(settings: Settings) -> Check:
    try:
        backlog = read_backlog(settings.database)
    except sqlite3.Error as error:
        return Check(False, f"inbox not readable: {error}")
    line = f"inbox backlog {backlog.waiting}, oldest {backlog.oldest_seconds:.0f} s"
    if backlog.oldest_seconds > settings.backlog_max_age:
        return Check(False, f"{line} (limit {settings.backlog_max_age:.0f} s): updates are not being processed")
    return Check(True, line)


def heartbeat_check(settings: Settings) -> Check:
    healthy, line = check(settings.heartbeat, settings.heartbeat_max_age)
    return Check(healthy, line)


# Every check `health` and `/healthz` run, in the order they are printed.
CHECKS: tuple[Callable[[Settings], Check], ...] = (backlog_check, heartbeat_check)


def check_health(settings: Settings) -> tuple[bool, str]:
    """(healthy, the report: one line a check, then the verdict)."""
    results = [run(settings) for run in CHECKS]
    healthy = all(result.healthy for result in results)
    lines = [result.line for result in results]
    return healthy, "\n".join([*lines, "healthy" if healthy else "unhealthy"])


def main(settings: Settings) -> int:
    """`python -m bot health`: exit 0 when healthy, 1 when not (what Docker's HEALTHCHECK reads)."""
    healthy, report = check_health(settings)
    print(report)
    return EXIT_OK if healthy else EXIT_UNHEALTHY
