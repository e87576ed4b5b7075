"""Rule presets as data: one TOML file per preset under engine/presets/, or a group's house file.

A file may start from another with `base = "nanjing"` and change only what differs. Every key is
checked: an unknown key, a missing one or a value of the wrong type raises EngineError naming the
key, so a group editing its house rules sees exactly what to fix.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path
from types import MappingProxyType, NoneType
from typing import Any

from engine.errors import EngineError
from engine.hand import MeldKind
from engine.rules_text import check_depth, parse_toml
from engine.units import MENQING_BROKEN_BY, PATTERN_KEYS, PATTERN_UNITS, SOFT_KEYS, SOFT_UNITS, Unit, UnitRule

PRESET_NAMES = (
    "nanjing",
    "nanjing-6",
    "nanjing-20",
    "chengbei",
    "jinyuanzi",
    "jinyuanzi-ben",
    "app",
    "changkaitou",
)
LIABILITY_KINDS = frozenset(
    {
        "robbing_gang",
        "dagangkai",
        "qingyise_discard",
        "kuaizhao",
        "qingyise_three",
        # 敞开头 包子 (RULES §12)
        "sanzui",
        "sanqing",
        "quanqiu_range",
        "gang_after",
    }
)
# What can happen in a hand (RULES §8, §9): a preset names which of these make the next hand
# 比下胡 (`bixiahu.triggers`) and which keep the dealer (`dealer.stays_on`).
HAND_FACTS = frozenset(
    {
        "flower_gang",
        "penalty_follow",
        "penalty_four",
        "penalty_custom",
        "false_win",
        "dagangkai",
        "robbing_gang",
        "liability",
        "multiple_winners",
        "draw",
        "big_hu",
        "dealer_win",
        "dealer_big_win",
    }
    | LIABILITY_KINDS  # the liability that paid a win (敞开头: 三嘴, 三清 and 全球 keep the dealer)
)
# A trigger may also be the dealer staying (jinyuanzi 连庄).
TRIGGERS = HAND_FACTS | {"dealer_stays"}
# The dealer may also stay whenever the hand sets up a 比下胡 (nanjing family: "形成比下胡，則連莊").
DEALER_STAYS_ON = HAND_FACTS | {"bixiahu"}
MELD_KINDS = frozenset(kind.value for kind in MeldKind)

# Every number of a rules file, typed or kept, is a whole number 0–100000 (docs/rules.md 20): flowers,
# points or a factor; anything above is a typo or an attack, and the ledger's room is worked out from
# it (engine/bounds.py).
MOST = 100_000
# A rules file's own words: a name as short as a name, a description one line of the rules' numbers.
TEXT_MOST = {"name": 32, "description": 200}


@dataclass(frozen=True)
class InstantRules:
    exposed_gang: int
    added_gang: int
    added_gang_payers: str  # "feeder" (B pays) or "others" (each other player pays)
    concealed_gang: int
    flower_gang: int
    penalty_follow: int
    penalty_four: int
    false_win: int  # fixed amount to each other player; 0 = must be typed
    custom_penalty: bool  # a custom penalty may be typed (jinyuanzi: only its fixed 诈胡)
    refund_gangs_on_draw: bool
    four_winds: int = 0  # 四风归齐: each other player pays the player; 0 = not in this preset


@dataclass(frozen=True)
class LiabilityRules:
    kinds: tuple[str, ...]  # in priority order: the first that applies to a win is the one that pays
    kuaizhao_concealed_counts: bool  # 002: a concealed gang of B counts as a mouth toward 快照
    mode: str  # "shares": the liable player pays the shares; "fixed": pays `fixed` (外包)
    fixed: int
    shares_kinds: frozenset[str] = frozenset()  # 内包: kinds paid in shares even when the mode is fixed
    fourth_mouth_at_once: bool = False  # 快照's feeder owes 外包 as soon as a fourth mouth is fed (003)
    range_after: frozenset[str] = frozenset({"pong"})  # 架: the fourth meld kinds that allow marking a range


@dataclass(frozen=True)
class Multipliers:
    """App multipliers (001): they multiply each other, capped."""

    self_draw: int
    after_gang: int
    robbing_gang: int
    cap: int


@dataclass(frozen=True)
class ChipRules:
    enabled: bool
    start: int
    divisor: int  # payment in chips = flowers / divisor, rounded half up


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    zha: int  # 砸: multiplies hard + soft flowers
    small_hu_min_hard: int
    patterns_mode: str  # "additive" or "highest"
    exclusive_groups: tuple[tuple[str, ...], ...]
    refused_together: tuple[tuple[str, ...], ...]  # patterns that may not be claimed for one win
    flower_gang_opens: bool  # 杠开 may follow a flower gang (002 "明杠、暗杠或花杠后，補牌即胡")
    soft: Mapping[str, UnitRule]
    patterns: Mapping[str, UnitRule]
    instant: InstantRules
    liability: LiabilityRules
    multipliers: Multipliers
    triggers: frozenset[str]
    doubling_factor: int
    every_hand_doubled: bool  # 敞开头: every hand is a 比下胡 hand, whatever the triggers
    leibaota_step: int  # 垒宝塔: 0 turns it off
    dealer_stays_on: frozenset[str]
    jiang_passes: int  # passes of the deal that make a 将, counted in the summary; 0: not counted
    chips: ChipRules
    start: int = 0  # points each player starts the night with (敞开头: 1000); balances may go negative
    # The plain data the preset was read from (`base` resolved), as JSON: what a table's change of a
    # value is applied to (engine/rule_keys.py) and what is kept of it. Not compared: equal rules are
    # equal presets however their file was written.
    source: str = field(default="", repr=False, compare=False)
    # A digest of every field above, worked out once when the preset is built: equal presets have
    # the same one. The bot decodes a fresh preset for every night, so the plans scoring keeps per
    # preset meet an equal preset, not the same object; comparing digests makes that look-up cost
    # one short comparison instead of one per field, rule and set (some 10 µs).
    content_key: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        text = repr(_canonical(self)).encode()
        object.__setattr__(self, "content_key", hashlib.blake2b(text, digest_size=16).digest())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Preset):
            return NotImplemented
        return self is other or self.content_key == other.content_key

    def __hash__(self) -> int:
        return hash(self.content_key)

    def unit(self, key: str) -> UnitRule | None:
        return self.rules.get(key)

    @cached_property
    def scored_units(self) -> tuple[tuple[Unit, UnitRule], ...]:
        """The units this preset scores, with their rules, in display order (built once)."""
        return tuple((unit, rule) for unit in (*SOFT_UNITS, *PATTERN_UNITS) if (rule := self.unit(unit.key)))

    @cached_property
    def rules(self) -> Mapping[str, UnitRule]:
        """Soft flowers and patterns in one table (built once: a preset never changes)."""
        return MappingProxyType({**self.soft, **self.patterns})

    def is_menqing(self, kinds: Iterable[MeldKind]) -> bool:
        """门清 as this preset reads it, from the kinds of the winner's melds."""
        rule = self.rules.get("menqing")
        broken_by = rule.broken_by if rule else frozenset(MENQING_BROKEN_BY)
        return not any(kind.value in broken_by for kind in kinds)

    @property
    def soft_unit(self) -> int:
        """What one plain soft flower is worth before 砸 (for declared wins)."""
        rule = self.soft.get("que_yi")
        return rule.value if rule else 1


