"""Seasons (#43 item 2): `/season new NAME` starts one and ends the one under way, `/season end` ends
it, `/season` lists them (name, days, nights), `/season undo` takes back the latest start or end;
`/stats 赛季 NAME` is the season's leaderboard. Which nights: a season started or ended while a night
is being played counts that night; started after a close, it counts from the next night.

Money by hand from docs/rules.md (preset nanjing, stake 1): a 花杠 is 6 flowers from each of the three
others; a 荒庄 (draw) moves nothing and ends the hand, so each of the four has played one hand."""

from __future__ import annotations

import sqlite3

from bot.chat.parser import parse
from bot.chat.season_words import season_words
from bot.chat.service import Incoming
from bot.night.seating import Speaker
from bot.text.replies import render_response
from tests.kit.harness import Table


def night(gang: str) -> str:
    """A night whose one hand is `gang`'s 花杠 (+18, each other −6), then a draw."""
    return f"张三: 开局 张三 李四 王五 赵六\n{gang}: 花杠\n张三: /draw\n张三: 结算\n张三: 确认"


async def season_rows(table: Table) -> int:
    rows = list(await table.referee.nights.ledger._db.execute_fetchall("SELECT COUNT(*) FROM season_events"))
    return int(rows[0][0])


async def set_season_days(table: Table, days: list[str]) -> None:
    """The days the season entries were typed on, oldest first (the list shows them)."""

    def write(db: sqlite3.Connection) -> None:
        ids = [row[0] for row in db.execute("SELECT id FROM season_events ORDER BY id")]
        for row_id, day in zip(ids, days, strict=True):
            db.execute("UPDATE season_events SET created_at = ? WHERE id = ?", (f"{day}T12:00:00.000Z", row_id))

    await table.referee.nights.ledger._writer.run(write)


async def three_seasons_of_nights(table: Table) -> None:
    """秋季赛: night 1. 冬季赛: started during night 2 (it counts) and ended during night 3 (it counts).
    Night 4: in no season."""
    assert "🏆 新赛季「秋季赛」开始了" in await table.say("张三: /season new 秋季赛")
    await table.play(night("王五"))
    await table.play("张三: 开局 张三 李四 王五 赵六\n张三: 花杠")
    started = await table.say("李四: /season new 冬季赛")
    assert started.splitlines() == [
        "🏆 新赛季「冬季赛」开始了",
        "正在打的第 2 局算在这个赛季里",
        "赛季「秋季赛」同时结束（1 局）",
        "（弄错了？发 /season undo 撤销）",
    ]
    await table.play("张三: /draw\n张三: 结算\n张三: 确认")
    await table.play("张三: 开局 张三 李四 王五 赵六\n李四: 花杠")
    ended = await table.say("王五: 赛季 结束")
    assert ended.splitlines() == [
        "🏁 赛季「冬季赛」结束了（2 局）",
        "正在打的第 3 局算在这个赛季里",
        "最终排名：/stats season 冬季赛",
        "（弄错了？发 /season undo 撤销）",
    ]
    await table.play("张三: /draw\n张三: 结算\n张三: 确认")
    await table.play(night("赵六"))


async def test_no_season_yet_says_how_to_start_one(table: Table) -> None:
    text = await table.say("张三: /season")
    assert text.startswith("本群还没有赛季。开始一个：/season new 名字")


async def test_seasons_take_the_nights_the_table_meant(table: Table) -> None:
    await three_seasons_of_nights(table)
    await set_season_days(table, ["2026-09-04", "2026-12-04", "2026-12-11"])
    assert (await table.say("赵六: /season")).splitlines() == [
        "🏆 本群的赛季（2 个）：",
        "1. 秋季赛：2026-09-04 至 2026-12-04 · 1 局",
        "2. 冬季赛：2026-12-04 至 2026-12-11 · 2 局",
        "排名：/stats 赛季 名字 · 开始新赛季：/season new 名字 · 结束：/season end",
    ]


