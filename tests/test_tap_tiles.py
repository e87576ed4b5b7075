"""点牌: a winning hand entered by tapping its tiles on one keyboard, pressed by label like a player would.

Every figure is worked by hand from docs/rules.md (nanjing, stake 1; 跑 20, 砸 2, soft flowers 1 each) and
checked twice: the hand tapped, and the same hand typed in notation, which must move the same money.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from bot.chat.handlers.flows import NAME_LENGTH, Head, tile_label
from bot.chat.service import Referee
from bot.console import Console
from bot.telegram.callback import CALLBACK_LIMIT
from bot.telegram.sending import ROW_LIMIT
from bot.text.replies import Response, render
from engine.hand import MeldKind
from engine.notation import format_hand
from engine.tiles import tile_name
from locales import Translator
from tests.kit.fake_telegram import MESSAGES, Call, FakeTelegram
from tests.kit.flows import CONCEALED, NEW, Pad, Tapping, console_step, press_label, tap_through
from tests.kit.harness import Table
from tests.kit.replies import text_of
from tests.kit.telegram import ALICE, BOB, CAROL, GROUP, Running, balances
from tests.kit.varied_hands import varied_hands

# ---- Telegram: one keyboard, each tap answered to the presser --------------------------------------


def check_keyboard(call: Call) -> None:
    """As Telegram takes it: 8 buttons a row, 100 in all, 64 bytes of data each."""
    rows = call.params["reply_markup"]["inline_keyboard"]
    assert sum(len(row) for row in rows) <= 100
    for row in rows:
        assert len(row) <= ROW_LIMIT
        for button in row:
            assert len(button["callback_data"].encode()) <= CALLBACK_LIMIT


async def test_a_concealed_hand_in_eighteen_taps(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        pad = await Pad.opened(bot, BOB)  # the first 胡: typed, not a tap
        check_keyboard(pad.keyboard)
        rows = [[b["text"] for b in row] for row in pad.keyboard.params["reply_markup"]["inline_keyboard"]]
        # who won, from whom; a suit on two rows (1-5, 6-9), the winds with ⌫; +碰 +杠 报番型; the hard
        # flowers 0-20 seven a row; the flags that could apply (a fresh hand: 小杠开花, 海底捞月, 天胡, 地胡); 确认
        assert rows[0] == ["alice 胡", "bob 胡", "carol 胡", "dave 胡"]
        assert rows[1] == ["自摸", "alice 放炮", "bob 放炮", "carol 放炮", "dave 放炮"]
        assert rows[2] == ["1万", "2万", "3万", "4万", "5万"] and rows[3] == ["6万", "7万", "8万", "9万"]
        assert rows[8] == ["东", "南", "西", "北", "⌫"] and rows[9] == ["+碰", "+杠", "报番型"]
        assert rows[10][0] == "🌸0" and rows[12][-1] == "🌸20" and [len(r) for r in rows[10:13]] == [7, 7, 7]
        assert rows[-1] == ["确认"]
        assert await pad("bob 胡", "自摸") == "bob 自摸 · 点手牌：还差 14 张，胡的那张最后点"
        said = [await pad(label) for label in CONCEALED[:-1]]
        # each tap answered at once to the presser: the tiles so far, the latest apart (what ⌫ takes
        # back, and the winning tile if it is the last), and how many are left
        assert said[0] == "bob 自摸 · 已点：＋1万（还差 13 张）"
        assert said[-1] == "bob 自摸 · 已点：123456789万 234筒 ＋5筒（还差 1 张）"
        last = await pad(CONCEALED[-1])  # the last tile tapped is the winning tile
        assert last == "bob 自摸 · 已点：123456789万 2345筒 ＋5筒（齐了） · 再点硬花数 🌸"
        preview = await pad("🌸2")
        # RULES §11 example 1: 123m 456m 789m 234p 5p +5p, self-draw, 2 hard flowers; waits 2p/5p (no wait
        # flower), 缺一 1: 20 + 2×(2+1) + 门清 20 = 46 from each
        assert "= 46 花" in preview and "各 46 花" in preview
        assert "手打：bob: /hu self 123456789m2345p +5p flowers=2" in preview
        assert await balances(db) == [0, 0, 0, 0]  # a preview records nothing
        await pad("确认")
        assert await balances(db) == [-46, 138, -46, -46]
        assert fake.shown[(-100111, pad.message)][0].startswith("🀄 点牌记胡")  # the pad, never written over


async def test_a_tapped_win_is_two_group_messages(fake: FakeTelegram, tmp_path: Path) -> None:
    """#41: Telegram counts every send and every edit against the group's 20 messages a minute. From
    the typed 胡 to the win recorded: the pad and the result, whatever the taps. Counted apart: the
    pinned board's edit (it shows the win), and the pad's buttons taken off afterwards, each by one
    edit in a turn no answer waits for."""
    fake.pinners.add(GROUP)
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(CAROL, "碰 dave")  # the night's first event: the board is sent and pinned
        await bot.front.idle()
        board = int(fake.sent("pinChatMessage")[0].params["message_id"])
        before = len(fake.calls)
        pad = await Pad.opened(bot, BOB)
        answers = [await pad(label) for label in ["bob 胡", "自摸", *CONCEALED, "🌸2"]]
        await pad("确认")
        await bot.front.idle()
        made = [c for c in fake.calls[before:] if c.method in MESSAGES]
        board_edits = [
            c for c in made if c.params.get("message_id") is not None and int(c.params["message_id"]) == board
        ]
        tidied = [c for c in made if c.method == "editMessageReplyMarkup"]
        win = [c for c in made if c not in board_edits and c not in tidied]
        assert [c.method for c in win] == ["sendMessage", "sendMessage"]  # the pad, then the result
        assert win[0].params["_result"]["message_id"] == pad.message and "✅" in str(win[1].params["text"])
        assert len(board_edits) == 1 and "138" in str(board_edits[0].params["text"])  # bob's 138, below
        assert [int(c.params["message_id"]) for c in tidied] == [pad.message]  # its buttons, later
        toasts = [c for c in fake.calls[before:] if c.method == "answerCallbackQuery"]
        # every tap answered at once with what it did; 确认's answer is the result, in the group
        assert len(toasts) == 18 and all(c.params.get("text") for c in toasts[:-1]) and "text" not in toasts[-1].params
        assert answers[4] == "bob 自摸 · 已点：12万 ＋3万（还差 11 张）"  # 1万 2万 3万 tapped
        assert await balances(db) == [-46, 138, -46, -46]  # RULES §11 example 1, as above


async def test_the_pad_never_shows_a_count_a_tap_would_leave_stale(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        pad = await Pad.opened(bot, BOB)
        text = str(pad.keyboard.params["text"])
        assert not re.search(r"\d", text)  # no count at all: the counts are in each tap's answer
        await pad("bob 胡", "自摸", "1万", "2万")
        assert fake.shown[(-100111, pad.message)][0] == text and not fake.sent("editMessageText")


async def test_three_logged_melds_leave_five_tiles_in_nine_taps(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "/pong alice E")
        await bot.say(BOB, "/pong dave 4p")
        await bot.say(BOB, "/pong carol 7s")
        pad = await Pad.opened(bot, BOB, "/hu")
        said = await pad("bob 胡", "carol 放炮")
        assert "已记：碰东 碰4筒 碰7条（不用再点）" in said and "还差 5 张" in said  # 14 − 3 × 3
        await pad("1筒", "1筒", "7条", "9条", "8条")
        preview = await pad("🌸4")
        # 11p 79s [EEE] [444p] [777s] +8s on carol's discard, 4 hard: sole wait 8s 压档 1, 风碰 1, 缺一
        # (no 万) 1: 20 + 2×(4+3) = 34; 8s is no pong's tile, so no 压绝
        assert "= 34 花" in preview
        await pad("确认")
        assert await balances(db) == [0, 34, -34, 0]


async def test_a_fifth_copy_is_answered_with_why(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(ALICE, "/pong carol 5p")  # three 5p at the table
        pad = await Pad.opened(bot, BOB, "/hu")
        assert await pad("bob 胡", "自摸", "5筒") == "bob 自摸 · 已点：＋5筒（还差 13 张）"  # the fourth
        assert await pad("5筒") == "5筒 四张都已在桌上：这一下没有算上"
        assert await pad("4筒") == "bob 自摸 · 已点：5筒 ＋4筒（还差 12 张）"  # the fifth counted for nothing


# ---- the command layer: tapped and typed move the same money ----------------------------------------


HANDS = [
    # (logged before, typed line, the taps after winner and discarder, flowers, B's balance)
    (
        # RULES §11 example 2: sole wait 8s 压档 1, 风碰 1, 缺一 1: 20 + 2×(4+3) = 34, paid by C
        ["B: /pong A E", "B: /pong D 4p"],
        "B: /hu C 11p 567s 79s [EEE] [444p] +8s flowers=4",
        ["1筒", "1筒", "5条", "6条", "7条", "7条", "9条", "8条"],
        "4",
        34,
    ),
    (
        # 12s waits on 3s alone: 边枝 1; all three suits, no 缺一; 门清 20: 20 + 2×(4+1) + 20 = 50
        [],
        "B: /hu C 123m 456m 789p 55p 12s +3s flowers=4",
        ["1万", "2万", "3万", "4万", "5万", "6万", "7筒", "8筒", "9筒", "5筒", "5筒", "1条", "2条", "3条"],
        "4",
        50,
    ),
    (
        # 222p 5p waits on 5p alone (the pair): 独占 1, 缺一 (no 条) 1, 门清 20, self-draw:
        # 20 + 2×(2+2) + 20 = 48 from each of three = 144
        [],
        "B: /hu self 123m 456m 789m 222p 5p +5p flowers=2",
        ["1万", "2万", "3万", "4万", "5万", "6万", "7万", "8万", "9万", "2筒", "2筒", "2筒", "5筒", "5筒"],
        "2",
        144,
    ),
    (
        # 79s waits on 8s, whose other three copies are B's own pong: 压绝 40 in place of 压档; all three
        # suits; not 门清 (a pong): 20 + 2×1 + 40 = 62
        ["B: /pong D 8s"],
        "B: /hu C 123m 456m 79s 55p [888s] +8s flowers=1",
        ["1万", "2万", "3万", "4万", "5万", "6万", "7条", "9条", "5筒", "5筒", "8条"],
        "1",
        62,
    ),
    (
        # 七对 80 (no 门清, no wait flower), all three suits, no wind triplet: 20 + 2×1 + 80 = 102
        [],
        "B: /hu C 11m 33m 55p 77p 99s EE 2s +2s flowers=1",
        ["1万", "1万", "3万", "3万", "5筒", "5筒", "7筒", "7筒", "9条", "9条", "东", "东", "2条", "2条"],
        "1",
        102,
    ),
]


@pytest.mark.parametrize(("logged", "typed", "taps", "flowers", "won"), HANDS)
async def test_tapped_and_typed_hands_move_the_same_money(
    table: Table, logged: list[str], typed: str, taps: list[str], flowers: str, won: int
) -> None:
    other = Table(table.referee, "group-typed")
    for chat in (table, other):
        await chat.play("/new A B C D\n" + "\n".join(logged))
    source = "自摸" if " self " in typed else "C 放炮"
    done = await tap_through(table, "B", ["B 胡", source, *taps, f"🌸{flowers}", "确认"])
    assert done.recorded
    await other.say(typed)
    assert (await table.balances())["B"] == won
    assert await table.balances() == await other.balances()


async def test_seven_pairs_show_their_pattern(table: Table) -> None:
    await table.say("/new A B C D")
    taps = HANDS[-1][2]
    preview = await tap_through(table, "B", ["B 胡", "C 放炮", *taps, "🌸1"])
    # 七对 80: 20 + 2×1 + 80 = 102
    assert preview.press_answer == "alert" and "七对80" in text_of(preview) and "= 102 花" in text_of(preview)


async def test_a_logged_meld_without_its_tile_asks_for_it_in_one_tap(table: Table) -> None:
    await table.play("/new A B C D\nB: 碰 A\nB: 碰 D")  # two pongs, no tiles
    tap = await Tapping.opened(table, "B")
    said = text_of(await tap("B 胡", "C 放炮"))
    assert "先点记下的碰是哪张牌" in said and "已记：碰？ 碰？" in said
    await tap("东")
    said = text_of(await tap("4筒"))
    assert "已记：碰东 碰4筒" in said and "还差 8 张" in said
    preview = await tap("1筒", "1筒", "5条", "6条", "7条", "7条", "9条", "8条", "🌸4")
    # RULES §11 example 2 again: 20 + 2×(4+3) = 34
    assert "= 34 花" in text_of(preview)
    assert (await tap("确认")).recorded
    assert await table.balances() == {"A": 0, "B": 34, "C": -34, "D": 0}


async def test_a_pong_the_log_never_saw_is_added_on_the_pad(table: Table) -> None:
    await table.say("/new A B C D")
    tap = await Tapping.opened(table, "B")
    said = text_of(await tap("B 胡", "C 放炮", "东", "东", "东", "+碰"))
    assert "已点：碰东（还差 11 张）" in said
    preview = text_of(await tap("1筒", "1筒", "5条", "6条", "7条", "7条", "9条", "4筒", "4筒", "4筒", "8条", "🌸4"))
    # 11p 567s 79s 444p [EEE] +8s: the 4p triplet concealed, the east pong breaks 门清; 压档 1, 风碰 1,
    # 缺一 1: 20 + 2×(4+3) = 34
    assert "= 34 花" in preview and "[EEE]" in preview


async def test_backspace_takes_back_the_last_tile(table: Table) -> None:
    await table.say("/new A B C D")
    said = await tap_through(table, "B", ["B 胡", "C 放炮", "1万", "9条", "⌫"])
    assert text_of(said) == "B 胡 C 的牌 · 已点：1万（还差 13 张）"


async def test_a_tile_before_the_winner_or_a_winner_on_their_own_discard_is_refused(table: Table) -> None:
    await table.say("/new A B C D")
    tap = await Tapping.opened(table, "B")
    first = await tap("1万")
    assert first.refused and first.press_answer == "alert" and text_of(first) == "先点谁胡：这一下没有算上"
    assert "不会放自己的炮" in text_of(await tap("B 胡", "B 放炮"))
    # a slip of the finger on who won is mended by the next tap: the tiles stay
    said = text_of(await tap("C 放炮", "1万", "2万", "A 胡"))
    assert said == "A 胡 C 的牌 · 已点：1万 ＋2万（还差 12 张）"
    assert text_of(await tap("C 胡")) == "C 胡，再点谁放炮或「自摸」 · 已点：1万 ＋2万（还差 12 张）"


async def test_a_crafted_fifth_copy_is_refused_and_records_nothing(table: Table) -> None:
    await table.play("/new A B C D\nA: /pong C 5p")
    tap = await Tapping.opened(table, "B")
    await tap("B 胡", "C 放炮", "5筒")  # the fourth 5p
    answer = await table.respond(f"B: {tap.head}otD")  # a fifth 5p (tile 13 is D in the alphabet)
    assert answer is not None and answer.refused and not answer.recorded
    assert "5筒 四张都已在桌上" in text_of(answer)
    said = await table.respond(f"B: {tap.head}ot0")  # the pad is as it was: one tile, 5p, then 1m
    assert said is not None and "已点：5筒 ＋1万" in text_of(said)
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}


async def test_an_unreadable_tap_is_refused(table: Table) -> None:
    await table.say("/new A B C D")
    tap = await Tapping.opened(table, "B")
    await tap("B 胡", "C 放炮")
    for op in ("oz", "ot!", "otz", "ot", "ov4", "ovs", "od4", "oh", "ohl", "of6", "ob1", "ox1", "c" + "z" * 14):
        answer = await table.respond(f"B: {tap.head}{op}")
        assert answer is not None and answer.refused and "看不懂" in text_of(answer), op


async def test_the_flags_offered_are_those_some_win_could_claim_now(table: Table) -> None:
    await table.play("/new A B C D\nB: /gang self 3m\nA: /pong C 7p\nD: /pong A 9s")
    pad = (await Tapping.opened(table, "B")).pad
    # B's last act is a gang (大杠开花 on a self-draw); A and D hold pongs (抢杠 on their discard); a
    # self-draw with a hard flower (小杠开花), the last tile (海底); C has made no meld and is not the
    # dealer (地胡); the dealer A has (no 天胡)
    flags = [label for label, c in zip(labels_of(pad), pad.choices, strict=True) if c.command[-2:-1] == "f"]
    assert flags == ["大杠开花", "小杠开花", "海底捞月", "地胡", "抢杠"]


async def test_on_a_discard_win_no_self_draw_flag_is_offered_when_declared(table: Table) -> None:
    await table.play("/new A B C D\nB: /gang self 3m")
    step = await press_label(table, await tap_through(table, "B", ["B 胡", "C 放炮", "报番型"]), "B", "4")
    labels = set(labels_of(step))
    assert "大杠开花" not in labels and "海底捞月" not in labels and "抢杠" not in labels  # C holds no pong
    await table.say("C: /pong D 7p")
    step = await press_label(table, await tap_through(table, "B", ["B 胡", "C 放炮", "报番型"]), "B", "4")
    assert "抢杠" in set(labels_of(step))  # C's pong of 7p could have been upgraded and robbed
    step = await press_label(table, await tap_through(table, "B", ["B 胡", "自摸", "报番型"]), "B", "4")
    drawn = set(labels_of(step))
    assert "大杠开花" in drawn and "海底捞月" in drawn and "抢杠" not in drawn


def test_every_tile_button_fits_telegrams_64_bytes() -> None:
    """The longest tap after the longest head and the button's night and hand."""
    head = Head(minute=99_999_999, night=9_999_999, hand=999, name="z" * NAME_LENGTH)
    longest = f"9999999:999:/hu {head.text}ods"
    assert len(longest.encode()) <= CALLBACK_LIMIT


