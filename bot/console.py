"""The local console: the same commands as the group chat, typed at a prompt or read from a file.

Each line is `Speaker: text`, as if typed in the group by that person; a line without `Speaker:` is
spoken by the night's first player. `yes` after `/summary` closes the night, as the button does in
Telegram. With `--json`, one object with the night's balances is printed after the script.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

from bot.chat.availability import EXIT_UNAVAILABLE, DatabaseUnavailable, owned
from bot.chat.service import Incoming, Referee, Speaker
from bot.text.replies import Response, render, render_response
from locales import DEFAULT_LANGUAGE, Translator, normalize_language

CONSOLE_CHAT = "console"
_SPEAKER = re.compile(r"^\s*([^:：/\s][^:：]{0,31})[:：]\s*(.*)$")


def split_speaker(line: str) -> tuple[str | None, str]:
    """`Alice: /pong Bob` -> ("Alice", "/pong Bob"); a line without a speaker -> (None, line)."""
    match = _SPEAKER.match(line)
    if match and not match.group(1).strip().startswith(("[", "{", "(")):
        return match.group(1).strip(), match.group(2)
    return None, line.strip()


class Console:
    def __init__(self, referee: Referee, chat_id: str, language: str | None, out: TextIO, chart_dir: Path) -> None:
        self.referee = referee
        self.chat_id = chat_id
        self.language = language
        self.out = out
        self.chart_dir = chart_dir
        self.refused = 0  # lines answered with an error (the script's exit status says so)
        self.pad: dict[str, str] = {}  # the latest tile pad's buttons, pressed by typing a label

    async def _first_player(self) -> str:
        return await self.referee.first_player(self.chat_id) or "console"

    async def run_line(self, line: str) -> Response | None:
        if not line.strip() or line.lstrip().startswith("#"):
            return None
        name, text = split_speaker(line)
        text = self.pad.get(text, text)  # `B: 5筒` presses the pad's 5筒
        speaker = Speaker(
            id=name or await self._first_player(),
            name=name or await self._first_player(),
            by_name=True,
            language=self.language,
        )
        if speaker.name == "console":
            speaker = Speaker(id="console", name="console", by_name=True, is_admin=True, language=self.language)
        response = await self.referee.handle(Incoming(self.chat_id, speaker, text))
        if response is None:
            return None
        if response.refused:
            self.refused += 1
        self._print(response)
        return response

    def _print(self, response: Response) -> None:
        translator = Translator(response.language)
        text = render_response(response, translator)
        if text:
            print(text, file=self.out)
        self._print_choices(response, translator)
        for attachment in response.attachments:
            path = self.chart_dir / (attachment.path or attachment.filename)  # an absolute path stays as typed
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                with path.open("wb") as out:
                    content = attachment.content()
                    if isinstance(content, bytes):
                        out.write(content)
                    else:
                        shutil.copyfileobj(content, out)  # a long file: a piece at a time
            except OSError as error:
                print(translator.t("console.cannot_write", path=str(path), error=error.strerror or ""), file=self.out)
                continue
            print(translator.t("console.wrote_file", path=str(path)), file=self.out)
        print("", file=self.out)

    def _print_choices(self, response: Response, translator: Translator) -> None:
        """A button a line (`[确认] /hu ~…`); a tile pad's keyboard (buttons with a row) compactly, a
        suit a line (two of Telegram's rows), each button pressed by typing its label. A reply without
        buttons (a tap's answer) leaves the pad's labels as they were: the pad does not change."""
        if response.choices or response.recorded:
            self.pad = {}
        for choice in response.choices:
            label = render(choice.label, translator)
            if choice.row is None:
                print(f"  [{label}] {choice.command}", file=self.out)
            else:
                self.pad[label] = choice.command
        printed = pad_rows(response, translator)
        for line in printed.values():
            print(line, file=self.out)
        if printed:
            print("  " + translator.t("console.pad_hint"), file=self.out)

    async def run_lines(self, lines: Iterable[str], keep_going: bool = True) -> None:
        """Every line in turn; a refused line is answered and the script goes on (unless told to stop)."""
        for line in lines:
            response = await self.run_line(line.rstrip("\n"))
            if response is not None and response.refused and not keep_going:
                return


def pad_rows(response: Response, translator: Translator) -> dict[int, str]:
    """A tile pad's keyboard as printed: a line per suit (two of Telegram's rows), by its place."""
    lines: dict[int, list[str]] = {}
    for choice in response.choices:
        if choice.row is not None:
            lines.setdefault(choice.row // 2, []).append(f"[{render(choice.label, translator)}]")
    return {row: "  " + " ".join(buttons) for row, buttons in lines.items()}


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bot console",
        description="Nanjing Mahjong referee, local console",
        epilog="Exit status with --script: 0 when every line was accepted, 1 when any line was refused "
        "(each refused line is answered and the script goes on), 2 for bad options or an unreadable script, "
        "3 when the database is in use by another process or cannot be opened.",
    )
    parser.add_argument("--db", default="referee-demo.sqlite3", help="SQLite file (default: a demo database here)")
    parser.add_argument("--script", help="a file of lines `Speaker: text`; without it, an interactive prompt")
    parser.add_argument("--lang", help="zh (default), zh-Hant or en")
    parser.add_argument("--json", action="store_true", help="after the script, print the night's balances as JSON")
    parser.add_argument("--chat", default=CONSOLE_CHAT, help="the chat id to play in (each has its own nights)")
    parser.add_argument("--out-dir", default=".", help="where charts and exports are written")
    going = parser.add_mutually_exclusive_group()
    going.add_argument(
        "--keep-going",
        dest="keep_going",
        action="store_true",
        default=True,
        help="after a refused line, go on with the next one (the default); the exit status is 1 at the end",
    )
    going.add_argument(
        "--stop-on-error", dest="keep_going", action="store_false", help="stop the script at the first refused line"
    )
    return parser.parse_args(argv)


async def run_console(argv: Sequence[str] | None = None, operator_language: str | None = None) -> int:
    """`operator_language` (from the process's LANG, bot/__main__.py): what a database refusal is
    printed in when no --lang says otherwise."""
    args = _arguments(argv)
    language = normalize_language(args.lang) if args.lang else None
    if args.lang and language is None:
        print(f"unknown language {args.lang!r}", file=sys.stderr)
        return 2
    lines: list[str] | None = None
    if args.script:
        try:
            lines = Path(args.script).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            print(f"cannot read the script {args.script!r}: {error}", file=sys.stderr)
            return 2
    try:
        with owned(args.db):  # one process per database, and a file SQLite can write
            return await _run(args, language, lines)
    except DatabaseUnavailable as error:
        said = language or operator_language or DEFAULT_LANGUAGE
        print(Translator(said).t(error.key, **error.params), file=sys.stderr)
        return EXIT_UNAVAILABLE


async def _run(args: argparse.Namespace, language: str | None, lines: list[str] | None) -> int:
    referee = await Referee.open(args.db, rules_dir=Path.cwd())
    try:
        if language and await referee.chat_setting(args.chat, "language") != language:
            await referee.set_chat_setting(args.chat, "language", language)
        out_dir = Path(args.out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        console = Console(referee, args.chat, language, sys.stdout if not args.json else sys.stderr, out_dir)
        if lines is not None:
            await console.run_lines(lines, keep_going=args.keep_going)
        else:
            await _interactive(console, language or DEFAULT_LANGUAGE)
        if args.json:
            print(json.dumps(await referee.night_json(args.chat), ensure_ascii=False))
    finally:
        await referee.close()
    return 1 if lines is not None and console.refused else 0


async def _interactive(console: Console, language: str) -> None:
    translator = Translator(language)
    print(translator.t("console.welcome"), file=console.out)
    loop = asyncio.get_running_loop()
    while True:
        try:
            line = await loop.run_in_executor(None, lambda: input("> "))
        except (EOFError, KeyboardInterrupt):
            print("", file=console.out)
            return
        if line.strip() in ("/quit", "/exit", "退出"):
            return
        await console.run_line(line)
