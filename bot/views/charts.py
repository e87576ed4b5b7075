"""The night's chart: each player's cumulative balance after each hand, 比下胡 hands marked.

What is drawn is worked out here from the night's tally (`tally_lines`: a line a person, with gaps
where they did not sit); bot/views/plot.py draws it with Pillow, in a CJK font. The Telegram bot
draws in a process of its own (`start_drawing`, at start), so a chart never holds the chats the bot
process answers meanwhile. A chart is kept by its night's version (the newest event), language and
image format: asked again with nothing recorded since, it is not drawn again.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections import OrderedDict
from collections.abc import Sequence, Set
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from bot.night.night import Night
from bot.night.people import merged_index, merged_names
from bot.night.tally import Tally
from bot.threads import in_thread
from bot.views import drawing, plot
from engine.settlement import SEATS
from locales import Translator

KEPT_CHARTS = 64  # charts kept by their night's version (30–100 KB each)
DRAWERS = 1  # drawing processes: one draws twenty charts in about 0.1 s; a second only competed for the cores


def cumulative_by_hand(
    deltas: Sequence[tuple[int, int, int]], hands: int = 0, people: int = 4
) -> list[tuple[int, list[int]]]:
    """(hand number, balances after it) for hand 0 (the start) and every hand up to the last: the
    `hands` played, or a later one that already saw a payment; a hand without payments keeps the line
    level. `deltas` are (hand, player index, amount); a balance for each of `people` at least (one
    who sat down after a 换人 and has paid nothing yet still has a line)."""
    players = max([4, people, *(player + 1 for _, player, _ in deltas)])
    per_hand: dict[int, list[int]] = {}
    for hand, player, amount in deltas:
        per_hand.setdefault(hand, [0] * players)[player] += amount
    last = max([hands, *per_hand])
    points = [(0, [0] * players)]
    running = [0] * players
    for hand in range(1, last + 1):
        running = [a + b for a, b in zip(running, per_hand.get(hand, [0] * players), strict=True)]
        points.append((hand, list(running)))
    return points


PersonLine = tuple[str, list[int], list[int | None]]  # name, hands, balance after each (None: not seated)


def tally_lines(tally: Tally, names: Sequence[str], people: Sequence[str], hands: int) -> list[PersonLine]:
    """(name, hands, balance after each hand or None where they did not sit) for each of `people`
    (the night's, as `Night.people` names them; `names`: its occupancy, the tally's players): the line
    of one who left stops at their last hand at the balance they keep, a newcomer's starts at zero the
    hand before they sat down. Hand 0 is the start; the last is the `hands` played, or a later one
    that already saw a payment."""
    merged = merged_index(names)
    first = merged_names(names)  # a person is named as they first sat down
    column = {name: at for at, name in enumerate(people)}
    columns = [column.get(first[merged[index]]) for index in range(len(names))]
    deltas = []
    for nets in tally.hands:
        deltas.append((nets.hand, 0, 0))  # drawn, whatever its payments came to
        deltas.extend(
            (nets.hand, at, net) for at, net in zip(columns, nets.nets, strict=False) if at is not None and net
        )
    points = cumulative_by_hand(deltas, hands, len(people))
    sat: list[set[int]] = [set() for _ in people]
    for index, at in enumerate(columns):
        player = tally.players[index] if index < len(tally.players) else None
        if at is None:
            continue
        if index < SEATS:
            sat[at].add(0)  # the opening four
        if player is not None and player.first_hand:
            sat[at].update(range(player.first_hand, player.last_hand + 1))
    xs = [hand for hand, _ in points]
    lines: list[PersonLine] = []
    for at, name in enumerate(people):
        # the hand before one sits down anchors the line at the balance they start from (zero)
        shown = sat[at] | {hand - 1 for hand in sat[at]}
        lines.append((name, xs, [balances[at] if hand in shown else None for hand, balances in points]))
    return lines


def night_lines(night: Night, tally: Tally) -> list[PersonLine]:
    """The night's chart lines, from its tally (`Night.tally`)."""
    people = [person.name for person in night.people()]
    return tally_lines(tally, night.player_names(), people, night.hands_played())


