"""The drawing processes' side (bot/views/charts.py `Charts.start_drawing`): what such a process does
when it starts and how it leaves. It imports nothing of the bot but the plotter, so a drawing process
holds Pillow and a font, not a copy of the bot's modules (about 25 MB instead of 40).
"""

from __future__ import annotations

import os
import threading
import time

from bot.views import plot

# drawn once at the start: the first chart a chat asks for is then drawn as fast as the next (the
# encoders are loaded and the letters of every script rendered once: 30-40 ms on the first chart)
SAMPLE = plot.LineChart(
    title="第 1 局 Night 1",
    x_label="盘 hand",
    y_label="花",
    xs=(0, 1, 2),
    series=(plot.Series("张三 Alice", (0, 46, 12)), plot.Series("李四 Bob", (0, -46, -12))),
    marked=frozenset({2}),
    mark_label="比下胡",
)


def warm(parent: int) -> None:
    """At the process's start: find the font, load its sizes and draw a chart now, and leave when
    the bot does."""
    for size in plot.FONT_SIZES:
        plot.font(size)
    plot.draw(SAMPLE)
    threading.Thread(target=_leave_with, args=(parent,), daemon=True).start()


def _leave_with(parent: int) -> None:
    while os.getppid() == parent:  # the bot was killed: nobody will ask for a chart again
        time.sleep(1)
    os._exit(0)


def ready() -> None:
    """Nothing: submitted at start so that the process starts at once."""
