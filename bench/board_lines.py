"""How loud is a night? Lines and messages a 150-event night posts, board after every event vs quiet.

One night is played through the command layer twice, once with `/board each` (the scoreboard after
every event that moves money, as the bot did before) and once with the default (`/board hand`: one
line per event, the board at the end of each hand). Every answer is rendered as the chat sees it
and its non-empty lines counted; /new, /board and the closing /score are not counted.

A hand is ten events: three pongs, two exposed gangs, a concealed gang, a flower gang, a fine
(跟牌), a fine of 5, and Alice's self-drawn win (Alice melds nothing, and no meld holds a tile of her concealed hand).

Run: python -m bench.board_lines [--events 150]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from bot.text.replies import render_response

HAND = (
    "Bob: /pong Carol 7p",
    "Carol: /pong Dave 8s",
    "Dave: /pong Bob N",
    "Bob: /gang Dave 5s",
    "Carol: /gang Bob 9p",
    "Dave: /gang self 6s",
    "Bob: /flowergang",
    "Alice: /penalty follow Carol",
    "Alice: /penalty Dave 5",
    "Alice: /hu self 123m 456m 789m 234p 5p +5p flowers=2",
)


async def night_lines(mode: str, events: int) -> tuple[int, int]:
    """(lines, answers) the chat sees for `events` table events with the board setting `mode`."""
    with tempfile.TemporaryDirectory() as folder:
        referee = await Referee.open(Path(folder) / "night.sqlite3")
        try:

            async def say(line: str) -> str:
                name, _, text = line.partition(": ")
                response = await referee.handle(Incoming("bench", Speaker(name, name, by_name=True), text))
                assert response is not None and not response.refused, (line, response)
                return render_response(response)

            await say("Alice: /new Alice Bob Carol Dave")
            await say(f"Alice: /board {mode}")
            lines = answers = 0
            for index in range(events):
                out = await say(HAND[index % len(HAND)])
                answers += 1
                lines += len([line for line in out.splitlines() if line.strip()])
            return lines, answers
        finally:
            await referee.close()


async def main(events: int) -> None:
    for mode, label in (("each", "board after every event (before)"), ("hand", "quiet (now)")):
        lines, answers = await night_lines(mode, events)
        print(f"{label:36} {events} events: {answers} answers, {lines} lines ({lines / answers:.1f} an answer)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=150)
    asyncio.run(main(parser.parse_args().events))
