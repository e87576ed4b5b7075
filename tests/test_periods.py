"""`/stats PERIOD` (#43 item 2): every period word read, in the three languages; a period's days with a
fixed today; a leaderboard over two months of nights with a 换人 and a rename, worked by hand; its
CSV; a bad period refused with a localized error that says how to write one.

Money by hand from docs/rules.md (preset nanjing; the first named deals):
  `123m456m789m234p5p+5p` = 跑 20 + 砸 2 × (hard flowers + 缺一门 1) + 门清 20: with 花1 44, with 花2 46;
  on a discard the discarder pays it alone, self-drawn each of the three others pays it.
  花杠: 6 flowers from each of the three others. 荒庄 (draw) moves nothing and ends the hand.
  A hand counts for whoever sat at the table when it ended (the one who left before has none).
"""

from __future__ import annotations

import csv
import io
import sqlite3
from datetime import UTC, date, datetime

import pytest

from bot.chat.parser import parse
from bot.chat.periods import (
    ALL,
    DAYS,
    LAST_MONTH,
    LAST_SEASON,
    LAST_YEAR,
    SEASON,
    THIS_MONTH,
    THIS_SEASON,
    THIS_YEAR,
    days_of,
    span_text,
)
from bot.views.leaderboard import Standing
from engine.errors import EngineError
from tests.kit.harness import Table

TODAY = date(2026, 11, 20)
HAND = "123m456m789m234p5p+5p"


def period_of(line: str, names: tuple[str, ...] = ()) -> tuple[str, tuple[date, date] | None]:
    command = parse(line, names)
    assert command is not None and command.name == "stats" and command.period is not None, line
    period = command.period
    if period.kind in (SEASON, THIS_SEASON, LAST_SEASON):
        return period.kind, None
    return period.kind, days_of(period, TODAY)


NOVEMBER = (date(2026, 11, 1), date(2026, 11, 30))
OCTOBER = (date(2026, 10, 1), date(2026, 10, 31))
YEAR_2026 = (date(2026, 1, 1), date(2026, 12, 31))
AUTUMN = (date(2026, 9, 1), date(2026, 11, 30))


@pytest.mark.parametrize(
    ("line", "kind", "days"),
    [
        ("/stats 本月", THIS_MONTH, NOVEMBER),
        ("/stats 这个月", THIS_MONTH, NOVEMBER),
        ("/stats 這個月", THIS_MONTH, NOVEMBER),
        ("/stats this month", THIS_MONTH, NOVEMBER),
        ("/stats 上月", LAST_MONTH, OCTOBER),
        ("/stats 上个月", LAST_MONTH, OCTOBER),
        ("/stats 上個月", LAST_MONTH, OCTOBER),
        ("/stats last month", LAST_MONTH, OCTOBER),
        ("/stats 今年", THIS_YEAR, YEAR_2026),
        ("/stats this year", THIS_YEAR, YEAR_2026),
        ("/stats 去年", LAST_YEAR, (date(2025, 1, 1), date(2025, 12, 31))),
        ("/stats last year", LAST_YEAR, (date(2025, 1, 1), date(2025, 12, 31))),
        ("/stats 2026-11", DAYS, NOVEMBER),
        ("/stats 2026/11", DAYS, NOVEMBER),
        ("/stats 2026年11月", DAYS, NOVEMBER),
        ("/stats November 2026", DAYS, NOVEMBER),
        ("/stats nov 2026", DAYS, NOVEMBER),
        ("/stats 11月", DAYS, NOVEMBER),  # no year: the latest November not after today
        ("/stats 十一月", DAYS, NOVEMBER),
        ("/stats november", DAYS, NOVEMBER),
        ("/stats 12月", DAYS, (date(2025, 12, 1), date(2025, 12, 31))),  # December 2026 is still to come
        ("/stats 2026", DAYS, YEAR_2026),
        ("/stats 2026年", DAYS, YEAR_2026),
        ("/stats 2026-11-06", DAYS, (date(2026, 11, 6), date(2026, 11, 6))),
        ("/stats 2026-09-01..2026-11-30", DAYS, AUTUMN),
        ("/stats 2026-09-01~2026-11-30", DAYS, AUTUMN),
        ("/stats 2026-09-01 ~ 2026-11-30", DAYS, AUTUMN),
        ("/stats 2026-09-01 to 2026-11-30", DAYS, AUTUMN),
        ("/stats 2026-09-01-2026-11-30", DAYS, AUTUMN),
        ("/stats 2026-09..2026-11", DAYS, AUTUMN),
        ("/stats 9月-11月", DAYS, AUTUMN),
        ("/stats 9月到11月", DAYS, AUTUMN),
        ("/stats 全部", ALL, (date(1, 1, 1), date(9999, 12, 31))),
        ("/stats all", ALL, (date(1, 1, 1), date(9999, 12, 31))),
        ("/stats 赛季 秋季赛", SEASON, None),
        ("/stats 賽季 秋季賽", SEASON, None),
        ("/stats season Autumn", SEASON, None),
        ("/stats 赛季", THIS_SEASON, None),
        ("/stats 本赛季", THIS_SEASON, None),
        ("/stats this season", THIS_SEASON, None),
        ("/stats 上赛季", LAST_SEASON, None),
        ("/stats last season", LAST_SEASON, None),
        ("统计 本月", THIS_MONTH, NOVEMBER),
        ("战绩 上个月", LAST_MONTH, OCTOBER),
        ("統計 去年", LAST_YEAR, (date(2025, 1, 1), date(2025, 12, 31))),
        ("stats last month", LAST_MONTH, OCTOBER),
        ("统计 2026-09-01..2026-11-30", DAYS, AUTUMN),
        ("统计 赛季 秋季赛", SEASON, None),
    ],
)
def test_each_period_word_is_read(line: str, kind: str, days: tuple[date, date] | None) -> None:
    assert period_of(line) == (kind, days)


