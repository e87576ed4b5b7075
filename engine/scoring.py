"""Count a win: itemized flowers, the total, and whether the win stands (docs/rules.md §5-§7).

Every reading of the hand (each decomposition, each place the winning tile can sit, seven pairs) is
scored with the preset's units; the reading that scores highest is the one used. A declared win
(patterns named by the players, no tiles) goes through the same exclusions and totals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from engine.decompose import (
    WaitShape,
    is_seven_pairs,
    sorted_decompositions,
    wait_shapes,
    waits_only_on,
)
from engine.errors import EngineError
from engine.hand import Hand, MeldKind
from engine.preset import Preset
from engine.tiles import Tile, is_wind, suit_of
from engine.units import PATTERN_UNITS, SOFT_UNITS, UNITS_BY_KEY, UnitRule, WinFlags, WinView, flag_pattern_counts

DISPLAY_ORDER = ("pao", *(u.key for u in SOFT_UNITS), *(u.key for u in PATTERN_UNITS if u.key != "pao"))
DISPLAY_RANK = MappingProxyType({key: rank for rank, key in enumerate(DISPLAY_ORDER)})
REFUSED_SHAPE = "win.not_a_winning_shape"
REFUSED_LIMIT = "win.below_limit"
REFUSED_TOGETHER = "win.claims_conflict"


@dataclass(frozen=True)
class Item:
    """One line of the breakdown: `flowers` is what it adds to the total (砸 applied)."""

    key: str
    count: int
    flowers: int


@dataclass(frozen=True)
class WinScore:
    valid: bool
    total: int
    items: tuple[Item, ...]
    reason: str | None = None  # message key of the refusal
    big: bool = False  # has a 大胡
    takes_all: bool = False  # jinyuanzi 天胡 整铲
    flat: bool = False  # 敞开头 天胡: `total` from each payer, never doubled or multiplied
    from_log: tuple[str, ...] = ()  # declared win: the unit keys counted from the table's log

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(item.key for item in self.items)


def _surviving(counts: Mapping[str, int], preset: Preset) -> dict[str, UnitRule]:
    """Units present in this preset after exclusions, exclusive groups and highest-only mode."""
    rules = preset.rules
    present = {key: rules[key] for key, count in counts.items() if count > 0 and key in rules}
    excluded: set[str] = set()
    for rule in present.values():
        excluded |= rule.excludes
    present = {key: rule for key, rule in present.items() if key not in excluded}
    for group in preset.exclusive_groups:
        members = [key for key in group if key in present]
        if len(members) > 1:
            keep = max(members, key=lambda k: present[k].value)
            present = {k: r for k, r in present.items() if k == keep or k not in members}
    if preset.patterns_mode == "highest":
        patterns = [key for key in present if key in preset.patterns]
        if len(patterns) > 1:
            keep = max(patterns, key=lambda k: present[k].value)
            present = {k: r for k, r in present.items() if k == keep or k not in patterns}
    return present


def _refused_together(counts: Mapping[str, int], preset: Preset) -> bool:
    """Claims the preset will not take for one win (敞开头: 花开 with 杠开, only the last replacement
    counts)."""
    return any(sum(1 for key in group if counts.get(key, 0) > 0) > 1 for group in preset.refused_together)


def _flat_score(rules: Mapping[str, UnitRule]) -> WinScore | None:
    """A flat pattern (敞开头 天胡 1000) stands alone: nothing else is counted and no limit applies."""
    flat = [rule for rule in rules.values() if rule.flat]
    if not flat:
        return None
    rule = max(flat, key=lambda r: r.value)
    return WinScore(valid=True, total=rule.value, items=(Item(rule.key, 1, rule.value),), big=rule.big, flat=True)


@dataclass(frozen=True)
class _Plan:
    """What a set of present units comes to in one preset, whatever their counts: the units that
    survive the exclusions, in display order, each with its flowers per count (砸 applied), and what
    follows from presence alone. Few distinct sets occur, so plans are kept (`_plan`)."""

    lines: tuple[tuple[str, int, Item], ...]  # (key, flowers per count, its line when counted once)
    doubling: frozenset[str]  # units that double the total (chengbei 兜底翻)
    flat: WinScore | None  # a flat pattern: the whole score
    big: bool
    takes_all: bool
    refused_together: bool


def _plan(preset: Preset, present: tuple[str, ...]) -> _Plan:
    """`present` in the counts' order: among equal values, the first present unit is kept. Kept per
    preset contents (`_kept`), so an equal preset decoded afresh finds the plans of the last one."""
    plans = _kept(preset).plans
    plan = plans.get(present)
    if plan is None:
        plan = plans[present] = _make_plan(preset, present)
    return plan


def _make_plan(preset: Preset, present: tuple[str, ...]) -> _Plan:
    counts = dict.fromkeys(present, 1)  # every rule below asks only whether a unit is present
    rules = _surviving(counts, preset)
    worth = {key: rule.value * (preset.zha if key in preset.soft else 1) for key, rule in rules.items()}
    shown = [key for key, rule in rules.items() if rule.value or rule.takes_all or rule.doubles_total]
    shown.sort(key=DISPLAY_RANK.__getitem__)
    return _Plan(
        lines=tuple((key, worth[key], Item(key, 1, worth[key])) for key in shown),
        doubling=frozenset(key for key, rule in rules.items() if rule.doubles_total),
        flat=_flat_score(rules),
        big=any(rule.big for key, rule in rules.items() if key in preset.patterns),
        takes_all=any(rule.takes_all for rule in rules.values()),
        refused_together=_refused_together(counts, preset),
    )


Question = tuple[str, Callable[[WinView, UnitRule], int], UnitRule]  # a unit's key, its count method, its rule
Questions = dict[frozenset[str], tuple[Question, ...]]  # the units to ask, by the facts of a reading


@dataclass(frozen=True)
class _Kept:
    """What scoring works out once per preset contents and keeps: the plans by present units, the
    units to ask by the facts of a reading."""

    plans: dict[tuple[str, ...], _Plan]
    questions: Questions


_KEPT: dict[bytes, _Kept] = {}
KEPT_PRESETS = 256  # distinct preset contents kept at once (built-in ones and groups' house rules)


def _kept(preset: Preset) -> _Kept:
    kept = _KEPT.get(preset.content_key)
    if kept is None:
        if len(_KEPT) >= KEPT_PRESETS:
            _KEPT.clear()  # many house rules seen: start again rather than grow without bound
        kept = _KEPT[preset.content_key] = _Kept({}, {})
    return kept


def evaluate(counts: Mapping[str, int], preset: Preset, hard_flowers: int, menqing: bool) -> WinScore:
    """Turn raw unit counts into the itemized score and the validity of the win."""
    present = tuple(counts) if 0 not in counts.values() else tuple(key for key, count in counts.items() if count > 0)
    return _evaluated(counts, _plan(preset, present), preset, hard_flowers, menqing)


def _evaluated(counts: Mapping[str, int], plan: _Plan, preset: Preset, hard_flowers: int, menqing: bool) -> WinScore:
    if plan.flat is not None:
        return plan.flat
    items = [
        once if (count := counts[key]) == 1 else Item(key, count, count * worth) for key, worth, once in plan.lines
    ]
    total = sum([item.flowers for item in items])
    if plan.doubling:
        items = [Item(i.key, i.count, total) if i.key in plan.doubling else i for i in items]
        total *= 2
    valid = menqing or plan.big or hard_flowers >= preset.small_hu_min_hard
    reason = None if valid else REFUSED_LIMIT
    if plan.refused_together:
        valid, reason = False, REFUSED_TOGETHER
    return WinScore(valid, total, tuple(items), reason, plan.big, plan.takes_all)


SOLE_WAIT_SHAPES = frozenset({WaitShape.MIDDLE, WaitShape.EDGE, WaitShape.PAIR})


def _views(hand: Hand, flags: WinFlags, table_pongs: frozenset[Tile]) -> list[WinView]:
    closed = hand.closed_tiles
    views: list[WinView] = []
    seven_pairs = not hand.melds and is_seven_pairs(closed)
    splits = sorted_decompositions(closed) if len(closed) % 3 == 2 else []
    readings = [(split, shape) for split in splits for shape in wait_shapes(split, hand.winning)]
    # Whether the wait was sole matters only where the winning tile could earn a wait flower, or
    # could be 压绝 on a two-sided wait whose other side is dead (敞开头, C20): the fourth copy of a
    # ponged tile.
    shapes = [shape for _, shape in readings]
    unique = False
    if not SOLE_WAIT_SHAPES.isdisjoint(shapes) or (
        WaitShape.OPEN in shapes and _may_be_yajue(hand, flags, table_pongs)
    ):
        meld_tiles = [m.tile for m in hand.melds for _ in range(m.size)]
        unique = waits_only_on(hand.concealed, meld_tiles, len(hand.melds), hand.winning)
    if seven_pairs:
        views.append(WinView(hand, flags, None, WaitShape.SEVEN_PAIRS, unique, table_pongs))
    views += [WinView(hand, flags, reading, shape, unique, table_pongs) for reading, shape in readings]
    return views


def _may_be_yajue(hand: Hand, flags: WinFlags, table_pongs: frozenset[Tile]) -> bool:
    """The winning tile is a ponged tile's fourth copy: the winner's pong, one at the table, or the
    pong being upgraded that a robbing win takes it from."""
    winning = hand.winning
    return flags.robbing_gang or winning in table_pongs or any(m.tile == winning for m in hand.melds)


def _units_to_ask(preset: Preset, questions: Questions, facts: frozenset[str]) -> tuple[Question, ...]:
    """The preset's units that can count on a reading with these facts, in the preset's order (kept
    in `questions`, the preset's)."""
    asked = questions.get(facts)
    if asked is None:
        asked = questions[facts] = tuple(
            (unit.key, unit.count, rule)
            for unit, rule in preset.scored_units
            if unit.needs is None or unit.needs in facts
        )
    return asked


def score_hand(
    hand: Hand,
    flags: WinFlags,
    preset: Preset,
    table_pongs: frozenset[Tile] = frozenset(),
    forced: frozenset[str] = frozenset(),
) -> WinScore:
    """The best reading of a typed hand; refused if it makes no winning shape or is below the limit.

    `table_pongs`: the tiles of the pongs standing at the table (敞开头 压绝 on anyone's pong).
    `forced`: patterns a liability gives the win whatever the tiles show (敞开头 三嘴: 全球独钓)."""
    menqing = not hand.melds or preset.is_menqing(m.kind for m in hand.melds)
    kept = _kept(preset)
    plans = kept.plans
    facts: dict[bool, frozenset[str]] = {}  # readings differ in their facts only by seven pairs
    scores = []
    for view in _views(hand, flags, table_pongs):
        seven_pairs = view.decomposition is None
        if seven_pairs not in facts:
            facts[seven_pairs] = view.facts()
        # How many times each of the preset's units applies to this reading (a forced pattern once).
        asked = _units_to_ask(preset, kept.questions, facts[seven_pairs])
        counts = {key: n for key, count, rule in asked if (n := count(view, rule))}
        if forced:
            counts.update(dict.fromkeys(forced, 1))
        present = tuple(counts)  # no count here is 0
        plan = plans.get(present)
        scores.append(_evaluated(counts, plan or _plan(preset, present), preset, flags.hard_flowers, menqing))
    return best_reading(scores)


def best_reading(scores: Iterable[WinScore]) -> WinScore:
    """The highest of the readings' scores (the first among equals); refused if there are none."""
    best: WinScore | None = None
    for result in scores:
        if best is None or (result.valid, result.total) > (best.valid, best.total):
            best = result
    if best is None:
        return WinScore(valid=False, total=0, items=(), reason=REFUSED_SHAPE)
    return best


def score_declared(
    keys: Iterable[str],
    flags: WinFlags,
    preset: Preset,
    soft: int = 0,
    menqing: bool = False,
    logged: Sequence[tuple[MeldKind, Tile | None]] | None = None,
) -> WinScore:
    """A win the players describe by pattern names, e.g. 清一色 对对胡 with 3 hard flowers.

    `soft` is a count of plain soft flowers (each worth the preset's soft unit before 砸). `logged`:
    the winner's melds as the table logged them this hand; what they show is counted as the table
    knows it (gang and wind soft flowers, 门清 when `menqing`, 无花果 when no hard flower) and the keys
    so added are the score's `from_log`. Without a log only the named patterns count.
    """
    counts: dict[str, int] = {"pao": 1, "hard": flags.hard_flowers}
    for key in keys:
        if key not in UNITS_BY_KEY:
            raise EngineError("win.unknown_pattern", pattern=key)
        counts[key] = counts.get(key, 0) + 1
    added: dict[str, int] = _known_from_log(logged, flags, preset, menqing) if logged is not None else {}
    for key, count in added.items():
        counts[key] = max(counts.get(key, 0), count) if key in ("menqing", "wuhuaguo") else counts.get(key, 0) + count
    counts.update(flag_pattern_counts(flags))
    score = evaluate(counts, preset, flags.hard_flowers, "menqing" in counts)
    shown = frozenset(item.key for item in score.items)
    score = replace(score, from_log=tuple(key for key in added if key in shown))
    if soft and not score.flat:
        extra = soft * preset.soft_unit * preset.zha
        score = replace(score, total=score.total + extra, items=(*score.items, Item("soft", soft, extra)))
    return score


def _known_from_log(
    logged: Sequence[tuple[MeldKind, Tile | None]], flags: WinFlags, preset: Preset, menqing: bool
) -> dict[str, int]:
    """What a declared win takes from the table's log: each logged gang's soft flowers, each wind
    pong or gang (风碰), 门清 when nothing broke it, 无花果 when the hard count is 0."""
    counts: dict[str, int] = {}
    for kind, tile in logged:
        if kind in _GANG_SOFT:
            counts[_GANG_SOFT[kind]] = counts.get(_GANG_SOFT[kind], 0) + 1
        if tile is not None and is_wind(tile):
            counts["wind_pong"] = counts.get("wind_pong", 0) + 1
    if menqing:
        counts["menqing"] = 1
    wuhuaguo = preset.rules.get("wuhuaguo")
    if flags.hard_flowers == 0 and wuhuaguo is not None and (menqing or not wuhuaguo.needs_menqing):
        counts["wuhuaguo"] = 1
    return counts


_GANG_SOFT = {
    MeldKind.EXPOSED_GANG: "gang_exposed",
    MeldKind.ADDED_GANG: "gang_added",
    MeldKind.CONCEALED_GANG: "gang_concealed",
}


def score_forced(
    melds: Sequence[tuple[MeldKind, Tile | None]], hard_flowers: int, forced: Iterable[str], preset: Preset
) -> WinScore:
    """A hand a 包子 ends at a meld, before the rest of it is shown (敞开头 三嘴 / 三清).

    The forced patterns are given; the rest counts only what the melds on the table show: gang and
    wind soft flowers, 门清, and 清一色/混一色 when every meld's tile is known; 无花果 from the
    hard-flower count. The tiles still in hand are unseen, so no 缺一 and no wait flower. It always
    stands: a forced end is not subject to the 小胡 limit.
    """
    counts: dict[str, int] = {"pao": 1, "hard": hard_flowers, **dict.fromkeys(forced, 1)}
    for kind, tile in melds:
        if kind in _GANG_SOFT:
            counts[_GANG_SOFT[kind]] = counts.get(_GANG_SOFT[kind], 0) + 1
        if tile is not None and is_wind(tile):
            counts["wind_pong"] = counts.get("wind_pong", 0) + 1
    tiles = [tile for _, tile in melds]
    if tiles and all(tile is not None for tile in tiles):
        suits = {suit_of(tile) for tile in tiles if tile is not None} - {None}
        winds = any(is_wind(tile) for tile in tiles if tile is not None)
        if len(suits) == 1:
            counts["hunyise" if winds else "qingyise"] = 1
    menqing = preset.is_menqing(kind for kind, _ in melds)
    if menqing:
        counts["menqing"] = 1
    if hard_flowers == 0:
        counts["wuhuaguo"] = 1
    score = evaluate(counts, preset, hard_flowers, menqing)
    return replace(score, valid=True, reason=None)


def undeclared_pattern(
    hand: Hand,
    flags: WinFlags,
    preset: Preset,
    declared: Iterable[str],
    table_pongs: frozenset[Tile] = frozenset(),
) -> str | None:
    """The first pattern the players named for a typed hand that no reading of its tiles has, or
    None. RULES §5: a claim that cannot be true is refused with the reason, never dropped; a hand
    that makes no winning shape is left to `score_hand`, which refuses it for that.

    A pattern counts as there when any reading has it before the preset's exclusions: 门清 named
    with 七对, or 碰碰胡 with 清一色 where only the highest counts, is true of the tiles even though
    the preset does not add it. A pattern the preset has no value for is judged by its default rule."""
    views = _views(hand, flags, table_pongs)
    if not views:
        return None
    for key in declared:
        unit = UNITS_BY_KEY.get(key)
        if unit is None:
            raise EngineError("win.unknown_pattern", pattern=key)
        rule = preset.rules.get(key) or UnitRule(key, 0)
        if not any(unit.count(view, rule) for view in views):
            return key
    return None
