"""A refusal carries the buttons that mend its line (bot/chat/handlers/refusals.py; #49 item 1: no command
name is tested in the dispatcher): a win typed whole but for its hard flowers is refused with one
button per count, each the same line with it, good in this hand only; a fix refused for the same reason
offers none (the fix's line is not the win's).

Money by hand (docs/rules.md §6, nanjing, stake 1): 李四 wins on 王五's discard with
123m456m789m234p5p+5p and 4 hard flowers: 跑 20 + 砸 2 × (4 hard + 1 soft for 缺一: no 索) = 10 + 门清
20 = 50 (no wait flower: 2345p waited on 2p or 5p), paid by 王五.
"""

from __future__ import annotations

from tests.kit.harness import Table

HAND = "123m456m789m234p5p+5p"


async def test_a_win_without_its_flowers_offers_each_count(table: Table) -> None:
    await table.say("/new 张三 李四 王五 赵六")
    before = await table.row_counts()
    response = await table.respond(f"李四: 胡 王五 {HAND}")
    assert response is not None and response.refused and not response.recorded
    assert response.replies[0].key == "hu.needs_flowers"
    assert [c.command for c in response.choices] == [f"胡 王五 {HAND} 花{n}" for n in range(9)]
    assert (response.night_id, response.hand_no) == (1, 1)  # a button of another hand is stale
    assert await table.row_counts() == before
    slash = await table.respond(f"李四: /hu 王五 {HAND}")  # a /command's count is flowers=N
    assert slash is not None and slash.choices[4].command == f"/hu 王五 {HAND} flowers=4"
    recorded = await table.respond(f"李四: {response.choices[4].command}")  # 4 pressed
    assert recorded is not None and recorded.recorded
    assert await table.balances() == {"张三": 0, "李四": 50, "王五": -50, "赵六": 0}


async def test_a_fix_refused_for_the_flowers_offers_no_counts(table: Table) -> None:
    await table.say("/new 张三 李四 王五 赵六")
    assert "✅ #2" in await table.say(f"李四: 胡 王五 {HAND} 花4")
    response = await table.respond(f"李四: 改 2 胡 王五 {HAND}")
    assert response is not None and response.refused and response.replies[0].key == "hu.needs_flowers"
    assert response.choices == ()
