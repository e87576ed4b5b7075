"""What the command layer answers: message keys with parameters, rendered per chat language."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, BinaryIO, Literal

from opencc import OpenCC

from locales import Translator


@cache
def _converter() -> OpenCC:
    return OpenCC("s2t")


def to_traditional(text: str) -> str:
    return str(_converter().convert(text))


@dataclass(frozen=True)
class Reply:
    key: str
    params: dict[str, Any] = field(default_factory=dict)
    count: int | None = None  # for messages with plural forms


@dataclass(frozen=True)
class Joined:
    """Several values rendered and joined with a separator, as one parameter."""

    items: tuple[Any, ...]
    separator: str | Reply = "\n"  # a Reply for a list a reader sees (", " in English, "、" in Chinese)
    unique: bool = False  # an item that reads as one before it is left out (two names for one thing)


@dataclass(frozen=True)
class Trimmed:
    """A reply rendered without the indent it has on a line of its own: a factor (`  比下胡 ×2`)
    inside a line."""

    reply: Reply


@dataclass(frozen=True)
class Chinese:
    """Free Chinese text from data (a preset's description): shown in Traditional in zh-Hant."""

    text: str


@dataclass(frozen=True)
class Attachment:
    kind: str  # "photo" or "document"
    filename: str
    body: bytes | BinaryIO  # a long one (`/export all`) is a file on disk, written as it was read
    path: str | None = None  # where the console writes it, as the player typed it (`--chart out/x.png`)

    @property
    def data(self) -> bytes:
        """The whole content in memory (a chart, a night's CSV; a long file only where it is read whole)."""
        content = self.content()
        return content if isinstance(content, bytes) else content.read()

    def content(self) -> bytes | BinaryIO:
        """What a front end sends or writes: the bytes, or the file from its start (each time: a
        resend reads it again)."""
        if isinstance(self.body, bytes):
            return self.body
        self.body.seek(0)
        return self.body


BUTTON_COMMAND_BYTES = 52  # bytes of UTF-8 a button's command may take (bot/telegram/callback.py)


@dataclass(frozen=True)
class Choice:
    """A button: its label (a Reply) and the command line it stands for. Buttons next to each other
    with the same `row` share a keyboard row (a tile pad); without one they go two a row. The command
    stays within BUTTON_COMMAND_BYTES (Telegram carries it in 64 bytes with its night and hand)."""

    label: Reply
    command: str
    row: int | None = None
    anytime: bool = False  # good for the whole night (a question: 明细), not only for the hand it was sent in


@dataclass(frozen=True)
class Response:
    replies: tuple[Reply, ...] = ()
    language: str = "zh-Hans"
    attachments: tuple[Attachment, ...] = ()
    choices: tuple[Choice, ...] = ()
    recorded: bool = False  # something was written to the ledger
    refused: bool = False  # the line was for the referee but wrong: an error reply, nothing written
    night_id: int | None = None
    hand_no: int | None = None
    scoreboard: Reply | None = None  # the live scoreboard after a recorded event
    edits: bool = False  # a guided flow's step or result: written over the message whose button was pressed
    moved_money: bool = True  # False: a recorded event with no payments (碰): the console skips the board
    # the reply where the chat's board is pinned and live (Telegram, bot/views/board.py `live`): no board
    # after a hand, a win in three lines, a summary with who pays whom; None: the same as `replies`
    live: tuple[Reply, ...] | None = None
    settles: bool = False  # answers a question, recording nothing (a repeat dropped): the chat sees it, its buttons go
    spent: bool = False  # a button whose question was answered already: a quiet note to whoever pressed it
    # the ledger could not be written just now (locked by another program, a full disk): nothing was
    # recorded, and the same line may be handled again (Telegram does, until it is written)
    unwritten: bool = False
    # a button's press answered to the presser alone, the message and its buttons left as they are (a
    # tap on the tile pad): "toast" goes by itself, "alert" is a note to dismiss (a preview to read);
    # Telegram answers the press with it (no group message), the console prints it
    press_answer: Literal["toast", "alert"] | None = None
    # the ledger row its first line reports as #N (`✅ #N`, `✏️ #N`, `↩️ #N`): a reply to the message
    # that shows it acts on that line (Telegram: bot/chat/handlers/reply_to.py)
    event_id: int | None = None


def render_value(value: Any, translator: Translator) -> Any:
    if isinstance(value, Reply):
        return render(value, translator)
    if isinstance(value, Trimmed):
        return render(value.reply, translator).strip()
    if isinstance(value, Chinese):
        return to_traditional(value.text) if translator.language == "zh-Hant" else value.text
    if isinstance(value, Joined):
        separator = value.separator if isinstance(value.separator, str) else render(value.separator, translator)
        items = [str(render_value(v, translator)) for v in value.items]
        return separator.join(dict.fromkeys(items) if value.unique else items)
    if isinstance(value, list | tuple):
        return "\n".join(str(render_value(v, translator)) for v in value)
    return value


def render(reply: Reply, translator: Translator) -> str:
    params = {key: render_value(value, translator) for key, value in reply.params.items()}
    if reply.count is not None:
        return translator.n(reply.key, reply.count, **params)
    return translator.t(reply.key, **params)


LIST = Reply("list.separator")  # between the items of a list in a sentence: "a, b" / "甲、乙"


def render_response(response: Response, translator: Translator | None = None) -> str:
    translator = translator or Translator(response.language)
    return "\n".join(render(reply, translator) for reply in response.replies)