def labels_of(response: Response) -> list[str]:
    return [render(c.label, Translator(response.language)) for c in response.choices]


async def test_the_console_and_english_read_the_same_steps(table: Table) -> None:
    await table.play("/new A B C D\n/lang en\nB: /pong A E")
    tap = await Tapping.opened(table, "B")
    assert labels_of(tap.pad)[:6] == ["A won", "B won", "C won", "D won", "Self-draw", "from A"]
    assert "1m" in labels_of(tap.pad) and "Declare patterns" in labels_of(tap.pad)
    said = text_of(await tap("B won", "from C"))
    logged = "logged: pong E (not tapped again)"
    assert said == f"B on C's discard · {logged} · tap the hand: 11 to go, the winning tile last"
    assert re.search(r"/hu ~t\d+g\d+d\d+n[0-9a-z]{5}ov0$", tap.pad.choices[0].command)  # the flow and one tap


async def test_a_gang_by_its_tile_then_a_hand_after_it(table: Table) -> None:
    await table.say("/new A B C D")
    step = await table.respond("B: /gang")
    assert step is not None
    step = await press_label(table, step, "B", "暗杠")
    assert "B 杠的是哪张" in text_of(step) and "3万" in labels_of(step) and "记下" in labels_of(step)
    done = await press_label(table, step, "B", "3万")
    assert done.recorded
    assert await table.balances() == {"A": -3, "B": 9, "C": -3, "D": -3}  # 暗杠: 3 from each other
    tap = await Tapping.opened(table, "B")
    assert "已记：暗杠3万（不用再点）" in text_of(await tap("B 胡", "自摸"))
    assert "3万 四张都已在桌上" in text_of(await tap("3万"))  # all four are in the gang
    await tap("4万", "5万", "6万", "7万", "8万", "9万", "2筒", "3筒", "4筒", "5筒", "5筒", "🌸2")
    preview = text_of(await tap("大杠开花"))  # right after his gang: on the pad, and toggled
    # (3333m) 456m 789m 234p 5p +5p self-drawn after the gang, 2 hard: waits 2p/5p (no wait flower);
    # soft: the gang 2, 缺一 (no 条) 1; 门清 (a concealed gang keeps it) 20, 大杠开花 40:
    # 20 + 2×(2+2+1) + 20 + 40 = 90 from each (after a concealed gang nobody is liable)
    assert "= 90 花" in preview
    assert (await tap("确认")).recorded
    assert await table.balances() == {"A": -93, "B": 279, "C": -93, "D": -93}


