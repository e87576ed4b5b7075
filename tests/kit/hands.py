"""Hands in notation that tests of several files score: docs/rules.md §11's two examples, a 快照 hand, and
the base hands of the preset values (each isolates one item: tests/test_preset_values.py's docstring)."""

from __future__ import annotations

from typing import Any

PONG = "123m 456p 23s 99s [555p] +4s"
CLOSED = "123m 456p 23s 99s 777p +4s"
WIND_PONG = "123m 456p 23s 99s [EEE] +4s"
EXPOSED_GANG = "123m 456p 23s 99s [8888p] +4s"  # a direct gang keeps 门清 (§5)
ADDED_GANG = "123m 456p 23s 99s {8888p} +4s"  # an added gang began as a pong: no 门清
CONCEALED_GANG = "123m 456p 23s 99s (8888p) +4s"
QUE_YI = "123m 456p 23p 99p [888p] +4p"  # no 条: exactly one suit absent
KANZHANG = "123m 456p 13s 99s [888p] +2s"  # 13s waits on 2s alone
BIANZHI = "123m 456p 12s 99s [888p] +3s"  # 12s waits on 3s alone
DUDIAO = "123m 456p 789s 9p [888p] +9p"  # waits on the pair 9p alone
HUNYISE = "123m 456m 23m 99m [EEE] +4m"  # 万 and winds; waits 1m/4m/7m
QINGYISE = "123m 456m 23m 99m [777m] +4m"
DUIDUIHU = "111m 999p 22s 55s [777s] +5s"
QUANQIU = "5s [111m] [999p] [777s] [222s] +5s"  # four melds, won on the single tile: also 对对胡
QIDUI = "11m 22m 33p 44p 55s 66s 7s +7s"
HAOHUA = "1111m 22p 33p 44s 55s 6s +6s"
CHAOHAOHUA = "1111m 2222p 33s 44s 5s +5s"
CHAOCHAOHAOHUA = "1111m 2222p 3333s 4s +4s"
SHUANG_QIDUI = "11m 22m 33p 44p 555s 66s +5s"  # the winning 5s completes a four of a kind
YAJUE = "11p 234s 567s 79s [888s] +8s"  # sole 79s wait on 8s, the other three 8s ponged; no 万: 缺一

# the flags of the preset values' rows
H4: dict[str, Any] = {"hard_flowers": 4}
SELF: dict[str, Any] = {"hard_flowers": 4, "self_draw": True}

# docs/rules.md §11's worked examples
EXAMPLE_1 = "123m 456m 789m 234p 5p +5p"  # §11.1: 46 with 2 hard flowers (门清, 缺一)
EXAMPLE_2 = "11p 567s 79s [EEE] [444p] +8s"  # §11.2: 34 with 4 hard flowers


# B took three mouths from C: 999s 5p [111m] [222p] [EEE] +5p, 1 hard flower.
# 对对胡 40 (excludes 独占); soft: hard 1 + 风碰 1; all three suits: no 缺一. 20 + 2×2 + 40 = 64.
KUAIZHAO = "999s 5p [111m] [222p] [EEE] +5p"
