"""One small unit per pattern (番型) and per soft flower (软花).

Each unit answers one question about a win — "how many times does this apply?" — from a `WinView`:
the hand, one decomposition of it, where the winning tile sits, and the flags the tiles cannot show.
What a unit is worth, whether it is a 大胡 and what it excludes are the preset's business
(engine/presets/*.toml), so the same unit serves every preset. Compare the one-class-per-yaku layout
of MahjongRepository/mahjong.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import ClassVar

from engine.decompose import Decomposition, SetKind, WaitShape
from engine.hand import Hand, Meld, MeldKind
from engine.tiles import COPIES, Tile, is_wind

MENQING_BROKEN_BY = ("pong", "added_gang")  # RULES §5: an added gang began as a pong


@dataclass(frozen=True)
class UnitRule:
    """The numbers of one pattern or soft flower in a preset."""

    key: str
    value: int
    big: bool = False  # a 大胡: lifts the 小胡 limit
    excludes: frozenset[str] = frozenset()
    needs_menqing: bool = False  # app 无花果 = 门清 + no hard flower
    doubles_total: bool = False  # chengbei 大杠开花 兜底翻
    takes_all: bool = False  # jinyuanzi 天胡 整铲
    suit_counts: frozenset[int] = frozenset({2})  # 缺一: how many suits may be present
    broken_by: frozenset[str] = frozenset(MENQING_BROKEN_BY)  # 门清: the meld kinds that lose it
    any_pong: bool = False  # 压绝 on a pong held by anyone at the table (敞开头)
    any_sole_wait: bool = False  # 压绝 on any sole wait, a two-sided one whose other side is dead too (敞开头)
    flat: bool = False  # 敞开头 天胡: each payer pays `value`, nothing else counted, never doubled
    skip_wind_gangs: bool = False  # nanjing-6: wind gangs are counted by the wind_gang_* units instead
    melds_allowed: frozenset[str] = frozenset()  # 地胡: meld kinds the claim still allows (敞开头: gangs)


@dataclass(frozen=True)
class WinFlags:
    """What the table knows about a win that the tiles cannot show."""

    hard_flowers: int = 0
    self_draw: bool = False
    dealer: bool = False
    after_gang: bool = False  # 大杠开花: won on the replacement after a gang
    after_flower: bool = False  # 小杠开花: won on the replacement after a hard flower
    last_stacks: bool = False  # 海底捞月: within the last 8 stacks
    heavenly: bool = False  # 天胡
    earthly: bool = False  # 地胡
    robbing_gang: bool = False  # 抢杠


FLAG_NAMES = tuple(field.name for field in fields(WinFlags) if field.default is False)  # the yes/no flags


@dataclass(frozen=True, slots=True)
class WinView:
    """One reading of a win: the hand with one decomposition and one place for the winning tile."""

    hand: Hand
    flags: WinFlags
    decomposition: Decomposition | None  # None: read as seven pairs
    shape: WaitShape
    unique_wait: bool  # the 13 tiles before the win waited on exactly one tile kind
    table_pongs: frozenset[Tile] = frozenset()  # tiles of the pongs standing at the table, anyone's

    @property
    def seven_pairs(self) -> bool:
        return self.decomposition is None

    def facts(self) -> frozenset[str]:
        """The facts a unit may need (`Unit.needs`): each flag that is set, "seven_pairs",
        "sole_wait", "melds", "winds" and "no_hard_flowers" when they hold."""
        facts = [name for name in FLAG_NAMES if getattr(self.flags, name)]
        if self.decomposition is None:
            facts.append("seven_pairs")
        if self.unique_wait:
            facts.append("sole_wait")
        if self.hand.melds:
            facts.append("melds")
        if self.has_winds():
            facts.append("winds")
        if not self.flags.hard_flowers:
            facts.append("no_hard_flowers")
        return frozenset(facts)

    def suits_present(self) -> frozenset[int]:
        return self.hand.suits  # found once per hand, shared by its readings

    def has_winds(self) -> bool:
        return self.hand.has_winds

    def triplet_tiles(self) -> list[Tile]:
        """Tiles of every triplet or gang: closed triplets of the decomposition and all melds."""
        closed = [s.tile for s in self.decomposition.sets if s.kind is SetKind.TRIPLET] if self.decomposition else []
        return closed + [m.tile for m in self.hand.melds]

    def quads_in_seven_pairs(self) -> int:
        return sum(1 for count in Counter(self.hand.closed_tiles).values() if count == COPIES)


class Unit:
    key: ClassVar[str]
    # The fact of a reading (`WinView.facts`) without which this unit never counts, or None if it
    # may count on any reading. Scoring asks only the units whose fact holds: most readings have
    # no flag, no meld, no sole wait and are not seven pairs, so most units need not be asked.
    needs: ClassVar[str | None] = None
    # The facts of a reading on which this unit never counts (对对胡 on seven pairs). A pattern that
    # needs one of them can never be true with this one: both named for one win are refused
    # (engine.claims.conflicting_patterns), so a new unit declaring its facts gets that for free.
    never_with: ClassVar[frozenset[str]] = frozenset()
    # Whether the unit's figure is a count × a rate (4 hard flowers × 2): its line says the count even
    # when it is 1 (`硬花 ×1：2`), or "硬花：2" reads as two flowers. A presence (缺一门, 清一色) says none.
    counted: ClassVar[bool] = False

    def count(self, view: WinView, rule: UnitRule) -> int:
        raise NotImplementedError


# ---- soft flowers 软花 -------------------------------------------------------------------------


class HardFlowers(Unit):
    """硬花: the count the players give (中发白, 春夏秋冬梅兰竹菊)."""

    key = "hard"
    counted = True

    def count(self, view: WinView, rule: UnitRule) -> int:
        return view.flags.hard_flowers


def _is_wind_gang(meld: Meld) -> bool:
    return meld.kind.is_gang and is_wind(meld.tile)


class WindPong(Unit):
    """风碰/风刻: each wind triplet or gang, ponged or concealed. With the rule's `skip_wind_gangs`
    (nanjing-6, 002) a wind gang is left to the wind-gang units instead."""

    key = "wind_pong"
    counted = True

    def count(self, view: WinView, rule: UnitRule) -> int:
        winds = sum(1 for tile in view.triplet_tiles() if is_wind(tile)) if view.hand.has_winds else 0
        if rule.skip_wind_gangs:
            winds -= sum(1 for meld in view.hand.melds if _is_wind_gang(meld))
        return winds


class _GangSoft(Unit):
    kind: ClassVar[MeldKind]
    needs = "melds"
    counted = True

    def count(self, view: WinView, rule: UnitRule) -> int:
        return sum(
            1
            for meld in view.hand.melds
            if meld.kind is self.kind and not (rule.skip_wind_gangs and is_wind(meld.tile))
        )


class ExposedGangSoft(_GangSoft):
    """明杠 (直杠) made by the winner."""

    key = "gang_exposed"
    kind = MeldKind.EXPOSED_GANG


class AddedGangSoft(_GangSoft):
    """补杠 made by the winner."""

    key = "gang_added"
    kind = MeldKind.ADDED_GANG


class ConcealedGangSoft(_GangSoft):
    """暗杠 made by the winner."""

    key = "gang_concealed"
    kind = MeldKind.CONCEALED_GANG


class WindGangOpen(Unit):
    """风杠, exposed or added (002 "明杠算2個軟花"): in place of 风碰 + the gang's own soft flowers."""

    key = "wind_gang_open"
    needs = "melds"
    counted = True

    def count(self, view: WinView, rule: UnitRule) -> int:
        return sum(1 for m in view.hand.melds if _is_wind_gang(m) and m.kind is not MeldKind.CONCEALED_GANG)


