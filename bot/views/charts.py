"""The night's chart: each player's cumulative balance after each hand, 比下胡 hands marked.

What is drawn is worked out here from the night's tally (`tally_lines`: a line a person, with gaps
where they did not sit); bot/views/plot.py draws it with Pillow, in a CJK font. The Telegram bot
draws in a process of its own (`start_drawing`, at start), so a chart never holds the chats the bot
process answers meanwhile. A chart that process has not drawn within `give_up` seconds (a hung
or stopped process) is given up (`ChartNotDrawn`: the summary goes out without it, saying so), and
the process is killed and replaced; `health` tells the heartbeat about it. A chart is kept by its
night's version (the newest event), language and image format: asked again with nothing recorded
since, it is not drawn again. A name with a character the chart's font has no glyph for (drawn as a
box) is logged, once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence, Set
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from bot.night.night import Night
from bot.night.people import merged_index, merged_names
from bot.night.tally import Tally
from bot.threads import in_thread
from bot.views import drawing, plot
from bot.views.lines import money_first
from engine.events import SEATS
from locales import Translator

KEPT_CHARTS = 64  # charts kept by their night's version (30–100 KB each)
DRAWERS = 1  # drawing processes: one draws twenty charts in about 0.1 s; a second only competed for the cores
TOLD_MOST = 1024  # texts whose missing glyphs were logged, remembered so each is logged once
# A chart is drawn in about 0.1 s: one not drawn in 3 s will not be (a hung process). The Telegram
# front end passes its CHART_SECONDS setting instead (the tests stop the process for less).
GIVE_UP_SECONDS = 3.0
START_SECONDS = 30.0  # a new drawing process loads its fonts in about a second: one not ready by then is stuck
STUCK = "stuck"  # how `Charts.health` starts while the drawing process does not answer (health.py's STUCK)
log = logging.getLogger(__name__)


class ChartNotDrawn(Exception):
    """The drawing process did not draw the chart in time: it was given up (and the process replaced)."""


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


def tally_lines(
    tally: Tally,
    names: Sequence[str],
    people: Sequence[str],
    hands: int,
    stake_of: Callable[[int], int] | None = None,
) -> list[PersonLine]:
    """(name, hands, balance after each hand or None where they did not sit) for each of `people`
    (the night's, as `Night.people` names them; `names`: its occupancy, the tally's players): the line
    of one who left stops at their last hand at the balance they keep, a newcomer's starts at zero the
    hand before they sat down. Hand 0 is the start; the last is the `hands` played, or a later one
    that already saw a payment. In flowers; in money (minor units) with `stake_of`, a hand's stake:
    each hand's nets priced at its own stake, as /summary prices them."""
    columns = _columns(names, people)
    deltas = []
    for nets in tally.hands:
        price = stake_of(nets.hand) if stake_of is not None else 1
        deltas.append((nets.hand, 0, 0))  # drawn, whatever its payments came to
        deltas.extend(
            (nets.hand, at, net * price) for at, net in zip(columns, nets.nets, strict=False) if at is not None and net
        )
    points = cumulative_by_hand(deltas, hands, len(people))
    sat = seated_hands(tally, names, people)
    xs = [hand for hand, _ in points]
    lines: list[PersonLine] = []
    for at, name in enumerate(people):
        # the hand before one sits down anchors the line at the balance they start from (zero)
        shown = sat[at] | {hand - 1 for hand in sat[at]}
        lines.append((name, xs, [balances[at] if hand in shown else None for hand, balances in points]))
    return lines


def _columns(names: Sequence[str], people: Sequence[str]) -> list[int | None]:
    """Each occupancy index's column among `people` (None: a name none of them has)."""
    merged = merged_index(names)
    first = merged_names(names)  # a person is named as they first sat down
    column = {name: at for at, name in enumerate(people)}
    return [column.get(first[merged[index]]) for index in range(len(names))]


def seated_hands(tally: Tally, names: Sequence[str], people: Sequence[str]) -> list[set[int]]:
    """The hands each of `people` sat at (as `tally_lines` takes them), with 0, the start, for the
    opening four: not the hand before a newcomer sat down, which their line is drawn from."""
    sat: list[set[int]] = [set() for _ in people]
    for index, at in enumerate(_columns(names, people)):
        player = tally.players[index] if index < len(tally.players) else None
        if at is None:
            continue
        if index < SEATS:
            sat[at].add(0)  # the opening four
        if player is not None and player.first_hand:
            sat[at].update(range(player.first_hand, player.last_hand + 1))
    return sat


def night_lines(night: Night, tally: Tally, priced: bool = False) -> list[PersonLine]:
    """The night's chart lines, from its tally (`Night.tally`): in flowers, or `priced` in money
    (minor units, each hand at its stake)."""
    people = [person.name for person in night.people()]
    stake_of = night.stake_at if priced else None
    return tally_lines(tally, night.player_names(), people, night.hands_played(), stake_of)