async def test_the_pattern_list_offers_only_what_the_log_allows(table: Table) -> None:
    await table.play("/new A B C D\nB: /pong A E")
    step = await press_label(table, await tap_through(table, "B", ["B 胡", "C 放炮", "报番型"]), "B", "4")
    ponged = set(labels_of(step))
    # a wind pong rules out 清一色 and every seven-pairs hand; 混一色 and 对对胡 still can be
    assert "清一色" not in ponged and "七对" not in ponged and "豪华七对" not in ponged
    assert "混一色" in ponged and "对对胡" in ponged
    step = await press_label(table, await tap_through(table, "C", ["C 胡", "D 放炮", "报番型"]), "C", "4")
    concealed = set(labels_of(step))
    assert "清一色" in concealed and "七对" in concealed


async def test_declaring_patterns_goes_on_from_who_won_on_whom(table: Table) -> None:
    await table.say("/new A B C D")
    step = await tap_through(table, "B", ["B 胡", "C 放炮", "1万", "报番型"])
    assert step.edits and "B 有几个硬花" in text_of(step)  # the tiles set aside: the patterns are named
    step = await press_label(table, step, "B", "4")
    assert (await press_label(table, step, "B", "确认")).recorded
    # no pattern, 门清 from the log: 20 + 2×4 + 20 = 48, paid by C
    assert await table.balances() == {"A": 0, "B": 48, "C": -48, "D": 0}


