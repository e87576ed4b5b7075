"""One error type for every bad input the engine refuses.

The engine never formats prose: an error carries a message key (looked up in `locales/`) and the
parameters that fill it, so the bot can say it in the player's language.
"""

from __future__ import annotations

from typing import Any


class EngineError(ValueError):
    """Bad input: a wrong tile string, an impossible hand, a bad preset file, an illegal event."""

    def __init__(self, key: str, /, **params: Any) -> None:
        super().__init__(f"{key} {params}" if params else key)
        self.key = key
        self.params: dict[str, Any] = params
