"""A table's own rules (改规则): the keys of the preset format a table may change, the values in force,
and a change applied to the rules in force.

The keys are those the preset reader asks for (engine/preset.py notes each one with what it takes
and the value it read), so a key added to the format is a key a table may change, with no second
list to keep. A change is data (engine/events.py `SetRules`): the rules it makes are worked out
from the rules in force whenever the night is folded, so undoing an earlier change leaves a later
one's values as they were typed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache, lru_cache
from types import MappingProxyType
from typing import Any

from engine.errors import EngineError
from engine.events import RuleChange, SetRules
from engine.preset import PRESET_NAMES, KeyRead, Preset, preset_from_dict, resolved_builtin
from engine.rules_text import parse_toml
from engine.units import PATTERN_UNITS, SOFT_UNITS

# What a night is opened with: its balances start from `start` and its chips from `chips`, so they
# change only with a new night (docs/rules.md 20).
NIGHT_ONLY = ("start", "chips")
FREE_TEXT = ("name", "description")  # a file's own words, not a rule
UNIT_TABLES = ("soft", "patterns")
# What a line in the chat can say: a number, yes or no, one word of a few, a list of words.
CHAT_KINDS = frozenset({"int", "bool", "choice", "set", "order"})
SET_KINDS = frozenset({"set", "order"})
OPS = ("=", "+", "-")


def section(key: str) -> str:
    return key.split(".", 1)[0]


def is_unit_value(key: str) -> bool:
    """`patterns.pao`, `soft.hard`: a unit's value (not one of its finer keys, `patterns.yajue.big`)."""
    parts = key.split(".")
    return len(parts) == 2 and parts[0] in UNIT_TABLES


@cache
def format_keys() -> Mapping[str, KeyRead]:
    """Every key of the preset format by its dotted name: what reading a preset asks for, with every
    unit in its table (a preset's tables hold only the units it scores)."""
    raw = resolved_builtin("nanjing")
    raw["soft"] = dict.fromkeys((unit.key for unit in SOFT_UNITS), 0)  # in the order rules are shown
    raw["patterns"] = dict.fromkeys((unit.key for unit in PATTERN_UNITS), 0)
    seen: list[KeyRead] = []
    preset_from_dict(raw, seen)
    return MappingProxyType({read.key: read for read in seen})


def chat_key(key: str) -> bool:
    """Whether a line in the chat may change `key` (`/rules set KEY=VALUE`): a number, yes or no, a
    choice or a set, not what a night is opened with nor a file's own words, and of a unit only its
    value. The rest is changed by sending a rules file."""
    read = format_keys().get(key)
    if read is None or read.kind not in CHAT_KINDS or section(key) in (*NIGHT_ONLY, *FREE_TEXT):
        return False
    return section(key) not in UNIT_TABLES or is_unit_value(key)


@cache
def chat_keys() -> tuple[str, ...]:
    """The keys a line in the chat may change, in the format's order."""
    return tuple(key for key in format_keys() if chat_key(key))


@lru_cache(maxsize=32)
def _values_of_source(source: str) -> Mapping[str, Any]:
    seen: list[KeyRead] = []
    preset_from_dict(json.loads(source), seen, bounded=False)  # rules already built: read as they are
    return MappingProxyType({read.key: read.value for read in seen})


def values_of(preset: Preset) -> Mapping[str, Any]:
    """Each key's value in these rules (its default where the file leaves it out); a unit the rules
    do not score has no key here."""
    return _values_of_source(preset.source)


def rules_after(preset: Preset, change: SetRules, bounded: bool = True) -> Preset:
    """The rules `change` makes of `preset`; EngineError (the key and value named) if they are not
    rules, or if they change what a night is opened with. Kept for the rules and change they were
    made of: every re-fold of a night (a correction, a restart) meets the same ones again. The
    fold of a stored change reads it unbounded (engine/preset.py `preset_from_dict`): the door that
    wrote it checked it."""
    return _rules_after(preset, change, bounded)


@lru_cache(maxsize=64)
def _rules_after(preset: Preset, change: SetRules, bounded: bool) -> Preset:
    if change.whole:
        after = preset_from_dict(json.loads(change.whole), bounded=bounded)
    else:
        raw = json.loads(preset.source)
        for item in change.changes:
            raw = changed(raw, item)
        after = preset_from_dict(raw, bounded=bounded)
    for key in night_only_changes(preset, after):
        raise EngineError("rules.night_only", key=key)
    return after


def changed(raw: Mapping[str, Any], item: RuleChange) -> dict[str, Any]:
    """`raw` (a preset's plain data) with one change made."""
    read = format_keys().get(item.key)
    if read is None:
        raise EngineError("preset.unknown_key", key=item.key)
    if item.op not in OPS or (item.op != "=" and read.kind not in SET_KINDS):
        raise EngineError("preset.bad_value", key=item.key, value=f"{item.op}{item.value}")
    try:
        value = json.loads(item.value)
    except ValueError:
        raise EngineError("preset.bad_value", key=item.key, value=item.value) from None
    if item.op != "=":
        value = _set_changed(_current(raw, item.key), value, item.op)
    return with_value(raw, item.key.split("."), value)


