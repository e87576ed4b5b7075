"""Guided flows driven by their buttons: tapped in the fake Telegram group (`start`, `tap`), or in the
command layer and the console by the command or line a button stands for (`press_label`, `console_step`)."""

from __future__ import annotations

import io
import re
from typing import Any

from bot.console import Console
from bot.text.replies import Response, render
from locales import Translator
from tests.fake_telegram import Call
from tests.harness import Table
from tests.kit.telegram import Running, buttons

NEW = "/new @alice @bob @carol @dave preset=nanjing"


async def tap(bot: Running, sender: dict[str, Any], label: str) -> Call:
    """Press the button labelled `label` on the latest keyboard; the edit it caused."""
    server = bot.fake
    keyboard = [c for c in server.calls if "reply_markup" in c.params][-1]
    data = buttons(server)[label]
    before = len(server.calls)
    update = server.press(sender, keyboard, data)
    await server.wait_for(lambda: any(c.method == "editMessageText" for c in server.calls[before:]), timeout=30)
    await server.settle(update)
    return next(c for c in server.calls[before:] if c.method == "editMessageText")


async def start(bot: Running, sender: dict[str, Any], line: str) -> int:
    """Send the line that opens a flow; the id of the message the flow lives in."""
    await bot.say(sender, line)
    return int([c for c in bot.fake.calls if "reply_markup" in c.params][-1].params["_result"]["message_id"])


def buttons_of(call: Call) -> dict[str, str]:
    markup = call.params["reply_markup"]
    return {b["text"]: b["callback_data"] for row in markup["inline_keyboard"] for b in row}


async def press_label(table: Table, response: Response, speaker: str, label: str) -> Response:
    """The command layer alone (the console's view): answer with the command a button stands for."""
    translator = Translator(response.language)
    command = next(c.command for c in response.choices if render(c.label, translator) == label)
    answer = await table.respond(f"{speaker}: {command}")
    assert answer is not None
    return answer


def command_of(response: Response, label: str) -> str:
    translator = Translator(response.language)
    return next(c.command for c in response.choices if render(c.label, translator) == label)


async def penalty_who_step(table: Table) -> Response:
    step = await table.respond("A: /penalty")
    assert step is not None
    return await press_label(table, step, "A", "跟牌")


def flow_lines(printed: str) -> dict[str, str]:
    """`  [label] /hu ~…` lines the console printed last: label → line; a tile pad's `  [1万] [2万] …`
    buttons are pressed by typing the label: label → label."""
    found: dict[str, str] = {}
    for line in printed.splitlines():
        match = re.match(r"^\s+\[(.+?)\] (/\S+ ~\S+)$", line)
        if match:
            found[match.group(1)] = match.group(2)
        elif re.match(r"^\s+(\[[^\]]+\] ?)+$", line):
            found.update((label, label) for label in re.findall(r"\[([^\]]+)\]", line))
    return found


async def console_step(console: Console, out: io.StringIO, line: str) -> dict[str, str]:
    out.seek(0)
    out.truncate()
    await console.run_line(line)
    return flow_lines(out.getvalue())


CONCEALED = ["1万", "2万", "3万", "4万", "5万", "6万", "7万", "8万", "9万", "2筒", "3筒", "4筒", "5筒", "5筒"]


async def tap_through(table: Table, speaker: str, labels: list[str]) -> Response:
    step = await table.respond(f"{speaker}: /hu")
    assert step is not None
    for label in labels:
        step = await press_label(table, step, speaker, label)
    return step