def test_a_season_keeps_the_words_of_its_name() -> None:
    command = parse("/stats season Autumn League csv")
    assert command is not None and command.period is not None
    assert command.period.season == ("Autumn", "League") and command.options == {"csv": "csv"}


def test_csv_and_a_name_go_with_a_period_first_or_last() -> None:
    for line in ("/stats 本月 张三 csv", "/stats 张三 本月 csv", "/stats csv 本月 张三"):
        command = parse(line, ("张三",))
        assert command is not None and command.period is not None, line
        assert (command.period.kind, command.word, command.options) == (THIS_MONTH, "张三", {"csv": "csv"}), line
    alone = parse("/stats csv")  # the table of every night
    assert alone is not None and alone.period is not None and alone.period.kind == ALL


def test_without_a_period_stats_is_the_careers_as_before() -> None:
    for line, word in (("/stats", None), ("/stats Bob", "Bob"), ("统计 张三", "张三"), ("统计", None)):
        command = parse(line, ("张三", "Bob"))
        assert command is not None and command.name == "stats" and command.period is None, line
        assert command.word == word, line


@pytest.mark.parametrize("line", ["统计 一下", "统计 本月 怎么样", "统计 张三 李四", "stats look good"])
def test_talk_after_the_word_stays_talk(line: str) -> None:
    assert parse(line, ("张三", "李四")) is None


@pytest.mark.parametrize(
    "line",
    [
        "/stats 2026-13",
        "/stats 2026-02-30",
        "/stats 13月",
        "/stats 十三月",
        "/stats 本月 上月",
        "/stats 1234",
        "统计 2026-13",
    ],
)
def test_what_looks_like_a_period_but_is_none_is_refused(line: str) -> None:
    with pytest.raises(EngineError) as refused:
        parse(line)
    assert refused.value.key == "period.bad"


def test_a_range_the_wrong_way_round_says_how_to_write_it() -> None:
    with pytest.raises(EngineError) as refused:
        parse("/stats 2026-11-30..2026-09-01")
    assert refused.value.key == "period.reversed"
    assert refused.value.params["fixed"] == "2026-09-01..2026-11-30"


def test_a_nickname_with_a_month_character_is_a_name() -> None:
    command = parse("/stats 月月")
    assert command is not None and command.period is None and command.word == "月月"