class WindGangConcealed(Unit):
    """风杠, concealed (002 "暗杠算3個軟花"): in place of 风碰 + the gang's own soft flowers."""

    key = "wind_gang_concealed"
    needs = "melds"
    counted = True

    def count(self, view: WinView, rule: UnitRule) -> int:
        return sum(1 for m in view.hand.melds if _is_wind_gang(m) and m.kind is MeldKind.CONCEALED_GANG)


class QueYi(Unit):
    """缺一(门): as many suits present as the preset allows (nanjing: exactly two)."""

    key = "que_yi"

    def count(self, view: WinView, rule: UnitRule) -> int:
        return 1 if len(view.suits_present()) in rule.suit_counts else 0


class _WaitFlower(Unit):
    """A wait flower counts only on a sole wait ("单听一张"), by where the winning tile sits."""

    shape: ClassVar[WaitShape]
    needs = "sole_wait"

    def count(self, view: WinView, rule: UnitRule) -> int:
        return 1 if view.unique_wait and view.shape is self.shape else 0


class KanZhang(_WaitFlower):
    """压档/卡张: 79 wins 8."""

    key = "kanzhang"
    shape = WaitShape.MIDDLE


class BianZhi(_WaitFlower):
    """边枝/边张: 12 wins 3, 89 wins 7."""

    key = "bianzhi"
    shape = WaitShape.EDGE


class DuDiao(_WaitFlower):
    """独占/单吊: the winning tile makes the pair."""

    key = "dudiao"
    shape = WaitShape.PAIR


# ---- patterns 番型 -----------------------------------------------------------------------------


