"""`/export all`: every closed night of the chat as one CSV (a row per person a payment moved money
for), and the tab as a second file. People, not seats: after a 换人 the one who left keeps the rows of
the hands they sat for, and the newcomer is one person across nights.

Figures by hand (preset nanjing, stake 1): a flower gang (花杠) is 6 flowers from each of the three
others (RULES: 花杠), so 6 money at a stake of 1."""

from __future__ import annotations

import csv
import io

from bot.text.replies import Response
from tests.kit.harness import Table

TWO_NIGHTS = """
张三: 开局 张三 李四 王五 赵六
王五: 花杠
张三: 换人 赵六 钱七
李四: 花杠
张三: 结算
张三: 确认
张三: 开局 张三 李四 王五 钱七
钱七: 花杠
张三: 结算
张三: 确认
"""


def csv_rows(response: Response, index: int) -> list[dict[str, str]]:
    text = response.attachments[index].data.decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


async def test_every_closed_night_in_one_csv_with_people_across_a_swap(table: Table) -> None:
    await table.play(TWO_NIGHTS)
    response = await table.respond("张三: /export all")
    assert response is not None and len(response.attachments) == 2
    rows = csv_rows(response, 0)
    # the money column says it is money (#48 item 9: it was `amount`, read as flowers)
    assert list(rows[0]) == ["night", "date", "hand", "event", "person", "money", "reason"]
    as_tuples = [(r["night"], r["hand"], r["event"], r["person"], r["money"]) for r in rows]
    # night 1, line #2: 王五's 花杠, 6 from each of 张三 李四 赵六 (赵六 still seated)
    # line #3 is the 换人 (no money); line #4: 李四's 花杠, 6 from 张三, 王五 and 钱七 (in 赵六's seat now)
    # night 2, line #2: 钱七's 花杠, 6 from each of 张三 李四 王五
    expected = {
        ("1", "1", "2", "王五", "6"): 3,
        ("1", "1", "2", "张三", "-6"): 1,
        ("1", "1", "2", "李四", "-6"): 1,
        ("1", "1", "2", "赵六", "-6"): 1,
        ("1", "1", "4", "李四", "6"): 3,
        ("1", "1", "4", "张三", "-6"): 1,
        ("1", "1", "4", "王五", "-6"): 1,
        ("1", "1", "4", "钱七", "-6"): 1,
        ("2", "1", "2", "钱七", "6"): 3,
        ("2", "1", "2", "张三", "-6"): 1,
        ("2", "1", "2", "李四", "-6"): 1,
        ("2", "1", "2", "王五", "-6"): 1,
    }
    assert {row: as_tuples.count(row) for row in set(as_tuples)} == expected
    assert {r["reason"] for r in rows} == {"flower_gang"}
    assert all(len(r["date"]) == 10 and r["date"][4] == "-" for r in rows)
    # each person over both nights: 张三 -6-6-6 = -18; 李四 -6+18-6 = +6; 王五 +18-6-6 = +6;
    # 赵六 -6 (left after line #2); 钱七 -6+18 = +12. The tab file says the same, then who pays whom.
    tab = [(r["kind"], r["person"], r["to"], r["money"]) for r in csv_rows(response, 1)]
    balances = {person: amount for kind, person, _, amount in tab if kind == "balance"}
    assert balances == {"钱七": "12", "李四": "6", "王五": "6", "赵六": "-6", "张三": "-18"}
    transfers = [(person, to, amount) for kind, person, to, amount in tab if kind == "transfer"]
    paid: dict[str, int] = {}
    for payer, payee, amount in transfers:  # the transfers settle every balance (fewest: 3)
        paid[payer] = paid.get(payer, 0) + int(amount)
        paid[payee] = paid.get(payee, 0) - int(amount)
    assert len(transfers) == 3 and {k: -v for k, v in paid.items()} == {k: int(v) for k, v in balances.items()}


async def test_a_rename_is_one_person_across_the_export(table: Table) -> None:
    await table.play(
        "张三: 开局 张三 李四 王五 赵六\n王五: 花杠\n张三: 改名 王五 老王\n张三: 结算\n张三: 确认\n"
        "张三: 开局 张三 李四 老王 赵六\n老王: 花杠\n张三: 结算\n张三: 确认"
    )
    response = await table.respond("张三: /export all")
    assert response is not None
    rows = csv_rows(response, 0)
    # 王五 became 老王 in night 1: both nights' 花杠 are 老王's, +18 each
    assert sum(int(r["money"]) for r in rows if r["person"] == "老王") == 36
    assert "王五" not in {r["person"] for r in rows}


async def test_an_open_night_is_not_exported_and_nothing_closed_is_said(table: Table) -> None:
    await table.play("张三: 开局 张三 李四 王五 赵六\n王五: 花杠")
    assert "还没有结束的局" in await table.say("张三: /export all")
    await table.play("张三: 结算\n张三: 确认\n张三: 开局 张三 李四 王五 赵六\n李四: 花杠")
    response = await table.respond("张三: /export all")
    assert response is not None
    assert {r["night"] for r in csv_rows(response, 0)} == {"1"}  # night 2 is still being played


async def test_export_takes_no_other_word(table: Table) -> None:
    await table.play("张三: 开局 张三 李四 王五 赵六")
    assert "多写了：foo" in await table.say("张三: /export foo")
    assert "多写了：all" in await table.say("张三: /summary all")  # the word is /export's alone
