"""A rules file's text before it is a preset: parsed as TOML once its nesting is known to be a rules
file's (docs/rules.md 20), so no file can exhaust the stack of the parser or of the JSON it is kept as."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from typing import Any

from engine.errors import EngineError

# A rules file is a few tables of numbers and short lists: nothing in it nests deeper than this (a
# pattern's `excludes` is at depth 3, an exclusive group at 3). Deeper is refused before it is parsed:
# the TOML reader and JSON writer recurse, and 5,000 nested arrays would exhaust the stack.
DEPTH_MOST = 8


def check_depth(value: object, depth: int = 0) -> None:
    """EngineError when plain data nests deeper than a rules file ever does (`DEPTH_MOST`)."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if level > DEPTH_MOST:
            raise EngineError("preset.too_deep", most=DEPTH_MOST)
        if isinstance(item, Mapping):
            stack.extend((inner, level + 1) for inner in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((inner, level + 1) for inner in item)


def text_depth(text: str) -> int:
    """How deep a TOML text's brackets and braces nest, outside strings and comments: read before the
    text is parsed (the parser recurses once per level)."""
    depth = most = 0
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\" and quote == '"':
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            newline = text.find("\n", index)
            index = len(text) if newline < 0 else newline
        elif char in "[{":
            depth += 1
            most = max(most, depth)
        elif char in "]}":
            depth = max(depth - 1, 0)
        index += 1
    return most


def parse_toml(text: str) -> dict[str, Any]:
    """A rules file's TOML, parsed; EngineError when it is not TOML or nests deeper than rules do."""
    if text_depth(text) > DEPTH_MOST:
        raise EngineError("preset.too_deep", most=DEPTH_MOST)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise EngineError("preset.bad_toml", detail=str(error)[:200]) from error
    except ValueError as error:  # a number past Python's 4,300 digits of conversion
        raise EngineError("preset.bad_toml", detail=str(error)[:120]) from None
    except RecursionError:  # a depth the scan above did not see (it is a safety net, not the check)
        raise EngineError("preset.too_deep", most=DEPTH_MOST) from None