def test_days_are_said_as_people_say_them() -> None:
    assert span_text(*NOVEMBER) == "2026-11"
    assert span_text(*YEAR_2026) == "2026"
    assert span_text(*AUTUMN) == "2026-09–2026-11"
    assert span_text(date(2026, 9, 5), date(2026, 11, 28)) == "2026-09-05–2026-11-28"


def test_money_per_hand_is_rounded_to_the_cent_half_away_from_zero() -> None:
    def per_hand(cents: int, hands: int) -> int | None:
        return Standing(1, "n:a", "a", 1, hands, cents, 0, 0, 0, 0).per_hand_cents

    assert per_hand(-100, 3) == -33  # −33.33… cents
    assert per_hand(50, 4) == 13  # 12.5 cents: away from zero
    assert per_hand(-50, 4) == -13
    assert per_hand(100, 0) is None  # no hand played: no rate


# ---- the leaderboard through the command layer -------------------------------------------------------

OCTOBER_NIGHTS = [
    # night 1 (2026-10-02), stake 1: 王五 wins on 李四's discard with 花1: 李四 pays 44
    f"张三: 开局 张三 李四 王五 赵六\n王五: 胡 李四 {HAND} 花1\n张三: 结算\n张三: 确认",
    # night 2 (2026-10-09), stake 2: 王五's 花杠 (+18, the others −6); 换人 赵六 → 钱七; 钱七 self-draws
    # with 花2: 46 from each of 张三 李四 王五. In money (×2): 张三 −12 −92 = −104, 李四 −104, 王五
    # +36 −92 = −56, 赵六 −12 (no hand: he left before it ended), 钱七 +276
    f"张三: 开局 张三 李四 王五 赵六 底=2\n王五: 花杠\n张三: 换人 赵六 钱七\n钱七: 胡 自摸 {HAND} 花2\n"
    "张三: 结算\n张三: 确认",
]
NOVEMBER_NIGHTS = [
    # night 3 (2026-11-06), stake 1: 李四 is renamed 李老四, then 赵六 wins on his discard with 花2: 46
    f"张三: 开局 张三 李四 王五 赵六\n张三: 改名 李四 李老四\n赵六: 胡 李老四 {HAND} 花2\n张三: 结算\n张三: 确认",
    # night 4 (2026-11-13), stake 1: 李老四's 花杠 (+18, the others −6), then a draw
    "张三: 开局 张三 李老四 王五 钱七\n李老四: 花杠\n张三: /draw\n张三: 结算\n张三: 确认",
]
DAYS_OF_NIGHTS = {1: "2026-10-02", 2: "2026-10-09", 3: "2026-11-06", 4: "2026-11-13"}


async def set_day(table: Table, night_id: int, day: str) -> None:
    def write(db: sqlite3.Connection) -> None:
        db.execute("UPDATE nights SET created_at = ? WHERE id = ?", (f"{day}T12:00:00.000Z", night_id))
        db.execute("UPDATE night_people SET day = ? WHERE night_id = ?", (day, night_id))

    await table.referee.nights.ledger._writer.run(write)


async def two_months(table: Table) -> None:
    for script in OCTOBER_NIGHTS + NOVEMBER_NIGHTS:
        assert "🔒" in await table.play(script)
    for night_id, day in DAYS_OF_NIGHTS.items():
        await set_day(table, night_id, day)
    table.referee.services.clock = lambda: datetime(2026, 11, 20, 12, tzinfo=UTC).timestamp()


def board_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line[:1].isdigit()]


