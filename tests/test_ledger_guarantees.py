"""The ledger never loses a payment: zero-sum always, undo returns to zero, crash safety, isolation."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.chat.service import Referee
from bot.store.ledger import Ledger
from tests.kit.harness import Table
from tests.kit.random_lines import PLAYERS, event_line


async def _balances_from_payment_rows(ledger: Ledger) -> dict[str, int]:
    """Each player's balance summed straight from the payment rows, apart from the referee's totals."""
    balances = dict.fromkeys(PLAYERS, 0)
    async with ledger._db.execute("SELECT payer, payee, amount FROM payments") as cursor:
        for payer, payee, amount in await cursor.fetchall():
            assert amount > 0 and payer != payee
            balances[PLAYERS[payer]] -= amount
            balances[PLAYERS[payee]] += amount
    return balances


async def _play_and_undo(lines: list[str], preset: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        ledger = await Ledger.open(Path(folder) / "l.sqlite3")
        try:
            table = Table(Referee(ledger, charts_enabled=False), "chat")
            await table.say(f"/new Alice Bob Carol Dave preset={preset} stake=0.5")
            for line in lines:
                await table.say(line)
                night = await table.night()
                assert night["balances"] == await _balances_from_payment_rows(ledger)
            recorded = sum(1 for _ in await ledger.events(1)) - 1
            for _ in range(2 * recorded + 2):  # a held line withdrawn first; an undo asked about, its button
                response = await table.respond("Alice: /undo")
                assert response is not None
                if response.choices and not response.recorded:  # after a line that recorded nothing: asked
                    response = await table.respond(f"Alice: {response.choices[0].command}")
                    assert response is not None and response.recorded
                if response.refused:
                    assert response.replies[0].key == "undo.nothing"
                    break
            night = await table.night()
            assert set(night["balances"].values()) == {0}  # type: ignore[union-attr]
            assert set(night["money"].values()) == {"0"}  # type: ignore[union-attr]
        finally:
            await ledger.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(event_line(), min_size=1, max_size=14), st.sampled_from(["nanjing", "jinyuanzi", "app", "chengbei"]))
def test_random_events_keep_the_sum_at_zero_and_undoing_all_returns_to_zero(lines: list[str], preset: str) -> None:
    asyncio.run(_play_and_undo(lines, preset))


WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from bot.store.ledger import Ledger
    from bot.night.seating import Speaker
    from bot.chat.service import Incoming, Referee

    async def main(path):
        ledger = await Ledger.open(path)
        try:
            referee = Referee(ledger, charts_enabled=False)
            alice = Speaker("Alice", "Alice", by_name=True)
            await referee.handle(Incoming("chat", alice, "/new Alice Bob Carol Dave", "open"))
            for n in range(1, 10_000):
                response = await referee.handle(Incoming("chat", alice, "/flowergang", f"u{n}"))
                assert response is not None and response.recorded
                print(n, flush=True)  # acknowledged: the transaction has committed
        finally:
            await ledger.close()

    asyncio.run(main(sys.argv[1]))
    """
)


def test_sigkill_mid_stream_loses_no_acknowledged_event_and_leaves_no_half_event(tmp_path: Path) -> None:
    database = tmp_path / "crash.sqlite3"
    root = Path(__file__).resolve().parent.parent
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(database)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert process.stdout is not None
    acknowledged = 0
    for line in process.stdout:
        acknowledged = int(line)
        if acknowledged >= 40:
            break
    process.send_signal(signal.SIGKILL)
    process.wait()
    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        keys = {row[0] for row in connection.execute("SELECT update_key FROM events WHERE kind = 'flower_gang'")}
        assert {f"u{n}" for n in range(1, acknowledged + 1)} <= keys
        per_event = connection.execute(
            "SELECT e.id, COUNT(p.id), COALESCE(SUM(p.amount), 0)"
            " FROM events e LEFT JOIN payments p ON p.event_id = e.id WHERE e.kind = 'flower_gang' GROUP BY e.id"
        ).fetchall()
        assert per_event and all(count == 3 and total == 18 for _, count, total in per_event)  # whole events only


async def test_a_hundred_chats_written_concurrently_keep_their_own_ledgers(referee: Referee) -> None:
    async def play(index: int) -> None:
        table = Table(referee, f"chat-{index}")
        names = [f"P{index}a", f"P{index}b", f"P{index}c", f"P{index}d"]
        table.default_speaker = names[0]
        await table.say("/new " + " ".join(names))
        for gang in range(index % 3 + 1):
            await table.say(f"{names[index % 4]}: /flowergang")
            if gang:  # the same flower gang again in the hand: recorded when the table says so
                await table.say(f"{names[index % 4]}: /again")
        await table.say(f"{names[1]}: /penalty {names[2]} {index + 1}")

    await asyncio.gather(*(play(i) for i in range(100)))
    for index in range(100):
        table = Table(referee, f"chat-{index}")
        balances = await table.balances()
        names = [f"P{index}a", f"P{index}b", f"P{index}c", f"P{index}d"]
        assert set(balances) == set(names)
        gangs = index % 3 + 1
        expected = dict.fromkeys(names, -6 * gangs)
        expected[names[index % 4]] = 18 * gangs
        penalty = index + 1
        for name in names:
            expected[name] += -3 * penalty if name == names[2] else penalty
        assert balances == expected
