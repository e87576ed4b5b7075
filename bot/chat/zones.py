"""The time zone a group's days are counted in: a night belongs to the day (and the month, the year) it
was opened on in the group's zone, so a night opened at 01:00 in Nanjing on the 1st is the 1st's,
not the last day of the month before as a UTC date would have it. The ledger stores every time in UTC;
only the periods' days (`/stats 本月`, `/stats 2026-11`, a season's dates, `/export all`'s dates) are
read in the zone.

The zone is the group's own (`/tz Europe/Berlin`, kept as the chat's setting `time_zone`), else the
operator's (the TIME_ZONE setting), else DEFAULT_ZONE. Zone names are the IANA database's, read by
the standard library's zoneinfo (the `tzdata` package where the system has no zone database).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

DEFAULT_ZONE = "Asia/Shanghai"
ZONE_SETTING = "time_zone"  # the chat setting a group's own zone is kept under
LONGEST_NAME = 64  # the IANA database's longest name is 32 characters
EARLIEST, LATEST = "0000", "9999"  # before and after every time the ledger stores (they compare as text)


@cache
def _known() -> dict[str, str]:
    """Every zone name, by its casefolded form (`europe/berlin` is Europe/Berlin)."""
    return {name.casefold(): name for name in available_timezones()}


def zone_name(text: str) -> str | None:
    """The zone a typed name is (any case; `UTC` too), or None when it is no zone."""
    typed = text.strip()
    if not typed or len(typed) > LONGEST_NAME:
        return None
    return _known().get(typed.casefold())


def checked_zone(text: str) -> str:
    """A zone name as a setting gives it; ValueError when it is none (bot/telegram/settings.py)."""
    name = zone_name(text)
    if name is None:
        raise ValueError(text)
    return name


@cache
def zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def _instant(stored: str) -> datetime:
    """A time as the ledger stores it (`2026-12-01T17:05:00.000Z`, UTC)."""
    return datetime.fromisoformat(stored.removesuffix("Z")).replace(tzinfo=UTC)


def local_day(stored: str, name: str) -> date:
    """The day, in the zone, of a time the ledger stored."""
    return _instant(stored).astimezone(zone(name)).date()


def today(seconds: float, name: str) -> date:
    """Today in the zone, at `seconds` since the epoch."""
    return datetime.fromtimestamp(seconds, zone(name)).date()


def _stored(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def utc_span(first: date, last: date, name: str) -> tuple[str, str]:
    """The days from `first` to `last` in the zone, as the ledger's UTC times: from the first one's
    start up to (not including) the start of the day after the last. The calendar's ends (a period
    with no end: 全部, a range from its start) stay open."""
    here = zone(name)
    begin = EARLIEST if first <= date.min + timedelta(days=1) else _stored(datetime.combine(first, time(), here))
    if last >= date.max - timedelta(days=1):
        return begin, LATEST
    return begin, _stored(datetime.combine(last + timedelta(days=1), time(), here))
