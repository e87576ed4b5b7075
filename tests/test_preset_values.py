"""docs/rules.md §4, §6, §7: every number each preset gives, one hand per number that isolates it.

Each row: the item the hand isolates, the hand in notation, the flags, the item's flowers and the
win's total, all worked out by hand from docs/rules.md (the arithmetic is in the comment of each table).

Base hands (4 hard flowers unless the row says otherwise):
- PONG  `123m 456p 23s 99s [555p] +4s`: a pong (no 门清), all three suits (no 缺一), a two-sided
  23s wait (no wait flower), no winds: only 跑 and the hard flowers count.
- CLOSED `123m 456p 23s 99s 777p +4s`: the same, all concealed (门清).
Each other hand changes one thing about these (tests/kit/hands.py holds them, shared with test_edges).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.preset import load_preset
from engine.scoring import score_declared
from engine.units import WinFlags
from tests.kit.hands import (
    ADDED_GANG,
    BIANZHI,
    CHAOCHAOHAOHUA,
    CHAOHAOHUA,
    CLOSED,
    CONCEALED_GANG,
    DUDIAO,
    DUIDUIHU,
    EXPOSED_GANG,
    H4,
    HAOHUA,
    HUNYISE,
    KANZHANG,
    PONG,
    QIDUI,
    QINGYISE,
    QUANQIU,
    QUE_YI,
    SELF,
    SHUANG_QIDUI,
    WIND_PONG,
    YAJUE,
)
from tests.kit.helpers import items, score

Row = tuple[str, str, dict[str, Any], int, int]


def check(preset: str, key: str, hand: str, flags: dict[str, Any], flowers: int, total: int) -> None:
    result = score(hand, preset, **flags)
    assert result.valid
    assert items(result)[key] == flowers
    assert result.total == total


# ---- nanjing (§6): total = 跑 20 + 砸 2 × (hard + soft) + Σ patterns ---------------------------
NANJING: list[Row] = [
    ("hard", PONG, H4, 8, 28),  # 20 + 2×4
    ("wind_pong", WIND_PONG, H4, 2, 30),  # 20 + 2×(4 + 风碰 1)
    ("gang_exposed", EXPOSED_GANG, H4, 4, 52),  # 20 + 2×(4 + 杠 2) + 门清 20
    ("gang_added", ADDED_GANG, H4, 4, 32),  # 20 + 2×(4 + 2)
    ("gang_concealed", CONCEALED_GANG, H4, 4, 52),  # 20 + 2×(4 + 2) + 门清 20
    ("que_yi", QUE_YI, H4, 2, 30),  # 20 + 2×(4 + 缺一 1)
    ("kanzhang", KANZHANG, H4, 2, 30),  # 20 + 2×(4 + 压档 1)
    ("bianzhi", BIANZHI, H4, 2, 30),  # 20 + 2×(4 + 边枝 1)
    ("dudiao", DUDIAO, H4, 2, 30),  # 20 + 2×(4 + 独占 1)
    ("menqing", CLOSED, H4, 20, 48),  # 20 + 8 + 门清 20
    ("hunyise", HUNYISE, H4, 40, 70),  # 20 + 2×(4 + 风碰 1) + 混一色 40 (no 缺一 on one suit)
    ("qingyise", QINGYISE, H4, 60, 88),  # 20 + 8 + 清一色 60
    ("duiduihu", DUIDUIHU, H4, 40, 68),  # 20 + 8 + 对对胡 40
    ("quanqiu", QUANQIU, H4, 60, 128),  # 20 + 8 + 对对胡 40 + 全球独钓 60
    ("qidui", QIDUI, H4, 80, 108),  # 20 + 8 + 七对 80 (no 门清 with seven pairs)
    ("haohua_qidui", HAOHUA, H4, 160, 188),  # 20 + 8 + 160
    ("chaohaohua_qidui", CHAOHAOHUA, H4, 240, 268),  # 20 + 8 + 240
    ("chaochaohaohua_qidui", CHAOCHAOHAOHUA, H4, 320, 348),  # 20 + 8 + 320
    ("shuang_qidui", SHUANG_QIDUI, H4, 180, 208),  # 20 + 8 + 双七对 180 (beats 豪华 160: highest only)
    ("yajue", YAJUE, H4, 40, 70),  # 20 + 2×(4 + 缺一 1) + 压绝 40 (replaces 压档)
    ("wuhuaguo", CLOSED, {}, 40, 80),  # 20 + 门清 20 + 无花果 40
    ("xiaogangkai", PONG, {**SELF, "after_flower": True}, 20, 48),  # 20 + 8 + 20
    ("dagangkai", ADDED_GANG, {**SELF, "after_gang": True}, 40, 72),  # 20 + 2×(4 + 2) + 40
    ("tianhu", CLOSED, {**SELF, "dealer": True, "heavenly": True}, 320, 368),  # 20 + 8 + 门清 20 + 320
    ("dihu", CLOSED, {**H4, "earthly": True}, 280, 328),  # 20 + 8 + 门清 20 + 280
    ("haidi", PONG, {**SELF, "last_stacks": True}, 10, 38),  # 20 + 8 + 海底 10
]


@pytest.mark.parametrize(("preset"), ["nanjing", "nanjing-6", "nanjing-20"])
@pytest.mark.parametrize(("key", "hand", "flags", "flowers", "total"), NANJING, ids=[r[0] for r in NANJING])
def test_nanjing_family_values(
    preset: str, key: str, hand: str, flags: dict[str, Any], flowers: int, total: int
) -> None:
    """nanjing-6 and nanjing-20 change only instant payments (and 6's wind gangs): same wins."""
    check(preset, key, hand, flags, flowers, total)


# ---- chengbei (§6 table, right column): 跑 10, 砸 2, soft flowers as nanjing ----------------------
CHENGBEI: list[Row] = [
    ("hard", PONG, H4, 8, 18),  # 10 + 2×4
    ("wind_pong", WIND_PONG, H4, 2, 20),  # 10 + 2×(4 + 1)
    ("gang_exposed", EXPOSED_GANG, H4, 4, 32),  # 10 + 2×(4 + 2) + 门清 10
    ("gang_added", ADDED_GANG, H4, 4, 22),  # 10 + 2×(4 + 2)
    ("gang_concealed", CONCEALED_GANG, H4, 4, 32),  # 10 + 12 + 门清 10
    ("que_yi", QUE_YI, H4, 2, 20),  # 10 + 2×(4 + 1)
    ("kanzhang", KANZHANG, H4, 2, 20),
    ("bianzhi", BIANZHI, H4, 2, 20),
    ("dudiao", DUDIAO, H4, 2, 20),
    ("menqing", CLOSED, H4, 10, 28),  # 10 + 8 + 门清 10
    ("hunyise", HUNYISE, H4, 30, 50),  # 10 + 2×(4 + 1) + 30
    ("qingyise", QINGYISE, H4, 50, 68),  # 10 + 8 + 50
    ("duiduihu", DUIDUIHU, H4, 30, 48),  # 10 + 8 + 30
    ("quanqiu", QUANQIU, H4, 50, 98),  # 10 + 8 + 对对胡 30 + 50
    ("qidui", QIDUI, H4, 50, 68),  # 10 + 8 + 50
    ("haohua_qidui", HAOHUA, H4, 160, 178),  # 10 + 8 + 160
    ("chaohaohua_qidui", CHAOHAOHUA, H4, 240, 258),  # 10 + 8 + 240
    ("chaochaohaohua_qidui", CHAOCHAOHAOHUA, H4, 320, 338),  # 10 + 8 + 320
    ("yajue", YAJUE, H4, 30, 50),  # 10 + 2×(4 + 1) + 30
    ("wuhuaguo", CLOSED, {}, 30, 50),  # 10 + 门清 10 + 30
    ("xiaogangkai", PONG, {**SELF, "after_flower": True}, 10, 28),  # 10 + 8 + 10
    # 兜底翻: (10 + 2×(4 + 2)) = 22, the whole total ×2 = 44; the item shows the 22 it adds.
    ("dagangkai", ADDED_GANG, {**SELF, "after_gang": True}, 22, 44),
    ("tianhu", CLOSED, {**SELF, "dealer": True, "heavenly": True}, 320, 348),  # 10 + 8 + 10 + 320
    ("dihu", CLOSED, {**H4, "earthly": True}, 30, 58),  # 10 + 8 + 10 + 30
    ("haidi", PONG, {**SELF, "last_stacks": True}, 10, 28),  # 10 + 8 + 10
]


@pytest.mark.parametrize(("key", "hand", "flags", "flowers", "total"), CHENGBEI, ids=[r[0] for r in CHENGBEI])
def test_chengbei_values(key: str, hand: str, flags: dict[str, Any], flowers: int, total: int) -> None:
    check("chengbei", key, hand, flags, flowers, total)


def test_chengbei_shuang_qidui_is_100_when_declared() -> None:
    # A typed 双七对 hand is also 豪华 (160 beats 100), so the 100 shows only in a declared win:
    # 10 + 2×4 + 100 = 118.
    result = score_declared(["shuang_qidui"], WinFlags(hard_flowers=4), load_preset("chengbei"))
    assert result.total == 118


def test_chengbei_yajue_with_three_hard_flowers_is_refused() -> None:
    # 压绝 is no 大胡 in chengbei and the hand has a pong: the 小胡 limit of 4 applies.
    assert not score(YAJUE, "chengbei", hard_flowers=3).valid
    assert score(YAJUE, "nanjing", hard_flowers=3).valid


# ---- jinyuanzi (§7): values pre-doubled, no 砸; hard 2, soft 2 (concealed gang 4) ----------------
JINYUANZI: list[Row] = [
    ("hard", PONG, H4, 8, 28),  # 20 + 2×4
    ("wind_pong", WIND_PONG, H4, 2, 30),  # 20 + 8 + 风刻 2
    ("gang_exposed", EXPOSED_GANG, H4, 2, 50),  # 20 + 8 + 2 + 门清 20
    ("gang_added", ADDED_GANG, H4, 2, 30),  # 20 + 8 + 2
    ("gang_concealed", CONCEALED_GANG, H4, 4, 52),  # 20 + 8 + 4 + 门清 20
    ("que_yi", QUE_YI, H4, 2, 30),  # 20 + 8 + 缺门 2
    ("kanzhang", KANZHANG, H4, 2, 30),  # 20 + 8 + 卡张 2
    ("bianzhi", BIANZHI, H4, 2, 30),  # 20 + 8 + 边张 2
    ("dudiao", DUDIAO, H4, 2, 30),  # 20 + 8 + 单钓 2
    ("menqing", CLOSED, H4, 20, 48),  # 20 + 8 + 20
    ("hunyise", HUNYISE, H4, 40, 70),  # 20 + 8 + 风刻 2 + 40
    ("qingyise", QINGYISE, H4, 60, 88),  # 20 + 8 + 60
    ("duiduihu", DUIDUIHU, H4, 40, 68),  # 20 + 8 + 40
    ("qidui", QIDUI, H4, 80, 108),  # 20 + 8 + 80
    ("shuang_qidui", SHUANG_QIDUI, H4, 180, 208),  # 20 + 8 + 180
    ("yajue", YAJUE, H4, 40, 70),  # 20 + 8 + 缺门 2 + 卡绝 40
    ("wuhuaguo", PONG, {}, 40, 60),  # 20 + 无花果 40: a 大胡 here, so the pong hand stands
    ("xiaogangkai", PONG, {**SELF, "after_flower": True}, 20, 48),  # 20 + 8 + 补花胡 20
    ("dagangkai", ADDED_GANG, {**SELF, "after_gang": True}, 40, 70),  # 20 + 8 + 2 + 40
    ("dihu", CLOSED, {**H4, "earthly": True}, 40, 88),  # 20 + 8 + 门清 20 + 40
]


@pytest.mark.parametrize(("key", "hand", "flags", "flowers", "total"), JINYUANZI, ids=[r[0] for r in JINYUANZI])
def test_jinyuanzi_values(key: str, hand: str, flags: dict[str, Any], flowers: int, total: int) -> None:
    check("jinyuanzi", key, hand, flags, flowers, total)


# ---- jinyuanzi-ben (§7 本版): 跑 10, 门清 10 and lower patterns; the rest as jinyuanzi ----------
JINYUANZI_BEN: list[Row] = [
    ("hard", PONG, H4, 8, 18),  # 10 + 2×4
    ("wind_pong", WIND_PONG, H4, 2, 20),  # 10 + 8 + 2
    ("gang_exposed", EXPOSED_GANG, H4, 2, 30),  # 10 + 8 + 2 + 门清 10
    ("gang_added", ADDED_GANG, H4, 2, 20),  # 10 + 8 + 2
    ("gang_concealed", CONCEALED_GANG, H4, 4, 32),  # 10 + 8 + 4 + 10
    ("que_yi", QUE_YI, H4, 2, 20),
    ("kanzhang", KANZHANG, H4, 2, 20),
    ("bianzhi", BIANZHI, H4, 2, 20),
    ("dudiao", DUDIAO, H4, 2, 20),
    ("menqing", CLOSED, H4, 10, 28),  # 10 + 8 + 10
    ("hunyise", HUNYISE, H4, 30, 50),  # 10 + 8 + 2 + 30
    ("qingyise", QINGYISE, H4, 50, 68),  # 10 + 8 + 50
    ("duiduihu", DUIDUIHU, H4, 30, 48),  # 10 + 8 + 30
    ("qidui", QIDUI, H4, 50, 68),  # 10 + 8 + 50
    ("shuang_qidui", SHUANG_QIDUI, H4, 100, 118),  # 10 + 8 + 100
    ("yajue", YAJUE, H4, 30, 50),  # 10 + 8 + 2 + 30
    ("wuhuaguo", PONG, {}, 30, 40),  # 10 + 30
    ("xiaogangkai", PONG, {**SELF, "after_flower": True}, 20, 38),  # 10 + 8 + 20 (unchanged)
    ("dagangkai", ADDED_GANG, {**SELF, "after_gang": True}, 40, 60),  # 10 + 8 + 2 + 40 (unchanged)
    ("dihu", CLOSED, {**H4, "earthly": True}, 30, 58),  # 10 + 8 + 10 + 30
]


@pytest.mark.parametrize(("key", "hand", "flags", "flowers", "total"), JINYUANZI_BEN, ids=[r[0] for r in JINYUANZI_BEN])
def test_jinyuanzi_ben_values(key: str, hand: str, flags: dict[str, Any], flowers: int, total: int) -> None:
    check("jinyuanzi-ben", key, hand, flags, flowers, total)


# ---- app (§7, 001): highest pattern only; total = pattern + 5 × hard + soft (5 each) -------------
APP: list[Row] = [
    ("pao", PONG, H4, 20, 40),  # 小胡 20 + 5×4
    ("hard", PONG, H4, 20, 40),
    ("wind_pong", WIND_PONG, H4, 5, 45),  # 20 + 20 + 风碰 5
    ("menqing", EXPOSED_GANG, H4, 40, 60),  # an exposed gang keeps 门清 40 (beats 小胡); no gang soft
    ("que_yi", QUE_YI, H4, 5, 45),  # 20 + 20 + 5
    ("kanzhang", KANZHANG, H4, 5, 45),
    ("bianzhi", BIANZHI, H4, 5, 45),
    ("dudiao", DUDIAO, H4, 5, 45),
    ("menqing", CLOSED, H4, 40, 60),  # 40 + 20
    ("hunyise", HUNYISE, H4, 80, 110),  # 80 + 20 + 风碰 5 + 缺一门 5 (one suit counts in 001)
    ("qingyise", QINGYISE, H4, 160, 185),  # 160 + 20 + 缺一门 5
    ("duiduihu", DUIDUIHU, H4, 80, 100),  # 碰碰胡 80 + 20
    ("quanqiu", QUANQIU, H4, 160, 180),  # 金钩钓 160 beats 碰碰胡 80; + 20
    ("qidui", QIDUI, H4, 160, 180),  # 160 + 20
    ("haohua_qidui", HAOHUA, H4, 320, 340),
    ("chaohaohua_qidui", CHAOHAOHUA, H4, 640, 660),  # 双豪华 640 + 20
    ("chaochaohaohua_qidui", CHAOCHAOHAOHUA, H4, 1280, 1300),  # 三豪华 1280 + 20
    ("tianhu", CLOSED, {**SELF, "dealer": True, "heavenly": True}, 640, 660),
    ("dihu", CLOSED, {**SELF, "earthly": True}, 640, 660),
]


@pytest.mark.parametrize(("key", "hand", "flags", "flowers", "total"), APP, ids=[f"{r[0]}-{r[4]}" for r in APP])
def test_app_values(key: str, hand: str, flags: dict[str, Any], flowers: int, total: int) -> None:
    check("app", key, hand, flags, flowers, total)


def test_app_wuhuaguo_is_40_like_menqing() -> None:
    # 无花果 = 门清 + no hard flower, 40; highest only: 40 + 0 = 40. With a pong it is not there.
    assert score(CLOSED, "app").total == 40
    assert "wuhuaguo" not in items(score(PONG, "app", hard_flowers=4))


@pytest.mark.parametrize(
    ("preset", "hand", "flags"),
    [
        ("nanjing", PONG, {"hard_flowers": 3}),  # 4 needed (§5)
        ("chengbei", PONG, {"hard_flowers": 3}),
        ("jinyuanzi", PONG, {"hard_flowers": 3}),
        ("app", PONG, {"hard_flowers": 3}),
        ("nanjing", PONG, {}),  # 无花果 alone does not lift the limit in the nanjing family
    ],
)
def test_small_win_limit_is_four_hard_flowers(preset: str, hand: str, flags: dict[str, Any]) -> None:
    result = score(hand, preset, **flags)
    assert not result.valid and result.reason == "win.below_limit"
