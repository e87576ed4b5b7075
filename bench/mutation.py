"""Mutation score of the engine's core: `python -m bench.mutation [--jobs N] [--file engine/table.py]`.

A small mutator over the AST of each target file. Each mutant is one small change:
- a comparison flipped (`<` -> `<=`, `==` -> `!=`, `in` -> `not in`, `is` -> `is not`, ...),
- an arithmetic or set operator swapped (`+` <-> `-`, `*` -> `+`, `//` -> `*`, `|` <-> `&`),
- an integer constant changed by +1 and by -1, a boolean constant negated,
- `and` <-> `or`, a `not` dropped, `min` <-> `max`, `any` <-> `all`,
- a statement dropped (a call, an augmented assignment, an `if`, a `raise`, a `return`, a loop).
Annotations, docstrings and decorator arguments (`frozen=True`) are left alone. The run works on a
snapshot (a copy of the working tree, or with `--at REV` that git revision's files, e.g. to measure
an older suite), so editing the project during a run changes nothing. For each mutant a child
process (forked from one that has already imported the test tools) loads the mutated module in
place of the real one and runs the engine's fast tests with `-x`; a failing run or a timeout kills
the mutant, a passing run lets it survive. Mutants known to be equivalent (no input can tell them
from the original) are listed in `EQUIVALENT` with the reason and counted apart. `--only FILE`
runs just the mutants listed in FILE (e.g. the survivors of a full run, after new tests).
Slow (an hour for the four files on the shared 2-core machine): not part of CI.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import importlib.util
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
ROOT = PROJECT  # the snapshot being measured; set by main()
TARGETS = (
    "engine/scoring.py",
    "engine/units.py",
    "engine/settlement.py",
    "engine/events.py",
    "engine/liability.py",
    "engine/table.py",
)
# Tests that exercise the engine and run fast; the bot's slower tests are left out on purpose.
TESTS = (
    "tests/test_worked_examples.py",
    "tests/test_patterns_nanjing.py",
    "tests/test_presets.py",
    "tests/test_table.py",
    "tests/test_preset_values.py",
    "tests/test_money_between_players.py",
    "tests/test_edges.py",
    "tests/test_changkaitou.py",
    "tests/test_fast_path.py",
    "tests/test_properties.py",
)

COMPARE_SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
BINOP_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.FloorDiv: ast.Mult,
    ast.BitOr: ast.BitAnd,
    ast.BitAnd: ast.BitOr,
}
NAME_SWAPS = {"min": "max", "max": "min", "any": "all", "all": "any"}
DROPPABLE = (ast.Expr, ast.AugAssign, ast.If, ast.Raise, ast.Return, ast.For)

# "file:line:col description" -> why no input can tell the mutant from the original (reviewed by
# hand for the code as it is; a line number that moves needs the entry moved with it).
_NOT_PRESENT = "a unit's count of 0 or -1 both mean absent: evaluate keeps positive counts only"
EQUIVALENT: dict[str, str] = {
    **{
        f"engine/units.py:{line}:{col} 0->-1": _NOT_PRESENT
        for line, col in (
            (175, 71),
            (184, 71),
            (227, 15),
            (236, 77),
            (245, 81),
            (255, 19),
            (256, 89),
            (265, 51),
            (272, 88),
            (281, 42),
            (312, 94),
            (334, 19),
            (337, 83),
            (347, 19),
            (348, 15),
            (355, 56),
            (406, 73),
        )
    },
    "engine/scoring.py:48:16 False->True": "the one score built with the default `big` is a refused shape, "
    "and a refused win is never read for `big`",
    "engine/scoring.py:61:67 Gt->GtE": "only `hard` can be counted 0 (declared and forced wins list it); it "
    "excludes nothing and adds 0",
    "engine/scoring.py:82:57 0->-1": "`counts.get(key, -1) > 0` is false for a missing key, as with 0",
    "engine/settlement.py:43:20 False->True": "every caller passes `doubled`",
    "engine/settlement.py:75:62 0->-1": "chips left are never negative (each payment is capped), so "
    "max(left, 0) and max(left, -1) agree",
    "engine/table.py:547:4 drop return": "the function's last `return None`: falling off the end is the same",
    "engine/table.py:570:51 3->2": "the win is 清一色, so all four melds are one suit: two give it as well as three",
    "engine/table.py:638:4 drop if": "a repeated winner is refused again further on, with the same key",
    "engine/table.py:644:81 0->1": "`discarder or 0` only matters with one claim (a self-draw): order of one",
    "engine/table.py:681:7 any->all": "the claims of one win all rob the same gang, or none does",
    "engine/table.py:786:12 drop expr": "a claim's seat is checked again where the claim is scored",
    "engine/units.py:334:12 drop return": "`return None` for `return 0`: a count of None means absent too",
    "engine/units.py:347:12 drop return": "`return None` for `return 0`: a count of None means absent too",
    "engine/scoring.py:61:75 0->-1": "only `hard` can be counted 0 (see 61:67)",
    "engine/scoring.py:68:26 1->0": "an exclusive group with one member present keeps that member either way",
    "engine/settlement.py:60:13 Add->Sub": "the other three in reverse order: each pays his own share, "
    "capped by his own chips, so only the order of the payment rows changes",
    "engine/table.py:236:7 Or->And": "chips are kept for both states or for neither",
    "engine/table.py:644:81 0->-1": "`discarder or 0` only matters with one claim (a self-draw): order of one",
}


@dataclass(frozen=True)
class Mutant:
    file: str
    index: int  # the index-th mutation point of the file, in walk order
    line: int
    col: int
    description: str

    @property
    def ident(self) -> str:
        return f"{self.file}:{self.line}:{self.col} {self.description}"


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """Annotations, docstrings and decorator arguments: changing them cannot change a result."""
    skipped: set[int] = set()

    def skip(node: ast.AST | None) -> None:
        if node is not None:
            skipped.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.arg | ast.AnnAssign):
            skip(node.annotation)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            skip(node.returns)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                skip(body[0])
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            skip(node)
        if isinstance(node, ast.ImportFrom | ast.Import):
            skip(node)
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:  # @dataclass(frozen=True): mypy's business, not a result's
                skip(decorator)
    return skipped


def _points(tree: ast.AST) -> Iterator[tuple[ast.AST, str, object]]:
    """Every mutation point: (node, description, how to apply it), in a fixed walk order."""
    skipped = _skipped_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        yield from _node_points(node)
        yield from _drop_points(node, skipped)


def _node_points(node: ast.AST) -> Iterator[tuple[ast.AST, str, object]]:
    """The mutations of one node itself: an operator, a constant or a name swapped, a `not` dropped."""
    if isinstance(node, ast.Compare):
        for position, op in enumerate(node.ops):
            if type(op) in COMPARE_SWAPS:
                swap = COMPARE_SWAPS[type(op)]
                yield node, f"{type(op).__name__}->{swap.__name__}", ("cmp", position, swap)
    elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in BINOP_SWAPS:
        swap_op = BINOP_SWAPS[type(node.op)]
        yield node, f"{type(node.op).__name__}->{swap_op.__name__}", ("op", swap_op)
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        yield node, f"{node.value}->{not node.value}", ("const", not node.value)
    elif isinstance(node, ast.Constant) and isinstance(node.value, int):
        yield node, f"{node.value}->{node.value + 1}", ("const", node.value + 1)
        yield node, f"{node.value}->{node.value - 1}", ("const", node.value - 1)
    elif isinstance(node, ast.BoolOp):
        swap_bool = ast.Or if isinstance(node.op, ast.And) else ast.And
        yield node, f"{type(node.op).__name__}->{swap_bool.__name__}", ("bool", swap_bool)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield node, "drop not", ("not",)
    elif isinstance(node, ast.Name) and node.id in NAME_SWAPS:
        yield node, f"{node.id}->{NAME_SWAPS[node.id]}", ("name", NAME_SWAPS[node.id])


def _drop_points(node: ast.AST, skipped: set[int]) -> Iterator[tuple[ast.AST, str, object]]:
    """The statements of a block that may be dropped (not a module's or a class's)."""
    for field in ("body", "orelse"):
        statements = getattr(node, field, None)
        if not isinstance(statements, list) or isinstance(node, ast.Module | ast.ClassDef):
            continue
        for position, statement in enumerate(statements):
            if isinstance(statement, DROPPABLE) and id(statement) not in skipped:
                yield statement, f"drop {type(statement).__name__.lower()}", ("drop", node, field, position)


def mutants(file: str) -> list[Mutant]:
    tree = ast.parse((ROOT / file).read_text(encoding="utf-8"))
    found = []
    for index, (node, description, _) in enumerate(_points(tree)):
        found.append(Mutant(file, index, getattr(node, "lineno", 0), getattr(node, "col_offset", 0), description))
    return found


class _UnaryNot(ast.NodeTransformer):
    def __init__(self, target: ast.AST) -> None:
        self.target = target

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        return node.operand if node is self.target else node


def mutated_source(mutant: Mutant) -> str:
    tree = ast.parse((ROOT / mutant.file).read_text(encoding="utf-8"))
    for index, (node, _, how) in enumerate(_points(tree)):
        if index != mutant.index:
            continue
        assert isinstance(how, tuple)
        kind = how[0]
        if kind == "cmp":
            assert isinstance(node, ast.Compare)
            node.ops[how[1]] = how[2]()
        elif kind == "op":
            assert isinstance(node, ast.BinOp | ast.AugAssign)
            node.op = how[1]()
        elif kind == "const":
            assert isinstance(node, ast.Constant)
            node.value = how[1]
        elif kind == "bool":
            assert isinstance(node, ast.BoolOp)
            node.op = how[1]()
        elif kind == "not":
            tree = _UnaryNot(node).visit(tree)
        elif kind == "name":
            assert isinstance(node, ast.Name)
            node.id = how[1]
        elif kind == "drop":
            _, parent, field, position = how
            # `return x` becomes `return None`; a bare `return` / `return None` falls through instead.
            returns_value = isinstance(node, ast.Return) and not (
                node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None)
            )
            replacement = ast.Return(ast.Constant(None)) if returns_value else ast.Pass()
            getattr(parent, field)[position] = copy.copy(ast.copy_location(replacement, node))
        break
    return ast.unparse(ast.fix_missing_locations(tree))


def _run_child(mutant: Mutant | None, tests: tuple[str, ...]) -> None:
    """In a forked child: install the mutated module, run the tests, exit with pytest's code."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    import hypothesis
    import pytest

    os.environ["PROPERTY_SCALE"] = "0.1"  # tests/test_properties.py: a tenth of the examples
    hypothesis.settings.register_profile("mutation", database=None, derandomize=True, deadline=None)
    hypothesis.settings.load_profile("mutation")
    sys.path.insert(0, str(ROOT))
    import engine

    if not Path(engine.__file__).resolve().is_relative_to(ROOT.resolve()):
        os._exit(4)  # the installed project shadows the snapshot
    if mutant is not None:
        name = mutant.file.removesuffix(".py").replace("/", ".")
        path = ROOT / mutant.file
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        package = importlib.import_module(name.rpartition(".")[0])
        exec(compile(mutated_source(mutant), str(path), "exec"), module.__dict__)
        setattr(package, name.rpartition(".")[2], module)
    code = pytest.main(["-x", "-q", "-p", "no:cacheprovider", *tests])
    os._exit(int(code))


