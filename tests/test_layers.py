"""The folders of bot/ are layers (README, Architecture): a module imports only its own layer or those
below it, the engine imports nothing of bot/, and only the Telegram package imports `telegram`."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# bottom to top: a module may import its own layer and the ones before it in this list
LAYERS = ("engine", "bot.text", "bot.store", "bot.night", "bot.views", "bot.chat", "bot.front", "bot.__main__")
FRONT_ENDS = ("bot.telegram", "bot.console")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int | None:
    if module == "bot":
        return 0  # the package's docstring only
    if module.startswith(FRONT_ENDS):
        module = "bot.front"
    for rank, layer in enumerate(LAYERS):
        if module == layer or module.startswith(layer + "."):
            return rank
    return None


def imports(path: Path) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def sources() -> list[Path]:
    return sorted((*ROOT.joinpath("engine").rglob("*.py"), *ROOT.joinpath("bot").rglob("*.py")))


def test_every_module_has_a_layer() -> None:
    assert [module_name(p) for p in sources() if layer_of(module_name(p)) is None] == []


def test_no_module_reaches_a_layer_above_it() -> None:
    upward = []
    for path in sources():
        here = layer_of(module_name(path))
        assert here is not None
        for imported in imports(path):
            there = layer_of(imported)
            if there is not None and there > here:
                upward.append(f"{module_name(path)} imports {imported}")
    assert upward == []


def test_only_the_telegram_package_imports_telegram() -> None:
    outside = [
        f"{module_name(path)} imports {name}"
        for path in sources()
        if not module_name(path).startswith("bot.telegram")
        for name in imports(path)
        if name == "telegram" or name.startswith("telegram.")
    ]
    assert outside == []


def test_front_ends_never_reach_the_ledger() -> None:
    reaching = [
        f"{module_name(path)} imports {name}"
        for path in sources()
        if module_name(path).startswith(FRONT_ENDS)
        for name in imports(path)
        if name.startswith(("bot.store.ledger", "bot.night"))
    ]
    assert reaching == []


# Only the night layer and the store read or write the ledger; the views and the command layer ask
# `Nights` (bot/night/night.py) by name. The one exception, and why:
LEDGER_EXCEPTIONS = {
    "bot.chat.service": "Referee.open opens the database (Ledger.open) and hands the Ledger to Nights",
}
ABOVE_THE_NIGHT = ("bot.views", "bot.chat")


def above_the_night() -> list[Path]:
    return [path for path in sources() if module_name(path).startswith(ABOVE_THE_NIGHT)]


def test_views_and_commands_never_import_the_ledger() -> None:
    importing = [
        f"{module_name(path)} imports {name}"
        for path in above_the_night()
        if module_name(path) not in LEDGER_EXCEPTIONS
        for name in imports(path)
        if name == "bot.store.ledger" or name.startswith("bot.store.ledger.")
    ]
    assert importing == []
    # the exception takes the Ledger class alone, nothing else of the module
    excepted = [
        name
        for path in above_the_night()
        if module_name(path) in LEDGER_EXCEPTIONS
        for name in imports(path)
        if name.startswith("bot.store.ledger")
    ]
    assert excepted == ["bot.store.ledger.Ledger"]


def test_views_and_commands_never_reach_the_ledger_of_a_night() -> None:
    """No `nights.ledger.…`, `context.services.nights.ledger`, `night.ledger`: any attribute named
    `ledger` above the night layer is a way round it."""
    reaching = [
        f"{module_name(path)}:{node.lineno} reads .ledger"
        for path in above_the_night()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "ledger"
    ]
    assert reaching == []
