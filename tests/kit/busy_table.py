"""A busy table of four, played against the real Telegram front end (bot/telegram/app.py) on a
simulated clock (tests/kit/virtual_time.py), with Telegram answered in process and its limits on
messages enforced (tests/kit/limited_bot.py): how long each answer takes to arrive, and how many
group messages a tapped win costs (bench/table_speed_bench.py, tests/test_pacing.py).

The players type `lines_a_minute` lines into the group, at random moments (seeded), for `minutes`
minutes: each hand some pongs, gangs and penalties between talk the bot does not answer, a `/score`
now and then, and a win — typed, or tapped on the pad (`胡`, then the winner, 自摸 or the discarder,
the fourteen tiles of a random closed hand, the hard flowers, 确认), a tap every 0.4-1.2 s once
the pad is there, while the others go on talking. The bot's pinned board is live.

An answer's delay runs from the moment its line (or tap) reaches the bot to the moment Telegram has
the message that carries it (a tap: the press's own answer); processing a line takes no simulated
time (it takes milliseconds: bench/bot_bench.py).
"""

from __future__ import annotations

import asyncio
import contextvars
import random
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from telegram import CallbackQuery, Update

from bot.chat.handlers.flows import tile_label
from bot.store.queue import Row
from bot.telegram.app import TelegramFrontEnd, build_application
from bot.telegram.delivery import Note, Outgoing
from bot.telegram.pace import Pacer
from bot.text.replies import render
from locales import Translator
from tests.kit.limited_bot import TAG, LimitedTelegram
from tests.kit.random_hands import random_closed_hand

GROUP = -100_555
NAMES = ("p0", "p1", "p2", "p3")
TALK = ("好的", "嗯", "哈哈", "等一下", "快点", "这把不行", "该谁了", "轮到我了", "看错了", "听牌了")
ARRIVED: contextvars.ContextVar[int | None] = contextvars.ContextVar("arrived", default=None)


def user(seat: int) -> dict[str, Any]:
    name = NAMES[seat]
    return {"id": 700 + seat, "is_bot": False, "first_name": name, "username": name, "language_code": "zh-hans"}


@dataclass
class Figures:
    lines_a_minute: int
    minutes: float
    lines: int = 0
    taps: int = 0
    line_delays: list[float] = field(default_factory=list)  # each answered line's
    tap_delays: list[float] = field(default_factory=list)  # each tap's (the press's own answer)
    per_tapped_win: list[int] = field(default_factory=list)  # group messages from `胡` to the result
    board_edits: int = 0  # the pinned board's (sends, edits, the pin) and buttons taken off later
    tidied: int = 0  # of them, buttons taken off later (the rest the board's)
    board_lags: list[float] = field(default_factory=list)  # an event to the pinned board showing it
    refused: int = 0  # 429s met
    lost: int = 0  # answers never delivered
    messages: int = 0  # group messages in all (the board's included)

    def delays(self) -> list[float]:
        return self.line_delays + self.tap_delays


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def summary(values: list[float]) -> str:
    if not values:
        return "none"
    return (
        f"p50 {statistics.median(values):.1f} s, p99 {percentile(values, 0.99):.1f} s,"
        f" max {max(values):.1f} s ({len(values)})"
    )


