"""The bot's messages by key, as a chat reads them. A delivery test asserts on a message key (and the
figures it names), not on copied Chinese, so a copy edit in locales/ breaks no test:

    assert says(out, "night.opened", night=1)        # the message, its other placeholders any words
    assert rendered("button.stale") == answers[1]    # the whole message
"""

from __future__ import annotations

import re

from locales import DEFAULT_LANGUAGE, Translator

PLACEHOLDER = re.compile(r"(\{[^{}]*\})")


def template(key: str, language: str = DEFAULT_LANGUAGE) -> str:
    """The catalog's text of `key`; an unknown key is a mistake of the test's, never a pass."""
    text = Translator(language).t(key)
    if text == key:
        raise KeyError(f"no message {key!r} in {language}")
    return text


def rendered(key: str, language: str = DEFAULT_LANGUAGE, /, **params: object) -> str:
    """The message `key` filled with `params`, as the bot renders it."""
    template(key, language)
    return Translator(language).t(key, **params)


def says(text: str, key: str, language: str = DEFAULT_LANGUAGE, /, **params: object) -> bool:
    """Whether `text` holds the message `key` with these `params`; a placeholder not given matches any
    words of one line."""
    pattern = []
    for part in PLACEHOLDER.split(template(key, language)):
        name = part[1:-1].split(":")[0].split("!")[0] if PLACEHOLDER.fullmatch(part) else None
        if name is None:
            pattern.append(re.escape(part))
        elif name in params:
            pattern.append(re.escape(("{" + part[1:-1].replace(name, "value", 1) + "}").format(value=params[name])))
        else:
            pattern.append(r"[^\n]*?")
    return re.search("".join(pattern), text) is not None