async def test_a_gang_the_log_never_saw_is_added_on_the_pad(table: Table) -> None:
    await table.say("/new A B C D")
    tap = await Tapping.opened(table, "B")
    await tap("B 胡", "C 放炮", "9条", "9条", "9条")
    assert "+杠 要最后点的牌有四张" in text_of(await tap("+杠"))
    assert "已点：明杠9条（还差 11 张）" in text_of(await tap("9条", "+杠"))
    preview = text_of(await tap("1万", "2万", "3万", "4万", "5万", "6万", "7万", "8万", "9万", "东", "东", "🌸4"))
    # 123456789m EE [9999s] +E on C's discard, 4 hard: the gang keeps 门清 20 (an exposed gang, RULES
    # §5); soft: the gang 2, the pair wait on E alone 独占 1, 缺一 (no 筒) 1: 20 + 2×(4+4) + 20 = 56
    assert "[9999s]" in preview and "= 56 花" in preview


async def test_the_line_the_preview_shows_moves_the_same_money_when_typed(table: Table) -> None:
    other = Table(table.referee, "group-shown")
    for chat in (table, other):
        await chat.play("/new A B C D\nB: /pong A E\nB: /pong D 4p")
    tap = await Tapping.opened(table, "B")
    preview = await tap("B 胡", "C 放炮", "1筒", "1筒", "5条", "6条", "7条", "7条", "9条", "8条", "🌸4")
    shown = re.search(r"手打：(B: /hu .+)$", text_of(preview), re.M)
    assert shown is not None
    assert (await tap("确认")).recorded
    await other.say(shown.group(1))
    # RULES §11 example 2: 20 + 2×(4+3) = 34, paid by C
    assert await table.balances() == await other.balances() == {"A": 0, "B": 34, "C": -34, "D": 0}


