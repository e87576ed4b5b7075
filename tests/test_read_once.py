"""A line is read once (#40): the front end has the referee read it (Referee.read), asks the read line
whether it only asks, and hands it back; a fix carries its corrected line, read with it."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bot.chat import parser, scanner
from bot.chat.command import Command
from bot.chat.parser import PlainLine, asks_only, parse
from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from engine.errors import EngineError

CHAT = "group-1"
ZHANG = Speaker("1", "张三", by_name=True)
NAMES = ("Alice", "Bob", "Carol", "Dave")


async def opened(referee: Referee) -> None:
    out = await referee.handle(Incoming(CHAT, ZHANG, "开局 张三 李四 王五 赵六"))
    assert out is not None and out.recorded


def counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The lines read from now on (every reading, `parse` and `read_line` alike, goes through `_read`)."""
    reads: list[str] = []
    real = parser._read

    def counted(text: str, known: Sequence[str]) -> tuple[Command | None, PlainLine | None]:
        reads.append(text)
        return real(text, known)

    monkeypatch.setattr(parser, "_read", counted)
    return reads


def counted_scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The lines cut into pieces from now on."""
    scans: list[str] = []
    real = scanner.scan

    def counted(line: str, known: Sequence[str], words: scanner.Words) -> list[scanner.Piece]:
        scans.append(line)
        return real(line, known, words)

    monkeypatch.setattr(scanner, "scan", counted)
    return scans


async def test_a_line_read_by_the_front_end_is_not_read_again(
    referee: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    await opened(referee)
    line = await referee.read(CHAT, "碰 王五 4p")
    assert line.command is not None and line.command.name == "pong"
    assert line.command.names == ("王五",) and line.command.tile == "4p"
    reads = counted_reads(monkeypatch)
    out = await referee.handle(Incoming(CHAT, ZHANG, line.text, read=line))
    assert out is not None and out.recorded
    assert reads == []  # the read line was used as it was handed back
    out = await referee.handle(Incoming(CHAT, ZHANG, "碰 王五 5p"))
    assert out is not None and out.recorded and reads == ["碰 王五 5p"]  # not handed a read line: read here


async def test_a_line_read_before_the_seats_changed_is_read_again(referee: Referee) -> None:
    # read before the night is opened, 李四 is no seated name and `战绩 李四` is talk ...
    early = await referee.read(CHAT, "战绩 李四")
    assert early.command is None and not early.asks_only
    await opened(referee)
    # ... answered after 李四 sat down, it is read again among the seated names: his /stats
    out = await referee.handle(Incoming(CHAT, ZHANG, early.text, read=early))
    assert out is not None and not out.refused
    late = await referee.read(CHAT, "战绩 李四")
    assert late.command is not None and late.command.name == "stats" and late.asks_only


async def test_asks_only_of_a_read_line_is_the_grammar_row_of_its_command(referee: Referee) -> None:
    await opened(referee)
    for text in ("查分", "/summary", "记录 2"):
        assert (await referee.read(CHAT, text)).asks_only, text
        assert asks_only(text), text
    for text in ("碰 王五 4p", "/undo", "hello", "/pong 王五 0m"):
        assert not (await referee.read(CHAT, text)).asks_only, text


def test_a_fix_carries_its_corrected_line_read_with_it() -> None:
    fix = parse("/fix 2 /pong Bob 7p", NAMES)
    assert fix is not None and fix.inner is not None and fix.inner.error is None
    inner = fix.inner.command
    assert inner is not None and (inner.name, inner.names, inner.tile) == ("pong", ("Bob",), "7p")
    assert fix.inner.known == NAMES
    plain = parse("改 3 胡 自摸 123m 456m 789m 234p 5p +5p 花2", ["张三", "李四"])
    assert plain is not None and plain.inner is not None and plain.inner.command is not None
    assert plain.inner.command.name == "hu" and plain.inner.command.self_draw and plain.inner.command.flowers == 2


def test_a_fix_keeps_the_error_that_refused_its_corrected_line() -> None:
    # `0m` names no tile: the fix is read, its corrected line's error kept for the fix's handler
    fix = parse("/fix 2 /pong Bob 0m", NAMES)
    assert fix is not None and fix.inner is not None and fix.inner.command is None
    assert isinstance(fix.inner.error, EngineError) and fix.inner.error.key == "tile.unknown"
    with pytest.raises(EngineError):
        parser.inner_command(fix, list(NAMES))


def test_a_fix_read_at_other_names_reads_its_line_again() -> None:
    # read while Eve was not seated, the plain corrected line is talk; among names with Eve (she sat at
    # the corrected event's place, and stood up since) it is her pong
    fix = parse("/fix 2 pong Eve 7p", NAMES)
    assert fix is not None and fix.inner is not None and fix.inner.command is None
    again = parser.inner_command(fix, [*NAMES, "Eve"])
    assert again is not None and (again.name, again.names, again.tile) == ("pong", ("Eve",), "7p")
    # with the very names it was read with, the kept reading is the answer
    assert parser.inner_command(fix, list(NAMES)) is None


async def test_talk_near_a_command_is_cut_into_pieces_once(referee: Referee, monkeypatch: pytest.MonkeyPatch) -> None:
    """The near-command hint reads the pieces the line's reading cut: 碰 王伍 4p is cut once, and the
    mended line (王五 for 王伍) is read once to check it is a command; talk with no command word once."""
    await opened(referee)
    reads, scans = counted_reads(monkeypatch), counted_scans(monkeypatch)
    out = await referee.handle(Incoming(CHAT, ZHANG, "碰 王伍 4p"))
    assert out is not None and [r.key for r in out.replies] == ["hint.no_such_name"]
    assert reads == ["碰 王伍 4p", "碰 王五 4p"] and scans == reads
    reads.clear()
    scans.clear()
    assert await referee.handle(Incoming(CHAT, ZHANG, "hello everyone")) is None
    assert reads == scans == ["hello everyone"]


async def test_a_correction_reads_its_corrected_line_once(referee: Referee, monkeypatch: pytest.MonkeyPatch) -> None:
    """改 2 碰 赵六 4p: the fix is read, its corrected line with it (two readings, each cut once), and the
    handler uses the corrected line as read: #2 is 张三's pong of 王五's 4p (#1 opened the night); the
    fix, #3, says 赵六 fed it."""
    await opened(referee)
    first = await referee.handle(Incoming(CHAT, ZHANG, "碰 王五 4p"))
    assert first is not None and first.recorded and first.replies[0].params["id"] == 2
    reads, scans = counted_reads(monkeypatch), counted_scans(monkeypatch)
    out = await referee.handle(Incoming(CHAT, ZHANG, "改 2 碰 赵六 4p"))
    assert out is not None and out.recorded
    assert (out.replies[0].key, out.replies[0].params) == ("fix.done", {"id": 3, "target": 2, "text": "碰 赵六 4p"})
    assert reads == ["改 2 碰 赵六 4p", "碰 赵六 4p"]
    assert scans == ["改 2 碰 赵六 4p", "碰 赵六 4p"]
