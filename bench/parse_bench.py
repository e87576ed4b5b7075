"""Parser speed: lines per second over the phrasing corpus (tests/kit/phrasing.py), and the worst
case a chat can send, a 4,096-character message (Telegram's limit) of talk, of tiles, of digits.

Run: python -m bench.parse_bench
"""

from __future__ import annotations

import time

from bot.chat.parser import parse
from tests.kit.phrasing import CORPUS, SEATED

ROUNDS = 20
LONGEST = 4096  # characters in one Telegram message
LONG_LINES = {
    "talk 胡说八道…": "胡说八道" * (LONGEST // 4),
    "tiles 胡 王五 123m…": ("胡 王五 " + "123m" * LONGEST)[:LONGEST],
    "names and flowers 花2…": ("胡 王五 " + "花2 王五 " * LONGEST)[:LONGEST],
    "digits /hu 999…": ("/hu 王五 flowers=" + "9" * LONGEST)[:LONGEST],
    "unknown names /pong Zed…": ("/pong " + "Zed " * LONGEST)[:LONGEST],
}


def corpus_rate() -> float:
    lines = [line for line, _ in CORPUS]
    parse(lines[0], SEATED)  # the lexicon and the script converter are built once
    started = time.perf_counter()
    for _ in range(ROUNDS):
        for line in lines:
            parse(line, SEATED)
    return ROUNDS * len(lines) / (time.perf_counter() - started)


def slowest_long_line() -> tuple[str, float]:
    timings: dict[str, float] = {}
    for label, line in LONG_LINES.items():
        started = time.perf_counter()
        try:
            parse(line, SEATED)
        except Exception as error:  # an EngineError is a fine answer; anything else is a bug
            if type(error).__name__ != "EngineError":
                raise
        timings[label] = time.perf_counter() - started
    label = max(timings, key=lambda key: timings[key])
    return label, timings[label]


def main() -> None:
    rate = corpus_rate()
    label, seconds = slowest_long_line()
    print(f"corpus: {len(CORPUS)} lines x {ROUNDS}: {rate:,.0f} lines/s (target >= 5,000/s)")
    print(f"slowest {LONGEST}-character line ({label}): {seconds * 1000:.1f} ms (target < 100 ms)")


if __name__ == "__main__":
    main()