class Pao(Unit):
    """跑 (app: 小胡): every win."""

    key = "pao"

    def count(self, view: WinView, rule: UnitRule) -> int:
        return 1


class MenQing(Unit):
    """门清: no meld of the kinds the preset's rule names (`broken_by`; nanjing: a pong or an added
    gang, which began as a pong; 敞开头: a pong only, so upgrading it to an added gang restores 门清)."""

    key = "menqing"

    def count(self, view: WinView, rule: UnitRule) -> int:
        melds = view.hand.melds
        return 0 if melds and any(m.kind.value in rule.broken_by for m in melds) else 1


class HunYiSe(Unit):
    """混一色: one suit and winds."""

    key = "hunyise"
    needs = "winds"

    def count(self, view: WinView, rule: UnitRule) -> int:
        return 1 if len(view.suits_present()) == 1 and view.has_winds() else 0


class QingYiSe(Unit):
    """清一色: one suit only."""

    key = "qingyise"
    never_with = frozenset({"winds"})

    def count(self, view: WinView, rule: UnitRule) -> int:
        return 1 if len(view.suits_present()) == 1 and not view.has_winds() else 0


class DuiDuiHu(Unit):
    """对对胡/碰碰胡: four triplets or gangs and a pair."""

    key = "duiduihu"
    never_with = frozenset({"seven_pairs"})

    def count(self, view: WinView, rule: UnitRule) -> int:
        if view.decomposition is None:
            return 0
        return 1 if all(s.kind is SetKind.TRIPLET for s in view.decomposition.sets) else 0


class QuanQiuDuDiao(Unit):
    """全球独钓/金钩钓: all four sets melded, won on the single tile left in hand."""

    key = "quanqiu"
    needs = "melds"

    def count(self, view: WinView, rule: UnitRule) -> int:
        return 1 if len(view.hand.melds) == 4 else 0


class _SevenPairsWithQuads(Unit):
    quads: ClassVar[int]
    needs = "seven_pairs"
    never_with = frozenset({"melds"})  # seven pairs are 14 concealed tiles

    def count(self, view: WinView, rule: UnitRule) -> int:
        return 1 if view.seven_pairs and view.quads_in_seven_pairs() == self.quads else 0


class QiDui(Unit):
    """七对: seven pairs from 14 concealed tiles."""

    key = "qidui"
    needs = "seven_pairs"
    never_with = frozenset({"melds"})

    def count(self, view: WinView, rule: UnitRule) -> int:
        return 1 if view.seven_pairs else 0


class HaoHuaQiDui(_SevenPairsWithQuads):
    """豪华七对: seven pairs with one undeclared four of a kind."""

    key = "haohua_qidui"
    quads = 1


class ChaoHaoHuaQiDui(_SevenPairsWithQuads):
    """超豪华七对 (app: 双豪华): two fours of a kind."""

    key = "chaohaohua_qidui"
    quads = 2


class ChaoChaoHaoHuaQiDui(_SevenPairsWithQuads):
    """超超豪华七对 (app: 三豪华): three fours of a kind."""

    key = "chaochaohaohua_qidui"
    quads = 3


class ShuangQiDui(Unit):
    """双七对: seven pairs where the winning tile completes a four of a kind."""

    key = "shuang_qidui"
    needs = "seven_pairs"
    never_with = frozenset({"melds"})

    def count(self, view: WinView, rule: UnitRule) -> int:
        winning = view.hand.winning
        return 1 if view.seven_pairs and view.hand.closed_tiles.count(winning) == COPIES else 0


class LongQiDui(ShuangQiDui):
    """龙七对 (敞开头): seven pairs whose winning tile completes a four of a kind. The same tiles as
    双七对, its own name and value; a four already held before the win does not make it."""

    key = "long_qidui"


# The places a winning tile that is a ponged tile's fourth copy can take: in a sequence. 000 names
# 压档 and 边枝 only ("必须是压三万或是边三万"); 敞开头 takes any sole wait, two-sided included.
_NAMED_SOLE_WAITS = frozenset({WaitShape.MIDDLE, WaitShape.EDGE})
_SEQUENCE_WAITS = _NAMED_SOLE_WAITS | {WaitShape.OPEN}


