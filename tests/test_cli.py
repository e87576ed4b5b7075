"""`python -m engine score`: every docs/rules.md example, exit codes, --json shape."""

import json

import pytest

from engine.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["score", *args])
    return code, capsys.readouterr().out


@pytest.mark.parametrize(
    ("hand", "options", "total"),
    [
        ("123m 456m 789m 234p 5p +5p", ["--hard-flowers", "2", "--self-draw"], 46),
        ("11p 567s 79s [EEE] [444p] +8s", ["--hard-flowers", "4"], 34),
        ("222m 55m 88m [777m] (3333m) +8m", ["--hard-flowers", "1", "--self-draw"], 126),
        ("1111m 22p 33p 44s 55s 6s +6s", [], 220),
    ],
)
def test_worked_examples_through_the_cli(
    capsys: pytest.CaptureFixture[str], hand: str, options: list[str], total: int
) -> None:
    code, out = run(capsys, hand, *options, "--json")
    body = json.loads(out)
    assert code == 0 and body["valid"] and body["total"] == total and body["error"] is None
    assert sum(item["flowers"] for item in body["items"]) == total


def test_json_is_exactly_one_object_with_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    _, out = run(capsys, "123m 456m 789m 234p 5p +5p", "--hard-flowers", "2", "--json")
    assert set(json.loads(out)) == {"valid", "total", "items", "error"} and out.count("\n") == 1


def test_refused_win_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "11p 567s 79s [EEE] [444p] +8s", "--hard-flowers", "3", "--json")
    assert code == 1 and json.loads(out)["error"] == "win.below_limit"


def test_bad_input_exits_2_with_the_key(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "0m 23m", "--json")
    assert code == 2 and json.loads(out)["error"] == "tile.unknown"


def test_human_output_in_chinese_and_english(capsys: pytest.CaptureFixture[str]) -> None:
    _, zh = run(capsys, "11p 567s 79s [EEE] [444p] +8s", "--hard-flowers", "4")
    _, en = run(capsys, "11p 567s 79s [EEE] [444p] +8s", "--hard-flowers", "4", "--lang", "en")
    assert "压档" in zh and "合计 34 花" in zh
    assert "middle wait" in en and "total 34 flowers" in en


def test_other_presets(capsys: pytest.CaptureFixture[str]) -> None:
    _, out = run(capsys, "123m 456m 789m 234p 5p +5p", "--hard-flowers", "2", "--preset", "app", "--json")
    assert json.loads(out)["total"] == 55
