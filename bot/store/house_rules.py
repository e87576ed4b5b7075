"""A group's own house rules, kept by name: each is a whole rules file as plain data (`base`
resolved), so a night opened with it (`/new … rules=NAME`) stores exactly those rules, whatever a
built-in preset becomes later. One of them may be what a bare `/new` opens with (`default`).

They are chat settings of the group (`chat_settings`, append-only: the newest row of a key counts),
so no schema change is needed and every earlier state stays in the file. Each rule is stored once,
under its own key (`house_rule:NAME`), and written again only when it changes; the group's list of
names and its default are one small row (`house_rules`). So a change appends what changed — the rule
kept, or the list — never the whole set (docs/rules.md 20: twenty rules of the largest kind, and a
`/rules default` writes a row of a few hundred bytes). A ledger from before holds the whole set in
the `house_rules` row: it is read as it was, and the first change stores each rule under its own key.

They belong to the group, not to a forum topic: every table of the group shares them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Protocol

from bot.store.rows import HouseRules
from engine.preset import PRESET_NAMES

SETTING = "house_rules"  # the names and the default (before: the whole set)
RULE = "house_rule:{name}"  # one rule's plain data


class Settings(Protocol):
    """Where chat settings are read and written (bot/night/nights.py `Nights`)."""

    async def setting(self, chat_id: str, key: str) -> str | None: ...

    async def set_setting(self, chat_id: str, key: str, value: str) -> None: ...


def group_of(chat_id: str) -> str:
    """The group a chat key belongs to: a forum topic's table shares its group's house rules."""
    return chat_id.split(":topic:", 1)[0]


def _json(text: str | None) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def _default(names: Mapping[str, object] | list[str], default: object) -> str | None:
    known = default in names or default in PRESET_NAMES  # a built-in preset may be the default too
    return str(default) if known else None


def encode_whole(house: HouseRules) -> str:
    """The whole set in one value: how house rules were stored before each had its own key."""
    body = {"rules": {name: dict(raw) for name, raw in house.rules.items()}, "default": house.default}
    return json.dumps(body, ensure_ascii=False, sort_keys=True)


def _index(house: HouseRules) -> str:
    return json.dumps({"names": sorted(house.rules), "default": house.default}, ensure_ascii=False, sort_keys=True)


def _body(raw: Mapping[str, Any]) -> str:
    return json.dumps(dict(raw), ensure_ascii=False, sort_keys=True)


async def read(settings: Settings, chat_id: str) -> HouseRules:
    """The group's house rules; nothing stored (or a value this code cannot read) is none."""
    group = group_of(chat_id)
    index = _json(await settings.setting(group, SETTING))
    if not isinstance(index, dict):
        return HouseRules()
    whole = index.get("rules")
    if isinstance(whole, dict):  # stored whole, before each rule had its own key
        rules = {str(name): dict(body) for name, body in whole.items() if isinstance(body, dict)}
    else:
        names = index.get("names")
        rules = {}
        for name in names if isinstance(names, list) else ():
            body = _json(await settings.setting(group, RULE.format(name=name)))
            if isinstance(body, dict):
                rules[str(name)] = body
    return HouseRules(MappingProxyType(rules), _default(rules, index.get("default")))


async def write(settings: Settings, chat_id: str, house: HouseRules) -> None:
    """`house` stored by what changed: each rule whose data differs from its stored row (or that has
    none yet), then the list of names and the default if they changed."""
    group = group_of(chat_id)
    for name, raw in house.rules.items():
        key, body = RULE.format(name=name), _body(raw)
        if await settings.setting(group, key) != body:
            await settings.set_setting(group, key, body)
    index = _index(house)
    if await settings.setting(group, SETTING) != index:
        await settings.set_setting(group, SETTING, index)
