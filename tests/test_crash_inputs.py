"""Input never crashes anything: every bad line gets a localized error and changes nothing, through the
command layer and through the console, which goes on with the script and exits 1 at the end."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.__main__ import main as bot_main
from bot.chat.service import Referee
from bot.console import Console, run_console
from bot.telegram.settings import VARIABLES
from engine.cli import main as engine_main
from tests.kit.harness import Table

ROOT = Path(__file__).resolve().parent.parent
OPEN = "/new A B C D"
BAD_LINES = [
    "B: /hu self ²m23m456m789m234p5p+5p flowers=2",
    "B: /hu self ⑦p 123m 456m 789m 234p +5p flowers=2",
    "B: /undo ²",
    "B: /undo 99999999999999999999",
    "B: /hu self 123m456m789m234p5p+5p flowers=99999999999999999999",
    "B: /hu C 清一色 flowers=2 soft=99999999999999999999",
    "A: /penalty B 99999999999999999999",
    "/new A B C D stake=1e30",
    "/new A B C D stake=NaN",
    "/new A B C D stake=inf",
    "B: /fix 99999999999999999999 /draw",
    "B: /fix 2",
    "B: /fix 1 /draw",
    "A: /summary --chart",
    "A: /draw now",
    "A: /undo 1 2",
    "B: /pong C 7p 8p",
    "D: /gang self 3m 4m",
    "A: /penalty follow B 5",
    "A: /penalty B 5 6",
    "A: /history all",
    "B: /hu self 123m456m789m234p5p+5p flowers=2 flowers=3",
    "B: /hu self １２３m456m789m234p5p+5p flowers=99999999999",
]


@pytest.mark.parametrize("line", BAD_LINES)
async def test_a_bad_line_through_the_command_layer_is_refused_and_changes_nothing(table: Table, line: str) -> None:
    table.language = "en"
    await table.say(OPEN)
    before = await table.row_counts()
    response = await table.respond(line)
    assert response is not None and response.refused
    assert response.replies and all(re.match(r"^[a-z_]+\.[a-z_.]+$", r.key) for r in response.replies)
    assert await table.row_counts() == before


async def test_a_chart_name_that_is_no_file_name_gets_the_default(referee: Referee, tmp_path: Path) -> None:
    out = io.StringIO()
    charting = Referee(referee.nights.ledger, charts_enabled=True)
    console = Console(charting, "console", "en", out, tmp_path)
    await console.run_lines([OPEN, "A: /summary --chart .."])
    assert console.refused == 0 and "Traceback" not in out.getvalue()
    assert (tmp_path / "night-1.jpg").read_bytes().startswith(b"\xff\xd8")  # a JPEG, as a photo goes


@pytest.mark.parametrize("line", BAD_LINES)
async def test_a_bad_line_in_a_console_script_is_answered_and_the_script_goes_on(
    referee: Referee, tmp_path: Path, line: str
) -> None:
    out = io.StringIO()
    console = Console(referee, "console", "en", out, tmp_path)
    await console.run_lines([OPEN, line, "C: /gang B 5s"])
    assert console.refused == 1
    assert "Traceback" not in out.getvalue()
    assert "B → C: 6 flowers" in out.getvalue()  # the line after still runs


async def test_a_console_script_exits_1_when_a_line_was_refused(tmp_path: Path) -> None:
    script = tmp_path / "night.txt"
    script.write_text(f"{OPEN}\nB: /undo ²\nC: /gang B 5s\n", encoding="utf-8")
    db = str(tmp_path / "c.sqlite3")
    assert await run_console(["--db", db, "--script", str(script), "--out-dir", str(tmp_path)]) == 1
    script.write_text("C: /gang D 5p\n", encoding="utf-8")
    assert await run_console(["--db", db, "--script", str(script)]) == 0
    assert await run_console(["--db", db, "--script", str(tmp_path / "missing.txt")]) == 2


def test_console_help_says_keep_going_is_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bot_main(["console", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--keep-going" in text and "(the default)" in text and "--stop-on-error" in text


def test_bot_help_explains_both_front_ends_and_every_environment_variable(capsys: pytest.CaptureFixture[str]) -> None:
    """`--help` lists every variable of the settings, and no module but the settings reads the environment
    (each variable is read once, at start, and checked)."""
    with pytest.raises(SystemExit) as done:
        bot_main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "Telegram" in text and "console" in text and all(f" {c} " in text for c in ("run", "health", "backup"))
    assert all(re.search(rf"^  {v.name}\s", text, re.MULTILINE) for v in VARIABLES)
    readers = {
        path.relative_to(ROOT).as_posix()
        for path in ROOT.glob("bot/**/*.py")
        if re.search(r"""environ(?:\.get)?\(?\[?["'][A-Z_]+["']""", path.read_text(encoding="utf-8"))
    }
    assert readers <= {"bot/__main__.py"}, readers


@pytest.mark.parametrize("hand", ["²m", "⑦p", "١٢٣m", "123m456m789m234p5p+²p", "[²²²m]"])
def test_engine_cli_exits_2_for_bad_input(hand: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert engine_main(["score", hand]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_engine_cli_exits_2_for_a_bad_rules_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "house.toml"
    bad.write_text("x = [", encoding="utf-8")
    assert engine_main(["score", "123m456m789m234p5p+5p", "--rules-file", str(bad)]) == 2
    assert engine_main(["score", "123m456m789m234p5p+5p", "--rules-file", str(tmp_path / "none.toml")]) == 2


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40),
        st.text(alphabet="0123456789０９²⑦٣mps+[](){} ESWN东中万筒条", max_size=30),
    )
)
def test_engine_cli_never_raises_on_any_hand_text(text: str) -> None:
    assert engine_main(["score", text]) in (0, 1, 2)