async def test_last_month_ranks_people_not_seats_by_money(table: Table) -> None:
    await two_months(table)
    text = await table.say("张三: /stats 上月")
    assert text.splitlines()[0] == "📊 上月（2026-10）：2 局，5 人，按净额排名"
    # October: 钱七 +276 over 1 hand; 王五 +44 −56 = −12 over 2; 赵六 0 −12 = −12 over 1 (night 2's hand
    # ended after he left); 张三 0 −104 = −104 over 2; 李四 (李老四 since November: one person under the
    # name he has now) −44 −104 = −148 over 2, one deal-in. 王五 and 赵六 share rank 2, by name.
    assert board_lines(text) == [
        "1. 钱七 +276 · 1/1 · +276 · 1/1/0 · 46",
        "2. 王五 −12 · 2/2 · −6 · 1/0/0 · 44",
        "2. 赵六 −12 · 2/1 · −12 · 0/0/0 · —",
        "4. 张三 −104 · 2/2 · −52 · 0/0/0 · —",
        "5. 李老四 −148 · 2/2 · −74 · 0/0/1 · —",
    ]


async def test_this_month_after_a_rename(table: Table) -> None:
    await two_months(table)
    text = await table.say("张三: 统计 本月")
    assert text.splitlines()[0] == "📊 本月（2026-11）：2 局，5 人，按净额排名"
    # November: 赵六 +46 (his win on 李老四); 张三 0 −6, 王五 0 −6, 钱七 −6 (night 4 only); 李老四 −46 +18 = −28
    assert board_lines(text) == [
        "1. 赵六 +46 · 1/1 · +46 · 1/0/0 · 46",
        "2. 张三 −6 · 2/2 · −3 · 0/0/0 · —",
        "2. 王五 −6 · 2/2 · −3 · 0/0/0 · —",
        "2. 钱七 −6 · 1/1 · −6 · 0/0/0 · —",
        "5. 李老四 −28 · 2/2 · −14 · 0/0/1 · —",
    ]


async def test_all_nights_sum_to_zero_and_keep_the_renamed_person_whole(table: Table) -> None:
    await two_months(table)
    text = await table.say("张三: /stats 全部")
    # the two months added: 钱七 +276 −6 = +270 over 2 hands; 赵六 −12 +46 = +34 over 2; 王五 −12 −6 = −18
    # over 4 (−4.50 a hand); 张三 −104 −6 = −110 over 4 (−27.50); 李老四 −148 −28 = −176 over 4, 2 deal-ins
    assert board_lines(text) == [
        "1. 钱七 +270 · 2/2 · +135 · 1/1/0 · 46",
        "2. 赵六 +34 · 3/2 · +17 · 1/0/0 · 46",
        "3. 王五 −18 · 4/4 · −4.50 · 1/0/0 · 44",
        "4. 张三 −110 · 4/4 · −27.50 · 0/0/0 · —",
        "5. 李老四 −176 · 4/4 · −44 · 0/0/2 · —",
    ]
    assert "李四" not in text.replace("李老四", "")


async def test_a_range_and_a_year_cover_the_same_nights(table: Table) -> None:
    await two_months(table)
    everything = board_lines(await table.say("张三: /stats 全部"))
    assert board_lines(await table.say("张三: /stats 2026")) == everything
    assert board_lines(await table.say("张三: /stats 2026-10-01..2026-11-30")) == everything
    assert board_lines(await table.say("张三: /stats 10月-11月")) == everything
    assert await table.say("张三: /stats 2025") == "📊 2025：没有结算确认过的局"


async def test_one_persons_line_keeps_their_rank(table: Table) -> None:
    await two_months(table)
    text = await table.say("张三: /stats 上月 张三")
    assert board_lines(text) == ["4. 张三 −104 · 2/2 · −52 · 0/0/0 · —"]
    renamed = await table.say("张三: /stats 上月 李四")  # his name then: the same person
    assert board_lines(renamed) == ["5. 李老四 −148 · 2/2 · −74 · 0/0/1 · —"]
    absent = await table.say("张三: /stats 2026-11-13 赵六")
    assert absent == "📊 2026-11-13：赵六 没有打过"


async def test_someone_who_never_played_is_named_with_who_did(table: Table) -> None:
    await two_months(table)
    text = await table.say("张三: /stats 本月 孙八")
    assert "本群没有叫 孙八 的人打过牌（打过的：张三、李老四、王五、赵六、钱七）" in text
    assert "/stats 本月" in text