def chart_in_money(night: Night) -> bool:
    """Whether the chart plots money: once the night mixes stakes (docs/rules.md 17d), as the board
    and the ranking then do; flowers while every hand was played for one stake."""
    return money_first(night)


def end_points(lines: Sequence[PersonLine]) -> dict[str, int]:
    """Each person's last drawn balance: what they take home in flowers (or chips)."""
    ends: dict[str, int] = {}
    for name, _, values in lines:
        drawn = [v for v in values if v is not None]
        ends[name] = drawn[-1] if drawn else 0
    return ends


def balance_chart_of(
    night_number: int,
    lines: Sequence[PersonLine],
    doubled: Set[int],
    language: str,
    money: bool = False,
    seated: Sequence[Set[int]] | None = None,
) -> plot.LineChart:
    """What the night's chart shows, in the chat's language: small, so it is cheap to send to the
    drawing process (the night's log stays here). `money`: the lines are money in minor units
    (`night_lines(priced=True)`), plotted in whole units under a money axis. `seated`: the hands
    each line's person sat at (`seated_hands`), the only ones a 比下胡 star goes on their line."""
    translator = Translator(language)
    series = tuple(
        plot.Series(
            name,
            tuple(None if v is None else v / 100 for v in values) if money else tuple(values),
            None if seated is None else frozenset(seated[at]),
        )
        for at, (name, _, values) in enumerate(lines)
    )
    return plot.LineChart(
        title=translator.t("chart.title", night=night_number),
        x_label=translator.t("chart.hand_axis"),
        y_label=translator.t("chart.money_axis" if money else "chart.balance_axis"),
        xs=tuple(lines[0][1]) if lines else (0,),
        series=series,
        marked=frozenset(doubled),
        mark_label=translator.t("chart.doubled_mark"),
    )


def night_chart(night: Night, tally: Tally, language: str) -> plot.LineChart:
    """The night's chart from its tally (`Night.tally`): each person's balance after each hand, the
    比下胡 hands marked; in money once the night mixes stakes (`chart_in_money`)."""
    money = chart_in_money(night)
    lines = night_lines(night, tally, priced=money)
    seated = seated_hands(tally, night.player_names(), [person.name for person in night.people()])
    return balance_chart_of(night.number, lines, set(tally.doubled), language, money, seated)


def balance_chart(
    night_number: int, lines: Sequence[PersonLine], doubled: Set[int], language: str, image_format: str = "JPEG"
) -> bytes:
    """The night's chart as JPEG (what Telegram sends a photo as) or PNG bytes, drawn here."""
    return plot.draw(balance_chart_of(night_number, lines, doubled, language), image_format)


def _missing_glyphs_of(texts: Sequence[str]) -> list[str]:
    return [plot.missing_glyphs(text) for text in texts]


# ---- where charts are drawn -----------------------------------------------------------------------


