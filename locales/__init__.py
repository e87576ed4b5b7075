"""Every user-facing string, per language, from gettext `.po` files read directly with Babel.

`locales/<lang>/LC_MESSAGES/*.po` hold one language's catalog: `referee.po` and one file per feature
that has many strings of its own (read in name order; a key defined twice is an error, so two files
never disagree silently). msgids are message keys (`tile.unknown`), msgstrs are Python format
strings (`{tile}`). Reading the `.po` sources at start-up
means no compiled `.mo` file can drift from them. A key missing in a language falls back to
Simplified Chinese, then to the key itself, so a gap shows up as a key, never as a crash.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from babel.messages.pofile import read_po

LANGUAGES = ("zh-Hans", "zh-Hant", "en")
DEFAULT_LANGUAGE = "zh-Hans"
_ALIASES = {
    "zh": "zh-Hans",
    "zh-cn": "zh-Hans",
    "zh-hans": "zh-Hans",
    "zh-sg": "zh-Hans",
    "简体": "zh-Hans",
    "簡體": "zh-Hans",
    "中文": "zh-Hans",
    "zh-tw": "zh-Hant",
    "zh-hk": "zh-Hant",
    "zh-mo": "zh-Hant",
    "zh-hant": "zh-Hant",
    "繁体": "zh-Hant",
    "繁體": "zh-Hant",
    "en": "en",
    "english": "en",
    "英文": "en",
    "英语": "en",
}


def normalize_language(code: str | None) -> str | None:
    """Map a Telegram language_code or a typed name to one of LANGUAGES (None if unknown)."""
    if not code:
        return None
    lowered = code.strip().lower().replace("_", "-")
    if lowered in _ALIASES:
        return _ALIASES[lowered]
    if lowered.startswith("en"):
        return "en"
    return None


@dataclass(frozen=True)
class Catalog:
    singular: dict[str, str]
    plural: dict[str, tuple[str, ...]]
    plural_expr: str = "0"  # the catalog's own plural rule (its Plural-Forms header, as Babel reads it)

    def plural_index(self, count: int) -> int:
        """Which of a message's plural forms `count` takes, by the catalog's rule (English: 1 is the
        first form, any other count the second; Chinese has one form)."""
        return int(_plural_rule(self.plural_expr)(count))


@cache
def load_catalog(language: str) -> Catalog:
    """Read one language's `.po` files (cached: catalogs are read-only once loaded)."""
    folder = resources.files("locales").joinpath(language.replace("-", "_"), "LC_MESSAGES")
    singular: dict[str, str] = {}
    plural: dict[str, tuple[str, ...]] = {}
    rules: set[str] = set()
    for path in sorted((entry for entry in folder.iterdir() if entry.name.endswith(".po")), key=lambda e: e.name):
        with path.open("rb") as handle:
            catalog = read_po(handle)
        rules.add(catalog.plural_expr)
        _merge_catalog(catalog, singular, plural, path.name)
    if len(rules) > 1:  # every file of a language says its plural rule, and the same one
        raise ValueError(f"{language}: the .po files disagree on the plural rule: {sorted(rules)}")
    return Catalog(singular, plural, rules.pop() if rules else "0")


@cache
def _plural_rule(expression: str) -> Callable[[int], int]:
    """A Plural-Forms expression (`(n != 1)`) as a function, as gettext reads it."""
    return gettext.c2py(expression)


def _merge_catalog(catalog: Any, singular: dict[str, str], plural: dict[str, tuple[str, ...]], source: str) -> None:
    for message in catalog:
        if not message.id or not message.string:
            continue
        if isinstance(message.id, tuple):
            forms = tuple(message.string) if isinstance(message.string, tuple | list) else (message.string,)
            if all(forms):
                plural[message.id[0]] = forms
        elif isinstance(message.id, str) and isinstance(message.string, str):
            if message.id in singular:
                raise ValueError(f"message key {message.id!r} is defined twice (again in {source})")
            singular[message.id] = message.string


@dataclass(frozen=True)
class Translator:
    language: str = DEFAULT_LANGUAGE

    def _lookup(self, key: str) -> str | None:
        for language in (self.language, DEFAULT_LANGUAGE):
            text = load_catalog(language).singular.get(key)
            if text is not None:
                return text
        return None

    def t(self, key: str, /, **params: Any) -> str:
        """The message for `key` in this language, filled with `params`."""
        text = self._lookup(key)
        if text is None:
            return key
        try:
            return text.format(**params)
        except (KeyError, IndexError):
            return text

    def n(self, key: str, count: int, /, **params: Any) -> str:
        """A message with plural forms; `count` picks the form by the catalog's plural rule."""
        for language in (self.language, DEFAULT_LANGUAGE):
            forms = load_catalog(language).plural.get(key)
            if forms:
                form = forms[min(load_catalog(language).plural_index(count), len(forms) - 1)]
                return form.format(count=count, **params)
        return self.t(key, count=count, **params)
