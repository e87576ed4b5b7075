"""The bot's messages by key, as a chat reads them. A delivery test asserts on a message key (and the
figures it names), not on copied Chinese, so a copy edit in locales/ breaks no test:

    assert says(out, "night.opened", night=1)        # the message, its other placeholders any words
    assert rendered("button.stale") == answers[1]    # the whole message

A key with plural forms (`summary.header`, `stats.player`) is said by any of its forms, and rendered
with the form its `count` picks.
"""

from __future__ import annotations

import re

from locales import DEFAULT_LANGUAGE, Translator, load_catalog

PLACEHOLDER = re.compile(r"(\{[^{}]*\})")


def plural_forms(key: str, language: str = DEFAULT_LANGUAGE) -> tuple[str, ...]:
    """The plural forms of `key` (falling back to Simplified Chinese, as the bot does); none if singular."""
    for catalog in (load_catalog(language), load_catalog(DEFAULT_LANGUAGE)):
        if key in catalog.plural:
            return catalog.plural[key]
    return ()


def templates(key: str, language: str = DEFAULT_LANGUAGE) -> tuple[str, ...]:
    """The catalog's texts of `key` (one, or its plural forms); an unknown key is a mistake of the test's,
    never a pass."""
    text = Translator(language).t(key)
    if text != key:
        return (text,)
    forms = plural_forms(key, language)
    if not forms:
        raise KeyError(f"no message {key!r} in {language}")
    return forms


def template(key: str, language: str = DEFAULT_LANGUAGE) -> str:
    """The catalog's text of `key` (a plural key's first form)."""
    return templates(key, language)[0]


def rendered(key: str, language: str = DEFAULT_LANGUAGE, /, **params: object) -> str:
    """The message `key` filled with `params`, as the bot renders it (a plural key by its `count`)."""
    templates(key, language)
    if plural_forms(key, language) and Translator(language).t(key) == key:
        count = params.pop("count")
        assert isinstance(count, int), "a plural message is rendered with an int count"
        return Translator(language).n(key, count, **params)
    return Translator(language).t(key, **params)


def says(text: str, key: str, language: str = DEFAULT_LANGUAGE, /, **params: object) -> bool:
    """Whether `text` holds the message `key` with these `params`; a placeholder not given matches any
    words of one line."""
    return any(re.search(_pattern(form, params), text) is not None for form in templates(key, language))


def _pattern(form: str, params: dict[str, object]) -> str:
    pattern = []
    for part in PLACEHOLDER.split(form):
        name = part[1:-1].split(":")[0].split("!")[0] if PLACEHOLDER.fullmatch(part) else None
        if name is None:
            pattern.append(re.escape(part))
        elif name in params:
            pattern.append(re.escape(("{" + part[1:-1].replace(name, "value", 1) + "}").format(value=params[name])))
        else:
            pattern.append(r"[^\n]*?")
    return "".join(pattern)


def changes(*moved: tuple[str, str, str], language: str = DEFAULT_LANGUAGE, unit: str = "unit_name.flowers") -> str:
    """A correction's 变动 line while the night is played at one stake: each (name, flowers moved,
    money moved) as a person reads them (`"+6"`, `"−1.50"`), `变动：甲 +6 花（+6 元） · …`."""
    words = rendered(unit, language)
    people = [
        rendered(
            "correction.change",
            language,
            name=name,
            change=rendered("balance.both", language, amount=amount, unit=words, money=money),
        )
        for name, amount, money in moved
    ]
    return rendered("correction.changes", language, changes=" · ".join(people))


def money_changes(*moved: tuple[str, str], language: str = DEFAULT_LANGUAGE) -> str:
    """A correction's 变动 line once the night mixes stakes: each (name, money moved), `变动：甲 +3 元 · …`."""
    people = [
        rendered("correction.change", language, name=name, change=rendered("balance.money", language, money=money))
        for name, money in moved
    ]
    return rendered("correction.changes", language, changes=" · ".join(people))