def _current(raw: Mapping[str, Any], key: str) -> list[Any]:
    """A set's value in `raw`, its default where `raw` leaves it out."""
    values = _values_of_source(json.dumps(raw, ensure_ascii=False, sort_keys=True, default=str))
    return list(values.get(key) or ())


def _set_changed(current: Sequence[Any], values: Any, op: str) -> list[Any]:
    """A set with `values` added (at the end, keeping an order: the first liability tried stays
    first) or taken out."""
    given = values if isinstance(values, list) else [values]
    if op == "+":
        return [*current, *(value for value in given if value not in current)]
    return [value for value in current if value not in given]


def with_value(raw: Mapping[str, Any], path: Sequence[str], value: Any) -> dict[str, Any]:
    """A copy of `raw` with the value at `path` replaced. A unit may be written as its value alone or
    as a table: its value goes where the table keeps it, and one of its finer keys turns a bare
    value into a table."""
    copy = dict(raw)
    head, rest = path[0], path[1:]
    if not rest:
        copy[head] = value
        return copy
    inner = copy.get(head)
    if head in UNIT_TABLES and len(path) >= 2:
        table = dict(inner) if isinstance(inner, dict) else {}
        unit = table.get(path[1])
        if len(path) == 2:
            table[path[1]] = {**unit, "value": value} if isinstance(unit, dict) else value
        else:
            body = dict(unit) if isinstance(unit, dict) else ({"value": unit} if unit is not None else {})
            table[path[1]] = with_value(body, path[2:], value)
        copy[head] = table
        return copy
    copy[head] = with_value(inner if isinstance(inner, dict) else {}, rest, value)
    return copy


def night_only_changes(before: Preset, after: Preset) -> list[str]:
    """The keys of what a night is opened with (start points, chips) that differ between two rules."""
    if before.start == after.start and before.chips == after.chips:
        return []
    old, new = values_of(before), values_of(after)
    return [key for key in format_keys() if section(key) in NIGHT_ONLY and old.get(key) != new.get(key)]


def change_of(key: str, op: str, value: Any) -> RuleChange:
    """A change as the ledger holds it (the value as JSON)."""
    return RuleChange(key, op, json.dumps(value, ensure_ascii=False))


def keys_changed(before: Preset, after: Preset, keys: Iterable[str] | None = None) -> list[str]:
    """The keys whose values differ between two rules (every key of the format when not given),
    units added or dropped included."""
    old, new = values_of(before), values_of(after)
    return [key for key in (keys if keys is not None else format_keys()) if old.get(key) != new.get(key)]


def read_file(text: str) -> tuple[dict[str, Any] | None, tuple[EngineError, ...]]:
    """A rules file read whole: its plain data (`base` resolved) and no errors, or None and every
    error it holds: each unknown key, each value of the wrong kind (each checked on its own over the
    rules it starts from), each key a file with no `base` must give. Bad TOML is one error (where)."""
    try:
        raw = parse_toml(text)
    except EngineError as error:
        return None, (error,)
    base = raw.pop("base", None)
    errors: list[EngineError] = []
    if base is not None and base not in PRESET_NAMES:
        errors.append(EngineError("preset.bad_value", key="base", value=repr(base)))
    start = resolved_builtin(base) if base in PRESET_NAMES else None
    for key, value in _leaves(raw):
        if key not in format_keys():
            errors.append(EngineError("preset.unknown_key", key=key))
            continue
        try:  # the value alone, over the rules the file starts from (or the default preset's)
            preset_from_dict(with_value(start or resolved_builtin("nanjing"), key.split("."), value))
        except EngineError as error:
            errors.append(error)
    if start is None:
        given = {key for key, _ in _leaves(raw)}
        errors.extend(
            EngineError("preset.missing_key", key=key)
            for key, read in format_keys().items()
            if read.required and section(key) not in UNIT_TABLES and key not in given
        )
    if errors:
        return None, tuple(errors)
    whole = _merged(start, raw) if start is not None else raw
    try:  # what no value alone shows (a combination the rules refuse)
        preset_from_dict(whole)
    except EngineError as error:
        return None, (error,)
    return whole, ()


def _merged(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        inner = merged.get(key)
        merged[key] = _merged(inner, value) if isinstance(value, dict) and isinstance(inner, dict) else value
    return merged


def _leaves(raw: Mapping[str, Any], path: str = "") -> list[tuple[str, Any]]:
    """Each value of a file by its dotted key; a unit's table by its keys (its value under the unit's
    own name), a table the format does not know as itself (an unknown key)."""
    found: list[tuple[str, Any]] = []
    for name, value in raw.items():
        key = f"{path}.{name}" if path else str(name)
        parts = key.split(".")
        if isinstance(value, dict) and parts[0] in UNIT_TABLES and len(parts) == 2:
            found.extend((key if sub == "value" else f"{key}.{sub}", item) for sub, item in value.items())
        elif isinstance(value, dict) and key not in format_keys():
            found.extend(_leaves(value, key) if (len(parts) == 1 or parts[0] in UNIT_TABLES) else [(key, value)])
        else:
            found.append((key, value))
    return found