def end_points(lines: Sequence[PersonLine]) -> dict[str, int]:
    """Each person's last drawn balance: what they take home in flowers (or chips)."""
    ends: dict[str, int] = {}
    for name, _, values in lines:
        drawn = [v for v in values if v is not None]
        ends[name] = drawn[-1] if drawn else 0
    return ends


def balance_chart_of(
    night_number: int, lines: Sequence[PersonLine], doubled: Set[int], language: str
) -> plot.LineChart:
    """What the night's chart shows, in the chat's language: small, so it is cheap to send to the
    drawing process (the night's log stays here)."""
    translator = Translator(language)
    return plot.LineChart(
        title=translator.t("chart.title", night=night_number),
        x_label=translator.t("chart.hand_axis"),
        y_label=translator.t("chart.balance_axis"),
        xs=tuple(lines[0][1]) if lines else (0,),
        series=tuple(plot.Series(name, tuple(values)) for name, _, values in lines),
        marked=frozenset(doubled),
        mark_label=translator.t("chart.doubled_mark"),
    )


def night_chart(night: Night, tally: Tally, language: str) -> plot.LineChart:
    """The night's chart from its tally (`Night.tally`): each person's balance after each hand, the
    比下胡 hands marked."""
    return balance_chart_of(night.number, night_lines(night, tally), set(tally.doubled), language)


def balance_chart(
    night_number: int, lines: Sequence[PersonLine], doubled: Set[int], language: str, image_format: str = "JPEG"
) -> bytes:
    """The night's chart as JPEG (what Telegram sends a photo as) or PNG bytes, drawn here."""
    return plot.draw(balance_chart_of(night_number, lines, doubled, language), image_format)


# ---- where charts are drawn -----------------------------------------------------------------------


class Charts:
    """The charts last drawn (one referee's), by their night's version (the night's id and newest
    event), language and image format; and where new ones are drawn: in this process's worker threads,
    or, once `start_drawing` is called (the Telegram bot, at start), in a process of their own."""

    def __init__(self, most: int = KEPT_CHARTS) -> None:
        self.most = most
        self._kept: OrderedDict[tuple[object, ...], bytes] = OrderedDict()
        self._drawer: ProcessPoolExecutor | None = None

    def start_drawing(self) -> None:
        """Draw in a process of its own from now on, started now (its imports and fonts with it)."""
        if self._drawer is None:
            context = multiprocessing.get_context("spawn")  # a fresh interpreter: none of the bot's threads
            self._drawer = ProcessPoolExecutor(
                DRAWERS, mp_context=context, initializer=drawing.warm, initargs=(os.getpid(),)
            )
            self._drawer.submit(drawing.ready)  # starts the process now, not with the first chart

    def stop_drawing(self) -> None:
        if self._drawer is not None:
            self._drawer.shutdown(wait=False, cancel_futures=True)
            self._drawer = None

    def kept(self, version: tuple[object, ...], image_format: str = "JPEG") -> bytes | None:
        """The chart kept for `version` (the night's id, newest event and the chat's language)."""
        key = (*version, image_format)
        image = self._kept.get(key)
        if image is not None:
            self._kept.move_to_end(key)
        return image

    async def chart(self, version: tuple[object, ...], chart: plot.LineChart, image_format: str = "JPEG") -> bytes:
        """The night's chart for `version` (its language is in the key's version): kept, or drawn now."""
        image = self.kept(version, image_format)
        if image is not None:
            return image
        image = await self._draw(chart, image_format)
        self._kept[(*version, image_format)] = image
        while len(self._kept) > self.most:
            self._kept.popitem(last=False)
        return image

    async def _draw(self, chart: plot.LineChart, image_format: str) -> bytes:
        drawer = self._drawer
        if drawer is not None:
            try:
                loop = asyncio.get_running_loop()
                return await loop.run_in_executor(drawer, plot.draw, chart, image_format)
            except BrokenProcessPool:  # the drawing process died: start another, draw this one here
                if self._drawer is drawer:  # (not again for each chart that was waiting on it)
                    self.stop_drawing()
                    self.start_drawing()
        return await in_thread(plot.draw, chart, image_format)