class BusyTable:
    def __init__(self, folder: Path, lines_a_minute: int, minutes: float, seed: int) -> None:
        self.folder = folder
        self.rng = random.Random(seed)
        self.telegram = LimitedTelegram()
        self.figures = Figures(lines_a_minute, minutes)
        self.lines_a_minute = lines_a_minute
        self.minutes = minutes
        self.update_id = 0
        self.message_id = 0
        self.arrived: dict[int, float] = {}  # update -> when it reached the bot
        self.waiting: dict[int, tuple[Outgoing, int]] = {}  # an answer not sent yet (by id) -> its update
        self.boards: list[tuple[float, bool]] = []  # when each board was pushed, whether shown yet
        self.flows: list[set[int]] = []  # the updates of each tapped win
        self.application: Any = None

    @property
    def front(self) -> TelegramFrontEnd:
        front: TelegramFrontEnd = self.application.bot_data["front"]
        return front

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    async def play(self) -> Figures:
        self.application = build_application(
            "1:BUSY", str(self.folder / "busy.sqlite3"), request=self.telegram, pacer=Pacer()
        )
        await self.application.initialize()
        await self.application.post_init(self.application)
        self.watch()
        await self.line(0, "/new " + " ".join(f"@{n}" for n in NAMES) + " preset=nanjing")
        end = self.now() + self.minutes * 60
        while self.now() < end:
            await self.hand()
        await self.front.idle()
        await self.application.post_stop(self.application)
        await self.application.post_shutdown(self.application)
        await self.application.shutdown()
        return self.tally()

    # -- what the bot does, watched ------------------------------------------------------------------

    def watch(self) -> None:
        """Each update's arrival is known while it is handled; each answer pushed then carries it, and
        is timed when the message carrying it is sent (the press's answer: when it is made)."""
        lanes, outbox, sender, live = self.front.lanes, self.front.sender.outbox, self.front.sender, self.front.pinned
        process, push, send_batch, answer = lanes.process, outbox.push, outbox.send_batch, sender.answer
        publish, board_push = live.live.publish, live.live.push

        async def processed(row: Row, update: Update) -> bool:
            ARRIVED.set(row.update_id)
            return await process(row, update)

        def pushed(item: Outgoing) -> None:
            update = ARRIVED.get()
            if update is not None:
                self.waiting[id(item)] = (item, update)
            push(item)

        async def sent(chat: int, batch: list[Outgoing], text: str, notes: tuple[Note, ...] = ()) -> None:
            updates = [self.waiting.pop(id(item))[1] for item in batch if id(item) in self.waiting]
            token = TAG.set(frozenset(updates))  # the calls made for these answers are theirs
            try:
                await send_batch(chat, batch, text, notes)
            finally:
                TAG.reset(token)
            self.figures.line_delays += [self.now() - self.arrived[update] for update in updates]

        async def answered(query: CallbackQuery, text: str | None, alert: bool = True) -> None:
            await answer(query, text, alert)
            update = ARRIVED.get()
            if update is not None:
                self.figures.tap_delays.append(self.now() - self.arrived[update])

        def board(item: Outgoing) -> None:
            self.boards.append((self.now(), False))
            board_push(item)

        async def published(item: Outgoing) -> bool:
            begun = self.now()
            done = await publish(item)
            if done:  # every board pushed before this one was chosen is shown now
                self.boards = [(at, True) if at <= begun and not shown else (at, shown) for at, shown in self.boards]
                self.figures.board_lags += [self.now() - at for at, shown in self.boards if shown and at <= begun]
                self.boards = [(at, shown) for at, shown in self.boards if not shown]
            return done

        tidy_push = sender.tidy.push

        def tidied(chat: int, message: int, pressed: str | None = None) -> None:  # later: no answer's message
            token = TAG.set(None)
            try:
                tidy_push(chat, message, pressed)
            finally:
                TAG.reset(token)

        sender.tidy.push = tidied  # type: ignore[method-assign]
        lanes.process = processed
        outbox.push = pushed  # type: ignore[method-assign]
        outbox.send_batch = sent
        sender.answer = answered  # type: ignore[method-assign]
        live.live.publish = published
        live.live.push = board  # type: ignore[method-assign]

    # -- what the players do ---------------------------------------------------------------------------

    async def pause(self) -> None:
        """The next line comes after a random pause: `lines_a_minute` on average."""
        await asyncio.sleep(self.rng.expovariate(self.lines_a_minute / 60))

    async def hand(self) -> None:
        seats = list(range(4))
        melded: set[int] = set()
        for _ in range(self.rng.randint(2, 6)):
            await self.pause()
            seat = self.rng.choice(seats)
            other = self.rng.choice([s for s in seats if s != seat])
            kind = self.rng.random()
            if kind < 0.45:
                await self.line(seat, self.rng.choice(TALK))
            elif kind < 0.7:
                melded.add(seat)
                await self.line(seat, f"碰 {NAMES[other]}")
            elif kind < 0.8:
                melded.add(seat)
                await self.line(seat, f"杠 {NAMES[other]}")
            elif kind < 0.9:
                await self.line(seat, f"罚 跟牌 {NAMES[other]}")
            else:
                await self.line(seat, "/score")
        await self.pause()
        winner = self.rng.choice([s for s in seats if s not in melded] or seats)
        if winner in melded or self.rng.random() < 0.5:
            source = self.rng.choice([s for s in seats if s != winner])
            await self.line(winner, f"胡 {NAMES[source]} 花5")
            return
        tapping = asyncio.create_task(self.tapped_win(winner))
        while not tapping.done():  # the others talk meanwhile
            await asyncio.wait([tapping], timeout=self.rng.expovariate(self.lines_a_minute / 60))
            if not tapping.done():
                seat = self.rng.choice([s for s in seats if s != winner])
                await self.line(seat, self.rng.choice(TALK) if self.rng.random() < 0.8 else "/score")
        await tapping

    async def tapped_win(self, winner: int) -> None:
        flow: set[int] = set()
        self.flows.append(flow)
        before = len(self.telegram.calls)
        flow.add(await self.line(winner, "胡"))
        pad = await self.pad_after(before)
        buttons = {b["text"]: b["callback_data"] for row in pad["reply_markup"]["inline_keyboard"] for b in row}
        translator = Translator("zh-Hans")
        tiles, winning = random_closed_hand(self.rng)
        rest = list(tiles)
        rest.remove(winning)
        labels = [f"{NAMES[winner]} 胡", "自摸", *(label(t, translator) for t in [*rest, winning]), "🌸5", "确认"]
        await asyncio.sleep(1.0)  # the pad read
        for text in labels:
            flow.add(await self.press(winner, pad, buttons[text]))
            await asyncio.sleep(self.rng.uniform(0.4, 1.2))

    async def pad_after(self, before: int) -> dict[str, Any]:
        """The pad, once the bot has sent it (the message with the hard-flower buttons)."""
        while True:
            for call in self.telegram.calls[before:]:
                markup = call.params.get("reply_markup") or {}
                rows = markup.get("inline_keyboard", []) if isinstance(markup, dict) else []
                if call.method == "sendMessage" and any("🌸" in b["text"] for r in rows for b in r):
                    result: dict[str, Any] = call.result
                    return result
            await asyncio.sleep(0.1)

    async def line(self, seat: int, text: str) -> int:
        self.update_id += 1
        self.message_id += 1
        self.figures.lines += 1
        message = {
            "message_id": self.message_id,
            "date": 0,
            "text": text,
            "from": user(seat),
            "chat": {"id": GROUP, "type": "supergroup", "title": "t"},
        }
        entities = [
            {"type": "mention", "offset": text.index(f"@{n}"), "length": len(n) + 1} for n in NAMES if f"@{n}" in text
        ]
        if text.startswith("/"):
            entities.append({"type": "bot_command", "offset": 0, "length": len(text.split()[0])})
        if entities:
            message["entities"] = entities
        return await self.arrive({"update_id": self.update_id, "message": message})

    async def press(self, seat: int, message: dict[str, Any], data: str) -> int:
        self.update_id += 1
        self.figures.taps += 1
        query = {"id": f"q{self.update_id}", "from": user(seat), "chat_instance": "c", "data": data, "message": message}
        return await self.arrive({"update_id": self.update_id, "callback_query": query})

    async def arrive(self, body: dict[str, Any]) -> int:
        update_id = int(body["update_id"])
        self.arrived[update_id] = self.now()
        await self.front.accept(Update.de_json(body, self.application.bot))
        return update_id

    # -- the figures ---------------------------------------------------------------------------------

    def tally(self) -> Figures:
        """A tapped win's messages: every group message that carries an answer to its `胡` or its taps."""
        figures = self.figures
        figures.lost = len(self.waiting)
        figures.refused = len(self.telegram.refused)
        group = self.telegram.messages(GROUP)
        figures.messages = len(group)
        for flow in self.flows:
            figures.per_tapped_win.append(sum(1 for c in group if isinstance(c.tag, frozenset) and c.tag & flow))
        figures.board_edits = sum(1 for c in group if c.tag is None)  # made by the board's and the tidy's tasks
        figures.tidied = sum(1 for c in group if c.tag is None and c.method == "editMessageReplyMarkup")
        return figures


def label(tile: int, translator: Translator) -> str:
    """A tile's button as the pad labels it (`5筒`, `东`)."""
    return render(tile_label(tile), translator)


async def busy_table(lines_a_minute: int, minutes: float, seed: int = 41) -> Figures:
    with tempfile.TemporaryDirectory() as folder:
        return await BusyTable(Path(folder), lines_a_minute, minutes, seed).play()
