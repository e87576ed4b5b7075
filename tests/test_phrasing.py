"""How people write at a table: each line with the command it must parse to, or `-` (not a command).

Simplified and Traditional Chinese and English, glued or spaced, full-width or not. A plain line is
a command only when every word of it belongs to the command (no question, no particle, no unknown
name); a `/command` is always read, and its unknown words are kept for the command layer to explain.

The expected form: the command's name, then only the fields that are set, in this order —
names= self tile= kind= amount= hand= (spaces dropped) declared= flowers= soft= flags= (sorted)
number= word= options= (sorted key:value).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.chat.command import Command
from bot.chat.grammar import pattern_keys
from bot.chat.near_miss import near_command
from bot.chat.parser import parse, read_line
from bot.chat.scanner import chinese_number
from bot.text.vocabulary import IMPLICIT_UNITS, flag_fields, flag_units
from engine.errors import EngineError
from engine.units import UNITS_BY_KEY
from locales import LANGUAGES, load_catalog
from tests.kit.phrasing import CORPUS, SEATED

# Plain lines one piece away from a table event: each is chatter to the parser (it records nothing)
# and gets this hint (see bot.chat.near_miss.near_command); "-" is talk, silent.
NEAR_MISSES: tuple[tuple[str, str], ...] = (
    ("碰 李思 6s", "没有 李思，是 李四 吗？ → 碰 李四 6s"),  # issue 20: 李思 typed for 李四
    ("碰 王伍", "没有 王伍，是 王五 吗？ → 碰 王五"),
    ("碰 李四 0m", "没有 0m 这张牌（这一行没记）"),
    ("杠 李四 10p", "没有 10p 这张牌（这一行没记）"),
    ("花杠 赵留", "没有 赵留，是 赵六 吗？ → 花杠 赵六"),
    ("罚 跟牌 李思", "没有 李思，是 李四 吗？ → 罚 跟牌 李四"),
    ("胡 王伍 七对 花2", "没有 王伍，是 王五 吗？ → 胡 王五 七对 花2"),
    ("pong Bod 7p", "没有 Bod，是 Bob 吗？ → pong Bob 7p"),
    ("碰 李思？", "-"),
    ("碰 李思吗", "-"),
    ("碰 李思 谢谢", "-"),
    ("碰 李思 0m", "-"),  # two pieces wrong: talk
    ("碰 东西", "-"),
    ("碰 Zed", "-"),
    ("花杠 Carl", "没有 Carl，是 Carol 吗？ → 花杠 Carol"),  # a letter dropped from a name of five
    ("pong Carrol 5p", "没有 Carrol，是 Carol 吗？ → pong Carol 5p"),  # a letter added
    ("花杠 Karl", "-"),  # two letters off Carol: someone else
    ("pong Dav 7p", "没有 Dav，是 Dave 吗？ → pong Dave 7p"),
    ("pong Bo 7p", "-"),  # Bob is short: a letter dropped from it is as likely someone else
    ("杠 Bobb 5s", "-"),
    ("罚 他 10", "-"),
    ("改 1 下", "-"),
    ("查分 李思", "-"),
)


def hint(line: str) -> str:
    miss = near_command(read_line(line, SEATED))
    if miss is None:
        return "-"
    text = load_catalog("zh-Hans").singular[miss.key].format(**miss.params)
    return f"{text} → {miss.corrected}" if miss.corrected else text


@pytest.mark.parametrize(("line", "expected"), NEAR_MISSES, ids=[line for line, _ in NEAR_MISSES])
def test_a_near_command_gets_its_hint_and_is_no_command(line: str, expected: str) -> None:
    assert parse(line, SEATED) is None
    assert hint(line) == expected


@pytest.mark.parametrize("line", [line for line, expected in CORPUS if expected == "-"])
def test_the_corpus_talk_gets_no_hint_unless_one_piece_is_a_slip(line: str) -> None:
    # 碰 李斯 is 李四 with the wrong character, Carl is Carol with a letter dropped: the corpus's
    # talk that is hinted
    assert hint(line) == "-" or line in ("碰 李斯", "花杠 Carl", "胡 Carl 花2"), line


def summary(command: Command | None) -> str:
    """A command in the corpus's notation (see the module docstring)."""
    if command is None:
        return "-"
    fields = [
        ("names", ",".join(command.names)),
        ("self", command.self_draw),
        ("tile", command.tile),
        ("kind", command.kind),
        ("amount", command.amount),
        ("hand", command.hand_text.replace(" ", "")),
        ("declared", ",".join(command.declared)),
        ("flowers", command.flowers),
        ("soft", command.soft),
        ("flags", ",".join(sorted(command.flags))),
        ("number", command.number),
        ("word", command.word if command.name in ("lang", "rules", "stats", "unknown") else None),
        ("options", ",".join(f"{k}:{v}" for k, v in sorted(command.options.items()))),
    ]
    parts = [command.name]
    for key, value in fields:
        if value is True:
            parts.append(key)
        elif value is not None and value is not False and value != "" and not (key == "soft" and value == 0):
            parts.append(f"{key}={value}")
    return " ".join(parts)


