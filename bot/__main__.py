"""`python -m bot`: the Telegram bot when TELEGRAM_BOT_TOKEN is set, else the local console on a
demo database. `python -m bot console [...]` always starts the console; `--help` explains both."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence

USAGE = """\
usage: python -m bot [--help]
       python -m bot health
       python -m bot console [--db FILE] [--script FILE] [--lang zh|zh-Hant|en] [--json] [--chat ID]
                             [--out-dir DIR] [--keep-going | --stop-on-error]

Nanjing Mahjong (南京麻将) table referee, with two front ends over the same commands and ledger:

  Telegram   when TELEGRAM_BOT_TOKEN is set, `python -m bot` runs the bot: long polling, or a webhook
             when WEBHOOK_URL is set. Add it to a group chat and type /new, 碰, 杠, 胡 ... (/help there).
  console    otherwise (or always with `python -m bot console`), a local prompt on a demo database:
             type lines as `Name: /pong Bob`; `--script FILE` plays a file of such lines, answering
             every line and going on after a refused one (`--keep-going`, the default), then exits
             1 if any line was refused; `python -m bot console --help` lists its options.

Environment variables (Telegram front end):
  TELEGRAM_BOT_TOKEN  the bot token from @BotFather; when set, the Telegram bot starts
  REFEREE_DB          the SQLite ledger file (default: referee.sqlite3)
  TELEGRAM_BASE_URL   another Bot API server (default: https://api.telegram.org)
  WEBHOOK_URL         public https URL: receive updates by webhook at WEBHOOK_URL/telegram instead of polling
  LISTEN              the address the webhook listens on (default: 127.0.0.1, behind a TLS reverse proxy)
  PORT                the port the webhook listens on (default: 8443)
  WEBHOOK_SECRET      the secret Telegram sends with each webhook update; a random one is generated
                      at each start when unset (updates without it are refused with 403)
  BOARD_EDIT_SECONDS  the least time between two edits of a chat's pinned live board (default: 10)
  HEARTBEAT_FILE      a file the running bot's update loop touches (polling: every round, at least
                      every 30 s; webhook: every 15 s); `python -m bot health` exits 0 while it is
                      younger than HEARTBEAT_MAX_AGE seconds (default: 90), else 1
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    if args and args[0] == "health":
        from bot.telegram.health import main as health

        return health()
    from bot.store.heap import keep_collections_short

    keep_collections_short()  # a long night's objects never make one chat wait on the collector
    if args and args[0] == "console":
        from bot.console import run_console

        return asyncio.run(run_console(args[1:]))
    if os.environ.get("TELEGRAM_BOT_TOKEN"):
        from bot.telegram.app import run_telegram

        return run_telegram()
    from bot.console import run_console

    return asyncio.run(run_console(args))


if __name__ == "__main__":
    raise SystemExit(main())
