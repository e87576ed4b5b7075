"""How long /stats and /tab take in a chat with many closed nights, before and after their figures are stored.

A chat plays N closed nights (default 500; each: four hands of a pong, a concealed gang and a win or
a draw, four of six regulars at the table, a rename now and then, the stake varying) on a file
database, through the command layer. Then, timed through the command layer as a player asks:

- cold: the per-night figures emptied first, so the command folds every night once (what each /stats
  cost before this cache) and stores their figures in one write;
- warm: /stats and /tab read the stored figures (only the night's marks and figures are read).

Each figure is the median of several runs (wall time, on the shared machine). The warm answers are
checked against the cold ones (the same text).

Run: python -m bench.tab_bench [--nights N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from bot.store.ledger import Ledger
from bot.text.replies import render_response

REGULARS = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank")
HAND = "123m456m789m234p5p+5p"
CHAT = "bench-chat"
COLD_RUNS, WARM_RUNS = 3, 9


def speaker(name: str) -> Speaker:
    return Speaker(name, name, by_name=True)


async def say(referee: Referee, who: str, text: str) -> str:
    response = await referee.handle(Incoming(CHAT, speaker(who), text))
    return render_response(response) if response is not None else ""


async def night(referee: Referee, number: int, hands: int = 4) -> None:
    seated = [REGULARS[(number + i) % len(REGULARS)] for i in range(4)]
    await say(referee, seated[0], f"/new {' '.join(seated)} stake={1 + number % 3}")
    for hand in range(hands):
        winner, feeder = seated[hand % 4], seated[(hand + 2) % 4]
        await say(referee, seated[(hand + 1) % 4], f"/pong {feeder}")
        await say(referee, seated[(hand + 3) % 4], "/gang self 9s")
        if hand == 3:
            await say(referee, winner, "/draw")
        else:
            await say(referee, winner, f"/hu self {HAND} flowers={1 + hand}")
    if number % 10 == 0:  # a rename inside the night and back: the same person throughout
        await say(referee, seated[0], f"/rename {seated[1]} {seated[1]}2")
        await say(referee, seated[0], f"/rename {seated[1]}2 {seated[1]}")
    await say(referee, seated[0], "/summary")
    await say(referee, seated[0], "yes")


async def timed(referee: Referee, text: str) -> tuple[float, str]:
    begin = time.perf_counter()
    answer = await say(referee, "Alice", text)
    return (time.perf_counter() - begin) * 1000, answer


async def main(nights: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        ledger = await Ledger.open(Path(folder) / "tab.sqlite3")
        referee = Referee(ledger, charts_enabled=False)
        begin = time.perf_counter()
        for number in range(nights):
            await night(referee, number)
        print(f"{nights} closed nights played in {time.perf_counter() - begin:.1f} s")
        cold: dict[str, list[float]] = {"/stats": [], "/tab": []}
        cold_answer = ""
        for _ in range(COLD_RUNS):
            for command in cold:
                await ledger._writer.run(lambda db: db.execute("DELETE FROM night_figures"))  # the cache emptied
                referee.nights.forget(CHAT)
                elapsed, answer = await timed(referee, command)
                cold[command].append(elapsed)
                cold_answer = answer if command == "/stats" else cold_answer
        warm_stats, warm_tab = [], []
        stats_answer = tab_answer = ""
        for _ in range(WARM_RUNS):
            elapsed, stats_answer = await timed(referee, "/stats")
            warm_stats.append(elapsed)
            elapsed, tab_answer = await timed(referee, "/tab")
            warm_tab.append(elapsed)
        assert stats_answer == cold_answer, "the stored figures answer differently from a fold of every night"
        assert "📒" in tab_answer
        for command, runs in cold.items():
            median = statistics.median(runs)
            print(f"{command} cold (every night folded, as /stats did before; then stored): median {median:.0f} ms")
        print(f"/stats warm (stored figures): median {statistics.median(warm_stats):.1f} ms")
        print(f"/tab warm (stored figures): median {statistics.median(warm_tab):.1f} ms")
        print(tab_answer.splitlines()[0])
        await referee.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=500)
    asyncio.run(main(parser.parse_args().nights))