async def test_the_console_prints_the_pad_once_then_a_line_a_tap(referee: Referee) -> None:
    """#41: the pad does not change, so the console prints it once; a tap prints what it was answered
    with (the tiles so far, how many are left), a line. Its buttons are pressed by typing their labels."""
    out = io.StringIO()
    console = Console(referee, "console-pad", None, out, Path("."))
    await console.run_line("/new A B C D")
    await console_step(console, out, "B: /hu")
    assert sum(line.startswith("  [1万] [2万]") for line in out.getvalue().splitlines()) == 1
    printed = []
    for label in ["B 胡", "自摸", *CONCEALED]:
        await console_step(console, out, f"B: {label}")
        printed.append(out.getvalue().splitlines())
    assert printed[2] == ["B 自摸 · 已点：＋1万（还差 13 张）", ""]
    assert all(len(lines) == 2 for lines in printed)  # a line and the gap: never the pad again
    await console_step(console, out, "B: 🌸2")
    await console.run_line("B: 确认")
    assert "✅" in out.getvalue()
    # RULES §11 example 1: 20 + 2×(2+1) + 门清 20 = 46 from each
    assert await Table(referee, "console-pad").balances() == {"A": -46, "B": 138, "C": -46, "D": -46}


async def test_a_meld_made_last_asks_which_tile_won(table: Table) -> None:
    await table.say("/new A B C D")
    taps = ["1筒", "1筒", "5条", "6条", "7条", "7条", "8条", "9条", "4筒", "4筒", "4筒", "东", "东", "东"]
    tap = await Tapping.opened(table, "B")
    assert "（齐了）" in text_of(await tap("B 胡", "C 放炮", *taps))  # full, but the east can still be a pong
    assert "胡的是哪一张？点手里的那张" in text_of(await tap("+碰"))
    said = text_of(await tap("8条"))  # a tile of the hand: the winning one
    assert "＋8条（齐了）" in said and "再点硬花数" in said
    preview = text_of(await tap("🌸4"))
    # 11p 444p 567s 79s [EEE] +8s on C's discard: 压档 1, 风碰 1, 缺一 1: 20 + 2×(4+3) = 34 (the pong
    # breaks 门清)
    assert "= 34 花" in preview and "[EEE] +8s" in preview


