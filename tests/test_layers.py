"""The folders of bot/ are layers (README, Architecture): a module imports only its own layer or those
below it, the engine imports nothing of bot/, and only the Telegram package imports `telegram`."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# bottom to top: a module may import its own layer and the ones before it in this list
LAYERS = (
    "engine",
    "bot.threads",
    "bot.text",
    "bot.store",
    "bot.night",
    "bot.views",
    "bot.chat",
    "bot.front",
    "bot.__main__",
)
FRONT_ENDS = ("bot.telegram", "bot.console", "bot.web")


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


# A front end reaches storage through these seams only (#40), each named for what the front end
# needs of it: the inbox as its durable queue of updates (`UpdateQueue` and its `Row`), and the
# database's lock and availability errors, re-exported by the command layer. Nothing else of
# bot/store is a front end's business: the ledger is the command layer's.
FRONT_END_STORE_SEAMS = {
    "bot.store.queue": "the Telegram front end's durable queue of updates (the inbox, as the front end sees it)",
}
AVAILABILITY_SEAM = "bot.chat.availability"  # owned, DatabaseUnavailable, EXIT_UNAVAILABLE, storage_unavailable


def front_ends() -> list[Path]:
    return [path for path in sources() if module_name(path).startswith(FRONT_ENDS)]


def test_front_ends_reach_storage_only_through_their_seams() -> None:
    """Type-only imports count too (`imports` walks the whole module)."""
    reaching = [
        f"{module_name(path)} imports {name}"
        for path in front_ends()
        for name in imports(path)
        if (name == "bot.store" or name.startswith("bot.store."))
        and not any(name == seam or name.startswith(seam + ".") for seam in FRONT_END_STORE_SEAMS)
    ]
    assert reaching == []


def test_the_seams_are_narrow() -> None:
    """The queue seam imports nothing of the store (the inbox implements it, not the other way
    round), and the availability seam only re-exports the lock's errors and the storage test."""
    queue = ROOT / "bot" / "store" / "queue.py"
    assert [name for name in imports(queue) if name.startswith("bot.")] == []
    seam = ROOT.joinpath(*AVAILABILITY_SEAM.split(".")).with_suffix(".py")
    assert sorted(imports(seam)) == [
        "__future__.annotations",
        "bot.store.database.DatabaseUnavailable",
        "bot.store.database.EXIT_UNAVAILABLE",
        "bot.store.database.owned",
        "bot.store.writer.storage_unavailable",
    ]


# Only the night layer and the store read or write the ledger; the views and the command layer ask
# `Nights` (bot/night/nights.py) by name. The one exception, and why:
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


# What the views and the command layer hold of storage they read through the night's seam,
# bot/night/records.py (its value types); bot/store itself only where LEDGER_EXCEPTIONS and
# STORE_EXCEPTIONS say, and why:
STORE_EXCEPTIONS = {
    "bot.chat.service": {
        "bot.store.ledger.Ledger": LEDGER_EXCEPTIONS["bot.chat.service"],
        "bot.store.inbox.Inbox": "Referee.inbox hands the Telegram front end its intake, on the ledger's connection",
        "bot.store.writer.storage_unavailable": "Referee tells the storage failing for now (busy, locked, full) from a "
        "refusal: the update is handled again (Response.unwritten)",
    },
    # the front ends' one seam to the database's lock and availability (AVAILABILITY_SEAM)
    "bot.chat.availability": {
        "bot.store.database.owned": "a front end holds the database for its process while it runs",
        "bot.store.database.DatabaseUnavailable": "and says why it cannot (in use, unopenable, replaced)",
        "bot.store.database.EXIT_UNAVAILABLE": "and stops with this exit code then",
        "bot.store.writer.storage_unavailable": "the Telegram front end handles an update again when the storage "
        "failed for now",
    },
}


def test_views_and_commands_reach_storage_only_through_the_records_seam() -> None:
    importing = [
        f"{module_name(path)} imports {name}"
        for path in above_the_night()
        for name in imports(path)
        if (name == "bot.store" or name.startswith("bot.store."))
        and name not in STORE_EXCEPTIONS.get(module_name(path), {})
    ]
    assert importing == []


def test_the_records_seam_is_the_store_s_value_types_only() -> None:
    """bot/night/records.py passes on rows and the repeated update's refusal, nothing that reads
    or writes the ledger."""
    seam = ROOT / "bot" / "night" / "records.py"
    assert all(name.startswith("bot.store.rows.") for name in imports(seam) if name.startswith("bot."))


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


