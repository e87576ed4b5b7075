"""The process's settings: every environment variable the bot reads, read once at start into one
validated `Settings`. A bad value stops the start with one line naming the variable and what it
accepts (exit 2), never a traceback halfway through.

Each variable is declared once, as a field of `Settings`: its type (the annotation), its default, the
range it accepts (its reader, which also says the range in words) and what it does (`setting(...)`).
`VARIABLES` is read off those fields: `--help` and docs/operating.md's table are rendered from it
(tests/test_operating.py checks the table agrees). A new setting is one more field.

Every number has a sane range, not only a sign: `REFEREE_BUSY_TIMEOUT=1e306` or
`HEARTBEAT_MAX_AGE=1e-300` are refused at the door like `PORT=abc`, never found out at start by a
traceback (or by a bot that is never healthy).

Operator-facing messages (these, the database's, health's) are in English, or in the language of
the process's `LANG` when the catalogs have it; chats keep their own language.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from bot.chat.zones import DEFAULT_ZONE, checked_zone
from bot.store.database import EXIT_UNAVAILABLE

EXIT_OK = 0
EXIT_REFUSED = 1  # Telegram refused the bot (the token) or updates stopped coming in
EXIT_UNHEALTHY = 1  # `health`: stuck, gone or behind
EXIT_CONFIG = 2  # a bad or missing setting, a bad command line
EXIT_DATABASE = EXIT_UNAVAILABLE  # the database is in use by another process, unopenable, or was replaced
EXIT_CODES = (
    (EXIT_OK, "stopped cleanly (SIGINT/SIGTERM); `health`: healthy; `backup`: written"),
    (EXIT_REFUSED, "Telegram refused the token or the start, was unreachable, or updates stopped; `health`: unhealthy"),
    (
        EXIT_CONFIG,
        "bad configuration: a variable's value, a missing TELEGRAM_BOT_TOKEN, a bad command line;"
        " `backup`: FILE exists, is the ledger's own, or cannot be written (missing folder, full disk)",
    ),
    (EXIT_DATABASE, "the database: in use by another process, not an SQLite file, not writable, or replaced"),
)
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")  # what Telegram's setWebhook accepts as secret_token
_TOKEN = re.compile(r"[0-9]{1,20}:[A-Za-z0-9_-]{1,200}")  # what @BotFather gives: the bot's id, a colon, the key
MAX_URL = 2048
KERNEL_FOLDERS = ("/proc", "/sys", "/dev")  # the kernel's views, not folders of files
_VARIABLE = "variable"  # where a Settings field keeps its declaration
T = TypeVar("T")


class BadSetting(ValueError):
    """A variable's value the bot cannot use: the one line to print."""


@dataclass(frozen=True)
class Reader:
    """How a variable's text becomes its value, and what it accepts, said in words (the refusal and
    the table say it). `read` raises ValueError for a value out of range."""

    read: Callable[[str], object]
    accepts: str


