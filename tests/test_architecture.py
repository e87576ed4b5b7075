"""docs/architecture.md follows the code (#40): every module of bot/ and engine/ has its line there and
every file named there exists, and its picture (docs/img/layers.svg) is the one docs/img/layers.py
draws, with tests/test_layers.py's layers in their order and seams that exist."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
PICTURE = ROOT / "docs" / "img" / "layers.svg"
NAMED = re.compile(r"`((?:bot|engine)/[\w/]+\.py)`")


def modules() -> list[str]:
    """Every source file of bot/ and engine/ but a package's __init__.py (its docstring says the
    package, which the document's headings name)."""
    return sorted(
        path.relative_to(ROOT).as_posix()
        for folder in ("bot", "engine")
        for path in ROOT.joinpath(folder).rglob("*.py")
        if path.name != "__init__.py"
    )


def test_every_module_has_its_line_in_the_architecture() -> None:
    named = set(NAMED.findall(DOC.read_text(encoding="utf-8")))
    assert [module for module in modules() if module not in named] == []


def test_every_file_the_architecture_names_exists() -> None:
    named = set(NAMED.findall(DOC.read_text(encoding="utf-8")))
    assert sorted(path for path in named if not (ROOT / path).is_file()) == []


def test_each_module_has_one_line() -> None:
    """One line each: a module is listed once, at the head of its own line."""
    heads = [
        match[1]
        for line in DOC.read_text(encoding="utf-8").splitlines()
        if (match := re.match(r"- `((?:bot|engine)/[\w/]+\.py)` — \S", line))
    ]
    assert sorted(heads) == modules()


def test_a_package_s_init_holds_its_docstring_only() -> None:
    """What the document leaves out holds no code to describe."""
    holding_code = []
    for folder in ("bot", "engine"):
        for path in ROOT.joinpath(folder).rglob("__init__.py"):
            body = ast.parse(path.read_text(encoding="utf-8")).body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]  # the docstring
            if body:
                holding_code.append(path.relative_to(ROOT).as_posix())
    assert holding_code == []


def picture_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("layers_picture", ROOT / "docs" / "img" / "layers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the script runs
    spec.loader.exec_module(module)
    return module


def assigned(path: Path, name: str) -> Any:
    """The literal a module assigns to `name` (read, not imported: a test file imports no other)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise KeyError(name)


def test_the_picture_is_the_one_its_script_draws() -> None:
    assert PICTURE.read_text(encoding="utf-8") == picture_script().draw(), "run: python docs/img/layers.py"


def test_the_picture_s_layers_are_the_ones_the_imports_are_held_to() -> None:
    script = picture_script()
    drawn = [layer for band in reversed(script.BANDS) for layer in band.layers]
    assert drawn == list(assigned(ROOT / "tests" / "test_layers.py", "LAYERS"))


def test_the_picture_s_seams_exist_and_include_the_front_ends() -> None:
    script = picture_script()
    seams = [seam.module for seam in (*script.SEAMS, script.BYPASS)]
    assert [seam for seam in seams if not (ROOT / seam).is_file()] == []
    layers = ROOT / "tests" / "test_layers.py"
    front_end_seams = [*assigned(layers, "FRONT_END_STORE_SEAMS"), assigned(layers, "AVAILABILITY_SEAM")]
    assert [name for name in front_end_seams if name.replace(".", "/") + ".py" not in seams] == []
