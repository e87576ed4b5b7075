"""The README, docs/, .ci/run and the Dockerfile say what the code does: the README's two commands, every
command of the parser documented in docs/players.md with examples that parse, every `python -m bot`
line of the README and the docs a command line the entry point takes, every link a file that exists."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from bot.__main__ import parser
from bot.chat.grammar import GRAMMARS as COMMANDS
from bot.chat.parser import parse
from bot.console import _arguments as console_arguments
from bot.settings import VARIABLES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PLAYERS = (ROOT / "docs" / "players.md").read_text(encoding="utf-8")
DOCS = {path: path.read_text(encoding="utf-8") for path in (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))}


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def reference_rows() -> list[str]:
    section = PLAYERS.split("## Command reference", 1)[1].split("\n## ", 1)[0]
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


def code_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block, fences paired in order (indented ones too)."""
    blocks: list[tuple[str, str]] = []
    language: str | None = None
    body: list[str] = []
    for line in text.splitlines():
        fence = re.match(r"^\s*```(\w*)\s*$", line)
        if fence and language is None:
            language, body = fence.group(1), []
        elif fence:
            blocks.append((language, "\n".join(body)))
            language = None
        elif language is not None:
            body.append(line)
    return blocks


def shell_blocks(text: str) -> list[str]:
    return [body for language, body in code_blocks(text) if language in ("sh", "bash")]


def bot_command_lines() -> list[tuple[str, str]]:
    """(file, the arguments after `python -m bot`) of every shell line in a README or docs code block."""
    found = []
    for path, text in DOCS.items():
        for block in shell_blocks(text):
            for line in block.splitlines():
                command = line.split("#", 1)[0].split("&&")[-1]
                match = re.search(r"(?:python -m bot|bin/nanjing-referee)((?: [^|;&]*)?)$", command.strip())
                if match:
                    found.append((path.name, match.group(1).strip()))
    return found


@pytest.mark.parametrize(("where", "arguments"), bot_command_lines())
def test_every_documented_bot_command_line_is_one_the_entry_point_takes(where: str, arguments: str) -> None:
    words = shlex.split(arguments.replace("$(date +%F)", "today"))
    if words[:1] == ["console"]:
        console_arguments(words[1:])  # argparse exits 2 on anything it does not take
    elif words:
        parser().parse_args(words)


def test_the_docs_show_the_bot_run_health_backup_and_console_lines() -> None:
    commands = {arguments.split(" ", 1)[0] for _, arguments in bot_command_lines()}
    assert {"run", "health", "backup", "console", ""} <= commands


def test_every_variable_the_docs_set_is_one_the_bot_reads() -> None:
    # BOT_DOMAIN: the compose file's, for Caddy; PYTHON_IMAGE: the Dockerfile's build argument
    known = {v.name for v in VARIABLES} | {"BOT_DOMAIN", "PYTHON_IMAGE"}
    for path, text in DOCS.items():
        for block in shell_blocks(text):
            for name in re.findall(r"\b([A-Z][A-Z_]{3,})=", block):
                assert name in known, (path.name, name)


def test_every_relative_link_of_the_readme_and_docs_exists() -> None:
    for path, text in DOCS.items():
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)|src=\"([^\"]+)\"", text):
            link = next(t for t in target if t)
            if not link.startswith("http"):
                assert (path.parent / link).exists(), (path.name, link)


def test_the_readme_is_short() -> None:
    assert len(README.splitlines()) <= 150
