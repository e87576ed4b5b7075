"""The Mini App in the real `python -m bot run` (long polling) against the fake Bot API: with
MINIAPP_URL and MINIAPP_NAME set, the site starts on LISTEN:PORT beside the polling, the /new reply
carries the app's link, and a win recorded from the page, pressed twice, is one ledger row and one
group message: the result, as if typed (the real pacer and clock; tests/test_miniapp.py counts it in
process too, bench.miniapp_bench record)."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path
from urllib.parse import urlencode

import aiohttp

from bot.web import init_data, tokens
from tests.kit.bot_process import bot_against_fake, count, wait_until
from tests.kit.mini_app import APP_NAME, APP_URL
from tests.kit.telegram import ALICE, BOB, CAROL, GROUP, NEW

TOKEN = "123:TEST"
CAROL_WINS = {
    "winner": 2,
    "discarder": 0,
    "tiles": ["1p", "1p", "5s", "6s", "7s", "7s", "9s", "E", "E", "E", "2m", "3m", "4m", "8s"],
    "flowers": 4,
    "nonce": "process-win-1",
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def authorization(start: str) -> str:
    fields = {
        "user": json.dumps({"id": ALICE["id"], "first_name": "Alice", "username": "alice"}),
        "chat_type": "supergroup",
        "auth_date": str(int(time.time())),
        "start_param": start,
    }
    fields["hash"] = init_data.sign(fields, TOKEN)
    return "tma " + urlencode(fields)


async def test_the_real_process_serves_the_page_beside_long_polling_and_records_once(tmp_path: Path) -> None:
    db, port = tmp_path / "referee.sqlite3", free_port()
    settings = {"MINIAPP_URL": APP_URL, "MINIAPP_NAME": APP_NAME, "LISTEN": "127.0.0.1", "PORT": str(port)}
    async with bot_against_fake(db, tmp_path / "bot.log", without=("WEBHOOK_URL",), **settings) as (fake, bot):
        fake.pinners.add(GROUP)  # the board pinned and edited in place, as in a group that made the bot an admin
        fake.message(GROUP, ALICE, NEW)
        await wait_until(lambda: bool(fake.sent(chat_id=GROUP)))
        for who in (ALICE, BOB, CAROL):
            fake.message(GROUP, who, "/score")
        await wait_until(lambda: len(fake.sent(chat_id=GROUP)) >= 4)
        markup = json.dumps(fake.sent(chat_id=GROUP)[0].params.get("reply_markup"))
        start = markup.split("startapp=")[1].split('"')[0]
        assert tokens.read(tokens.token_key(None, TOKEN), start) is not None
        headers = {"Authorization": authorization(start)}
        await wait_until(lambda: len(fake.sent(chat_id=GROUP)) >= 4)
        group_messages = len(fake.sent(chat_id=GROUP))
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/app/") as page:
                assert page.status == 200 and "frame-ancestors" in page.headers["Content-Security-Policy"]
            url = f"http://127.0.0.1:{port}/app/api/record"
            async with session.post(url, json=CAROL_WINS, headers=headers) as answer:
                recorded = await answer.json()
            async with session.post(url, json=CAROL_WINS, headers=headers) as answer:  # pressed again
                again = await answer.json()
        assert recorded["ok"] is True and (again["ok"], again["no"]) == (True, recorded["no"]), (recorded, again)
        assert count(db, "SELECT COUNT(*) FROM events WHERE kind = 'win'") == 1
        await fake.wait_for(lambda: len(fake.sent(chat_id=GROUP)) > group_messages, timeout=60)
        await asyncio.sleep(3)  # anything more the win would send has had its turn by now
        assert len(fake.sent(chat_id=GROUP)) == group_messages + 1  # the result, once
        assert await bot.stop() == 0