async def test_a_confirm_of_an_unfinished_pad_says_what_is_missing(table: Table) -> None:
    await table.say("/new A B C D")
    tap = await Tapping.opened(table, "B")
    answer = await tap("确认")
    assert answer.refused and not answer.recorded
    assert text_of(answer) == "还不能确认，还差：谁胡、谁放炮（或自摸）、手牌、硬花数"
    assert text_of(await tap("B 胡", "C 放炮", "确认")) == "还不能确认，还差：手牌、硬花数"
    assert text_of(await tap(*CONCEALED, "确认")) == "还不能确认，还差：硬花数"
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}


async def test_robbing_an_added_gang_taps_its_tile(table: Table) -> None:
    await table.play("/new A B C D\nC: /pong D 5p\nC: /gang add 5p")  # D fed the pong: D → C 6 (补杠)
    taps = ["1万", "2万", "3万", "4万", "5万", "6万", "7万", "8万", "9万", "3筒", "4筒", "东", "东", "5筒"]
    tap = await Tapping.opened(table, "B")
    preview = await tap("B 胡", "C 放炮", *taps, "🌸4")
    assert "这样记不下" in text_of(preview)  # the fourth 5p is C's gang's: only as 抢杠
    preview = await tap("抢杠")
    # 123456789m 34p EE +5p robbing C's gang, 4 hard: waits 2p/5p (no wait flower), 缺一 (no 条) 1,
    # 门清 20: 20 + 2×(4+1) + 20 = 50, counted as a self-draw (50 from each of three) that C pays alone
    # (RULES §8: 150), and C's gang money is returned (D → C 6 undone)
    assert "= 50 花" in text_of(preview)
    assert (await tap("确认")).recorded
    assert await table.balances() == {"A": 0, "B": 150, "C": -150, "D": 0}