def _canonical(value: object) -> object:
    """`value` as nested tuples of plain values in a fixed order (mappings and sets sorted), the
    same for equal values in every process: what a preset's digest is taken of."""
    if isinstance(value, str | int | float | NoneType):
        return value
    if isinstance(value, Mapping):
        return ("mapping", tuple(sorted((repr(key), _canonical(item)) for key, item in value.items())))
    if isinstance(value, frozenset | set):
        return ("set", tuple(sorted(repr(_canonical(item)) for item in value)))
    if isinstance(value, tuple | list):
        return tuple(_canonical(item) for item in value)
    kind = type(value)
    names = _COMPARED_FIELDS.get(kind)
    if names is None:
        if not is_dataclass(kind):
            raise TypeError(f"no canonical form for {kind.__name__}")
        names = _COMPARED_FIELDS[kind] = tuple(f.name for f in fields(kind) if f.compare)
    return (kind.__name__, tuple((name, _canonical(getattr(value, name))) for name in names))


_COMPARED_FIELDS: dict[type, tuple[str, ...]] = {}  # a dataclass's compared fields, found once


@dataclass(frozen=True)
class KeyRead:
    """One key of the preset format as the reader asked for it: its dotted name (`win.zha`), what
    it takes ("int", "bool", "str", "choice", "set", "order", "ints", "groups"), the values a choice
    or set takes, whether a file without `base` must give it, and the value read (or its default)."""

    key: str
    kind: str
    allowed: tuple[str, ...] = ()
    required: bool = False
    value: Any = None


_KINDS = {int: "int", bool: "bool", str: "str", list: "list", dict: "table"}