async def test_a_seasons_leaderboard(table: Table) -> None:
    await three_seasons_of_nights(table)
    autumn = (await table.say("张三: /stats 赛季 秋季赛")).splitlines()
    # night 1: 王五's 花杠 +18, the others −6 each; one hand each (the draw)
    assert autumn[0].startswith("📊 赛季「秋季赛」（") and autumn[0].endswith("）：1 局，4 人，按净额排名")
    assert autumn[2:] == [
        "1. 王五 +18 · 1/1 · +18 · 0/0/0 · —",
        "2. 张三 −6 · 1/1 · −6 · 0/0/0 · —",
        "2. 李四 −6 · 1/1 · −6 · 0/0/0 · —",
        "2. 赵六 −6 · 1/1 · −6 · 0/0/0 · —",
    ]
    winter = (await table.say("张三: 统计 上赛季")).splitlines()  # the latest season ended: 冬季赛
    # nights 2 and 3: 张三's 花杠 then 李四's: each of them +18 −6 = +12; 王五 and 赵六 −12; two hands each
    assert winter[0].endswith("）：2 局，4 人，按净额排名") and "冬季赛" in winter[0]
    assert winter[2:] == [
        "1. 张三 +12 · 2/2 · +6 · 0/0/0 · —",
        "1. 李四 +12 · 2/2 · +6 · 0/0/0 · —",
        "3. 王五 −12 · 2/2 · −6 · 0/0/0 · —",
        "3. 赵六 −12 · 2/2 · −6 · 0/0/0 · —",
    ]
    assert await table.say("张三: /stats season 冬季赛") == "\n".join(winter)
    # night 4 (赵六's 花杠) is in no season; every night is in /stats 全部
    assert "4 局" in (await table.say("张三: /stats 全部")).splitlines()[0]


async def test_this_season_and_an_unknown_one(table: Table) -> None:
    await three_seasons_of_nights(table)
    assert (
        await table.say("张三: /stats 本赛季") == "现在没有进行中的赛季。本群的赛季：秋季赛、冬季赛（/stats 赛季 名字）"
    )
    assert (
        await table.say("张三: /stats 赛季 春季赛")
        == "没有叫「春季赛」的赛季。本群的赛季：秋季赛、冬季赛（/stats 赛季 名字）"
    )
    await table.say("张三: /season new 春季赛")
    await table.play(night("李四"))  # night 5: 李四 +18
    spring = (await table.say("张三: /stats 本赛季")).splitlines()
    assert "春季赛" in spring[0] and "1 局" in spring[0] and spring[2] == "1. 李四 +18 · 1/1 · +18 · 0/0/0 · —"


async def test_a_season_name_then_a_persons(table: Table) -> None:
    await three_seasons_of_nights(table)
    assert (await table.say("张三: /stats 赛季 冬季赛 王五")).splitlines()[2:] == ["3. 王五 −12 · 2/2 · −6 · 0/0/0 · —"]


async def test_undo_takes_back_the_latest_start_or_end(table: Table) -> None:
    await three_seasons_of_nights(table)
    assert await table.say("张三: /season undo") == "↩️ 撤销了结束：赛季「冬季赛」继续"
    # 冬季赛 goes on: nights 2, 3 and 4 (night 4 was played after the end now taken back)
    assert "2. 冬季赛：" in (listed := await table.say("张三: /season")) and "· 3 局（进行中）" in listed
    assert await table.say("张三: 赛季 撤销") == "↩️ 撤销了赛季「冬季赛」的开始\n赛季「秋季赛」继续"
    listed = (await table.say("张三: /season")).splitlines()
    assert listed[0] == "🏆 本群的赛季（1 个）：" and listed[1].endswith("· 4 局（进行中）")
    assert await table.say("张三: /season undo") == "↩️ 撤销了赛季「秋季赛」的开始"
    assert (await table.say("张三: /season")).startswith("本群还没有赛季")
    assert await table.say("张三: /season undo") == "没有可以撤销的赛季记录"
    assert await season_rows(table) == 3 + 3  # nothing is deleted: three entries, three undos


