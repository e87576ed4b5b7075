"""A win whose tiles do not add up because the log added a meld names that meld (#48 item 9): B's
concealed gang of 9s is logged at #2; `胡 自摸 123m456m789m234p5p+5p` types 14 tiles with no melds, so
the logged gang is counted as well (docs/rules.md 15: with no melds typed, the logged ones are
used): 14 + 3 = 17 tiles. The refusal says it counted #2's gang, and nothing is recorded."""

from __future__ import annotations

from tests.kit.harness import Table


async def test_the_tile_count_refusal_names_the_logged_gang_it_counted(table: Table) -> None:
    table.language = "en"
    await table.play("/new A B C D\nB: /gang self 9s")
    before = await table.row_counts()
    out = await table.say("B: /hu self 123m456m789m234p5p+5p flowers=1")
    assert "17 tiles (each meld counts 3), a win needs 14" in out
    assert "#2 concealed gang 9s" in out  # the meld the log added, by its line
    assert await table.row_counts() == before


async def test_in_chinese_too(table: Table) -> None:
    await table.play("张三: 开局 张三 李四 王五 赵六\n李四: 暗杠 9s")
    out = await table.say("李四: 胡 自摸 123m456m789m234p5p+5p 花1")
    assert out.splitlines() == [
        "手牌共 17 张（每个副露算 3 张），胡牌要 14 张",
        "算上了这一盘记下的 #2 暗杠 9s：手牌里别再写它的牌，或先撤销那一行",
    ]
