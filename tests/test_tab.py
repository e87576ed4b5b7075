"""The tab across nights: unsettled nights summed per person, payments between people, settle marks,
their undos, and every bad line refused with nothing written.

Every figure is worked out by hand from the rules (README / docs/rules.md, preset nanjing): a flower
gang (花杠) takes 6 flowers from each of the three others (+18 to whoever made it); the README's win
`李四 胡 王五 11p 567s 79s [EEE] [444p] +8s 花4` is 跑 20 + 硬花 4×2 + 风碰 2 + 缺一门 2 + 压档 2 = 34
flowers, paid by the discarder 王五 alone. Money is flowers × the night's stake (底).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.chat.handlers.tab import EXACT_UP_TO, entries, fewest_transfers, tab_of
from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from bot.store.inbox import Row
from bot.store.rows import NightMarks, TabEventRow
from bot.views.stats import NightFigures, PersonNight, Persons
from tests.kit.harness import Table

# Night 1, 底=2: 王五 pays 李四 34 flowers = 68.
# Night 2, 底=1: 王五 花杠: +18 to 王五, −6 from each of 张三 李四 赵六.
# Night 3, 底=5: 张三 花杠: +18 × 5 = +90 to 张三, −6 × 5 = −30 from each of 李四 王五 赵六.
THREE_NIGHTS = """
张三: 开局 张三 李四 王五 赵六 底=2
李四: 胡 王五 11p 567s 79s [EEE] [444p] +8s 花4
张三: 结算
张三: 确认
张三: 开局 张三 李四 王五 赵六 底=1
王五: 花杠
张三: 结算
张三: 确认
张三: 开局 张三 李四 王五 赵六 底=5
张三: 花杠
张三: 结算
张三: 确认
"""


async def tab_events(table: Table) -> int:
    db = table.referee.nights.ledger._db
    rows = list(await db.execute_fetchall("SELECT COUNT(*) FROM tab_events"))
    return int(rows[0][0])


async def three_nights(table: Table) -> None:
    await table.play(THREE_NIGHTS)


async def test_three_nights_summed_by_hand(table: Table) -> None:
    await three_nights(table)
    tab = await table.say("张三: 账本")
    # 张三 0 − 6 + 90 = +84; 李四 +68 − 6 − 30 = +32; 王五 −68 + 18 − 30 = −80; 赵六 0 − 6 − 30 = −36
    # (84 + 32 − 80 − 36 = 0). No two or three of them sum to zero, so 4 − 1 = 3 transfers.
    assert "待结清：第 1–3 局；已记付款 0 笔" in tab
    for line in ("张三：+84 元", "李四：+32 元", "王五：−80 元", "赵六：−36 元", "最少 3 笔"):
        assert line in tab, line
    # the largest debtor pays the largest creditor: 王五 → 张三 80, then 赵六 → 李四 32, 赵六 → 张三 4
    for line in ("王五 → 张三：80 元", "赵六 → 李四：32 元", "赵六 → 张三：4 元"):
        assert line in tab, line


async def test_a_payment_and_its_undo_move_the_tab(table: Table) -> None:
    await three_nights(table)
    paid = await table.say("王五: 付了 王五 李四 32")
    # 王五 −80 + 32 = −48, 李四 +32 − 32 = 0 (square: not listed); 张三 +84 and 赵六 −36 unchanged
    assert "付款 1：王五 → 李四 32 元" in paid and "/paid undo 1" in paid
    assert "王五：−48 元" in paid and "李四：" not in paid.split("已记付款 1 笔")[1]
    assert "张三：+84 元" in paid and "赵六：−36 元" in paid
    # −48 − 36 + 84 = 0: 王五 → 张三 48 and 赵六 → 张三 36, two transfers
    assert "最少 2 笔" in paid and "王五 → 张三：48 元" in paid and "赵六 → 张三：36 元" in paid

    undone = await table.say("王五: 付了 撤销")
    assert "撤销了付款 1：王五 → 李四 32 元" in undone
    assert "李四：+32 元" in undone and "王五：−80 元" in undone and "已记付款 0 笔" in undone

    # the speaker pays: 赵六 pays 张三 36 → 赵六 −36 + 36 = 0, 张三 +84 − 36 = +48; 李四 +32, 王五 −80
    second = await table.say("赵六: 付了 张三 三十六块")  # 36 as it is said
    assert "付款 2：赵六 → 张三 36 元" in second
    assert "张三：+48 元" in second and "李四：+32 元" in second and "王五：−80 元" in second
    # 48 + 32 − 80 = 0 over three people: two transfers
    assert "王五 → 张三：48 元" in second and "王五 → 李四：32 元" in second and "最少 2 笔" in second


async def test_a_night_settled_at_the_table_leaves_the_tab(table: Table) -> None:
    await three_nights(table)
    await table.say("赵六: 付了 张三 36")
    settled = await table.say("张三: 结清 3")
    # nights 1 and 2 only: 张三 −6, 李四 +68 − 6 = +62, 王五 −68 + 18 = −50, 赵六 −6; then the payment
    # of 36 from 赵六 to 张三: 张三 −6 − 36 = −42, 赵六 −6 + 36 = +30 (−42 + 62 − 50 + 30 = 0)
    assert "第 3 局已当场结清" in settled and "待结清：第 1–2 局" in settled
    for line in ("张三：−42 元", "李四：+62 元", "王五：−50 元", "赵六：+30 元", "已当场结清（不算在内）：第 3 局"):
        assert line in settled, line
    assert "已经记为结清" in await table.say("张三: 结清 3")
    back = await table.say("张三: /settled undo 3")
    assert "第 3 局不再算结清" in back and "张三：+48 元" in back and "待结清：第 1–3 局" in back


async def test_the_open_night_is_not_on_the_tab_until_closed(table: Table) -> None:
    await three_nights(table)
    await table.play("张三: 开局 张三 李四 王五 赵六\n李四: 花杠")
    tab = await table.say("张三: 账本")
    assert "第 4 局还在打" in tab and "张三：+84 元" in tab  # night 4's +18 for 李四 not yet in
    assert "还没结束" in await table.say("张三: 结清 4")


async def test_english_labels_each_figure(referee: Referee) -> None:
    table = Table(referee, "en-chat", language="en")
    await table.play(
        "Alice: /lang en\nAlice: /new Alice Bob Carol Dave stake=2\nBob: /flowergang\nAlice: /summary\nAlice: yes"
    )
    tab = await table.say("Alice: /tab")
    # Bob +18 flowers × 2 = +36; the three others −6 × 2 = −12 each
    assert "unsettled night 1, payments recorded: 0" in tab and "owed (+) or owes (−), in money" in tab
    assert "Bob: +36" in tab and "Alice: −12" in tab and "3 transfers, the fewest possible" in tab
    paid = await table.say("Carol: /paid Bob 12")
    assert "Payment 1: Carol → Bob 12, on the tab." in paid and "Carol: −12" not in paid


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("张三: 付了 钱七 李四 5", "没有叫 钱七 的人"),
        ("张三: 付了 李四 李四 5", "付钱的和收钱的都是 李四"),
        ("张三: 付了 李四 王五 0", "「0」不是金额"),
        ("张三: /paid 李四 王五 -5", "「-5」不是金额"),
        ("张三: /paid 李四 王五 1.234", "不是金额"),
        ("张三: /paid 李四", "用法：/paid"),
        ("张三: /paid undo 7", "没有付款 7 可撤销"),
        ("张三: /settled 9", "没有第 9 局（本群共 3 局）"),
        ("张三: /settled undo 2", "第 2 局没有记为结清"),
        ("钱七: /paid 李四 王五 5", "只有在本群打过牌的人"),
        ("张三: /tab 1", ""),  # /tab takes nothing: the usual error for extra words
    ],
)
async def test_bad_lines_are_refused_and_change_nothing(table: Table, line: str, expected: str) -> None:
    await three_nights(table)
    before = await tab_events(table)
    response = await table.respond(line)
    assert response is not None and response.refused and not response.recorded
    assert expected in await table.say(line)
    assert await tab_events(table) == before


@pytest.mark.parametrize("line", ["我付了", "付了吗", "付了 李四 很多", "账本呢", "结清了吧", "paid for dinner"])
async def test_talk_about_paying_is_silent(table: Table, line: str) -> None:
    await three_nights(table)
    assert await table.respond(f"张三: {line}") is None
    assert await tab_events(table) == 0


async def test_no_nights_and_private_chats(referee: Referee) -> None:
    empty = Table(referee, "empty")
    assert "账本是空的" in await empty.say("张三: 账本")
    speaker = Speaker(id="9", name="张三", by_name=True)
    response = await referee.handle(Incoming("private", speaker, "/paid 李四 5", "k-1", private=True))
    assert response is not None and response.refused


async def test_a_repeated_update_records_one_payment(table: Table) -> None:
    await three_nights(table)
    await table.say("王五: 付了 李四 10", update_key="same-update")
    again = await table.respond("王五: 付了 李四 10", update_key="same-update")
    assert again is not None and not again.replies
    assert await tab_events(table) == 1


async def test_every_payment_keeps_the_tab_summing_to_zero(table: Table) -> None:
    await three_nights(table)
    await table.play("王五: 付了 李四 12.5\n李四: 付了 张三 3\n赵六: 付了 王五 0.5")
    tab = await table.say("张三: 账本")
    figures = [line.split("：")[1] for line in tab.splitlines() if line.startswith("  ") and "→" not in line]
    cents = [round(float(f.replace(" 元", "").replace("−", "-")) * 100) for f in figures]
    # 张三 +84 + 3 = 81 (he received 3: owed less), 李四 +32 − 12.5 + 3 = 22.5, 王五 −80 + 12.5 − 0.5 = −68,
    # 赵六 −36 + 0.5 = −35.5: 81 + 22.5 − 68 − 35.5 = 0
    assert sorted(cents) == sorted([8100, 2250, -6800, -3550]) and sum(cents) == 0


async def test_an_edited_payment_records_nothing(table: Table) -> None:
    await three_nights(table)
    await table.say("王五: 付了 李四 10", update_key="msg:1:7")
    speaker = Speaker(id="王五", name="王五", by_name=True)
    edited = await table.referee.handle(Incoming(table.chat_id, speaker, "付了 李四 100", "edit:1:7:99"))
    assert edited is not None and edited.refused and await tab_events(table) == 1


def test_many_people_settle_in_at_most_n_minus_one_transfers() -> None:
    # six pairs that cancel (+k / −k): six transfers, one per pair, the fewest possible
    pairs = [value for k in range(1, 7) for value in (k * 100, -k * 100)]
    assert len(pairs) > EXACT_UP_TO
    transfers = fewest_transfers(pairs)
    assert len(transfers) == 6 and all(pairs[t.payer] == -pairs[t.payee] == -t.amount for t in transfers)
    # 11 debtors of 100 and one creditor of 1,100: eleven transfers of 100 each (n − 1 = 11)
    lopsided = [-100] * 11 + [1100]
    transfers = fewest_transfers(lopsided)
    assert len(transfers) == 11 and {t.amount for t in transfers} == {100} and {t.payee for t in transfers} == {11}


async def test_a_payment_marks_its_telegram_update_done_in_its_own_transaction(table: Table) -> None:
    await three_nights(table)
    inbox = table.referee.inbox()
    await inbox.add(Row(999, 1, "msg:1:50", {}))
    await table.say("王五: 付了 李四 10", update_key="msg:1:50")
    assert await inbox.is_done(999)  # a restart will not record it a second time


@settings(max_examples=60)
@given(
    nights=st.lists(st.lists(st.integers(-500, 500), min_size=3, max_size=3), min_size=1, max_size=6),
    payments=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(1, 900)), max_size=8),
    undone=st.sets(st.integers(0, 7)),
)
def test_the_tab_always_sums_to_zero_and_its_transfers_settle_it(
    nights: list[list[int]], payments: list[tuple[int, int, int]], undone: set[int]
) -> None:
    """Nights of four people (the fourth pays the other three's balance), payments between them, some
    taken back: the balances are the nights' money plus the payments that count, they sum to zero,
    and the transfers shown bring every one of them to zero."""
    names = ("A", "B", "C", "D")
    found = []
    for index, money in enumerate(nights, 1):
        amounts = [*money, -sum(money)]
        people = tuple(
            PersonNight(n, (n.lower(),), None, None, 0, m, 0, 0, 0, 0, (), ())
            for n, m in zip(names, amounts, strict=True)
        )
        found.append((NightMarks(index, index, 1, True, None), NightFigures(index, index, people)))
    rows = []
    for number, (payer, payee, cents) in enumerate(payments):
        if payer != payee:
            body = {"payer": f"n:{names[payer].lower()}", "payee": f"n:{names[payee].lower()}", "cents": cents}
            rows.append(TabEventRow(number + 1, "paid", json.dumps(body), "A", None, ""))
    rows += [TabEventRow(100 + i, "undo", "{}", "A", rows[i].id, "") for i in sorted(undone) if i < len(rows)]
    persons = Persons([figures for _, figures in found])
    tab = tab_of(found, entries(rows), persons)
    expected = {n: sum(f.persons[i].money_cents for _, f in found) for i, n in enumerate(names)}
    for row in rows:
        if row.kind == "paid" and row.id not in {r.reverses for r in rows}:
            body = json.loads(row.payload)
            expected[body["payer"][2:].upper()] += body["cents"]
            expected[body["payee"][2:].upper()] -= body["cents"]
    shown = {persons.name(key): cents for key, cents in tab.balances}
    assert shown == {n: c for n, c in expected.items() if c} and sum(shown.values()) == 0
    left = dict(shown)
    for payer, payee, cents in tab.transfers:
        left[persons.name(payer)] += cents
        left[persons.name(payee)] -= cents
    assert not any(left.values()) and len(tab.transfers) <= max(len(shown) - 1, 0)


# ---- the tab cannot surprise (issue #30, item 6) ---------------------------------------------------
# Night 1, 底=1: 王五 花杠: +18 to 王五, −6 from each of 张三 李四 赵六.
ONE_NIGHT = """
张三: 开局 张三 李四 王五 赵六 底=1
王五: 花杠
张三: 结算
张三: 确认
"""


async def test_settling_a_night_already_paid_warns_with_the_figures(table: Table) -> None:
    await table.play(ONE_NIGHT)
    await table.say("张三: 付了 王五 6")  # 张三 pays his 6 of night 1
    settled = await table.say("张三: 结清 1")
    # the payment stays on the tab while night 1 leaves it: 张三 0 + 6 = +6, 王五 0 − 6 = −6, the
    # others 0: the payment has turned into 王五 owing 张三 6
    assert "⚠️ 注意：付款 1（张三 → 王五 6 元）还算在账上，结清第 1 局后账上变成 王五 欠 张三 6 元" in settled
    assert "/paid undo 1" in settled
    undone = await table.say("张三: /paid undo 1")
    assert "撤销了付款 1" in undone and "张三：" not in undone.split("撤销了付款 1")[1]  # all square: 0 each


async def test_paying_a_night_already_settled_warns_with_the_figures(table: Table) -> None:
    await table.play(ONE_NIGHT)
    await table.say("张三: 结清 1")
    paid = await table.say("张三: 付了 王五 6")
    # night 1 is out of the tab: everyone 0 before; after, 张三 +6 and 王五 −6
    assert "⚠️ 注意：记这笔之前账上 张三 欠 王五 0 元，付了 6 元，账上就变成 王五 欠 张三 6 元" in paid
    assert "/paid undo 1" in paid


async def test_a_payment_within_what_is_owed_has_no_warning(table: Table) -> None:
    await table.play(ONE_NIGHT)
    paid = await table.say("张三: 付了 王五 6")
    # 张三 −6 + 6 = 0, 王五 +18 − 6 = +12, 李四 −6, 赵六 −6 (0 + 12 − 6 − 6 = 0)
    assert "⚠️" not in paid and "王五：+12 元" in paid
    assert "记的" not in paid  # the payer typed it himself


async def test_a_payment_typed_by_the_one_owed_says_who_recorded_it(table: Table) -> None:
    await table.play(ONE_NIGHT)
    paid = await table.say("王五: 付了 张三 王五 6")
    assert "付款 1：张三 → 王五 6 元" in paid
    assert "（这笔是 王五 记的：张三 请核对，不对就撤销）" in paid


async def test_a_plain_undo_right_after_paid_takes_back_the_payment(table: Table) -> None:
    await table.play(ONE_NIGHT)
    await table.say("张三: 付了 王五 6")
    undone = await table.say("张三: /undo")
    # the payment, not night 1: 张三 −6, 王五 +18, 李四 −6, 赵六 −6 again
    assert "撤销了付款 1：张三 → 王五 6 元" in undone and "王五：+18 元" in undone
    assert await tab_events(table) == 2  # the payment and its undo


async def test_a_plain_undo_after_a_later_event_is_the_tables(table: Table) -> None:
    await table.play(ONE_NIGHT)
    await table.say("张三: 付了 王五 6")
    await table.play("张三: 开局 张三 李四 王五 赵六 底=1\n李四: 花杠")
    undone = await table.say("张三: /undo")
    assert "付款" not in undone.split("\n")[0]  # the 花杠 of the night being played is taken back
    assert await tab_events(table) == 1
