"""Reading a table's change of its rules, `/rules set 跑=10 比下胡+=荒庄`: each word a key of the preset
format (by its dotted name, its last part, or its name in any language: 跑, pao, 直杠), `=` and a
value, or `+=` / `-=` and values to add to a set or take out of it.

Every word is read before anything is refused, so one answer names every bad key and value. The
keys are the engine's (engine/rule_keys.py), their names the catalogs' (bot/views/house_rules.py):
nothing here lists them a second time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

from bot.text.replies import LIST, Joined, Reply
from bot.text.vocabulary import catalog_words, fold
from bot.views.house_rules import item_key, label_key, short_names
from engine.events import RuleChange
from engine.preset import MOST
from engine.rule_keys import NIGHT_ONLY, SET_KINDS, change_of, chat_key, chat_keys, format_keys, section

RULES_ACTIONS = ("set", "save", "default", "drop", "all")  # /rules set KEY=VALUE …, /rules all [NAME] …
MAX_NUMBER = MOST  # the preset reader's bound (engine/preset.py): said before the value is read
_WORD = re.compile(r"^(?P<key>[^=+]+?)(?P<op>\+=|-=|=)(?P<value>.*)$")
_ITEMS = re.compile(r"[,，、]")
OPS = {"=": "=", "+=": "+", "-=": "-"}


@cache
def rules_actions() -> dict[str, str]:
    """The words that start a change of the rules (`set`, 改 …), folded: the catalogs' `words.rules.<action>`."""
    return {fold(w): action for action in RULES_ACTIONS for w in (action, *catalog_words(f"rules.{action}", False))}


def _spoken(word: str) -> str:
    """A word as it is matched: folded, spaces and hyphens dropped (`Exposed gang` is exposedgang)."""
    return fold(word).replace(" ", "").replace("-", "")


def _unique(pairs: Sequence[tuple[str, str]]) -> Mapping[str, str]:
    """Word → what it names; a word that names two things names neither (never a guess)."""
    found: dict[str, set[str]] = {}
    for word, value in pairs:
        found.setdefault(_spoken(word), set()).add(value)
    return MappingProxyType({word: next(iter(values)) for word, values in found.items() if len(values) == 1})


def key_aliases(key: str) -> list[str]:
    """What a player may call a key: its dotted name, its short name, and its names in the catalogs."""
    return [key, short_names()[key], *catalog_words(label_key(key))]


@cache
def key_words() -> Mapping[str, str]:
    return _unique([(alias, key) for key in chat_keys() for alias in key_aliases(key)])


def key_named(word: str) -> str | None:
    """The chat key a word names (跑, 門清, pao, patterns.pao), if exactly one."""
    return key_words().get(_spoken(word))


@cache
def ambiguous_key_words() -> frozenset[str]:
    """Names that would stand for two keys (kept out of `key_words`: a test keeps this empty)."""
    pairs = [(_spoken(alias), key) for key in chat_keys() for alias in key_aliases(key)]
    return frozenset(word for word, _ in pairs if len({k for w, k in pairs if w == word}) > 1)


@cache
def item_words(key: str) -> Mapping[str, str]:
    """A set's values by what a player may call them (荒庄, draw)."""
    return _unique(
        [(word, item) for item in format_keys()[key].allowed for word in (item, *catalog_words(item_key(key, item)))]
    )


@cache
def bool_words() -> Mapping[str, bool]:
    pairs = [(word, True) for word in catalog_words("house.yes", False)]
    pairs += [(word, False) for word in catalog_words("house.no", False)]
    return {_spoken(word): value for word, value in pairs}


@dataclass(frozen=True)
class Read:
    """The changes of the words that read, and an error for each word that did not (a repeated key
    too): the line is refused while any error stands, naming them all."""

    changes: tuple[RuleChange, ...]
    errors: tuple[Reply, ...]


def read_changes(words: Sequence[str]) -> Read:
    changes: list[RuleChange] = []
    errors: list[Reply] = []
    seen: set[str] = set()
    if not words:
        return Read((), (Reply("house.set_usage"),))
    for word in words:
        try:
            found = read_change(word)
        except WordRefused as refused:
            errors.append(refused.reply)
            continue
        if found.key in seen:
            errors.append(Reply("house.twice", {"key": short_names()[found.key]}))
            continue
        seen.add(found.key)
        changes.append(found)
    return Read(tuple(changes), tuple(errors))


class WordRefused(Exception):
    def __init__(self, reply: Reply) -> None:
        super().__init__(reply.key)
        self.reply = reply


def read_change(word: str) -> RuleChange:
    match = _WORD.match(word.strip())
    if match is None:
        raise WordRefused(Reply("house.bad_word", {"word": word}))
    typed, op, text = match["key"].strip(), OPS[match["op"]], match["value"].strip()
    key = key_of(typed)
    kind = format_keys()[key].kind
    if op != "=" and kind not in SET_KINDS:
        raise WordRefused(Reply("house.not_a_set", {"key": typed, "word": word}))
    return change_of(key, op, value_of(key, typed, text))


def key_of(typed: str) -> str:
    """The chat key `typed` names; refused, saying why, when it names none or one the chat cannot change."""
    key = key_named(typed)
    if key is not None:
        return key
    dotted = typed.strip().lower()
    for known in (dotted, f"soft.{dotted}", f"patterns.{dotted}"):  # a unit's finer key by its unit (yajue.big)
        if known in format_keys() and not chat_key(known):
            reason = "house.night_only" if section(known) in NIGHT_ONLY else "house.file_only"
            raise WordRefused(Reply(reason, {"key": typed}))
    raise WordRefused(Reply("house.unknown_key", {"key": typed}))


def value_of(key: str, typed: str, text: str) -> Any:
    """The value typed for `key`, as its kind takes it; refused naming the key and the value."""
    read = format_keys()[key]
    params = {"key": typed, "value": text}
    if read.kind == "int":
        if not (text.isascii() and text.isdigit()) or len(text) > len(str(MAX_NUMBER)) or int(text) > MAX_NUMBER:
            raise WordRefused(Reply("house.bad_number", {**params, "most": MAX_NUMBER}))
        return int(text)
    if read.kind == "bool":
        value = bool_words().get(_spoken(text))
        if value is None:
            raise WordRefused(Reply("house.bad_bool", params))
        return value
    if read.kind == "choice":
        if text.lower() not in read.allowed:
            raise WordRefused(Reply("house.bad_choice", {**params, "options": Joined(read.allowed, LIST)}))
        return text.lower()
    items = [part.strip() for part in _ITEMS.split(text) if part.strip()]
    names = item_words(key)
    unknown = [part for part in items if _spoken(part) not in names]
    if unknown:
        options = tuple(Reply(item_key(key, item)) for item in read.allowed)
        raise WordRefused(
            Reply(
                "house.bad_item",
                {"key": typed, "value": Joined(tuple(unknown), LIST), "options": Joined(options, LIST)},
            )
        )
    return list(dict.fromkeys(names[_spoken(part)] for part in items))
