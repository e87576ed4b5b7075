"""Melds at a win: the typed hand is the truth; logged pongs without a tile match any typed pong;
melds never logged are accepted; a logged gang missing from the typed hand is named, by its number."""

from __future__ import annotations

import re
from pathlib import Path

from tests.kit.harness import Table

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def headline_blocks() -> list[tuple[list[str], list[str]]]:
    """The README's opening examples: (typed lines, expected output lines) per code block."""
    intro = README.split("## Quick start", 1)[0]
    blocks = []
    for block in re.findall(r"```\n(.+?)\n```", intro, re.DOTALL):
        typed = [line for line in block.splitlines() if re.match(r"^[^\s:：🀄]+: ", line)]
        shown = [line.strip() for line in block.splitlines() if line not in typed]
        blocks.append((typed, shown))
    return blocks


def squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text)


async def test_the_readme_headline_example_works_as_shown(table: Table) -> None:
    (typed, shown), (typed_en, shown_en) = headline_blocks()
    table.default_speaker = "张三"
    out = squeeze(await table.play("\n".join(typed)))
    for line in shown:
        assert squeeze(line) in out, line
    # the English block is the same win, typed in the English night of the same table
    english = Table(table.referee, "readme-en", language="en", default_speaker="Alice")
    await english.say("Alice: /new Alice Bob Carol Dave stake=2")
    await english.say("Bob: /pong Carol")
    out_en = squeeze(await english.play("\n".join(typed_en)))
    for line in shown_en:
        assert squeeze(line) in out_en, line
    # 20 + 2×4 + 风碰 2 + 缺一门 2 + 压档 2 = 34, paid by the discarder; 68 at a stake of 2
    assert await table.balances() == {"张三": 0, "李四": 34, "王五": -34, "赵六": 0}
    assert await english.balances() == {"Alice": 0, "Bob": 34, "Carol": -34, "Dave": 0}


async def test_rules_example_3_with_the_gang_logged_and_the_pong_only_typed(table: Table) -> None:
    table.language = "en"
    await table.play(
        """
        /new A B C D
        D: /gang self 3m
        D: /hu self 222m 55m 88m [777m] (3333m) +8m flowers=1
        """
    )
    # RULES §11.3: the 暗杠 paid 3 from each at once; the win 20 + 2×(1+2) + 清一色 60 + 对对胡 40 = 126
    # from each; [777m] was never logged and is accepted as typed
    assert await table.balances() == {"A": -129, "B": -129, "C": -129, "D": 387}


async def test_rules_example_3_in_chinese_with_a_logged_pong_without_tile(table: Table) -> None:
    table.default_speaker = "甲"
    await table.play(
        """
        开局 甲 乙 丙 丁
        丁: 碰 甲
        丁: 暗杠 3m
        丁: 胡 自摸 222m 55m 88m [777m] (3333m) +8m 花1
        """
    )
    # the logged pong (tile not given) is the typed [777m]; everyone pays 126 for the win, 3 for the gang
    assert await table.balances() == {"甲": -129, "乙": -129, "丙": -129, "丁": 387}


async def test_a_logged_gang_missing_from_the_typed_hand_is_named(table: Table) -> None:
    table.default_speaker = "甲"
    await table.play("开局 甲 乙 丙 丁\n丁: 暗杠 3m")
    before = await table.balances()
    out = await table.say("丁: 胡 自摸 123m 456m 789m 55p [777m] +5p 花2")
    assert out == "#2 暗杠 3m 不在胡的牌里：把它写进去，或先 撤销 2"
    table.language = "en"
    out = await table.say("丁: /hu self 123m 456m 789m 55p [777m] +5p flowers=2")
    assert "#2 concealed gang 3m is not in the winning hand: type it in, or /undo 2 first" in out
    assert await table.balances() == before


async def test_a_logged_pong_without_tile_needs_the_melds_typed(table: Table) -> None:
    table.language = "en"
    await table.play("/new A B C D\nB: /pong C")
    out = await table.say("B: /hu self 11p 567s 79s EEE 444p +8s flowers=4")
    assert "#2 pong was logged without its tile" in out
    assert ":" not in out.split("tile")[0].replace("#2", "")  # no internal codes such as pong:?
