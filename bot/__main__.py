"""`python -m bot`: the Telegram bot when TELEGRAM_BOT_TOKEN is set, else the local console on a
demo database. `python -m bot console [...]` always starts the console."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "console":
        from bot.console import run_console

        return asyncio.run(run_console(args[1:]))
    if os.environ.get("TELEGRAM_BOT_TOKEN"):
        from bot.telegram_app import run_telegram

        return run_telegram()
    from bot.console import run_console

    return asyncio.run(run_console(args))


if __name__ == "__main__":
    raise SystemExit(main())