async def test_a_season_started_after_a_close_counts_from_the_next_night(table: Table) -> None:
    await table.play(night("王五"))
    assert "正在打" not in await table.say("张三: /season new 秋季赛")
    await table.play(night("赵六"))
    text = (await table.say("张三: /stats 本赛季")).splitlines()
    assert "1 局" in text[0] and text[2] == "1. 赵六 +18 · 1/1 · +18 · 0/0/0 · —"
    ended = await table.say("张三: /season end")  # after the close: through night 2
    assert ended.splitlines()[0] == "🏁 赛季「秋季赛」结束了（1 局）" and "正在打" not in ended


async def test_names_are_unique_short_and_needed(table: Table) -> None:
    await table.say("张三: /season new 秋季赛")
    assert await table.say("张三: /season new 秋季賽") == "本群已经有叫「秋季賽」的赛季了：换个名字（/season 列出全部）"
    long_name = "长" * 31
    assert await table.say(f"张三: /season new {long_name}") == f"赛季名「{long_name}」太长：最多 30 个字"
    usage = await table.say("张三: /season new")
    assert usage.startswith("赛季的写法：/season（列出）")
    assert (await table.say("张三: /season 秋季赛")).startswith("赛季的写法")
    assert (await table.say("张三: /season end 现在")).startswith("多写了：现在（这个命令用不到它，什么都没有记录）")
    assert await season_rows(table) == 1


async def test_end_with_no_season_under_way(table: Table) -> None:
    assert await table.say("张三: /season end") == "现在没有进行中的赛季：/season new 名字 开始一个"
    assert await season_rows(table) == 0


async def test_a_repeated_update_starts_one_season(table: Table) -> None:
    first = await table.say("张三: /season new 秋季赛", update_key="u:77")
    again = await table.say("张三: /season new 秋季赛", update_key="u:77")
    assert "开始了" in first and again == ""
    assert await season_rows(table) == 1


async def test_an_edited_message_records_nothing(table: Table) -> None:
    text = await table.say("张三: /season new 秋季赛", update_key="edit:group-1:5:2")
    assert text.startswith("改消息不会改赛季")
    assert await season_rows(table) == 0


async def test_a_private_chat_has_no_seasons(table: Table) -> None:
    speaker = Speaker("7", "张三")
    response = await table.referee.handle(Incoming("private-7", speaker, "/season new 秋季赛", "p:1", private=True))
    assert response is not None and render_response(response) == "赛季是群里的：请在群里使用"
    assert await season_rows(table) == 0


async def test_seasons_in_english(table: Table) -> None:
    await table.say("Alice: /lang en")
    assert (await table.say("Alice: season new Autumn League")).splitlines() == [
        "🏆 Season “Autumn League” has started",
        "(a mistake? /season undo takes it back)",
    ]
    await table.play("Alice: /new Alice Bob Carol Dave\nCarol: /flowergang\nAlice: /draw\nAlice: /summary\nAlice: yes")
    board = (await table.say("Alice: /stats season Autumn League")).splitlines()
    assert board[0].startswith("📊 season “Autumn League” (") and board[0].endswith(
        "): 1 night, 4 people, by net money"
    )
    assert board[2] == "1. Carol +18 · 1/1 · +18 · 0/0/0 · —"
    assert (await table.say("Alice: season end")).splitlines()[0] == "🏁 Season “Autumn League” is over (nights: 1)"


def test_plain_season_lines_and_talk() -> None:
    for line, kind, word in (
        ("赛季", None, None),
        ("赛季 新 秋季赛", "new", "秋季赛"),
        ("賽季 開始 秋季賽", "new", "秋季賽"),
        ("赛季 结束", "end", None),
        ("赛季 撤销", "undo", None),
        ("season new Autumn League", "new", "Autumn League"),
        ("season end", "end", None),
    ):
        command = parse(line)
        assert command is not None and command.name == "season", line
        assert season_words(command.names) == (kind, word), line
    for talk in ("赛季 结束 了吗", "赛季 怎么样", "这个赛季 不错", "season was fun"):
        assert parse(talk) is None, talk