async def test_the_same_table_as_csv(table: Table) -> None:
    await two_months(table)
    response = await table.respond("张三: /stats 上月 csv")
    assert response is not None and len(response.attachments) == 1
    attachment = response.attachments[0]
    assert (attachment.kind, attachment.filename) == ("document", "stats-2026-10.csv")
    rows = list(csv.reader(io.StringIO(attachment.data.decode("utf-8-sig"))))
    assert rows == [
        ["rank", "person", "nights", "hands", "money", "money_per_hand", "wins", "self_draws", "deal_ins", "biggest"],
        ["1", "钱七", "1", "1", "276", "276", "1", "1", "0", "46"],
        ["2", "王五", "2", "2", "-12", "-6", "1", "0", "0", "44"],
        ["2", "赵六", "2", "1", "-12", "-12", "0", "0", "0", ""],
        ["4", "张三", "2", "2", "-104", "-52", "0", "0", "0", ""],
        ["5", "李老四", "2", "2", "-148", "-74", "0", "0", "1", ""],
    ]
    assert sum(float(row[4]) for row in rows[1:]) == 0


async def test_the_night_being_played_is_said_to_count_once_closed(table: Table) -> None:
    await two_months(table)
    await table.play("张三: 开局 张三 李老四 王五 赵六\n王五: 花杠")  # night 5, being played on the 20th
    night = await table.referee.nights.latest(table.chat_id)
    assert night is not None
    await set_day(table, night.id, "2026-11-20")
    table.referee.nights.forget(table.chat_id)  # read again with its day
    text = await table.say("张三: /stats 本月")
    assert text.splitlines()[0] == "📊 本月（2026-11）：2 局，5 人，按净额排名"  # the open night is not in it
    assert text.splitlines()[-1] == "第 5 局还在打，结算确认后才算进来"
    assert "还在打" not in await table.say("张三: /stats 上月")


async def test_the_leaderboard_in_english_and_traditional(table: Table) -> None:
    await two_months(table)
    table.language = "en"
    await table.say("张三: /lang en")
    english = await table.say("张三: /stats last month")
    assert english.splitlines()[0] == "📊 last month (2026-10): 2 nights, 5 people, by net money"
    assert english.splitlines()[1].startswith("rank. person net money · nights/hands · per hand")
    assert "1. 钱七 +276 · 1/1 · +276 · 1/1/0 · 46" in english
    await table.say("张三: /lang zh-Hant")
    traditional = await table.say("张三: 統計 上個月")
    assert traditional.splitlines()[0] == "📊 上月（2026-10）：2 局，5 人，按淨額排名"


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("zh-Hans", "看不懂时段「2026-13」。可以写：本月、上月"),
        ("zh-Hant", "看不懂時段「2026-13」。可以寫：本月、上月"),
        ("en", "“2026-13” is no period I can read. Write: this month, last month"),
    ],
)
async def test_a_bad_period_is_refused_in_the_chats_language(table: Table, language: str, expected: str) -> None:
    await two_months(table)
    await table.say(f"张三: /lang {language}")
    response = await table.respond("张三: /stats 2026-13")
    assert response is not None and response.refused
    assert expected in await table.say("张三: /stats 2026-13")


async def test_a_reversed_range_is_refused_with_the_range_to_write(table: Table) -> None:
    await two_months(table)
    text = await table.say("张三: /stats 2026-11-30..2026-09-01")
    assert text.startswith("时段的开始（2026-11-30）在结束（2026-09-01）之后：写成 2026-09-01..2026-11-30")


async def test_a_period_with_no_night_in_the_chat(table: Table) -> None:
    assert "这个群还没有开局" in await table.say("张三: /stats 本月")


async def test_a_player_called_like_a_month_is_the_player(table: Table) -> None:
    await table.play("Alice: /new Alice June Carol Dave\nJune: /flowergang\nAlice: /draw\nAlice: /summary\nAlice: yes")
    # June's 花杠: +18 flowers at stake 1 (18 money), one night: her career, not the month of June
    assert (await table.say("Alice: /stats June")).splitlines()[1].startswith("June：1 局，净 18 元")
    month = await table.say("Alice: /stats june 2026")
    assert month.startswith("📊 2026-06") and "June" not in month.splitlines()[0]
