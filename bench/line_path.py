"""What path does one chat line take through the code? Counted from the calls it really makes.

A night is opened in a scratch ledger and a few events are played; then one more line is handed to
`Referee.handle` with a profiler watching every call into the project's own modules (engine/ and
bot/). The calls are read as a walk through files:
- a **stop** is a call that enters another file than the one it was called from;
- a **climb** is a move of control back up a layer, by a return (or a call) from a file of a lower
  layer into a file of a higher one (the layers are tests/test_layers.py's, bottom to top engine,
  text, store, night, views, chat, front ends): a line that goes down once and comes back up once
  climbs once for each layer it passed, and every further climb is a trip down and back again;
- **entered** counts, for each file, the stops that entered it.

Only the line's own handling is watched (the night is loaded before, so a first read is not
counted), and only calls from a project file to a project file count: the standard library and
python-telegram-bot are walked through, not counted.

Run: python -m bench.line_path [--line "胡 王五 11p 567s 79s [EEE] [444p] +8s 花4"] [--top 12]
     python -m bench.line_path --table   (docs/architecture.md's lines, as a Markdown table)
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

from bot.chat.handlers.common import Incoming
from bot.chat.service import Referee
from bot.night.seating import Speaker

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("engine", "bot/text", "bot/store", "bot/night", "bot/views", "bot/chat", "bot/front")
FRONT_ENDS = ("bot/telegram", "bot/console")
SETUP = ("开局 张三 李四 王五 赵六 底=2", "碰 王五 4p", "花杠")
LINE = "胡 王五 11p 567s 79s [EEE] [444p] +8s 花4"
# the lines docs/architecture.md follows: a win, a pong, a question, a correction, talk
TABLE_LINES = (LINE, "碰 李四 5p", "/score", "改 2 碰 赵六 4p", "hello everyone")


def project_file(frame: FrameType) -> str | None:
    """The frame's file relative to the project, if it is one of engine/ or bot/."""
    return _project_path(frame.f_code.co_filename)


@functools.cache
def _project_path(path: str) -> str | None:
    try:
        relative = Path(path).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None
    return relative if relative.startswith(("engine/", "bot/")) else None


def layer_of(relative: str) -> int:
    if relative.startswith(FRONT_ENDS):
        relative = "bot/front/"
    ranks = [rank for rank, layer in enumerate(LAYERS) if relative.startswith(layer + "/")]
    return ranks[0] if ranks else len(LAYERS)


class Walk:
    """The profiler's tally of one line's calls."""

    def __init__(self) -> None:
        self.stops = 0
        self.climbs = 0
        self.entered: Counter[str] = Counter()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event not in ("call", "return"):
            return  # calls into C are not the project's
        here = project_file(frame)
        there = _nearest_project_caller(frame.f_back)
        if here is None or there is None or here == there:
            return
        if event == "call":
            self.stops += 1
            self.entered[here] += 1
            if layer_of(here) > layer_of(there):
                self.climbs += 1
        elif layer_of(there) > layer_of(here):  # a return to a caller in a higher layer
            self.climbs += 1


def _nearest_project_caller(frame: FrameType | None) -> str | None:
    """The project file that made this call, through any library frames in between."""
    while frame is not None:
        found = project_file(frame)
        if found is not None:
            return found
        frame = frame.f_back
    return None


async def walk_line(line: str) -> Walk:
    with tempfile.TemporaryDirectory() as folder:
        referee = await Referee.open(Path(folder) / "path.sqlite3", charts_enabled=False)
        speaker = Speaker("1", "张三", by_name=True)
        for said in SETUP:
            await referee.handle(Incoming("chat", speaker, said))
        walk = Walk()
        sys.setprofile(walk)
        try:
            await referee.handle(Incoming("chat", speaker, line))
        finally:
            sys.setprofile(None)
            await referee.close()
        return walk


def table() -> str:
    """Each of TABLE_LINES followed, one row each: its stops, climbs and the file entered most."""
    rows = ["| line | stops | climbs | file entered most |", "|---|---|---|---|"]
    for line in TABLE_LINES:
        walk = asyncio.run(walk_line(line))
        path, count = walk.entered.most_common(1)[0]
        rows.append(f"| `{line}` | {walk.stops} | {walk.climbs} | `{path.removeprefix('bot/')}` {count} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--line", default=LINE, help="the line to follow (after: " + " / ".join(SETUP) + ")")
    parser.add_argument("--top", type=int, default=12, help="how many files to list")
    parser.add_argument("--table", action="store_true", help="docs/architecture.md's lines, as a Markdown table")
    args = parser.parse_args()
    if args.table:
        print(table())
        return
    walk = asyncio.run(walk_line(args.line))
    print(f"line: {args.line}")
    print(f"stops (calls into another file): {walk.stops}")
    print(f"climbs (control back up a layer): {walk.climbs}")
    print(f"files entered: {len(walk.entered)}")
    for path, count in walk.entered.most_common(args.top):
        print(f"  {count:5d}  {path}")


if __name__ == "__main__":
    main()
