"""The process's settings: every environment variable the bot reads, read once at start into one
validated `Settings`. A bad value stops the start with one line naming the variable and what it
accepts (exit 2), never a traceback halfway through. `VARIABLES` is the one list: `--help` and
docs/operating.md's table are rendered from it (tests/test_operating.py checks the table agrees).

Operator-facing messages (these, the database's, health's) are in English, or in the language of
the process's `LANG` when the catalogs have it; chats keep their own language.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from bot.chat.availability import EXIT_UNAVAILABLE
from bot.chat.zones import DEFAULT_ZONE, checked_zone

EXIT_OK = 0
EXIT_REFUSED = 1  # Telegram refused the bot (the token) or updates stopped coming in
EXIT_UNHEALTHY = 1  # `health`: stuck, gone or behind
EXIT_CONFIG = 2  # a bad or missing setting, a bad command line
EXIT_DATABASE = EXIT_UNAVAILABLE  # the database is in use by another process, unopenable, or was replaced
EXIT_CODES = (
    (EXIT_OK, "stopped cleanly (SIGINT/SIGTERM); `health`: healthy; `backup`: written"),
    (EXIT_REFUSED, "Telegram refused the token or the start, was unreachable, or updates stopped; `health`: unhealthy"),
    (EXIT_CONFIG, "bad configuration: a variable's value, a missing TELEGRAM_BOT_TOKEN, a bad command line"),
    (EXIT_DATABASE, "the database: in use by another process, not an SQLite file, not writable, or replaced"),
)
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")  # what Telegram's setWebhook accepts as secret_token
_APP_NAME = re.compile(r"[A-Za-z0-9_]{3,30}")  # a Mini App's short name at BotFather (/newapp)
_APP_KEY = re.compile(r"[A-Za-z0-9_-]{16,256}")


class BadSetting(ValueError):
    """A variable's value the bot cannot use: the one line to print."""


def _text(value: str) -> str:
    return value