def test_the_corpus_is_large_and_covers_three_scripts() -> None:
    lines = [line for line, _ in CORPUS]
    assert len(lines) >= 150 and len(set(lines)) == len(lines)
    assert any("槓" in line or "萬" in line for line in lines)  # Traditional
    assert sum(expected == "-" for _, expected in CORPUS) >= 30  # chatter


@pytest.mark.parametrize(("line", "expected"), CORPUS, ids=[line for line, _ in CORPUS])
def test_a_line_parses_to_its_command(line: str, expected: str) -> None:
    assert summary(parse(line, SEATED)) == expected


PLAIN_COMMANDS = [
    line for line, expected in CORPUS if expected != "-" and not line.startswith(("/", "／", "开局", "開局"))
]


@pytest.mark.parametrize("line", PLAIN_COMMANDS)
def test_a_plain_command_turned_into_a_question_or_with_a_stray_word_is_talk(line: str) -> None:
    # 开局 is left out: the names it seats are free words
    for talk in (f"{line}？", f"{line}?", f"{line}吗", f"{line}呢", f"{line}了吧", f"{line} 谢谢", f"{line} lol"):
        assert parse(talk, SEATED) is None, talk


@given(st.text(max_size=60), st.lists(st.text(min_size=1, max_size=4), max_size=4))
@settings(max_examples=300, deadline=None)
def test_any_text_parses_or_is_refused_with_a_message_never_a_crash(text: str, names: list[str]) -> None:
    for line in (text, "/hu " + text, "胡 " + text, "碰 " + text):
        try:
            command = parse(line, names)
        except EngineError as error:
            assert line.startswith("/") and error.key
        else:
            assert command is None or command.raw == line.strip()
    assert parse(text + "?", names) is None or text.lstrip().startswith(("/", "／"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_pattern_and_flag_is_understood_by_its_catalog_name(language: str) -> None:
    # The words are derived, not kept by hand: a unit's name in any catalog declares it in a win,
    # and the name of a unit that a flag alone scores (大杠开花, 海底捞月) sets that flag.
    names = load_catalog(language).singular
    for key in pattern_keys():
        command = parse(f"胡 王五 {names[f'unit.{key}']} 花2", SEATED)
        assert command is not None and command.declared == (key,), (key, language)
    for flag in flag_fields():
        for unit in flag_units(flag):
            command = parse(f"胡 自摸 {names[f'unit.{unit}']} 花2", SEATED)
            assert command is not None and command.flags == {flag}, (unit, language)
    assert pattern_keys() | {u for f in flag_fields() for u in flag_units(f)} | IMPLICIT_UNITS >= {
        key for key in UNITS_BY_KEY if not key.startswith("gang_")
    }


@pytest.mark.parametrize(
    "line",
    [
        "罚 李四 {n}",
        "/penalty 李四 {n}",
        "/undo {n}",
        "撤销 #{n}",
        "胡 王五 花{n}",
        "/hu 王五 flowers={n}",
        "/hu 王五 soft={n}",
    ],
)
def test_a_five_thousand_digit_number_is_refused_never_a_crash(line: str) -> None:
    text = line.format(n="9" * 5000)
    try:
        command = parse(text, SEATED)
    except EngineError as error:
        assert text.startswith("/") and error.key  # a /command gets a clear error
    else:
        assert command is None or (command.amount is None and command.flowers is None and command.number is None)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        *(("二", 2), ("两", 2), ("兩", 2), ("十", 10), ("十二", 12), ("二十", 20), ("二十五", 25), ("一百", 100)),
        *(("一百零二", 102), ("一百二", 120), ("一百二十五", 125), ("两百", 200), ("十十", None), ("百百", None)),
    ],
)
def test_chinese_numbers_as_they_are_said(text: str, value: int | None) -> None:
    assert chinese_number(text) == value
