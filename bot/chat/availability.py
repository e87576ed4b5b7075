"""What a front end needs to know of the ledger's availability, and nothing else of the store: the
one seam through which a front end reaches the database's lock and errors (tests/test_layers.py).

- `owned(path)`: hold the database for this process (one process per file) while the front end runs;
- `DatabaseUnavailable`: it cannot be held or used (in use by another process, unopenable, replaced),
  with a message key and its parameters to say so in the operator's language;
- `EXIT_UNAVAILABLE`: the exit code a front end stops with then;
- `storage_unavailable(error)`: whether an error is the storage failing for now (busy, locked, full),
  so what raised it is tried again rather than reported as failed.
"""

from __future__ import annotations

from bot.store.database import EXIT_UNAVAILABLE, DatabaseUnavailable, owned
from bot.store.writer import storage_unavailable

__all__ = ["EXIT_UNAVAILABLE", "DatabaseUnavailable", "owned", "storage_unavailable"]
