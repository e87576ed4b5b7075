"""A group's own house rules, kept by name: each is a whole rules file as plain data (`base`
resolved), so a night opened with it (`/new … rules=NAME`) stores exactly those rules, whatever a
built-in preset becomes later. One of them may be what a bare `/new` opens with (`default`).

They are a chat setting (`chat_settings`, append-only: each change is a new row holding all of the
chat's house rules, the newest row counts), so no schema change is needed and every earlier state
stays in the file. They belong to the group, not to a forum topic: every table of the group shares
them.
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Protocol

from bot.store.rows import HouseRules
from engine.preset import PRESET_NAMES

SETTING = "house_rules"


class Settings(Protocol):
    """Where chat settings are read and written (bot/night/nights.py `Nights`)."""

    async def setting(self, chat_id: str, key: str) -> str | None: ...

    async def set_setting(self, chat_id: str, key: str, value: str) -> None: ...


def group_of(chat_id: str) -> str:
    """The group a chat key belongs to: a forum topic's table shares its group's house rules."""
    return chat_id.split(":topic:", 1)[0]


def decode(text: str | None) -> HouseRules:
    """The stored value; nothing stored (or a value this code cannot read) is no house rules."""
    if not text:
        return HouseRules()
    try:
        raw = json.loads(text)
        rules = {str(name): dict(body) for name, body in raw["rules"].items() if isinstance(body, dict)}
        default = raw.get("default")
        known = default in rules or default in PRESET_NAMES  # a built-in preset may be the default too
        return HouseRules(MappingProxyType(rules), str(default) if known else None)
    except (ValueError, KeyError, TypeError, AttributeError):
        return HouseRules()


def encode(house: HouseRules) -> str:
    body = {"rules": {name: dict(raw) for name, raw in house.rules.items()}, "default": house.default}
    return json.dumps(body, ensure_ascii=False, sort_keys=True)


async def read(settings: Settings, chat_id: str) -> HouseRules:
    return decode(await settings.setting(group_of(chat_id), SETTING))


async def write(settings: Settings, chat_id: str, house: HouseRules) -> None:
    await settings.set_setting(group_of(chat_id), SETTING, encode(house))
