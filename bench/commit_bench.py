"""Commits per recorded event in one quiet chat: each update is stored in the inbox and then
recorded, one at a time (the next line typed once the last was answered), through the Telegram
front end with a request object that answers locally (bench/bot_bench.py), on a file database.

Run: python -m bench.commit_bench
"""

from __future__ import annotations

import asyncio
import tempfile

from telegram import Update

from bench.bot_bench import RecordingRequest, Timed, started, stopped, updates_for
from bot.telegram.app import TelegramFrontEnd


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        request = RecordingRequest()
        front = await started(request, folder, "quiet.sqlite3", rate_limit=False)
        timed = Timed(front)
        updates = [Update.de_json(u, front.bot) for u in updates_for(1, [0])]
        writer = front.referee.nights.ledger._writer
        events_before, commits_before = await events(front), writer.commits
        for update in updates:
            await front.accept(update)
            await timed.wait(update.update_id)
        await front.idle()
        recorded, commits = await events(front) - events_before, writer.commits - commits_before
        await stopped(front)
    print(
        f"one chat alone, {len(updates)} updates one at a time ({recorded} events recorded):"
        f" {commits} commits, {recorded / commits:.2f} events a commit"
    )


async def events(front: TelegramFrontEnd) -> int:
    rows = await front.referee.nights.ledger._db.execute_fetchall("SELECT COUNT(*) FROM events")
    return int(next(iter(rows))[0])


if __name__ == "__main__":
    asyncio.run(main())
