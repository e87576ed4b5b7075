"""A correction is read at the corrected event's place: after 换人 it names who sat at the table then,
and its reply names them, never the one sitting in that seat now; every correction form is answered,
typed as a /command or in plain words. Money by hand from docs/rules.md (nanjing, stake 1):
  `123m456m789m234p5p+5p` on a discard = 跑 20 + 砸 2 × (hard + 缺一门 1) + 门清 20
  flowers=1: 20 + 2 × 2 + 20 = 44 · flowers=2: 20 + 2 × 3 + 20 = 46, the discarder pays it alone."""

from __future__ import annotations

from tests.kit.harness import Table
from tests.kit.messages import changes

HAND = "123m456m789m234p5p+5p"


async def night_with_a_swap(table: Table) -> None:
    await table.say("/new 甲 乙 丙 丁")
    assert "✅ #2" in await table.say(f"丁: 胡 乙 {HAND} 花1")  # 乙 pays 丁 44
    assert "✅ #3 换人：Eve 坐北" in await table.say("甲: /swap 丁 Eve")


async def test_a_slash_fix_names_who_sat_then_and_its_reply_names_them(table: Table) -> None:
    await night_with_a_swap(table)
    out = await table.say(f"甲: /fix 2 /hu 丁 乙 {HAND} flowers=2")
    assert "没有这个玩家" not in out, out
    assert "✏️ #4 更正了 #2" in out
    assert "🀄 丁" in out and "🀄 Eve" not in out  # the winner of then, not the one sitting there now
    # 44 → 46: 乙 pays 2 more, 丁 (who stood up) gets them; Eve, who sat down after, is untouched
    # at 1 元 a flower, the money moved as the flowers did
    assert changes(("乙", "−2", "−2"), ("丁", "+2", "+2")) in out
    assert await table.balances() == {"甲": 0, "乙": -46, "丙": 0, "丁": 46, "Eve": 0}


async def test_a_plain_fix_naming_who_sat_then_is_answered_and_recorded(table: Table) -> None:
    await night_with_a_swap(table)
    out = await table.say(f"甲: 改 2 丁 胡 乙 {HAND} 花2")
    assert "✏️ #4 更正了 #2" in out and "🀄 丁" in out, out
    assert await table.balances() == {"甲": 0, "乙": -46, "丙": 0, "丁": 46, "Eve": 0}


async def test_an_unnamed_fix_after_the_swap_names_the_winner_of_then(table: Table) -> None:
    await night_with_a_swap(table)
    out = await table.say(f"甲: 改 2 胡 乙 {HAND} 花2")  # unnamed: the corrected win's own winner
    assert "🀄 丁" in out and "🀄 Eve" not in out, out
    assert await table.balances() == {"甲": 0, "乙": -46, "丙": 0, "丁": 46, "Eve": 0}


async def test_every_plain_correction_is_answered(table: Table) -> None:
    await night_with_a_swap(table)
    before = await table.row_counts()
    out = await table.say(f"甲: 改 2 戊 胡 乙 {HAND} 花2")  # nobody called 戊 tonight
    assert "没有这个玩家：戊。在座的有：甲, 乙, 丙, 丁" in out, out
    out = await table.say(f"甲: 改 2 Eve 胡 乙 {HAND} 花2")  # Eve sat down after #2
    assert "#2 那时 Eve 还不在桌上（那个座位是 丁）" in out
    assert "请给出硬花数" in await table.say("甲: 改 2 丁 胡 乙")  # what is missing, not silence
    assert await table.row_counts() == before
    for talk in ("改 1 下", "改天再打", "改一下吧"):  # talk stays talk
        assert await table.respond(f"甲: {talk}") is None, talk
    assert await table.balances() == {"甲": 0, "乙": -44, "丙": 0, "丁": 44, "Eve": 0}


async def test_in_english_the_fix_names_the_player_of_then(table: Table) -> None:
    await table.say("/new Alice Bob Carol Dave")
    await table.say("/lang en")
    await table.say(f"Dave: /hu Bob {HAND} flowers=1")  # Bob pays Dave 44
    await table.say("Alice: /swap Dave Eve")
    out = await table.say(f"Alice: /fix 2 /hu Dave Bob {HAND} flowers=2")
    assert "no player" not in out and "Dave" in out and "Eve" not in out.split("\n")[1], out
    # 44 → 46: Bob −46, Dave +46
    assert await table.balances() == {"Alice": 0, "Bob": -46, "Carol": 0, "Dave": 46, "Eve": 0}


async def test_an_english_plain_fix_naming_nobody_of_then_is_answered(table: Table) -> None:
    await table.say("/new Alice Bob Carol Dave")
    await table.say("/lang en")
    await table.say(f"Dave: /hu Bob {HAND} flowers=1")  # Bob pays Dave 44
    await table.say("Alice: /swap Dave Eve")
    out = await table.say(f"Alice: fix 2 Zed hu Bob {HAND} flowers=2")
    assert "Zed" in out and "Alice, Bob, Carol, Dave" in out, out  # the players of then
    assert await table.respond("Alice: fix it later") is None  # talk stays talk
    assert await table.balances() == {"Alice": 0, "Bob": -44, "Carol": 0, "Dave": 44, "Eve": 0}