def _url(schemes: tuple[str, ...], accepts: str) -> Reader:
    def read(value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in schemes or not parts.netloc or len(value) > MAX_URL:
            raise ValueError(value)
        return value

    return Reader(read, accepts)


def _address(value: str) -> str:
    if value != "localhost":
        ipaddress.ip_address(value)  # ValueError when it is no IP address
    return value


def _port(value: str) -> int:
    port = int(value)
    if not 1 <= port <= 65535:
        raise ValueError(value)
    return port


def _seconds(least: float, most: float, above: bool = False) -> Reader:
    """A number of seconds from `least` (or `above` it) to `most`: nan, inf and 1e306 are refused."""

    def read(value: str) -> float:
        seconds = float(value)
        if not least <= seconds <= most or (above and seconds == least):  # also refuses nan
            raise ValueError(value)
        return seconds

    said = f"above {least:g}, at most {most:g}" if above else f"from {least:g} to {most:g}"
    return Reader(read, f"a number of seconds {said}")


def _file(value: str) -> str:
    if Path(value).is_dir():  # a file the bot writes; its folder need not exist yet (said at open)
        raise ValueError(value)
    return value


_FILE = Reader(_file, "a file path (not a folder)")


_APP_NAME = re.compile(r"[A-Za-z0-9_]{3,30}")  # a Mini App's short name at BotFather (/newapp)
_APP_KEY = re.compile(r"[A-Za-z0-9_-]{16,256}")


def _app_url(value: str) -> str:
    """MINIAPP_URL: the page's public address, https (Telegram opens no other), ending in /app/."""
    parts = urlsplit(value)
    if parts.scheme != "https" or not parts.netloc or not value.endswith("/app/") or len(value) > MAX_URL:
        raise ValueError(value)
    return value


def _matching(pattern: re.Pattern[str]) -> Callable[[str], str]:
    def read(value: str) -> str:
        if not pattern.fullmatch(value):
            raise ValueError(value)
        return value

    return read


def _folder(value: str) -> str:
    """A folder of files: one that exists and can be listed, not the kernel's (/proc, /sys, /dev)."""
    folder = Path(value).resolve()
    if not folder.is_dir() or not os.access(folder, os.R_OK | os.X_OK):
        raise ValueError(value)
    if any(folder == Path(pseudo) or Path(pseudo) in folder.parents for pseudo in KERNEL_FOLDERS):
        raise ValueError(value)
    return value


def _log_level(value: str) -> str:
    level = value.upper()
    if level not in LOG_LEVELS:
        raise ValueError(value)
    return level


def operator_language(lang: str) -> str:
    """The language operator messages are printed in, from a POSIX `LANG` (`zh_CN.UTF-8`, `zh_TW`):
    Chinese when it says so, English otherwise (`C.UTF-8`, `en_US`, unset)."""
    code = lang.split(".", 1)[0].replace("-", "_").lower()
    if code.startswith(("zh_tw", "zh_hk", "zh_mo", "zh_hant")):
        return "zh-Hant"
    if code.startswith("zh"):
        return "zh-Hans"
    return "en"


@dataclass(frozen=True)
class Variable:
    name: str
    field: str  # the Settings field it fills
    default: str  # as the table shows it; "" when unset means "none"
    accepts: str  # what it accepts: the error message and the table say it
    meaning: str
    read: Callable[[str], object]


def setting(name: str, default: T, reader: Reader, meaning: str, shown: str | None = None) -> T:
    """A field of `Settings` read from the variable `name`: its default, what it accepts, what it does.
    `shown`: the default as the table says it, when it is not the value's own text."""
    if shown is None:
        shown = "" if default is None else f"{default:g}" if isinstance(default, float) else str(default)
    declared = _Declared(name, shown, reader, meaning)
    return field(default=default, metadata={_VARIABLE: declared})


@dataclass(frozen=True)
class _Declared:
    name: str
    shown: str
    reader: Reader
    meaning: str


@dataclass(frozen=True)
class Settings:
    token: str | None = setting(
        "TELEGRAM_BOT_TOKEN",
        None,
        Reader(_matching(_TOKEN), "the token @BotFather gave (123456:ABC…)"),
        "the bot's token; `run` needs it",
    )
    database: str = setting(
        "REFEREE_DB",
        "referee.sqlite3",
        _FILE,
        "the SQLite ledger (one process per file)",
    )
    webhook_url: str | None = setting(
        "WEBHOOK_URL",
        None,
        _url(("https", "http"), "an https:// URL (http:// only with TELEGRAM_BASE_URL)"),
        "public URL: updates by webhook at WEBHOOK_URL/telegram instead of long polling",
    )
    listen: str = setting(
        "LISTEN", "127.0.0.1", Reader(_address, "an IP address or localhost"), "the address the webhook listens on"
    )
    port: int = setting("PORT", 8443, Reader(_port, "a port number 1-65535"), "the port the webhook listens on")
    webhook_secret: str | None = setting(
        "WEBHOOK_SECRET",
        None,
        Reader(_matching(_SECRET), "1-256 of A-Z a-z 0-9 _ -"),
        "the secret Telegram sends with each webhook update (random at each start when unset)",
    )
    base_url: str | None = setting(
        "TELEGRAM_BASE_URL",
        None,  # None: Telegram's own
        _url(("http", "https"), "an http:// or https:// URL"),
        "another Bot API server (a local one, a test double)",
        shown="https://api.telegram.org",
    )
    board_edit_seconds: float = setting(
        "BOARD_EDIT_SECONDS",
        10.0,
        _seconds(0, 3600),
        "the least time between two edits of a chat's pinned live board",
    )
    heartbeat_file: str | None = setting(
        "HEARTBEAT_FILE",
        None,
        _FILE,
        "touched while updates are taken in and processed; `health` reads its age (unset: REFEREE_DB.alive)",
    )
    heartbeat_max_age: float = setting(
        "HEARTBEAT_MAX_AGE",
        90.0,
        _seconds(1, 86400),
        "`health` fails when the heartbeat is older than this",
    )
    backlog_max_age: float = setting(
        "BACKLOG_MAX_AGE",
        300.0,
        _seconds(1, 86400),
        "`health` fails when an update has waited in the inbox longer than this",
    )
    chart_seconds: float = setting(
        "CHART_SECONDS",
        3.0,
        _seconds(0, 600, above=True),
        "a chart not drawn within this is given up (the summary goes out without it) and the drawing process replaced",
    )
    busy_timeout: float = setting(
        "REFEREE_BUSY_TIMEOUT",
        10.0,
        _seconds(0, 3600),
        "how long a write waits for a lock another process holds on the ledger before it is tried again",
    )
    rules_dir: str | None = setting(
        "RULES_DIR",
        None,
        Reader(_folder, "a folder that exists and can be read (not under /proc, /sys or /dev)"),
        "house rules files (NAME.toml) any group may open a night with: /new … rules=NAME",
    )
    # the Mini App (docs/miniapp.md): both or neither; without them the bot works as before
    miniapp_url: str | None = setting(
        "MINIAPP_URL",
        None,
        Reader(_app_url, "an https:// URL ending in /app/"),
        "the Mini App's public address (BotFather /newapp): the page and its API are served at /app/ on LISTEN:PORT",
    )
    miniapp_name: str | None = setting(
        "MINIAPP_NAME",
        None,
        Reader(_matching(_APP_NAME), "3-30 of A-Z a-z 0-9 _"),
        "the Mini App's short name at BotFather (t.me/<bot>/<name>): its button on /new, /score and the pinned board",
    )
    miniapp_key: str | None = setting(
        "MINIAPP_KEY",
        None,
        Reader(_matching(_APP_KEY), "16-256 of A-Z a-z 0-9 _ -"),
        "the key the Mini App's links are signed with (derived from the bot token when unset)",
    )
    log_level: str = setting(
        "LOG_LEVEL", "INFO", Reader(_log_level, "DEBUG, INFO, WARNING or ERROR"), "how much the bot logs"
    )
    language: str = setting(
        "LANG",
        "en",
        Reader(operator_language, "a locale (zh_CN.UTF-8, zh_TW, en_US)"),
        "operator messages: Chinese for zh*, else English",
        shown="",
    )
    time_zone: str = setting(
        "TIME_ZONE",
        DEFAULT_ZONE,
        Reader(checked_zone, "an IANA time zone name (Asia/Shanghai, Europe/Berlin, UTC)"),
        "the day a night counts on in /stats periods, seasons and /export all,"
        " for groups that did not set their own (/tz)",
    )

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> Settings:
        """Every variable read and checked; an empty value is the same as unset. Raises BadSetting."""
        values: dict[str, object] = {}
        for variable in VARIABLES:
            raw = environ.get(variable.name, "").strip()
            if not raw:
                continue
            try:
                values[variable.field] = variable.read(raw)
            except ValueError:
                raise BadSetting(f"{variable.name}={raw!r} is not valid: it takes {variable.accepts}") from None
        read = cls(**values)  # type: ignore[arg-type]
        if read.webhook_url and read.webhook_url.startswith("http:") and not read.base_url:
            # Telegram's own server sends webhooks only to https; a local Bot API server also to http
            raise BadSetting(f"WEBHOOK_URL={read.webhook_url!r} is not valid: Telegram takes an https:// URL")
        if bool(read.miniapp_url) != bool(read.miniapp_name):
            given, missing = ("MINIAPP_URL", "MINIAPP_NAME") if read.miniapp_url else ("MINIAPP_NAME", "MINIAPP_URL")
            raise BadSetting(f"{given} is set without {missing}: the Mini App needs both")
        return read

    @property
    def heartbeat(self) -> str:
        """The heartbeat's file: HEARTBEAT_FILE, else beside the ledger, where the bot and `health`
        (given the same REFEREE_DB) both find it without another variable."""
        return self.heartbeat_file or f"{self.database}.alive"

    @property
    def log_level_number(self) -> int:
        return int(logging.getLevelName(self.log_level))


def _variables() -> tuple[Variable, ...]:
    found = []
    for declared_field in fields(Settings):
        declared: _Declared = declared_field.metadata[_VARIABLE]
        found.append(
            Variable(
                declared.name,
                declared_field.name,
                declared.shown,
                declared.reader.accepts,
                declared.meaning,
                declared.reader.read,
            )
        )
    return tuple(found)


VARIABLES: tuple[Variable, ...] = _variables()  # every variable, in the order of the fields


def help_table() -> str:
    """The variables for `--help`."""
    width = max(len(v.name) for v in VARIABLES)
    lines = []
    for variable in VARIABLES:
        default = f"; default {variable.default}" if variable.default else ""
        lines.append(f"  {variable.name:<{width}}  {variable.meaning} [{variable.accepts}{default}]")
    return "\n".join(lines)


def markdown_table() -> str:
    """The variables for docs/operating.md (the test checks the file holds exactly this)."""
    lines = ["| Variable | Default | Accepts | What it does |", "|---|---|---|---|"]
    for variable in VARIABLES:
        default = f"`{variable.default}`" if variable.default else "—"
        lines.append(f"| `{variable.name}` | {default} | {variable.accepts} | {variable.meaning} |")
    return "\n".join(lines)


def exit_codes_text() -> str:
    return "\n".join(f"  {code}  {meaning}" for code, meaning in EXIT_CODES)
