"""A chat a table can read at speed (issue #30 item 1): where the board is pinned a win reads in three
lines, a hand-end reply repeats no board, and the full breakdown is one tap away (明细, /history #N)."""

from __future__ import annotations

from pathlib import Path

from bot.text.replies import Response, render
from locales import Translator
from tests.kit.fake_telegram import FakeTelegram
from tests.kit.harness import Table
from tests.kit.messages import rendered
from tests.kit.replies import lines
from tests.kit.telegram import ALICE, BOB, CAROL, GROUP, NEW, Running, board_texts

# B wins on C's discard: 跑 20 + 砸 2 × (4 hard + 风碰 1 + 缺一门 1 + 压档 1) = 20 + 8 + 2 + 2 + 2 = 34
BOB_WINS = "B: 胡 C 11p 567s 79s [EEE] [444p] +8s 花4"
# C self-draws, concealed: 跑 20 + 2 × (2 hard + 缺一门 1) + 门清 20 = 46 from each of the other three
CAROL_DRAWS = "C: 自摸 123m 456m 789m 234p 5p +5p 花2"


def live_lines(response: Response | None) -> list[str]:
    assert response is not None and response.live is not None
    translator = Translator(response.language)
    return [line for reply in response.live for line in render(reply, translator).splitlines() if line.strip()]


async def test_a_win_where_the_board_is_pinned_reads_in_three_lines(table: Table) -> None:
    await table.say("/new A B C D")
    first = live_lines(await table.respond(BOB_WINS))
    assert first == [
        "✅ #2 B 胡 C 的炮 · " + rendered("compact.fix_tip"),  # the first hand of the night only: how to fix
        "  跑20 硬花×4 8 风碰×1 2 缺一门2 压档2 = 34 花",  # one wind pong: 1 soft flower, 砸 ×2
        "  C → B：34 花（34）",
    ]
    second = live_lines(await table.respond(CAROL_DRAWS))
    assert second == ["✅ #3 C 自摸", "  跑20 硬花×2 4 缺一门2 门清20 = 46 花", "  D、A、B → C：各 46 花（46）"]
    # A −46, B 34 − 46 = −12, C −34 + 138 = 104, D −46
    assert await table.balances() == {"A": -46, "B": -12, "C": 104, "D": -46}


async def test_without_a_pinned_board_a_win_keeps_its_items_and_the_board_follows(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say(BOB_WINS)
    response = await table.respond(CAROL_DRAWS)
    assert response is not None
    shown = lines(await table.say("/score"))  # the board as it stands, to compare
    out = lines(render_all(response))
    assert out[:8] == [
        "✅ #3 C 自摸",
        "🀄 C",
        "  跑：20",
        "  硬花 ×2：4",
        "  缺一门：2",
        "  门清：20",
        "  合计 46 花",
        "  D、A、B → C：各 46 花（46）",  # three payments of 46, one line
    ]
    assert out[8:] == shown  # then the board, which says the next hand and its dealer: no line repeats it
    assert not any("记错了" in line or "下一盘" in line for line in out)  # the /fix tail: only after hand 1
    (details,) = [c for c in response.choices if c.command == "/history #3"]
    assert details.anytime and render(details.label, Translator("zh-Hans")) == "明细"


def render_all(response: Response) -> str:
    translator = Translator(response.language)
    return "\n".join(render(reply, translator) for reply in response.replies)


async def test_history_of_one_event_is_its_full_breakdown(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say(CAROL_DRAWS)  # hand 1: C is not the dealer, 46 from each
    out = lines(await table.say("/history #2"))
    assert out[0] == "🔎 #2 明细"
    assert "自摸 123m 456m 789m 234p 5p +5p 花2" in out[1]  # the line as typed
    assert out[2:] == [
        "✅ #2 C 自摸",
        "🀄 C",
        "  跑：20",
        "  硬花 ×2：4",
        "  缺一门：2",
        "  门清：20",
        "  合计 46 花",
        "  D → C：46 花（46）",  # every payment on its own line, with its money
        "  A → C：46 花（46）",
        "  B → C：46 花（46）",
    ]
    assert "#99" in await table.say("/history #99")  # no such event: said, nothing else
    assert "/history #12" in await table.say("/history #x")  # says how to write it


async def test_a_draw_where_the_board_is_pinned_is_one_line(table: Table) -> None:
    await table.say("/new A B C D")
    # RULES: a drawn hand doubles the next one (比下胡); the warning rides on the line
    assert live_lines(await table.respond("荒庄")) == ["✅ #2 荒庄 · ⚠️ 下一盘比下胡（×2）：#2 荒庄"]


async def test_the_one_line_total_in_english_and_traditional(table: Table) -> None:
    await table.say("/new A B C D")
    await table.say("/lang en")
    english = live_lines(await table.respond(BOB_WINS))
    assert english[1] == "  base 20, hard flowers ×4 8, wind pong ×1 2, missing suit 2, middle wait 2 = 34 flowers"
    await table.say("/lang 繁体")
    traditional = live_lines(await table.respond(CAROL_DRAWS))
    assert traditional[1].startswith("  跑20 硬花×2 4") and traditional[1].endswith("= 46 花")
    assert Translator("zh-Hant").t("button.details") == "明細" and Translator("en").t("button.details") == "Details"


# ---- Telegram: the pinned board, the 明细 button -------------------------------------------------


async def test_in_a_pinned_chat_a_win_is_three_lines_and_details_is_a_tap(fake: FakeTelegram, tmp_path: Path) -> None:
    fake.pinners.add(GROUP)
    async with Running(fake, tmp_path / "tg.sqlite3", board_interval=0.0) as bot:
        await bot.say(ALICE, NEW)
        await bot.say(BOB, "花杠")  # bob +18, each other −6
        await bot.front.idle()
        board_id = int(fake.sent("pinChatMessage")[0].params["message_id"])
        out = await bot.say(CAROL, "自摸 123m 456m 789m 234p 5p +5p 花2")
        assert lines(out) == [
            "✅ #3 carol 自摸 · " + rendered("compact.fix_tip"),  # #3: bob's binding with his 花杠 takes no number
            "  跑20 硬花×2 4 缺一门2 门清20 = 46 花",
            # a flower gang in the hand doubles the next one (比下胡): the warning ends the payments' line
            "  dave、alice、bob → carol：各 46 花（46） · ⚠️ 下一盘比下胡（×2）：#2 bob 花杠",
        ]
        assert "📋" not in out and len(board_texts(fake)) == 1  # the board is pinned: not repeated
        await bot.front.idle()
        # carol −6 + 138 = 132; bob 18 − 46 = −28; alice, dave −6 − 46 = −52: 132 − 28 − 104 = 0
        assert "carol：132 花" in fake.shown[(GROUP, board_id)][0]
        sent = [c for c in fake.sent(chat_id=GROUP) if "reply_markup" in c.params][-1]
        (button,) = [b for row in sent.params["reply_markup"]["inline_keyboard"] for b in row if b["text"] == "明细"]
        assert len(button["callback_data"].encode()) <= 64 and button["callback_data"].endswith("/history #3")
        before = len(fake.sent("answerCallbackQuery"))
        await fake.settle(fake.press(BOB, sent, button["callback_data"]))
        await bot.front.idle()
        assert len(fake.sent("answerCallbackQuery")) == before + 1  # answered once
        message_id = int(sent.params["_result"]["message_id"])
        details = fake.shown[(GROUP, message_id)][0]  # written over the win's message: no new lines below
        assert "  合计 46 花" in details
        assert "  dave → carol：46 花（46）" in details and "  bob → carol：46 花（46）" in details
