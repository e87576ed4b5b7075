"""Numbers said are the numbers in force (#47 item 7, docs/rules.md 20): every message that states a
rule's number reads it from the rules in force, never from the catalog. 4 hard flowers by nanjing
(小胡 needs 4) win; under `small_hu_min_hard=6` the refusal says 6. Under `factor=3` every 比下胡 line
says ×3.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.kit.harness import Table

# B's discard win of worked example 2, not 门清 (it holds pongs), no 大胡: a 小胡 with 4 hard flowers
SMALL_WIN = "B: /hu C 11p 567s 79s [EEE] [444p] +8s flowers=4"
CATALOGS = Path(__file__).parent.parent / "locales"


async def test_the_small_win_limit_said_is_the_one_in_force(table: Table) -> None:
    await table.say("A: /new A B C D")
    await table.say("A: /rules set small_hu_min_hard=6")
    out = await table.say(SMALL_WIN)
    assert "小胡要至少 6 个硬花" in out and "4 个硬花" not in out


async def test_the_doubling_said_is_the_factor_in_force(table: Table) -> None:
    await table.say("A: /new A B C D")
    await table.say("A: /rules set factor=3")
    out = await table.say("A: /draw")  # 荒庄 doubles the next hand
    assert "比下胡（×3）" in out and "×2" not in out
    board = await table.say("A: /score")
    assert "比下胡 ×3" in board and "×2" not in board
    rules = await table.say("A: /rules all")
    assert "下一盘 ×3" in rules and "× 3，N 是庄家连庄的盘数" in rules


def test_no_catalog_writes_a_rules_number_into_its_text() -> None:
    """The keys that state a rule's number take it as a field: 比下胡's factor, the 小胡 limit."""
    for catalog in CATALOGS.glob("*/LC_MESSAGES/referee.po"):
        text = catalog.read_text(encoding="utf-8")
        for key in ("board.doubled", "hand.doubled_mark", "rules.triggers", "rules.leibaota", "table.next_doubled"):
            body = re.search(rf'msgid "{re.escape(key)}"\nmsgstr "(.*)"', text)
            assert body is not None and "{factor}" in body[1], (catalog, key)
        body = re.search(r'msgid "win.below_limit"\nmsgstr "(.*)"', text)
        assert body is not None and "{min_hard}" in body[1], catalog
