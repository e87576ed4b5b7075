"""Guided flows driven by their buttons: tapped in the fake Telegram group (`start`, `tap`, `Pad`), or
in the command layer and the console by the command or line a button stands for (`press_label`,
`Tapping`, `console_step`)."""

from __future__ import annotations

import io
import re
from typing import Any

from bot.console import Console
from bot.text.replies import Response, render
from locales import Translator
from tests.kit.fake_telegram import Call
from tests.kit.harness import Table
from tests.kit.telegram import Running, buttons

NEW = "/new @alice @bob @carol @dave preset=nanjing"


class Pad:
    """The tile pad in the fake Telegram group: its one keyboard, pressed by label; what each press was
    answered with (the toast or alert), and the group messages the bot made meanwhile."""

    def __init__(self, bot: Running, sender: dict[str, Any], message: int) -> None:
        self.bot = bot
        self.sender = sender
        self.message = message
        self.keyboard = next(c for c in bot.fake.calls if sent_as(c) == message and "reply_markup" in c.params)

    @classmethod
    async def opened(cls, bot: Running, sender: dict[str, Any], line: str = "胡") -> Pad:
        return cls(bot, sender, await start(bot, sender, line))

    def data(self, label: str) -> str:
        return buttons_of(self.keyboard)[label]

    async def __call__(self, *labels: str) -> str:
        """Press each label in turn, each once the last was answered; the last press's answer."""
        answer = ""
        for label in labels:
            answer = await self.press(label)
        return answer

    async def press(self, label: str) -> str:
        server = self.bot.fake
        before = len(server.calls)
        await server.settle(server.press(self.sender, self.keyboard, self.data(label)))
        answers = [c for c in server.calls[before:] if c.method == "answerCallbackQuery"]
        return str(answers[-1].params.get("text", "")) if answers else ""


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


def sent_as(call: Call) -> int | None:
    """The message a call sent (None: it sent none)."""
    result = call.params.get("_result")
    return int(result["message_id"]) if isinstance(result, dict) and "message_id" in result else None


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


class Tapping:
    """The tile pad in the command layer: the one keyboard `/hu` answers with, pressed by label (its
    buttons' commands, as the console and Telegram send them)."""

    def __init__(self, table: Table, speaker: str, pad: Response) -> None:
        self.table = table
        self.speaker = speaker
        self.pad = pad

    @classmethod
    async def opened(cls, table: Table, speaker: str) -> Tapping:
        pad = await table.respond(f"{speaker}: /hu")
        assert pad is not None and pad.choices
        return cls(table, speaker, pad)

    @property
    def head(self) -> str:
        """The buttons' commands without their tap: `/hu ~t…g…d…n…`."""
        return self.pad.choices[0].command.rsplit("o", 1)[0]

    async def __call__(self, *labels: str) -> Response:
        """Press each label in turn; the last press's answer."""
        answer: Response | None = None
        for label in labels:
            answer = await self.table.respond(f"{self.speaker}: {command_of(self.pad, label)}")
            assert answer is not None
        assert answer is not None
        return answer


async def tap_through(table: Table, speaker: str, labels: list[str]) -> Response:
    """`/hu`, then each label pressed on the pad; the last press's answer."""
    tapping = await Tapping.opened(table, speaker)
    return await tapping(*labels) if labels else tapping.pad
