"""The README, .ci/run and the Dockerfile say what the code does."""

from __future__ import annotations

import re
from pathlib import Path

from bot.chat.grammar import GRAMMARS as COMMANDS
from bot.chat.parser import parse

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def reference_rows() -> list[str]:
    section = README.split("## Command reference", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| `/")]


def test_quick_start_has_exactly_two_commands() -> None:
    run, test = quick_start_commands()
    assert run.endswith("python -m bot") and "pytest" in test


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    _, test = quick_start_commands()
    assert test in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_command_and_word_of_the_parser_is_documented() -> None:
    rows = reference_rows()
    documented_slash = {name for row in rows for name in re.findall(r"`/([a-z]+)`", row.split("|")[1])}
    documented_words = {word.strip() for row in rows for word in row.split("|")[2].split(",")}
    for spec in COMMANDS:
        assert set(spec.slash) <= documented_slash, spec.name
        assert set(spec.words) <= documented_words, spec.name
    assert documented_slash == {alias for spec in COMMANDS for alias in spec.slash}


def test_every_documented_example_parses_as_its_command() -> None:
    names = ["Alice", "Bob", "Carol", "Dave", "张三", "李四", "王五", "赵六"]
    for row in reference_rows():
        first = re.findall(r"`/([a-z]+)`", row.split("|")[1])[0]
        expected = next(spec.name for spec in COMMANDS if first in spec.slash)
        for example in re.findall(r"`([^`]+)`", row.split("|")[3]):
            command = parse(example, names)
            assert command is not None, example
            same = command.name == expected or {command.name, expected} <= {"gang", "added_gang", "concealed_gang"}
            assert same, (example, command.name, expected)


def test_dockerfile_copies_paths_that_exist() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    for line in dockerfile.splitlines():
        if line.startswith("COPY "):
            *sources, _ = line.split()[1:]
            for source in sources:
                assert (ROOT / source).exists(), source
    assert "USER " in dockerfile and "HEALTHCHECK" in dockerfile and "/data" in dockerfile


def test_docs_rules_exists_and_is_linked() -> None:
    assert (ROOT / "docs" / "rules.md").is_file() and "docs/rules.md" in README
