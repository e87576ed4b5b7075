"""Several winners on one discard (一炮多响) are what the table says, never a guess from adjacency; a
correction of one claim of such a win changes that claim only; a 三嘴 forced end survives any later
correction. Money worked by hand from RULES.md (§8 several winners, §9 比下胡/垒宝塔, §12 敞开头).

nanjing seats: A East (first dealer), B South, C West, D North.
"""

from __future__ import annotations

from tests.harness import Table

CKT = "/new Alice Bob Carol Dave preset=changkaitou start=1000"
SANZUI = """
    Bob: /pong Alice 1m
    Bob: /pong Alice 9p
    Bob: 碰 Alice 东
    Bob: 碰 Carol 5s 花1
"""


# ---- a 三嘴 forced end is kept by every re-derivation -------------------------------------------


async def test_a_sanzui_forced_end_survives_a_later_fix(table: Table) -> None:
    await table.play(f"{CKT}\n{SANZUI}\nDave: /flowergang")
    # hand 1 (RULES §12 三嘴): Bob's first three mouths from Alice, the fourth fed by Carol: Bob's
    # 对对胡 self-draw. share = 10 + 对对胡 30 + 2 × (1 hard + 1 soft for the wind pong 东; all three
    # suits shown, no 缺一) = 44, ×2 (every hand) = 88; Alice pays all three shares: 264.
    # hand 2: Dave's 花杠, 10 × 2 = 20 from each other player.
    assert await table.balances() == {"Alice": -284, "Bob": 244, "Carol": -20, "Dave": 60}
    await table.say("/fix 6 /flowergang Carol")  # the 花杠 was Carol's
    # hand 1 stays a hand of its own (the forced end is kept); Carol takes 20 from each other player
    assert await table.balances() == {"Alice": -284, "Bob": 244, "Carol": 60, "Dave": -20}
    night = await table.night()
    assert night["hands"] == 1
