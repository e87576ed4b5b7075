"""What `/rules` says of a table's own rules: every value a group may change in the chat, with its
key and its name in the chat's language, grouped as a rules file groups them; what changed tonight;
the group's house rules by name. The keys are the engine's (engine/rule_keys.py); their names are
the catalogs' (`rulekey.<key>`, or a unit's own name, `unit.<key>`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from bot.text.replies import LIST, Joined, Reply
from engine.events import SetRules
from engine.preset import LIABILITY_KINDS, MELD_KINDS, Preset
from engine.rule_keys import FREE_TEXT, chat_keys, format_keys, is_unit_value, keys_changed, section, values_of
from locales import DEFAULT_LANGUAGE, load_catalog

ITEM_SEPARATOR = " · "


def has_name(key: str) -> bool:
    return key in load_catalog(DEFAULT_LANGUAGE).singular


def label_key(key: str) -> str:
    """The catalog key naming a rule key: its own (`rulekey.instant.exposed_gang`), else a unit's
    name (`unit.pao`)."""
    own = f"rulekey.{key}"
    if has_name(own) or not is_unit_value(key):
        return own
    return f"unit.{key.split('.')[1]}"


@cache
def short_names() -> Mapping[str, str]:
    """Each chat key by the shortest name that says it (`pao`, `exposed_gang`; the dotted key where
    the last part alone is two keys')."""
    last = [key.rsplit(".", 1)[-1] for key in chat_keys()]
    return {key: tail if last.count(tail) == 1 else key for key, tail in zip(chat_keys(), last, strict=True)}


def item_key(key: str, item: str) -> str:
    """The catalog key naming one value of a set (a 比下胡 trigger, a liability, a meld kind)."""
    allowed = set(format_keys()[key].allowed)
    if section(key) == "liability" and allowed <= LIABILITY_KINDS:
        return f"liability.{item}"
    if allowed <= MELD_KINDS:
        return f"meld_name.{item}"
    return f"trigger.{item}"


def shown_value(key: str, value: Any) -> Any:
    """A value as a reader sees it: yes or no, a set's values by name, a number as it is."""
    kind = format_keys()[key].kind
    if kind == "bool":
        return Reply("house.yes" if value else "house.no")
    if kind in ("set", "order"):
        if not value:
            return Reply("house.none")
        names = tuple(Reply(item_key(key, item)) if has_name(item_key(key, item)) else item for item in value)
        return Joined(names, LIST if kind == "set" else " > ")
    return value


def item(key: str, value: Any) -> Reply:
    return Reply(
        "house.item", {"name": Reply(label_key(key)), "key": short_names()[key], "value": shown_value(key, value)}
    )


def changeable(preset: Preset) -> list[Reply]:
    """Every value a group may change in the chat, section by section (`/rules set KEY=VALUE`): the
    units these rules score, and every other key."""
    values = values_of(preset)
    sections: dict[str, list[Reply]] = {}
    for key in chat_keys():
        if key in values:
            sections.setdefault(section(key), []).append(item(key, values[key]))
    lines = [Reply("house.changeable_header")]
    for name, items in sections.items():
        lines.append(
            Reply(
                "house.section_line",
                {"section": Reply(f"house.section.{name}"), "items": Joined(tuple(items), ITEM_SEPARATOR)},
            )
        )
    return lines


def differences(before: Preset, after: Preset) -> list[Reply]:
    """`跑 20 → 10`, one per value that differs (a unit added or dropped: `—` on its side)."""
    old, new = values_of(before), values_of(after)
    shown = [
        key
        for key in keys_changed(before, after)
        if (key in chat_keys() or key in old or key in new) and section(key) not in FREE_TEXT  # a name is no rule
    ]
    return [change(key, old.get(key), new.get(key)) for key in shown if not _finer(key, old, new)]


def _finer(key: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """A unit's finer key whose unit came or went: the unit's own line says it."""
    parts = key.split(".")
    unit = ".".join(parts[:2])
    return len(parts) > 2 and parts[0] in ("soft", "patterns") and (unit not in old or unit not in new)


def change(key: str, before: Any, after: Any) -> Reply:
    name = Reply(label_key(key)) if has_name(label_key(key)) else key
    kind = format_keys()[key].kind if key in format_keys() else ""
    if kind == "set" and before is not None and after is not None:  # what came in and what went out
        added = tuple(Reply("house.added", {"value": shown_value(key, [i])}) for i in after if i not in before)
        gone = tuple(Reply("house.removed", {"value": shown_value(key, [i])}) for i in before if i not in after)
        params = {"name": name, "key": short_names().get(key, key), "changes": Joined(added + gone, " ")}
        return Reply("house.change_set", params)
    return Reply(
        "house.change",
        {
            "name": name,
            "key": short_names().get(key, key),
            "before": "—" if before is None else shown_value(key, before),
            "after": "—" if after is None else shown_value(key, after),
        },
    )


def kept_lines(names: Sequence[str], default: str | None, operator: Iterable[str]) -> list[Reply]:
    """The group's house rules by name, the one a bare /new opens with, and the operator's files."""
    lines: list[Reply] = []
    if names:
        lines.append(Reply("house.kept", {"names": Joined(tuple(names), LIST)}))
    lines.append(Reply("house.default", {"name": default}) if default else Reply("house.default_builtin"))
    files = tuple(operator)
    if files:
        lines.append(Reply("house.operator", {"names": Joined(files, LIST)}))
    return lines


def what(event: SetRules) -> Reply:
    """A 改规则 as a line of the night (`/history #N`): the values it set, or the file it played."""
    if event.whole:
        name = json.loads(event.whole).get("name", "?")
        return Reply("house.what_file", {"name": name})
    items = tuple(
        Reply(
            "house.what_item",
            {
                "name": Reply(label_key(c.key)),
                "op": OP_SIGNS.get(c.op, c.op),
                "value": shown_value(c.key, json.loads(c.value)),
            },
        )
        for c in event.changes
    )
    return Reply("house.what", {"changes": Joined(items, LIST)})


OP_SIGNS = {"=": "=", "+": "+=", "-": "-="}
