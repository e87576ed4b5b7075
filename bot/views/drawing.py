"""The drawing processes' side (bot/views/charts.py `Charts.start_drawing`): what such a process does
when it starts and how it leaves. It imports nothing of the bot but the plotter, so a drawing process
holds Pillow and a font, not a copy of the bot's modules (about 25 MB instead of 40).
"""

from __future__ import annotations

import os
import threading
import time

from bot.views import plot


def warm(parent: int) -> None:
    """At the process's start: find the font and load its sizes now, and leave when the bot does."""
    for size in plot.FONT_SIZES:
        plot.font(size)
    threading.Thread(target=_leave_with, args=(parent,), daemon=True).start()


def _leave_with(parent: int) -> None:
    while os.getppid() == parent:  # the bot was killed: nobody will ask for a chart again
        time.sleep(1)
    os._exit(0)


def ready() -> None:
    """Nothing: submitted at start so that the process starts at once."""
