"""How long a correction takes: /fix and /undo of the night's first win re-derive every later hand.

A night of N hands (each: a pong, a concealed gang and a win, or a draw) on a file database; then
`/fix` of hand 1's win (more flowers), `/undo` of it, and a `/fix` of the last hand's win, each
timed through the command layer. The first two fold the whole night again; the last only its end
(the fold still starts from hand 1: a correction replays the log once).

Run: python -m bench.correction_bench
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from bot.store.ledger import Ledger

PLAYERS = ("Alice", "Bob", "Carol", "Dave")
HAND = "123m456m789m234p5p+5p"
SIZES = (50, 200, 500)


def speaker(name: str) -> Speaker:
    return Speaker(name, name, by_name=True)


async def night_of(referee: Referee, chat: str, hands: int) -> list[int]:
    """Play `hands` hands; returns the event ids of the wins."""
    await referee.handle(Incoming(chat, speaker("Alice"), "/new " + " ".join(PLAYERS)))
    wins: list[int] = []
    for hand in range(hands):
        winner, other = PLAYERS[hand % 4], PLAYERS[(hand + 1) % 4]
        await referee.handle(Incoming(chat, speaker(other), f"/pong {PLAYERS[(hand + 2) % 4]}"))
        await referee.handle(Incoming(chat, speaker(PLAYERS[(hand + 3) % 4]), "/gang self 9s"))
        if hand % 5 == 4:
            await referee.handle(Incoming(chat, speaker(winner), "/draw"))
            continue
        await referee.handle(Incoming(chat, speaker(winner), f"/hu self {HAND} flowers={1 + hand % 4}"))
        night = await referee.nights.latest(chat)
        assert night is not None
        wins.append(night.events[-1].id)
    return wins


async def timed(referee: Referee, chat: str, text: str) -> float:
    begin = time.perf_counter()
    response = await referee.handle(Incoming(chat, speaker("Alice"), text))
    elapsed = (time.perf_counter() - begin) * 1000
    assert response is not None and response.recorded, text
    return elapsed


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        ledger = await Ledger.open(Path(folder) / "corrections.sqlite3")
        referee = Referee(ledger, charts_enabled=False)
        for hands in SIZES:
            chat = f"chat-{hands}"
            wins = await night_of(referee, chat, hands)
            first = await timed(referee, chat, f"/fix {wins[0]} /hu Alice self {HAND} flowers=5")
            night = await referee.nights.latest(chat)
            assert night is not None
            fixed = night.events[-1].id
            undo = await timed(referee, chat, f"/undo {fixed}")
            last = await timed(referee, chat, f"/fix {wins[-1]} /hu self {HAND} flowers=6")
            events = len(night.events)
            print(
                f"{hands} hands ({events:,} events): /fix of hand 1 {first:.0f} ms, /undo of that fix {undo:.0f} ms,"
                f" /fix of the last win {last:.0f} ms"
            )
        await ledger.close()


if __name__ == "__main__":
    asyncio.run(main())
