"""How fast a busy table is answered under Telegram's limits (#41 item 1).

Four players type 20, then 40 lines a minute into one group for ten minutes (three seeded runs
each): pongs, gangs and penalties between talk the bot leaves alone, a /score now and then, and a
win each hand, typed or tapped on the pad (胡, the winner, 自摸, fourteen tiles, the hard flowers,
确认; a tap every 0.4-1.2 s, the others talking meanwhile). The real Telegram front end answers them
(bot/telegram/app.py, its pacer on), against a Telegram answered in process that enforces 20
messages a minute per group (sends and edits) and 30 a second in all with 429s
(tests/kit/limited_bot.py), each request taking 0.1 s, on a simulated clock
(tests/kit/virtual_time.py): ten minutes in seconds, the same figures every run.

Printed per rate: group messages per tapped win (from 胡 to the result), p50/p99/max of the delay
from a line or tap reaching the bot to Telegram having its answer (a tap's: the press's own answer),
429s met, answers lost, and how far the pinned board trails the events it shows.

Run: python -m bench.table_speed_bench
"""

from __future__ import annotations

import logging
import time

from tests.kit.busy_table import Figures, busy_table, summary
from tests.kit.virtual_time import run

RATES = (20, 40)  # lines a minute typed into the group
MINUTES = 10.0
SEEDS = (41, 42, 43)


def merged(runs: list[Figures]) -> Figures:
    total = Figures(runs[0].lines_a_minute, sum(f.minutes for f in runs))
    for figures in runs:
        total.lines += figures.lines
        total.taps += figures.taps
        total.line_delays += figures.line_delays
        total.tap_delays += figures.tap_delays
        total.per_tapped_win += figures.per_tapped_win
        total.board_edits += figures.board_edits
        total.tidied += figures.tidied
        total.board_lags += figures.board_lags
        total.refused += figures.refused
        total.lost += figures.lost
        total.messages += figures.messages
    return total


def report(figures: Figures, seconds: float) -> None:
    wins = figures.per_tapped_win
    print(
        f"{figures.lines_a_minute} lines a minute, {figures.minutes:.0f} simulated minutes ({seconds:.0f} s real):"
        f" {figures.lines} lines, {figures.taps} taps, {len(wins)} tapped wins"
    )
    print(
        f"  group messages per tapped win (胡 to the result): {min(wins)}-{max(wins)}"
        f" (the pad's buttons taken off later, and the pinned board's edits, apart)"
    )
    print(f"  answer delay, lines: {summary(figures.line_delays)}")
    print(f"  answer delay, taps:  {summary(figures.tap_delays)}")
    print(f"  answer delay, all:   {summary(figures.delays())}")
    print(
        f"  group messages: {figures.messages / figures.minutes:.1f} a minute"
        f" (answers {(figures.messages - figures.board_edits) / figures.minutes:.1f},"
        f" the board {(figures.board_edits - figures.tidied) / figures.minutes:.1f},"
        f" buttons taken off {figures.tidied / figures.minutes:.1f});"
        f" 429s: {figures.refused}; answers lost: {figures.lost}"
    )
    print(f"  the pinned board behind the event it shows: {summary(figures.board_lags)}")


def main() -> None:
    logging.basicConfig(level=logging.ERROR)
    for rate in RATES:
        began = time.perf_counter()
        runs = [run(busy_table(rate, MINUTES, seed)) for seed in SEEDS]
        report(merged(runs), time.perf_counter() - began)


if __name__ == "__main__":
    main()