# An import circle says a name lives in the wrong module: the two modules are one idea split badly, or
# a third idea is hiding in one of them. A type-only import (under TYPE_CHECKING) closes a circle too.
def module_graph() -> dict[str, set[str]]:
    """Each module of engine/ and bot/ and the modules of engine/ and bot/ it imports, wherever in
    the module the import is (at the top, in a function, under TYPE_CHECKING)."""
    modules = {module_name(path): path for path in sources()}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names if alias.name in modules}
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    if f"{node.module}.{alias.name}" in modules:  # `from bot.chat import handlers`
                        imported.add(f"{node.module}.{alias.name}")
                    elif node.module in modules:
                        imported.add(node.module)
        graph[name] = imported - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The groups of modules that import each other round a circle (the graph's strongly connected
    components of more than one module), by Tarjan's algorithm."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[frozenset[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for imported in sorted(graph[module]):
            if imported not in order:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], order[imported])
        if low[module] == order[module]:
            group = {stack.pop()}
            while module not in group:
                group.add(stack.pop())
            if len(group) > 1:
                found.append(frozenset(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return found


def test_circles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [frozenset({"a", "b", "c"})]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_engine_or_bot() -> None:
    assert [sorted(group) for group in circles(module_graph())] == []


def test_the_four_seats_are_named_once() -> None:
    """The table's four seats are a rule of the table: engine/events.py says so, everyone imports it."""
    defining = [
        module_name(path)
        for path in sources()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name) and target.id == "SEATS"
    ]
    assert defining == ["engine.events"]


def test_no_test_file_imports_another() -> None:
    """What several test files share lives in tests/kit/, so that
    a test file can be run, moved or deleted on its own; bench/ reads the kit too."""
    files = sorted((*ROOT.joinpath("tests").rglob("*.py"), *ROOT.joinpath("bench").rglob("*.py")))
    importing = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in files
        for name in imports(path)
        if name.startswith("tests.test_")
    ]
    assert importing == []


def test_test_support_is_in_the_kit_and_bench_and_tests_import_no_circle() -> None:
    """At the top of tests/ only the test files, conftest.py and the package's __init__.py: what they
    share is in tests/kit/. bench/ may read the kit; nothing under tests/ imports bench/."""
    top = sorted(path.name for path in ROOT.joinpath("tests").glob("*.py"))
    assert [name for name in top if not name.startswith("test_") and name not in ("conftest.py", "__init__.py")] == []
    from_tests = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted(ROOT.joinpath("tests").rglob("*.py"))
        for name in imports(path)
        if name == "bench" or name.startswith("bench.")
    ]
    assert from_tests == []


# The environment is read in one place: the entry point hands it to the settings, which check every
# variable once (bot/telegram/settings.py); a value a lower layer needs (CHART_SECONDS,
# REFEREE_BUSY_TIMEOUT) is passed down to it, so the console and the tests set it as arguments.
READS_THE_ENVIRONMENT = {"bot.__main__": "`python -m bot` reads os.environ once, into Settings (and LANG)"}
ENVIRONMENT_NAMES = frozenset({"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"})


def touches_the_environment(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in ENVIRONMENT_NAMES and isinstance(node.value, ast.Name) and node.value.id == "os"
    if isinstance(node, ast.ImportFrom):
        return node.module == "os" and any(alias.name in ENVIRONMENT_NAMES for alias in node.names)
    return False


def environment_reads(source: str) -> list[int]:
    """The lines of a module's source that touch the process environment: `os.environ…`,
    `os.getenv(…)`, or those names imported from os."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute | ast.ImportFrom) and touches_the_environment(node)
    )


def test_environment_reads_are_found() -> None:
    probe = "import os\nos.getpid()\nos.environ.get('A')\nx = os.getenv('B')\nfrom os import environ, sep\n"
    assert environment_reads(probe) == [3, 4, 5]
    assert environment_reads("import os\nos.path.join('a')\nfrom os import sep\n") == []


def test_only_the_entry_point_reads_the_environment() -> None:
    reading = [
        f"{module_name(path)}:{line}"
        for path in sources()
        if module_name(path) not in READS_THE_ENVIRONMENT
        for line in environment_reads(path.read_text(encoding="utf-8"))
    ]
    assert reading == []
    for name in READS_THE_ENVIRONMENT:  # the exception is real: it does read it
        assert environment_reads(ROOT.joinpath(*name.split(".")).with_suffix(".py").read_text(encoding="utf-8"))


MOST_LINES = 600  # #40: a file is one idea a newcomer can name from its name; past this it holds several


def test_no_source_file_is_over_600_lines() -> None:
    longer = {
        str(path.relative_to(ROOT)): lines
        for path in sources()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES
    }
    assert longer == {}