def _fork(mutant: Mutant | None, tests: tuple[str, ...]) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            _run_child(mutant, tests)
        finally:
            os._exit(3)
    return pid


def _preload() -> None:
    """Import the heavy third-party modules once, before forking (never the project's own)."""
    for name in ("pytest", "hypothesis", "pytest_asyncio", "aiosqlite", "babel", "telegram", "telegram.ext"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def run(
    files: tuple[str, ...], tests: tuple[str, ...], jobs: int, timeout: float, only: frozenset[str] | None = None
) -> int:
    os.chdir(ROOT)
    _preload()
    started = time.monotonic()
    _, status = os.waitpid(_fork(None, tests), 0)
    baseline = time.monotonic() - started
    if os.waitstatus_to_exitcode(status) != 0:
        print(f"the unmutated run failed (exit {os.waitstatus_to_exitcode(status)}): fix the tests first")
        return 1
    limit = max(timeout, 5 * baseline)
    print(f"tests: {len(tests)} files, {baseline:.1f} s unmutated; timeout {limit:.0f} s per mutant", flush=True)
    queue = [m for f in files for m in mutants(f) if only is None or m.ident in only]
    # A fixed shuffle: a run stopped early has measured an even sample of every file, not its top.
    random.Random(16).shuffle(queue)
    total = len(queue)
    results: dict[Mutant, str] = {}
    running: dict[int, tuple[Mutant, float]] = {}
    while queue or running:
        while queue and len(running) < jobs:
            mutant = queue.pop(0)
            if mutant.ident in EQUIVALENT:
                results[mutant] = "equivalent"
                continue
            running[_fork(mutant, tests)] = (mutant, time.monotonic())
        time.sleep(0.02)
        for pid, (mutant, since) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done == 0 and time.monotonic() - since > limit:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                results[mutant] = "killed"  # a timeout: the mutant hangs the tests
                del running[pid]
            elif done:
                code = os.waitstatus_to_exitcode(status)
                results[mutant] = "survived" if code == 0 else "killed"
                del running[pid]
            if pid not in running:
                print(f"{results[mutant]:<9} {mutant.ident}", flush=True)  # a stopped run keeps its results
            if len(results) % 50 == 0 and len(results) and pid not in running:
                print(f"  {len(results)}/{total} done, {time.monotonic() - started:.0f} s", flush=True)
    return _report(files, results, time.monotonic() - started)


def _report(files: tuple[str, ...], results: dict[Mutant, str], elapsed: float) -> int:
    print(f"{'file':<24} {'mutants':>7} {'killed':>7} {'survived':>9} {'equivalent':>11} {'score':>7}")
    totals = {"killed": 0, "survived": 0, "equivalent": 0}
    for file in files:
        counts = {"killed": 0, "survived": 0, "equivalent": 0}
        for mutant, result in results.items():
            if mutant.file == file:
                counts[result] += 1
        for key in totals:
            totals[key] += counts[key]
        print(_row(file, counts))
    print(_row("total", totals))
    survivors = sorted((m for m, r in results.items() if r == "survived"), key=lambda m: (m.file, m.line, m.col))
    if survivors:
        print("\nsurvivors:")
        for mutant in survivors:
            print(f"  {mutant.ident}")
    print(f"\n{elapsed:.0f} s")
    return 0


def _row(label: str, counts: dict[str, int]) -> str:
    scored = counts["killed"] + counts["survived"]
    score = f"{100 * counts['killed'] / scored:.1f}%" if scored else "-"
    total = scored + counts["equivalent"]
    return f"{label:<24} {total:>7} {counts['killed']:>7} {counts['survived']:>9} {counts['equivalent']:>11} {score:>7}"


def snapshot(at: str | None, folder: Path) -> Path:
    """A copy of the project to measure: the working tree, or the files of git revision `at`."""
    target = folder / "project"
    if at is None:
        ignore = shutil.ignore_patterns(".venv", ".git", "__pycache__", ".hypothesis", ".pytest_cache", "*.egg-info")
        shutil.copytree(PROJECT, target, ignore=ignore)
    else:
        target.mkdir()
        archive = subprocess.run(["git", "archive", at], cwd=PROJECT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--file", action="append", help="a target file (repeatable); default: the four core files")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per mutant (at least 5x the clean run)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--at", help="measure this git revision's code and tests instead of the working tree")
    parser.add_argument("--tests", action="append", help="a test file to run per mutant (repeatable)")
    parser.add_argument("--only", type=Path, help="a file of mutant lines (as printed): run just those")
    args = parser.parse_args()
    files = tuple(args.file or TARGETS)
    if args.list:
        for file in files:
            for mutant in mutants(file):
                print(mutant.ident)
        return 0
    global ROOT
    with tempfile.TemporaryDirectory(prefix="mutation-") as folder:
        ROOT = snapshot(args.at, Path(folder))
        tests = tuple(args.tests or (t for t in TESTS if (ROOT / t).exists()))
        print(f"snapshot: {args.at or 'working tree'}", flush=True)
        only = None
        if args.only is not None:
            only = frozenset(
                line.strip() for line in args.only.read_text(encoding="utf-8").splitlines() if line.strip()
            )
        return run(files, tests, args.jobs, args.timeout, only)


if __name__ == "__main__":
    sys.exit(main())
