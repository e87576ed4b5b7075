"""`python -m bot COMMAND`: `run` (the Telegram bot), `console`, `health`, `backup FILE`, `--version`.
A bare `python -m bot` runs the bot when TELEGRAM_BOT_TOKEN is set, else opens the demo console (a
newcomer's first try); the Docker image runs `run`. The environment is read once, here, into one
validated Settings (bot/settings.py): a bad value exits 2 with one line, no traceback."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sqlite3
import sys
from collections.abc import Sequence
from importlib import metadata

from bot.settings import (
    EXIT_CONFIG,
    EXIT_DATABASE,
    EXIT_OK,
    BadSetting,
    Settings,
    exit_codes_text,
    help_table,
    operator_language,
)

DESCRIPTION = """\
Nanjing Mahjong (南京麻将) table referee, with two front ends over the same commands and ledger:
the Telegram bot (add it to a group chat, type /new, 碰, 杠, 胡 ... and /help there) and a local
console (type lines as `Name: /pong Bob`). A bare `python -m bot` runs the bot when
TELEGRAM_BOT_TOKEN is set, else opens the console on a demo database."""


def epilog() -> str:
    return (
        "environment variables (read once at start; a bad value exits 2 naming it):\n"
        f"{help_table()}\n\nexit status:\n{exit_codes_text()}\n\n"
        "docs/operating.md has the same table, deployment, backup, restore and upgrade steps."
    )


def version() -> str:
    try:
        return metadata.version("nanjing-referee")
    except metadata.PackageNotFoundError:
        return "unknown"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m bot",
        description=DESCRIPTION,
        epilog=epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser(
        "run", help="the Telegram bot: long polling, or a webhook when WEBHOOK_URL is set (needs TELEGRAM_BOT_TOKEN)"
    )
    commands.add_parser("console", help="a local prompt or a script over the same commands (console --help)")
    commands.add_parser(
        "health",
        help="is it stuck? the inbox backlog, the heartbeat's age; exit 0 healthy, 1 not (the image's HEALTHCHECK)",
    )
    backup = commands.add_parser(
        "backup",
        help="a consistent copy of the ledger, safe while the bot runs",
        description="Write a consistent copy of the ledger (REFEREE_DB) to FILE, read from one snapshot: "
        "safe while the bot runs, and done in a time bounded by the ledger's size however busy it is. "
        "FILE must not exist yet.",
    )
    backup.add_argument("file", metavar="FILE", help="where the copy goes (a new file)")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    # python-telegram-bot 22's periods (a 429's retry_after) as timedelta now, as its next major has them
    os.environ.setdefault("PTB_TIMEDELTA", "1")
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["console"]:  # the console has its own options (console --help)
        return console(args[1:])
    if not args:  # a newcomer's first try: the console, unless a token says this is the bot
        return run() if os.environ.get("TELEGRAM_BOT_TOKEN", "").strip() else console([])
    chosen = parser().parse_args(args)  # bad arguments: argparse says so and exits 2
    if chosen.command == "run":
        return run()
    if chosen.command == "health":
        return health()
    if chosen.command == "backup":
        return backup(chosen.file)
    parser().print_help()
    return EXIT_CONFIG


def settings() -> Settings | None:
    """The environment, checked: None (and the one line printed) when a value is bad."""
    try:
        return Settings.from_environment(os.environ)
    except BadSetting as error:
        print(f"python -m bot: {error}", file=sys.stderr)
        return None


def run() -> int:
    chosen = settings()
    if chosen is None:
        return EXIT_CONFIG
    if not chosen.token:
        print("python -m bot run: TELEGRAM_BOT_TOKEN is not set (the token @BotFather gave)", file=sys.stderr)
        return EXIT_CONFIG
    from bot.heap import keep_collections_short
    from bot.telegram.app import run_telegram

    keep_collections_short()  # a long night's objects never make one chat wait on the collector
    return run_telegram(chosen)


def console(argv: list[str]) -> int:
    from bot.console import run_console
    from bot.heap import keep_collections_short

    keep_collections_short()
    return asyncio.run(run_console(argv, operator_language(os.environ.get("LANG", ""))))


def health() -> int:
    chosen = settings()
    if chosen is None:
        return EXIT_CONFIG
    from bot.health import main as health_main

    return health_main(chosen)


def backup(target: str) -> int:
    """Exit 0 with the copy written; 2 when FILE cannot be the copy (it exists, it is the ledger or a
    file beside it, its folder is missing, the disk is full); 3 when the ledger cannot be read. SIGINT
    or SIGTERM stop it with the temporary copy removed (bot/store/backup.py)."""
    chosen = settings()
    if chosen is None:
        return EXIT_CONFIG
    from bot.store.backup import TargetUnusable
    from bot.store.backup import backup as copy

    stopped: list[int] = []

    def stop(signum: int, frame: object) -> None:
        stopped.append(signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        copied = copy(chosen.database, target)
    except TargetUnusable as error:
        print(f"python -m bot backup: {error}", file=sys.stderr)
        return EXIT_CONFIG
    except sqlite3.Error as error:
        print(f"python -m bot backup: cannot copy {chosen.database}: {error}", file=sys.stderr)
        return EXIT_DATABASE
    except KeyboardInterrupt:  # the temporary copy is removed; end as the signal would have
        print(f"python -m bot backup: stopped, {target} not written", file=sys.stderr)
        signum = stopped[0] if stopped else signal.SIGINT
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return 128 + signum
    print(f"backup of {chosen.database} written to {target} ({copied.pages} pages, {copied.size / 1e6:.1f} MB)")
    return EXIT_OK


def entry() -> int:
    """The console script and `python -m bot`: a closed pipe (`--help | head`) ends quietly."""
    try:
        try:
            status = main()
        except SystemExit as done:  # argparse's --help, --version and refusals end this way
            status = done.code if isinstance(done.code, int) else (0 if done.code is None else EXIT_CONFIG)
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit must not fail again
        return 1
    return status


if __name__ == "__main__":
    raise SystemExit(entry())