class YaJue(Unit):
    """压绝/卡绝: a sole 压档 or 边枝 wait on a tile whose other three copies are the winner's pong.

    With the rule's `any_pong` (敞开头) the pong may be anyone's at the table: the typed hand shows the
    winner's own, the table's log the others'. (A pair or triplet wait on a ponged tile would need a
    fifth copy, so the winning tile always ends a sequence.) Robbing an added gang counts too (抢杠压绝,
    RULES §12): the robbed player's pong of the winning tile, being upgraded, is a pong at the table.
    With the rule's `any_sole_wait` (敞开头: "sole wait", no shape named) a two-sided wait whose other
    side is dead counts as well: `67m` waiting 5m with all four 8m the winner's own (docs/rules.md C20).
    """

    key = "yajue"
    needs = "sole_wait"

    def count(self, view: WinView, rule: UnitRule) -> int:
        shapes = _SEQUENCE_WAITS if rule.any_sole_wait else _NAMED_SOLE_WAITS
        if not view.unique_wait or view.shape not in shapes:
            return 0
        winning = view.hand.winning
        ponged = any(m.kind is MeldKind.PONG and m.tile == winning for m in view.hand.melds)
        at_table = winning in view.table_pongs or view.flags.robbing_gang
        return 1 if ponged or (rule.any_pong and at_table) else 0


class WuHuaGuo(Unit):
    """无花果: no hard flower (app: and 门清)."""

    key = "wuhuaguo"
    needs = "no_hard_flowers"

    def count(self, view: WinView, rule: UnitRule) -> int:
        if view.flags.hard_flowers:
            return 0
        return 0 if rule.needs_menqing and not view.hand.is_menqing else 1


class _FlagPattern(Unit):
    flag: ClassVar[str]

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls.needs = cls.flag  # a flag pattern counts only when its flag is set

    def count(self, view: WinView, rule: UnitRule) -> int:
        return 1 if getattr(view.flags, self.flag) else 0


class XiaoGangKai(_FlagPattern):
    """小杠开花/补花胡: won on the tile drawn to replace a hard flower."""

    key = "xiaogangkai"
    flag = "after_flower"


class DaGangKai(_FlagPattern):
    """大杠开花: won on the tile drawn after a gang."""

    key = "dagangkai"
    flag = "after_gang"


class HuaKai(_FlagPattern):
    """花开 (敞开头): won on the replacement after a hard flower (the last replacement counts)."""

    key = "huakai"
    flag = "after_flower"


class GangKai(_FlagPattern):
    """杠开 (敞开头): won on the replacement after an exposed, added, concealed or flower gang."""

    key = "gangkai"
    flag = "after_gang"


class TianHu(_FlagPattern):
    """天胡: the dealer wins on the deal."""

    key = "tianhu"
    flag = "heavenly"


class DiHu(_FlagPattern):
    """地胡: ready at the deal, no pong or gang, then wins."""

    key = "dihu"
    flag = "earthly"


class HaiDi(Unit):
    """海底捞月: self-draw within the last 8 stacks."""

    key = "haidi"
    needs = "last_stacks"

    def count(self, view: WinView, rule: UnitRule) -> int:
        return 1 if view.flags.last_stacks and view.flags.self_draw else 0


def flag_pattern_counts(flags: WinFlags) -> dict[str, int]:
    """The patterns that come from flags alone, for a declared win with no tiles."""
    flag_units = (XiaoGangKai(), DaGangKai(), HuaKai(), GangKai(), TianHu(), DiHu())
    counts = {unit.key: 1 for unit in flag_units if getattr(flags, unit.flag)}
    if flags.last_stacks and flags.self_draw:
        counts[HaiDi.key] = 1
    return counts


SOFT_UNITS: tuple[Unit, ...] = (
    HardFlowers(),
    WindPong(),
    ExposedGangSoft(),
    AddedGangSoft(),
    ConcealedGangSoft(),
    WindGangOpen(),
    WindGangConcealed(),
    QueYi(),
    KanZhang(),
    BianZhi(),
    DuDiao(),
)
PATTERN_UNITS: tuple[Unit, ...] = (
    Pao(),
    MenQing(),
    HunYiSe(),
    QingYiSe(),
    DuiDuiHu(),
    QuanQiuDuDiao(),
    QiDui(),
    HaoHuaQiDui(),
    ChaoHaoHuaQiDui(),
    ChaoChaoHaoHuaQiDui(),
    ShuangQiDui(),
    LongQiDui(),
    YaJue(),
    WuHuaGuo(),
    XiaoGangKai(),
    DaGangKai(),
    HuaKai(),
    GangKai(),
    TianHu(),
    DiHu(),
    HaiDi(),
)
SOFT_KEYS = frozenset(u.key for u in SOFT_UNITS)
# The items a breakdown shows with their count, 1 too: counted units, and plain soft flowers
# (engine.scoring's `soft` item, a count × the soft unit)
COUNTED_KEYS = frozenset({"soft", *(u.key for u in SOFT_UNITS if u.counted)})
PATTERN_KEYS = frozenset(u.key for u in PATTERN_UNITS)
UNITS_BY_KEY = MappingProxyType({u.key: u for u in (*SOFT_UNITS, *PATTERN_UNITS)})