class Charts:
    """The charts last drawn (one referee's), by their night's version (the night's id and newest
    event), language and image format; and where new ones are drawn: in this process's worker threads,
    or, once `start_drawing` is called (the Telegram bot, at start), in a process of their own."""

    def __init__(self, most: int = KEPT_CHARTS, give_up: float = GIVE_UP_SECONDS) -> None:
        self.most = most
        self.give_up = give_up  # seconds a chart may take in the drawing process
        self._kept: OrderedDict[tuple[object, ...], bytes] = OrderedDict()
        self._drawer: ProcessPoolExecutor | None = None
        self._told: OrderedDict[str, None] = OrderedDict()  # texts already logged as drawn with boxes
        # charts the current drawing process was given and has not answered: since when (monotonic).
        # Its own thread takes them off when they are done, hence the lock.
        self._waiting: dict[Future[Any], float] = {}
        self._started: Future[Any] | None = None  # the new process's first answer: judged only after it
        self._started_at = 0.0  # when it was asked for (monotonic)
        self._waiting_lock = threading.Lock()
        self.replaced = 0  # drawing processes killed and replaced for not answering
        self.replaced_at: float | None = None  # when the last one was (wall clock)

    def start_drawing(self) -> None:
        """Draw in a process of its own from now on, started now (its imports and fonts with it)."""
        if self._drawer is None:
            context = multiprocessing.get_context("spawn")  # a fresh interpreter: none of the bot's threads
            try:
                self._drawer = ProcessPoolExecutor(
                    DRAWERS, mp_context=context, initializer=drawing.warm, initargs=(os.getpid(),)
                )
                self._started = self._drawer.submit(drawing.ready)  # starts the process now, not with the first chart
            except OSError as error:  # no writable /dev/shm (a process pool's locks live there): draw in threads
                log.warning("charts are drawn in this process (no process of their own: %s)", error)
                self._drawer = None
                return
            self._started_at = time.monotonic()

    async def ready(self) -> None:
        """Wait until the drawing process has started (loaded its fonts and drawn its sample)."""
        if self._started is not None:
            with contextlib.suppress(BrokenProcessPool):
                await asyncio.wrap_future(self._started)

    def stop_drawing(self) -> None:
        """Stop the drawing process, killed: a stopped (SIGSTOP) or hung one would never read the
        request to leave, and the bot's own exit waits for it."""
        if self._drawer is not None:
            drawer, self._drawer = self._drawer, None
            pids = list(getattr(drawer, "_processes", None) or ())  # (Python 3.14 has kill_workers)
            drawer.shutdown(wait=False, cancel_futures=True)
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            with self._waiting_lock:
                self._waiting.clear()

    def stuck_for(self, now: float | None = None) -> float:
        """How long the drawing process has kept its oldest chart unanswered (0: none waiting)."""
        with self._waiting_lock:
            oldest = min(self._waiting.values(), default=None)
        return 0.0 if oldest is None else (time.monotonic() if now is None else now) - oldest

    def health(self) -> str | None:
        """What `python -m bot health` should say about the drawing process, asked as the bot's loop
        goes round (the heartbeat): None when all is well; `stuck …` when a chart or a probe waited on
        it longer than `give_up` (it is replaced now, so the next chart does not wait on it); else a
        note of the last replacement. An idle process is probed (`drawing.ready`), so one stopped
        while nobody asked for a chart is found too."""
        waited = self.stuck_for()
        if self._drawer is not None and self._started is not None and not self._started.done():
            waited = time.monotonic() - self._started_at  # still starting: given START_SECONDS
            waited = waited if waited > START_SECONDS else 0.0
        if self._drawer is not None and waited > self.give_up:
            self._replace(self._drawer)
            return f"{STUCK}: the drawing process did not answer for {waited:.0f} s; it was replaced"
        self._probe()
        if self.replaced_at is not None:
            at = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.replaced_at))
            return f"the drawing process did not answer and was replaced {self.replaced} time(s), last at {at}"
        return None

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
        await self._tell_missing_glyphs(chart)
        self._kept[(*version, image_format)] = image
        while len(self._kept) > self.most:
            self._kept.popitem(last=False)
        return image

    async def _tell_missing_glyphs(self, chart: plot.LineChart) -> None:
        """Log each text of the chart that has characters no font here draws (once a text): it came
        out with boxes, which nobody in the chat would otherwise report. Looked up here, not where the
        chart was drawn: a drawing process has no logging of its own."""
        new = [text for text in dict.fromkeys(plot.texts_of(chart)) if text not in self._told]
        if not new:
            return
        missing = await in_thread(_missing_glyphs_of, new)  # the first time, the font is loaded here
        for text, chars in zip(new, missing, strict=True):
            if chars:
                log.warning(
                    "the chart's font (%s) has no glyph for %s (%s) in %r: drawn as boxes",
                    plot.cjk_font_file() or "Pillow's default",
                    chars,
                    " ".join(f"U+{ord(char):04X}" for char in chars),
                    text,
                )
            self._told[text] = None
        while len(self._told) > TOLD_MOST:
            self._told.popitem(last=False)

    async def _draw(self, chart: plot.LineChart, image_format: str) -> bytes:
        if self._drawer is not None and self.stuck_for() > self.give_up:  # known stuck: not waited on again
            self._replace(self._drawer)
        drawer = self._drawer
        if drawer is not None and self._started is not None and not self._started.done():
            drawer = None  # still loading its fonts (just started or replaced): this chart is drawn here
        if drawer is not None:
            try:
                future = drawer.submit(plot.draw, chart, image_format)
                self._wait_for(future)
                return await asyncio.wait_for(asyncio.wrap_future(future), self.give_up)
            except TimeoutError:  # stopped or hung: the chart is given up, the process replaced
                log.warning("the drawing process drew no chart in %.1f s: replacing it", self.give_up)
                self._replace(drawer)
                raise ChartNotDrawn from None
            except BrokenProcessPool:  # the drawing process died: start another, draw this one here
                if self._drawer is drawer:  # (not again for each chart that was waiting on it)
                    self.stop_drawing()
                    self.start_drawing()
        return await in_thread(plot.draw, chart, image_format)

    def _probe(self) -> None:
        """Ask an idle drawing process for a sign of life (once it has started: a process still
        loading its fonts on a busy machine is not stuck)."""
        drawer = self._drawer
        if drawer is None or self._started is None or not self._started.done() or self.stuck_for() > 0:
            return
        try:
            self._wait_for(drawer.submit(drawing.ready))
        except (BrokenProcessPool, RuntimeError):  # died: the next chart starts another
            return

    def _wait_for(self, future: Future[Any]) -> None:
        with self._waiting_lock:
            self._waiting[future] = time.monotonic()

        def answered(done: Future[Any]) -> None:  # on the pool's own thread
            with self._waiting_lock:
                self._waiting.pop(done, None)

        future.add_done_callback(answered)

    def _replace(self, drawer: ProcessPoolExecutor) -> None:
        """Kill a drawing process that does not answer and start another (once, however many charts
        were waiting on it)."""
        if self._drawer is not drawer:
            return
        self.stop_drawing()
        self.start_drawing()
        self.replaced += 1
        self.replaced_at = time.time()