def _url(schemes: tuple[str, ...]) -> Callable[[str], str]:
    def read(value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in schemes or not parts.netloc:
            raise ValueError(value)
        return value

    return read


def _address(value: str) -> str:
    if value != "localhost":
        ipaddress.ip_address(value)  # ValueError when it is no IP address
    return value


def _port(value: str) -> int:
    port = int(value)
    if not 1 <= port <= 65535:
        raise ValueError(value)
    return port


def _seconds(least: float) -> Callable[[str], float]:
    def read(value: str) -> float:
        seconds = float(value)
        if not least <= seconds < float("inf"):  # also refuses nan
            raise ValueError(value)
        return seconds

    return read


def _positive_seconds(value: str) -> float:
    seconds = _seconds(0)(value)
    if seconds == 0:
        raise ValueError(value)
    return seconds


def _secret(value: str) -> str:
    if not _SECRET.fullmatch(value):
        raise ValueError(value)
    return value


def _app_url(value: str) -> str:
    """MINIAPP_URL: the page's public address, https (Telegram opens no other), ending in /app/."""
    if urlsplit(value).scheme != "https" or not urlsplit(value).netloc or not value.endswith("/app/"):
        raise ValueError(value)
    return value


def _matching(pattern: re.Pattern[str]) -> Callable[[str], str]:
    def read(value: str) -> str:
        if not pattern.fullmatch(value):
            raise ValueError(value)
        return value

    return read


def _folder(value: str) -> str:
    if not Path(value).is_dir():
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
    default: str  # "" when unset means "none"
    accepts: str  # what it accepts: the error message and the table say it
    meaning: str
    read: Callable[[str], object] = _text


# The time zone groups' days are counted in (bot/chat/zones.py), declared on its own.
TIME_ZONE = Variable(
    "TIME_ZONE",
    "time_zone",
    DEFAULT_ZONE,
    "an IANA time zone name (Asia/Shanghai, Europe/Berlin, UTC)",
    "the day a night counts on in /stats periods, seasons and /export all, for groups that did not set their own (/tz)",
    checked_zone,
)


VARIABLES: tuple[Variable, ...] = (
    Variable("TELEGRAM_BOT_TOKEN", "token", "", "the token @BotFather gave", "the bot's token; `run` needs it"),
    Variable("REFEREE_DB", "database", "referee.sqlite3", "a file path", "the SQLite ledger (one process per file)"),
    Variable(
        "WEBHOOK_URL",
        "webhook_url",
        "",
        "an https:// URL (http:// only with TELEGRAM_BASE_URL)",
        "public URL: updates by webhook at WEBHOOK_URL/telegram instead of long polling",
        _url(("https", "http")),
    ),
    Variable(
        "LISTEN", "listen", "127.0.0.1", "an IP address or localhost", "the address the webhook listens on", _address
    ),
    Variable("PORT", "port", "8443", "a port number 1-65535", "the port the webhook listens on", _port),
    Variable(
        "WEBHOOK_SECRET",
        "webhook_secret",
        "",
        "1-256 of A-Z a-z 0-9 _ -",
        "the secret Telegram sends with each webhook update (random at each start when unset)",
        _secret,
    ),
    Variable(
        "TELEGRAM_BASE_URL",
        "base_url",
        "https://api.telegram.org",
        "an http:// or https:// URL",
        "another Bot API server (a local one, a test double)",
        _url(("http", "https")),
    ),
    Variable(
        "BOARD_EDIT_SECONDS",
        "board_edit_seconds",
        "10",
        "a number of seconds, 0 or more",
        "the least time between two edits of a chat's pinned live board",
        _seconds(0),
    ),
    Variable(
        "HEARTBEAT_FILE",
        "heartbeat_file",
        "",
        "a file path",
        "touched while updates are taken in and processed; `health` reads its age",
    ),
    Variable(
        "HEARTBEAT_MAX_AGE",
        "heartbeat_max_age",
        "90",
        "a number of seconds above 0",
        "`health` fails when the heartbeat is older than this",
        _positive_seconds,
    ),
    Variable(
        "BACKLOG_MAX_AGE",
        "backlog_max_age",
        "300",
        "a number of seconds above 0",
        "`health` fails when an update has waited in the inbox longer than this",
        _positive_seconds,
    ),
    Variable(
        "CHART_SECONDS",
        "chart_seconds",
        "3",
        "a number of seconds above 0",
        "a chart not drawn within this is given up (the summary goes out without it) and the drawing process replaced",
        _positive_seconds,
    ),
    Variable(
        "REFEREE_BUSY_TIMEOUT",
        "busy_timeout",
        "10",
        "a number of seconds, 0 or more",
        "how long a write waits for a lock another process holds on the ledger before it is tried again",
        _seconds(0),
    ),
    Variable(
        "RULES_DIR",
        "rules_dir",
        "",
        "a folder that exists",
        "house rules files (NAME.toml) any group may open a night with: /new … rules=NAME",
        _folder,
    ),
    # the Mini App (docs/miniapp.md): both or neither; without them the bot works as before
    Variable(
        "MINIAPP_URL",
        "miniapp_url",
        "",
        "an https:// URL ending in /app/",
        "the Mini App's public address (BotFather /newapp): the page and its API are served at /app/ on LISTEN:PORT",
        _app_url,
    ),
    Variable(
        "MINIAPP_NAME",
        "miniapp_name",
        "",
        "3-30 of A-Z a-z 0-9 _",
        "the Mini App's short name at BotFather (t.me/<bot>/<name>): its button on /new, /score and the pinned board",
        _matching(_APP_NAME),
    ),
    Variable(
        "MINIAPP_KEY",
        "miniapp_key",
        "",
        "16-256 of A-Z a-z 0-9 _ -",
        "the key the Mini App's links are signed with (derived from the bot token when unset)",
        _matching(_APP_KEY),
    ),
    Variable("LOG_LEVEL", "log_level", "INFO", "DEBUG, INFO, WARNING or ERROR", "how much the bot logs", _log_level),
    Variable(
        "LANG",
        "language",
        "",
        "a locale (zh_CN.UTF-8, zh_TW, en_US)",
        "operator messages: Chinese for zh*, else English",
        operator_language,
    ),
    TIME_ZONE,
)


@dataclass(frozen=True)
class Settings:
    token: str | None = None
    database: str = "referee.sqlite3"
    webhook_url: str | None = None
    listen: str = "127.0.0.1"
    port: int = 8443
    webhook_secret: str | None = None
    base_url: str | None = None
    board_edit_seconds: float = 10.0
    heartbeat_file: str | None = None
    heartbeat_max_age: float = 90.0
    backlog_max_age: float = 300.0
    chart_seconds: float = 3.0
    busy_timeout: float = 10.0
    rules_dir: str | None = None
    miniapp_url: str | None = None
    miniapp_name: str | None = None
    miniapp_key: str | None = None
    log_level: str = "INFO"
    language: str = "en"
    time_zone: str = DEFAULT_ZONE

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
    def log_level_number(self) -> int:
        return int(logging.getLevelName(self.log_level))


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
