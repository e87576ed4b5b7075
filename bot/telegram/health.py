"""The bot's heartbeat: a file the running intake loop touches, and `python -m bot health`, which says
whether it was touched recently (the container's HEALTHCHECK).

Long polling touches it after every `getUpdates` round whose updates are all in the inbox (a long poll
returns at least every `POLL_TIMEOUT` seconds, a failed one is retried within `MAX_POLL_BACKOFF`); a
webhook touches it every `WEBHOOK_BEAT_SECONDS` while its server listens and the event loop runs. So
a stale file means the loop is stuck (an inbox write that keeps failing, a blocked event loop) or the
process is gone — not merely that the ledger file still opens.

The file also carries what the process says of its parts when the loop goes round (`status`, one
line): a drawing process that does not answer (`stuck: …`) makes the check fail while it lasts;
anything else (a drawing process replaced earlier) is printed with the healthy answer.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

HEARTBEAT_ENV = "HEARTBEAT_FILE"
MAX_AGE_ENV = "HEARTBEAT_MAX_AGE"
MAX_AGE_SECONDS = 90.0  # three times the longest quiet spell of a healthy loop (a 30 s backoff)
STUCK = "stuck"  # a status line starting so: a part of the bot does not answer (bot/views/charts.py)


class Heartbeat:
    """Touches `path` (nothing when None): each touch says "the loop went round just now"."""

    def __init__(self, path: str | Path | None, status: Callable[[], str | None] | None = None) -> None:
        self.path = Path(path) if path else None
        self.status = status  # what the process says of its parts, written with each beat

    @classmethod
    def from_environment(cls) -> Heartbeat:
        return cls(os.environ.get(HEARTBEAT_ENV) or None)

    def beat(self) -> None:
        said = self.status() if self.status is not None else None  # asked even unwritten: it probes too
        if self.path is None:
            return
        try:
            fresh = self.path.with_name(f".{self.path.name}.new")  # replaced whole: never read half written
            fresh.write_text(said or "", encoding="utf-8")
            os.replace(fresh, self.path)
        except OSError as error:  # a heartbeat that cannot be written shows as unhealthy, never as a crash
            print(f"heartbeat not written: {error}", file=sys.stderr)


def check(path: str | Path | None, max_age: float = MAX_AGE_SECONDS, now: float | None = None) -> tuple[bool, str]:
    """(healthy, what to print): healthy while the heartbeat is younger than `max_age` seconds."""
    if not path:
        return False, f"{HEARTBEAT_ENV} is not set: no heartbeat to check"
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
    return True, f"alive: heartbeat {age:.0f} s old" + (f"; {said}" if said else "")


def main() -> int:
    """`python -m bot health`: exit 0 when alive, 1 when not (what Docker's HEALTHCHECK reads)."""
    healthy, message = check(os.environ.get(HEARTBEAT_ENV), float(os.environ.get(MAX_AGE_ENV, MAX_AGE_SECONDS)))
    print(message)
    return 0 if healthy else 1
