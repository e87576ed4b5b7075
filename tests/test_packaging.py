"""What the image installs (`pip install .`, not editable: the Dockerfile) carries every file the bot
reads at run time besides its modules: the presets, the catalogs and the Mini App's page. A file left
out of pyproject.toml's package-data is missing from the image alone, where no other test looks."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READ_AT_RUN_TIME = ("engine/presets", "locales", "bot/web/static")


def package_data() -> dict[str, list[str]]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        data: dict[str, list[str]] = tomllib.load(file)["tool"]["setuptools"]["package-data"]
    return data


def shipped(path: Path, data: dict[str, list[str]]) -> bool:
    """Whether a package-data glob of the package holding `path` (or one above it) names it."""
    relative = path.relative_to(ROOT)
    for depth in range(len(relative.parts) - 1, 0, -1):
        package, rest = ".".join(relative.parts[:depth]), "/".join(relative.parts[depth:])
        if any(fnmatch(rest, glob) for glob in data.get(package, [])):
            return True
    return False


def test_every_file_read_at_run_time_is_package_data() -> None:
    data = package_data()
    files = [p for folder in READ_AT_RUN_TIME for p in (ROOT / folder).rglob("*") if p.is_file() and p.suffix != ".py"]
    files = [p for p in files if "__pycache__" not in p.parts]
    assert any(p.name == "index.html" for p in files)  # the Mini App's page is among them
    missing = [str(p.relative_to(ROOT)) for p in files if not shipped(p, data)]
    assert missing == []