async def test_a_tapped_win_records_once(table: Table) -> None:
    await table.say("/new A B C D")
    tap = await Tapping.opened(table, "B")
    await tap("B 胡", "自摸", *CONCEALED, "🌸2")
    assert (await tap("确认")).recorded
    again = await tap("确认")  # a double tap, or the line typed again
    assert not again.recorded and again.press_answer == "toast" and "已记录 #" in text_of(again)
    assert "已记录 #" in text_of(await tap("1万"))  # any button of the pad: recorded already
    # RULES §11 example 1 once: 46 from each of three
    assert await table.balances() == {"A": -46, "B": 138, "C": -46, "D": -46}


MELD_LINES = {
    MeldKind.PONG: ["B: /pong D {tile}"],
    MeldKind.EXPOSED_GANG: ["B: /gang D {tile}"],
    MeldKind.CONCEALED_GANG: ["B: /gang self {tile}"],
    MeldKind.ADDED_GANG: ["B: /pong D {tile}", "B: /gang add {tile}"],
}


def label_of(tile: int) -> str:
    return render(tile_label(tile), Translator("zh-Hans"))


async def test_seeded_hands_move_the_same_money_tapped_or_typed(referee: Referee) -> None:
    """Every kind of hand (melds logged first, seven pairs, one suit, 压绝), on a discard and drawn: no
    money figure is asserted here (the hand-worked ones are above), only that the two ways of
    entering a hand are one."""
    for number, hand in enumerate(varied_hands(seed=24, per_kind=3)):
        tapped, typed = Table(referee, f"tap-{number}"), Table(referee, f"type-{number}")
        logged = [line.format(tile=tile_name(m.tile)) for m in hand.melds for line in MELD_LINES[m.kind]]
        for chat in (tapped, typed):
            await chat.play("/new A B C D\n" + "\n".join(logged))
        self_draw = number % 2 == 1
        labels = [label_of(t) for t in hand.concealed] + [label_of(hand.winning), "🌸4"]
        tap = await Tapping.opened(tapped, "B")
        preview = await tap("B 胡", "自摸" if self_draw else "C 放炮", *labels)
        line = f"B: /hu {'self' if self_draw else 'C'} {format_hand(hand)} flowers=4"
        answer = await typed.respond(line)
        assert answer is not None
        # every seeded hand is a winning shape and 4 hard flowers meet the 小胡 limit: both record it
        assert answer.recorded and "这样记不下" not in text_of(preview), (line, text_of(preview))
        assert (await tap("确认")).recorded
        assert await tapped.balances() == await typed.balances(), line
