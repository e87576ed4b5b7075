"""docs/rules.md is the project's own rules: the whole reading, its sources named by title, and no
link out of the repository (a clone has nothing beside it)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def test_every_section_the_code_cites_is_there() -> None:
    for number in range(1, 13):
        assert re.search(rf"^## {number}\. ", RULES, re.M), f"§{number} missing"


def test_the_sources_are_named_by_title() -> None:
    for title in ("《南京麻将》", "《南京麻將罰款規則》", "《100元进园子》", "敞开头 V1.0.2"):
        assert title in RULES


def test_nothing_links_outside_the_repository() -> None:
    for text in (RULES, (ROOT / "README.md").read_text(encoding="utf-8")):
        assert "../shared" not in text and "RULES.md" not in text
    targets = re.findall(r"\]\(([^)]+)\)", RULES)
    assert all(not target.startswith(("http", "..")) for target in targets)