class _Reader:
    """Takes values out of a TOML table, remembering the path for error messages; with `seen`, each
    key asked for is noted there (engine/rule_keys.py: the keys a table may change, read off this
    reader rather than listed twice)."""

    def __init__(
        self, table: Mapping[str, Any], path: str, seen: list[KeyRead] | None = None, bounded: bool = True
    ) -> None:
        self.table = dict(table)
        self.path = path
        self.seen = seen
        self.bounded = bounded

    def _name(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def _note(self, key: str, kind: str, value: Any, default: Any, allowed: Iterable[str] = ()) -> None:
        if self.seen is not None:
            self.seen.append(KeyRead(self._name(key), kind, tuple(sorted(allowed)), default is ..., value))

    def take(self, key: str, kind: type, default: Any = ...) -> Any:
        value = self._take(key, kind, default)
        if kind is not dict:  # a table is noted by its keys
            self._note(key, _KINDS[kind], value, default)
        return value

    def _take(self, key: str, kind: type, default: Any = ...) -> Any:
        if key not in self.table:
            if default is ...:
                raise EngineError("preset.missing_key", key=self._name(key))
            return default
        value = self.table.pop(key)
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise EngineError("preset.bad_value", key=self._name(key), value=repr(value))
        if not isinstance(value, kind):
            raise EngineError("preset.bad_value", key=self._name(key), value=repr(value))
        if self.bounded:
            self._check_bounds(key, value)
        return value

    def _check_bounds(self, key: str, value: Any) -> None:
        """The one check of a value's size, whatever door it came by (docs/rules.md 20)."""
        if isinstance(value, int) and not 0 <= value <= MOST:
            raise EngineError("preset.out_of_range", key=self._name(key), value=_shown(value), most=MOST)
        if isinstance(value, str):
            most = TEXT_MOST.get(self._name(key), TEXT_MOST["name"])
            if len(value) > most or "\x00" in value:
                raise EngineError("preset.too_long", key=self._name(key), most=most)

    def _no_repeats(self, key: str, values: list[Any]) -> None:
        """A value listed twice says nothing more: refused at the door (it would only make a kept file big)."""
        if self.bounded and len(set(values)) != len(values):
            raise EngineError("preset.bad_value", key=self._name(key), value=_shown(values))

    def sub(self, key: str) -> _Reader:
        return _Reader(self.take(key, dict, {}), self._name(key), self.seen, self.bounded)

    def choice(self, key: str, options: tuple[str, ...], default: str) -> str:
        """One of `options` (a mode: "additive" or "highest")."""
        value = self._take(key, str, default)
        if value not in options:
            raise EngineError("preset.bad_value", key=self._name(key), value=repr(value))
        self._note(key, "choice", value, default, options)
        return str(value)

    def ints(self, key: str, default: Any = ...) -> frozenset[int]:
        """A list of whole numbers (缺一's suit counts)."""
        values = self._take(key, list, default)
        if any(isinstance(value, bool) or not isinstance(value, int) for value in values):
            raise EngineError("preset.bad_value", key=self._name(key), value=_shown(values))
        for value in values if self.bounded else ():
            self._check_bounds(key, value)
        self._no_repeats(key, values)
        self._note(key, "ints", list(values), default)
        return frozenset(values)

    def strings(self, key: str, allowed: frozenset[str], default: Any = ...) -> frozenset[str]:
        values = self._take(key, list, default)
        for value in values:
            if not isinstance(value, str) or value not in allowed:
                raise EngineError("preset.bad_value", key=self._name(key), value=_shown(value))
        self._no_repeats(key, values)
        self._note(key, "set", sorted(set(values)), default, allowed)
        return frozenset(values)

    def ordered_strings(self, key: str, allowed: frozenset[str], default: Any = ...) -> tuple[str, ...]:
        """Like `strings`, keeping the order (a priority) and refusing repeats."""
        values = self._take(key, list, default)
        for value in values:
            if not isinstance(value, str) or value not in allowed:
                raise EngineError("preset.bad_value", key=self._name(key), value=repr(value))
        if len(set(values)) != len(values):
            raise EngineError("preset.bad_value", key=self._name(key), value=repr(values))
        self._note(key, "order", list(values), default, allowed)
        return tuple(values)

    def finish(self) -> None:
        for key in self.table:
            raise EngineError("preset.unknown_key", key=self._name(key))


def _shown(value: Any) -> str:
    """A bad value as an error names it: its start, never a screenful (a 5,000-digit number)."""
    try:
        text = repr(value)
    except ValueError:  # a number past Python's 4,300 digits of conversion
        return "…"
    return text if len(text) <= 40 else f"{text[:37]}…"


def _unit_rule(
    key: str, raw: Any, path: str, known: frozenset[str], seen: list[KeyRead] | None = None, bounded: bool = True
) -> UnitRule:
    """A unit's rule: a number (its value) or a table; either way each of its keys is noted as a
    table's would be, the value under the unit's own name (`patterns.pao`)."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = {"value": raw}
    if not isinstance(raw, dict):
        raise EngineError("preset.bad_value", key=path, value=_shown(raw))
    reader = _Reader(raw, path, seen, bounded)
    value = reader._take("value", int)
    if seen is not None:
        seen.append(KeyRead(path, "int", (), True, value))
    rule = UnitRule(
        key=key,
        value=value,
        big=reader.take("big", bool, False),
        excludes=reader.strings("excludes", known, []),
        needs_menqing=reader.take("needs_menqing", bool, False),
        doubles_total=reader.take("doubles_total", bool, False),
        takes_all=reader.take("takes_all", bool, False),
        suit_counts=reader.ints("suit_counts", [2]),
        broken_by=reader.strings("broken_by", MELD_KINDS, list(MENQING_BROKEN_BY)),
        any_pong=reader.take("any_pong", bool, False),
        any_sole_wait=reader.take("any_sole_wait", bool, False),
        flat=reader.take("flat", bool, False),
        skip_wind_gangs=reader.take("skip_wind_gangs", bool, False),
        melds_allowed=reader.strings("melds_allowed", MELD_KINDS, []),
    )
    reader.finish()
    return rule


def _unit_table(reader: _Reader, known: frozenset[str], all_keys: frozenset[str]) -> dict[str, UnitRule]:
    rules: dict[str, UnitRule] = {}
    for key in list(reader.table):
        if key not in known:
            raise EngineError("preset.unknown_key", key=reader._name(key))
        rules[key] = _unit_rule(key, reader.table.pop(key), reader._name(key), all_keys, reader.seen, reader.bounded)
    return rules


def _merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _raw_builtin(name: str) -> dict[str, Any]:
    if name not in PRESET_NAMES:
        raise EngineError("preset.unknown", name=name, known=", ".join(PRESET_NAMES))
    text = resources.files("engine.presets").joinpath(f"{name}.toml").read_text(encoding="utf-8")
    return _resolve_base(tomllib.loads(text), depth=0)


def _resolve_base(raw: dict[str, Any], depth: int) -> dict[str, Any]:
    base_name = raw.pop("base", None)
    if base_name is None:
        return raw
    if not isinstance(base_name, str) or depth > len(PRESET_NAMES):
        raise EngineError("preset.bad_value", key="base", value=repr(base_name))
    return _merge(_raw_builtin(base_name), raw)


def _pattern_groups(win: _Reader, key: str) -> tuple[tuple[str, ...], ...]:
    raw = win._take(key, list, [])
    if win.bounded and len(raw) > len(PATTERN_KEYS):  # more groups than patterns repeat one
        raise EngineError("preset.bad_value", key=f"win.{key}", value=_shown(raw))
    for group in raw:
        if not isinstance(group, list):
            raise EngineError("preset.bad_value", key=f"win.{key}", value=_shown(group))
        for name in group:
            if name not in PATTERN_KEYS:
                raise EngineError("preset.bad_value", key=f"win.{key}", value=_shown(name))
        win._no_repeats(key, group)
    win._note(key, "groups", [list(group) for group in raw], [], PATTERN_KEYS)
    return tuple(tuple(group) for group in raw)


def preset_from_dict(raw: Mapping[str, Any], seen: list[KeyRead] | None = None, bounded: bool = True) -> Preset:
    """Build and check a preset from parsed TOML (after `base` is resolved); `seen` collects every
    key the reading asked for, with the value it read (engine/rule_keys.py).

    Every door (a typed change, a file, RULES_DIR, a house rule, `/new … rules=`) reads `bounded`:
    each number 0–100000, each text short. Rules a night already stored are read with
    `bounded=False`, as they were kept: the bounds are the doors', and a ledger written before them
    still opens (docs/rules.md 20)."""
    check_depth(raw)
    source = json.dumps(raw, ensure_ascii=False, sort_keys=True, default=str)  # a bad value is refused below
    reader = _Reader(raw, "", seen, bounded)
    all_units = SOFT_KEYS | PATTERN_KEYS
    name = reader.take("name", str)
    description = reader.take("description", str, "")
    win = reader.sub("win")
    zha = win.take("zha", int)
    small_hu_min_hard = win.take("small_hu_min_hard", int)
    soft = _unit_table(reader.sub("soft"), SOFT_KEYS, all_units)
    patterns = _unit_table(reader.sub("patterns"), PATTERN_KEYS, all_units)
    groups = _pattern_groups(win, "exclusive_groups")
    refused_together = _pattern_groups(win, "refused_together")
    mode = win.choice("patterns_mode", ("additive", "highest"), "additive")
    instant_reader = reader.sub("instant")
    payers = instant_reader.choice("added_gang_payers", ("feeder", "others"), "feeder")
    instant = InstantRules(
        exposed_gang=instant_reader.take("exposed_gang", int),
        added_gang=instant_reader.take("added_gang", int),
        added_gang_payers=payers,
        concealed_gang=instant_reader.take("concealed_gang", int),
        flower_gang=instant_reader.take("flower_gang", int),
        penalty_follow=instant_reader.take("penalty_follow", int),
        penalty_four=instant_reader.take("penalty_four", int),
        false_win=instant_reader.take("false_win", int, 0),
        custom_penalty=instant_reader.take("custom_penalty", bool, True),
        refund_gangs_on_draw=instant_reader.take("refund_gangs_on_draw", bool, False),
        four_winds=instant_reader.take("four_winds", int, 0),
    )
    liability_reader = reader.sub("liability")
    liability_mode = liability_reader.choice("mode", ("shares", "fixed"), "shares")
    liability = LiabilityRules(
        kinds=liability_reader.ordered_strings("kinds", LIABILITY_KINDS, []),
        kuaizhao_concealed_counts=liability_reader.take("kuaizhao_concealed_counts", bool, False),
        mode=liability_mode,
        fixed=liability_reader.take("fixed", int, 0),
        shares_kinds=liability_reader.strings("shares_kinds", LIABILITY_KINDS, []),
        fourth_mouth_at_once=liability_reader.take("fourth_mouth_at_once", bool, False),
        range_after=liability_reader.strings("range_after", MELD_KINDS, ["pong"]),
    )
    multiplier_reader = reader.sub("multipliers")
    multipliers = Multipliers(
        self_draw=multiplier_reader.take("self_draw", int, 1),
        after_gang=multiplier_reader.take("after_gang", int, 1),
        robbing_gang=multiplier_reader.take("robbing_gang", int, 1),
        cap=multiplier_reader.take("cap", int, 1),
    )
    bixiahu = reader.sub("bixiahu")
    dealer = reader.sub("dealer")
    chips_reader = reader.sub("chips")
    chips = ChipRules(
        enabled=chips_reader.take("enabled", bool, False),
        start=chips_reader.take("start", int, 0),
        divisor=chips_reader.take("divisor", int, 1),
    )
    if chips.divisor < 1:
        raise EngineError("preset.bad_value", key="chips.divisor", value=repr(chips.divisor))
    preset = Preset(
        name=name,
        description=description,
        zha=zha,
        small_hu_min_hard=small_hu_min_hard,
        patterns_mode=mode,
        exclusive_groups=groups,
        refused_together=refused_together,
        flower_gang_opens=win.take("flower_gang_opens", bool, False),
        soft=MappingProxyType(soft),
        patterns=MappingProxyType(patterns),
        instant=instant,
        liability=liability,
        multipliers=multipliers,
        triggers=bixiahu.strings("triggers", TRIGGERS, []),
        doubling_factor=bixiahu.take("factor", int, 2),
        every_hand_doubled=bixiahu.take("every_hand", bool, False),
        leibaota_step=bixiahu.take("leibaota_step", int, 0),
        dealer_stays_on=dealer.strings("stays_on", DEALER_STAYS_ON),
        jiang_passes=dealer.take("jiang_passes", int, 0),
        start=reader.take("start", int, 0),
        chips=chips,
        source=source,
    )
    for part in (win, instant_reader, liability_reader, multiplier_reader, bixiahu, dealer, chips_reader, reader):
        part.finish()
    return preset


def resolved_builtin(name: str) -> dict[str, Any]:
    """A built-in preset as plain data, `base` resolved (what the ledger stores with a night)."""
    return _raw_builtin(name)


def resolved_text(text: str) -> dict[str, Any]:
    """A house-rules file as plain data, `base` resolved; checked by building the preset."""
    raw = parse_toml(text)
    resolved = _resolve_base(raw, depth=0)
    preset_from_dict(resolved)
    return resolved


def load_preset(name: str) -> Preset:
    """A built-in preset by name."""
    return preset_from_dict(_raw_builtin(name))


def load_preset_text(text: str) -> Preset:
    """A house-rules file's text (TOML); it may name a built-in preset as `base`."""
    return preset_from_dict(resolved_text(text))


def load_preset_file(path: Path) -> Preset:
    return load_preset_text(path.read_text(encoding="utf-8"))
