"""The periods `/stats` reads: `/stats 本月`, `/stats last month`, `/stats 2026-11`, `/stats 2026`,
`/stats 2026-09-01..2026-11-30`, `/stats 9月-11月`, `/stats 赛季 秋季赛`, `/stats 全部`, each with an
optional `csv` (the same table as a file) and a person's name (their row alone).

The words are read here into a `Period`, with no clock: a relative period (本月, 上月, 今年, a month
typed without its year) is turned into days by `days_of`, with the day the command layer gives it.
Days are the group's days (bot/chat/zones.py): a night counts on the day it was opened on in the
group's time zone, and "this month" is the month of today's date there; the seasons' handler turns
the days into the ledger's UTC times. A season is read by name by the seasons'
handler (bot/chat/handlers/seasons.py); here it is only the words after 赛季.

The words are the catalogs' (`words.period.<kind>`, every language), folded as any command word is.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

from bot.chat.scanner import chinese_number
from bot.text.vocabulary import catalog_words, fold
from engine.errors import EngineError

ALL = "all"
THIS_MONTH, LAST_MONTH, THIS_YEAR, LAST_YEAR = "this_month", "last_month", "this_year", "last_year"
DAYS = "days"  # a month, a year, a day, or a range of them, as typed
SEASON, THIS_SEASON, LAST_SEASON = "season", "this_season", "last_season"
FIXED = (ALL, THIS_MONTH, LAST_MONTH, THIS_YEAR, LAST_YEAR, THIS_SEASON, LAST_SEASON)
FIRST_DAY, LAST_DAY = date(1, 1, 1), date(9999, 12, 31)
YEARS = range(1900, 3000)  # a four-digit number outside these is no year anyone means


@dataclass(frozen=True)
class Moment:
    """One end of a period as typed: a year, a month of it, or a day. No year: the latest such month
    or day not after today (`11月` in January 2027 is November 2026)."""

    year: int | None
    month: int | None = None
    day: int | None = None


@dataclass(frozen=True)
class Period:
    kind: str
    first: Moment | None = None  # DAYS: from the start of `first` …
    last: Moment | None = None  # … to the end of `last`
    season: tuple[str, ...] = ()  # SEASON: the words after 赛季 (its name, maybe then a person's)
    text: str = ""  # as typed


@dataclass(frozen=True)
class StatsWords:
    """What `/stats` was asked: a period (None: the careers across every night, as before), whether as
    a CSV file too, and the words left (a person's name)."""

    period: Period | None
    csv: bool
    rest: tuple[str, ...]

    @property
    def name(self) -> str | None:
        return " ".join(self.rest) or None

    @property
    def options(self) -> dict[str, str]:
        return {"csv": "csv"} if self.csv else {}


@cache
def _words(kind: str) -> frozenset[str]:
    return frozenset(fold(word) for word in catalog_words(f"period.{kind}", with_name=False))


ENGLISH_MONTHS = {
    name: number
    for number, full in enumerate(calendar.month_name)
    if number
    for name in (full.lower(), full.lower()[:3], "sept" if number == 9 else full.lower()[:3])
}
_YEAR = r"(\d{4})"
_CN = r"(\d{1,2}|[一二三四五六七八九十]{1,3})"
_FORMS = (
    (re.compile(rf"^{_YEAR}年?$"), "y"),
    (re.compile(rf"^{_YEAR}[-/.](\d{{1,2}})$"), "ym"),
    (re.compile(rf"^{_YEAR}[-/.](\d{{1,2}})[-/.](\d{{1,2}})$"), "ymd"),
    (re.compile(rf"^(?:{_YEAR}年)?{_CN}月份?$"), "ym"),
    (re.compile(rf"^(?:{_YEAR}年)?{_CN}月{_CN}[日号]$"), "ymd"),
)
_ENGLISH = re.compile(r"^([a-z]+)\.?(?: (\d{4}))?$")
# what joins the two ends of a range, tried in this order (`-` last: 2026-09 holds one too)
RANGE_JOINS = ("..", "…", "~", "〜", "—", "–", " to ", "至", "到", "-")
_PERIODISH = re.compile(r"^[\d\-/.~〜…–—年月日号份至到一二三四五六七八九十]+$")
_NUMERALS = frozenset("0123456789一二三四五六七八九十")


def _number(text: str | None) -> int | None:
    if text is None:
        return None
    return int(text) if text.isdigit() else chinese_number(text)


def _checked(moment: Moment, text: str) -> Moment:
    """A month 1–12, a day its month has (29 February whatever the year, when none is typed)."""
    if moment.year is not None and moment.year not in YEARS:
        raise bad(text)
    if moment.month is not None and not 1 <= moment.month <= 12:
        raise bad(text)
    if moment.day is not None and moment.month is not None:
        most = calendar.monthrange(moment.year or 2000, moment.month)[1]  # 2000: a leap year
        if not 1 <= moment.day <= most:
            raise bad(text)
    return moment


def read_moment(text: str) -> Moment | None:
    """A year, month or day as typed (`2026`, `2026-11`, `2026/11/30`, `11月`, `2026年11月`, `11月30日`,
    `november`, `nov 2026`); None for what is none; EngineError for one that cannot be (2026-13)."""
    folded = fold(text).strip()
    for form, parts in _FORMS:
        match = form.match(folded)
        if match is None:
            continue
        values = [_number(group) for group in match.groups()]
        if any(value is None for value, group in zip(values, match.groups(), strict=True) if group is not None):
            raise bad(text)
        year = values[0] if parts[0] == "y" else None
        month = values[1] if len(parts) > 1 else None
        day = values[2] if len(parts) > 2 else None
        return _checked(Moment(year, month, day), text)
    english = _ENGLISH.match(folded)
    if english is not None and english[1] in ENGLISH_MONTHS:
        year = int(english[2]) if english[2] else None
        return _checked(Moment(year, ENGLISH_MONTHS[english[1]]), text)
    return None


def read_phrase(text: str) -> Period | None:
    """A period written as one phrase (`this month`, `2026-11`, `9月-11月`, `2026-09-01 .. 2026-11-30`)."""
    folded = " ".join(fold(text).split())
    for kind in FIXED:
        if folded in _words(kind):
            return Period(kind, text=text)
    moment = read_moment(folded)
    if moment is not None:
        return Period(DAYS, moment, moment, text=text)
    for join in RANGE_JOINS:
        start = folded.find(join)
        while start > 0:
            first, last = read_moment(folded[:start].strip()), read_moment(folded[start + len(join) :].strip())
            if first is not None and last is not None:
                return _ordered(Period(DAYS, first, last, text=text))
            start = folded.find(join, start + 1)
    return None


def _ordered(period: Period) -> Period:
    """A range whose ends both carry their year is checked at once: its start is not after its end."""
    assert period.first is not None and period.last is not None
    if period.first.year is not None and period.last.year is not None:
        days_of(period, date(period.last.year, 12, 31))  # raises for a reversed range
    return period


def is_a_month_name(period: Period) -> bool:
    """A period typed as an English month's name alone (`may`, `june`): a person may be called so."""
    return period.kind == DAYS and fold(period.text).strip() in ENGLISH_MONTHS


def bad(text: str) -> EngineError:
    return EngineError("period.bad", text=text)


def looks_like_a_period(word: str) -> bool:
    """A word a person's name would not be: digits and date signs (`2026-13`, `13月`, `十三月`; not
    `月月`, a nickname)."""
    folded = fold(word)
    if not _PERIODISH.match(folded):
        return False
    return any(c.isascii() and c.isdigit() for c in folded) or (
        bool(_NUMERALS & set(folded)) and bool({"月", "年"} & set(folded))
    )


def read_stats_words(words: Sequence[str], plain: bool = False) -> StatsWords:
    """The period, the `csv` word and the rest (a name) of `/stats`' words. The period comes first or
    last (`/stats 本月 张三`, `/stats 张三 本月`); `csv` alone is every night. EngineError for what
    looks like a period but is none (`2026-13`, two periods), and for a plain line of two names
    (`统计 张三 李四`: talk, the parser says)."""
    asked = _stats_words(words)
    if plain and asked.period is None and len(asked.rest) > 1:
        raise EngineError("command.extra_args", extra=" ".join(asked.rest[1:]))
    return asked


def _stats_words(words: Sequence[str]) -> StatsWords:
    csv = any(fold(word) in _words("csv") for word in words)
    left = [word for word in words if fold(word) not in _words("csv")]
    if left and fold(left[0]) in _words("season"):  # 赛季 NAME: the handler knows the names
        season = tuple(left[1:])
        return StatsWords(
            Period(SEASON, season=season, text=" ".join(left)) if season else Period(THIS_SEASON), csv, ()
        )
    found = _period_at_an_end(left)
    if found is None:
        strays = [word for word in left if looks_like_a_period(word)]
        if strays:
            raise bad(" ".join(strays))
        return StatsWords(Period(ALL, text="csv") if csv else None, csv, tuple(left))
    period, rest = found
    strays = [word for word in rest if looks_like_a_period(word) or read_phrase(word) is not None]  # two periods
    if strays:
        raise bad(" ".join(strays))
    return StatsWords(period, csv, rest)


def _period_at_an_end(words: Sequence[str]) -> tuple[Period, tuple[str, ...]] | None:
    """The longest phrase (up to three words) at the start, or else at the end, that is a period."""
    for size in (3, 2, 1):
        if len(words) >= size:
            period = read_phrase(" ".join(words[:size]))
            if period is not None:
                return period, tuple(words[size:])
    for size in (3, 2, 1):
        if len(words) > size:
            period = read_phrase(" ".join(words[-size:]))
            if period is not None:
                return period, tuple(words[:-size])
    return None


def stats_shape(words: Sequence[str]) -> bool:
    """Whether a plain line's words after 统计 are read whole: none, or a period (and `csv`) and nothing
    else, or what looks like one (`统计 2026-13`: meant for the referee, which says what it cannot read)."""
    if not words:
        return True
    try:
        asked = read_stats_words(words)
    except EngineError:
        return True
    return asked.period is not None and not asked.rest


# ---- a period's days -------------------------------------------------------------------------------


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _bounds(moment: Moment, year: int) -> tuple[date, date]:
    if moment.month is None:
        return date(year, 1, 1), date(year, 12, 31)
    if moment.day is None:
        return date(year, moment.month, 1), _month_end(year, moment.month)
    day = min(moment.day, calendar.monthrange(year, moment.month)[1])  # 29 February of a common year
    return date(year, moment.month, day), date(year, moment.month, day)


def _placed(moment: Moment, not_after: date) -> tuple[date, date]:
    """The moment's first and last day: in its year, or the latest one starting by `not_after`."""
    if moment.year is not None:
        return _bounds(moment, moment.year)
    start, end = _bounds(moment, not_after.year)
    return _bounds(moment, not_after.year - 1) if start > not_after else (start, end)


def days_of(period: Period, today: date) -> tuple[date, date]:
    """The first and last day of a period of days (not a season's: those are nights by id)."""
    if period.kind == ALL:
        return FIRST_DAY, LAST_DAY
    if period.kind in (THIS_MONTH, LAST_MONTH):
        first = today.replace(day=1)
        if period.kind == LAST_MONTH:
            first = (first - timedelta(days=1)).replace(day=1)
        return first, _month_end(first.year, first.month)
    if period.kind in (THIS_YEAR, LAST_YEAR):
        year = today.year - (period.kind == LAST_YEAR)
        return date(year, 1, 1), date(year, 12, 31)
    assert period.kind == DAYS and period.first is not None and period.last is not None
    ending = _placed(period.last, today)
    starting = _placed(period.first, ending[1])
    if starting[0] > ending[1]:
        fixed = f"{span_text(*ending)}..{span_text(*starting)}"
        raise EngineError("period.reversed", first=span_text(*starting), last=span_text(*ending), fixed=fixed)
    return starting[0], ending[1]


def span_text(first: date, last: date) -> str:
    """Days as people say them: `2026-11` for a whole month, `2026` for a whole year, a range else."""
    if first == FIRST_DAY and last == LAST_DAY:
        return ""
    whole_months = first.day == 1 and last == _month_end(last.year, last.month)
    if whole_months and first.month == 1 and last.month == 12:
        return str(first.year) if first.year == last.year else f"{first.year}–{last.year}"
    if whole_months:
        one = f"{first:%Y-%m}"
        return one if (first.year, first.month) == (last.year, last.month) else f"{one}–{last:%Y-%m}"
    return first.isoformat() if first == last else f"{first.isoformat()}–{last.isoformat()}"
