"""The Mini App's server (docs/miniapp.md): the start token, initData as Telegram documents it, who
may call, and the API against the real bot (PTB's HTTP stack, the fake Bot API), its lines going
through the chat's inbox and lane: one group message per recorded win, once per nonce."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.settings import BadSetting, Settings
from bot.telegram.app_lines import app_update_id
from bot.web import init_data, tokens
from bot.web.tokens import StartToken, token_key
from tests.kit.fake_telegram import FakeTelegram, user
from tests.kit.init_data import sign_init_data
from tests.kit.mini_app import app_site
from tests.kit.telegram import ALICE, BOB, CAROL, GROUP, NEW, Running, balances

TOKEN = "123:TEST"  # the bot token tests/kit/telegram.py runs the bot with
KEY = token_key(None, TOKEN)
EVE = user(5, "Eve")  # in the group, seated nowhere
MALLORY = user(66, "Mallory")  # not in the group
# Carol wins on Alice's discard, 11p 567s 79s EEE + 8s, 4 hard flowers (docs/rules.md: 跑 20, 硬花 ×4 8,
# 风碰 ×1 2, 压档 2, 门清 20 = 52 flowers, Alice pays Carol 52)
CAROL_WINS = {
    "winner": 2,
    "discarder": 0,
    "tiles": ["1p", "1p", "5s", "6s", "7s", "7s", "9s", "E", "E", "E", "2m", "3m", "4m", "8s"],
    "flowers": 4,
    "flags": [],
}


def launch(who: dict[str, Any], start: str, auth_date: float | None = None, chat_type: str = "supergroup") -> str:
    """initData as Telegram gives it to a page opened from a group's link, signed with the bot token by
    the kit's own signer (tests/kit/init_data.py), not by the module under test."""
    when = int(auth_date if auth_date is not None else time.time())
    return sign_init_data(who, start, token=TOKEN, chat_type=chat_type, auth_date=when)


def test_a_signature_field_is_checked_as_any_other_field() -> None:
    """Telegram adds `signature` (for third parties, Ed25519) to newer initData: the bot's own check
    counts it like every field but `hash`, so it cannot be changed either."""
    fields = {"auth_date": str(int(time.time())), "chat_type": "group", "signature": "c2lnbmVk", "start_param": "a"}
    fields["user"] = json.dumps({"id": 1, "first_name": "Alice"})
    fields["hash"] = init_data.sign(fields, TOKEN)
    assert init_data.validate(urlencode(fields), TOKEN, time.time()).user.id == 1
    with pytest.raises(init_data.Refused):
        init_data.validate(urlencode({**fields, "signature": "b3RoZXI"}), TOKEN, time.time())


LEDGERS: dict[int, Path] = {}  # each running bot's ledger file, by the fixture


def ledger_of(running: Running) -> Path:
    return LEDGERS[id(running)]


def start(night: int = 1, chat: int = GROUP) -> str:
    return tokens.sign(KEY, StartToken(chat, 0, night))


def auth(who: dict[str, Any], night: int = 1, **extra: Any) -> dict[str, str]:
    return {"Authorization": f"tma {launch(who, start(night), **extra)}"}


# ---- the start token -------------------------------------------------------------------------------------


def test_a_start_token_is_short_url_safe_and_names_its_chat_and_night() -> None:
    text = tokens.sign(KEY, StartToken(-1001234567890, 7, 42))
    assert len(text) <= 64 and set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
    assert tokens.read(KEY, text) == StartToken(-1001234567890, 7, 42)


def test_a_start_token_guessed_changed_or_signed_by_another_key_is_refused() -> None:
    text = tokens.sign(KEY, StartToken(GROUP, 0, 1))
    changed = ("A" if text[3] != "A" else "B").join((text[:3], text[4:]))
    assert tokens.read(KEY, changed) is None
    assert tokens.read(token_key("another-key-of-16+", TOKEN), text) is None
    assert tokens.read(KEY, "") is None and tokens.read(KEY, "1_-100111") is None


# ---- initData -------------------------------------------------------------------------------------------


def test_init_data_signed_with_the_bot_token_is_read() -> None:
    read = init_data.validate(launch(ALICE, "abc"), TOKEN, time.time())
    assert (read.user.id, read.user.username, read.chat_type, read.start_param) == (1, "alice", "supergroup", "abc")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "user=%7B%7D&auth_date=1&hash=00",
        launch(ALICE, "abc").replace("alice", "alicf"),  # a field changed after signing
    ],
)
def test_init_data_not_signed_by_telegram_is_refused(text: str) -> None:
    with pytest.raises(init_data.Refused) as refused:
        init_data.validate(text, TOKEN, time.time())
    assert refused.value.key == "app.forged"


def test_init_data_signed_with_another_bot_s_token_is_refused() -> None:
    with pytest.raises(init_data.Refused):
        init_data.validate(launch(ALICE, "abc"), "456:OTHER", time.time())


def test_init_data_with_a_field_given_twice_is_refused() -> None:
    text = launch(ALICE, "abc")
    with pytest.raises(init_data.Refused):
        init_data.validate(text + "&start_param=other", TOKEN, time.time())


def test_init_data_older_than_a_night_is_refused() -> None:
    now = time.time()
    assert init_data.validate(launch(ALICE, "abc", now - 23 * 3600), TOKEN, now).auth_date
    with pytest.raises(init_data.Refused) as refused:
        init_data.validate(launch(ALICE, "abc", now - 25 * 3600), TOKEN, now)
    assert refused.value.key == "app.expired"


def test_the_mini_app_needs_both_its_settings() -> None:
    with pytest.raises(BadSetting):
        Settings.from_environment({"MINIAPP_URL": "https://referee.example.org/app/"})
    with pytest.raises(BadSetting):
        Settings.from_environment({"MINIAPP_URL": "http://referee.example.org/app/", "MINIAPP_NAME": "table"})
    read = Settings.from_environment({"MINIAPP_URL": "https://referee.example.org/app/", "MINIAPP_NAME": "table"})
    assert (read.miniapp_url, read.miniapp_name) == ("https://referee.example.org/app/", "table")


# ---- the API against the running bot ---------------------------------------------------------------------


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[tuple[Running, TestClient[Any, Any]]]:
    fake = FakeTelegram()
    fake.strangers.add(MALLORY["id"])
    await fake.start()
    try:
        async with Running(fake, tmp_path / "referee.sqlite3") as running:
            LEDGERS[id(running)] = tmp_path / "referee.sqlite3"
            app = app_site(running.front, TOKEN)
            async with TestClient(TestServer(app)) as client:
                yield running, client
    finally:
        await fake.stop()


async def opened(running: Running) -> None:
    await running.say(ALICE, NEW)
    for who in (ALICE, BOB, CAROL):
        await running.say(who, "/score")  # each account bound to its seat by speaking


def group_messages(running: Running) -> int:
    return len(running.fake.sent(chat_id=GROUP))


async def test_the_new_reply_carries_the_app_s_link_signed_for_the_night(
    table: tuple[Running, TestClient[Any, Any]],
) -> None:
    running, _ = table
    await running.say(ALICE, NEW)
    markup = next(c for c in running.fake.sent(chat_id=GROUP) if "reply_markup" in c.params).params["reply_markup"]
    urls = [b["url"] for row in markup["inline_keyboard"] for b in row if "url" in b]
    assert len(urls) == 1 and urls[0].startswith("https://t.me/referee_bot/table?startapp=")
    assert tokens.read(KEY, urls[0].split("startapp=")[1]) == StartToken(GROUP, 0, 1)


async def test_state_for_a_seated_player(table: tuple[Running, TestClient[Any, Any]]) -> None:
    running, client = table
    await opened(running)
    answer = await client.get("/app/api/state", headers=auth(CAROL))
    assert answer.status == 200
    state = await answer.json()
    assert state["me"] == {"name": "carol", "seat": 2, "seated": True}
    assert [s["name"] for s in state["seats"]] == ["alice", "bob", "carol", "dave"]
    assert state["strings"]["app.open"] == "📱 打开牌桌"
    assert (
        "Content-Security-Policy" in answer.headers and "frame-ancestors" in answer.headers["Content-Security-Policy"]
    )
    assert "Set-Cookie" not in answer.headers


async def test_a_member_who_is_not_seated_may_look(table: tuple[Running, TestClient[Any, Any]]) -> None:
    running, client = table
    await opened(running)
    answer = await client.get("/app/api/state", headers=auth(EVE))
    assert answer.status == 200 and (await answer.json())["me"]["seated"] is False


@pytest.mark.parametrize(
    ("headers", "status", "key"),
    [
        ({}, 403, "app.forged"),
        ({"Authorization": "tma " + launch(ALICE, start()).replace("alice", "alicf")}, 403, "app.forged"),
        ({"Authorization": "tma " + launch(ALICE, start(), time.time() - 2 * 86400)}, 403, "app.expired"),
        (
            {"Authorization": "tma " + launch(ALICE, tokens.sign(b"guessed-key", StartToken(GROUP, 0, 1)))},
            403,
            "app.forged",
        ),
        ({"Authorization": "tma " + launch(ALICE, start(), chat_type="private")}, 403, "app.not_group"),
        ({"Authorization": "tma " + launch(MALLORY, start())}, 403, "app.stranger"),
        ({"Authorization": "tma " + launch(ALICE, start(night=9))}, 410, "app.night_over"),
    ],
)
async def test_forged_expired_and_strangers_calls_are_refused_and_record_nothing(
    table: tuple[Running, TestClient[Any, Any]], headers: dict[str, str], status: int, key: str
) -> None:
    running, client = table
    await opened(running)
    sent = group_messages(running)
    for path in ("/app/api/state", "/app/api/preview", "/app/api/record"):
        body = {**CAROL_WINS, "nonce": "n0nce-forged"}
        answer = await (
            client.get(path, headers=headers)
            if path.endswith("state")
            else client.post(path, json=body, headers=headers)
        )
        assert answer.status == status and (await answer.json())["error"] == key
    assert await balances(ledger_of(running)) == [0, 0, 0, 0]
    assert group_messages(running) == sent


async def test_a_preview_scores_the_hand_as_the_chat_would_and_sends_nothing(
    table: tuple[Running, TestClient[Any, Any]],
) -> None:
    running, client = table
    await opened(running)
    sent = group_messages(running)
    answer = await (await client.post("/app/api/preview", json=CAROL_WINS, headers=auth(ALICE))).json()
    assert answer["ok"] is True
    assert answer["lines"][0].endswith("= 52 花") and "alice → carol：52 花" in answer["lines"][1]
    assert answer["line"] == "/hu carol alice 234m11p56779sEEE +8s flowers=4"
    assert group_messages(running) == sent


async def test_a_fifth_copy_is_refused_with_its_reason(table: tuple[Running, TestClient[Any, Any]]) -> None:
    running, client = table
    await opened(running)
    await running.say(BOB, "碰 carol 4p")
    fifth = {**CAROL_WINS, "tiles": ["1p", "1p", "5s", "6s", "7s", "7s", "9s", "E", "E", "E", "4p", "4p", "8s"]}
    answer = await (await client.post("/app/api/preview", json=fifth, headers=auth(ALICE))).json()
    assert answer["ok"] is False and "4筒" in answer["reason"]
    recorded = await (
        await client.post("/app/api/record", json={**fifth, "nonce": "fifth-copy"}, headers=auth(ALICE))
    ).json()
    assert recorded["ok"] is False and "4筒" in recorded["reason"]


async def test_a_short_hand_says_how_many_tiles_are_missing(table: tuple[Running, TestClient[Any, Any]]) -> None:
    running, client = table
    await opened(running)
    short = {**CAROL_WINS, "tiles": CAROL_WINS["tiles"][:11]}
    answer = await (await client.post("/app/api/preview", json=short, headers=auth(ALICE))).json()
    assert answer["ok"] is False and answer["needed"] == 3


async def test_record_is_one_group_message_and_one_win_however_often_it_is_pressed(
    table: tuple[Running, TestClient[Any, Any]],
) -> None:
    running, client = table
    await opened(running)
    await running.say(BOB, "碰 dave 9m")  # the chat's first event: its once-a-chat note about pinning goes with it
    sent = group_messages(running)
    body = {**CAROL_WINS, "nonce": "win-0001"}
    first, second = await asyncio.gather(
        client.post("/app/api/record", json=body, headers=auth(ALICE)),
        client.post("/app/api/record", json=body, headers=auth(ALICE)),
    )
    answers = [await first.json(), await second.json()]
    assert [a["ok"] for a in answers] == [True, True] and answers[0]["no"] == answers[1]["no"]
    again = await (await client.post("/app/api/record", json=body, headers=auth(ALICE))).json()  # a retry, later
    assert again["ok"] is True and again["no"] == answers[0]["no"]
    await running.fake.wait_for(lambda: group_messages(running) > sent)
    await asyncio.sleep(0.5)  # anything more would be sent by now
    db = ledger_of(running)
    assert await balances(db) == [-52, 0, 52, 0]
    texts = [str(c.params["text"]) for c in running.fake.sent(chat_id=GROUP)[sent:]]
    assert len(texts) == 1 and "carol 胡 alice 的炮" in texts[0]


async def test_undo_from_the_page_is_the_chat_s_undo(table: tuple[Running, TestClient[Any, Any]]) -> None:
    running, client = table
    await opened(running)
    won = await (
        await client.post("/app/api/record", json={**CAROL_WINS, "nonce": "win-0002"}, headers=auth(ALICE))
    ).json()
    undone = await (
        await client.post("/app/api/undo", json={"no": won["no"], "nonce": "undo-0002"}, headers=auth(BOB))
    ).json()
    assert undone["ok"] is True
    await running.front.idle()
    assert await balances(ledger_of(running)) == [0, 0, 0, 0]


async def test_live_follows_a_line_typed_in_the_chat(table: tuple[Running, TestClient[Any, Any]]) -> None:
    running, client = table
    await opened(running)
    version = (await (await client.get("/app/api/state", headers=auth(ALICE))).json())["version"]
    waiting = asyncio.create_task(client.get(f"/app/api/live?since={version}", headers=auth(ALICE)))
    await asyncio.sleep(0.2)
    await running.say(BOB, "碰 carol 4p")
    moved = await (await asyncio.wait_for(waiting, 5)).json()
    assert moved["version"] > version and moved["melds"]["1"][0]["tile"] == "4p"


def test_an_app_line_s_update_id_is_never_telegram_s() -> None:
    assert app_update_id(GROUP, "win-0001") < 0
    assert app_update_id(GROUP, "win-0001") == app_update_id(GROUP, "win-0001") != app_update_id(GROUP, "win-0002")


async def test_the_chart_is_the_night_s_as_png_once_a_hand_is_scored(
    table: tuple[Running, TestClient[Any, Any]],
) -> None:
    running, client = table
    await opened(running)
    assert (await client.get("/app/api/chart.png", headers=auth(ALICE))).status == 404
    await client.post("/app/api/record", json={**CAROL_WINS, "nonce": "win-chart"}, headers=auth(ALICE))
    state = await (await client.get("/app/api/state", headers=auth(ALICE))).json()
    answer = await client.get(state["chart"], headers=auth(ALICE))
    assert answer.status == 200 and answer.content_type == "image/png"
    assert (await answer.read()).startswith(b"\x89PNG")


async def test_the_page_asks_what_the_chat_would_ask_and_records_on_the_answer(
    table: tuple[Running, TestClient[Any, Any]],
) -> None:
    running, client = table
    await opened(running)
    await running.say(BOB, "碰 dave 9m")
    sent = group_messages(running)
    first = await (
        await client.post("/app/api/record", json={**CAROL_WINS, "nonce": "win-once"}, headers=auth(ALICE))
    ).json()
    assert first["ok"] is True
    await running.fake.wait_for(lambda: group_messages(running) == sent + 1)
    body = {**CAROL_WINS, "nonce": "win-twice"}  # the same win again, nothing between: a repeat, or the next hand's?
    asked = await (await client.post("/app/api/record", json=body, headers=auth(ALICE))).json()
    assert asked["ok"] is False and len(asked["ask"]["choices"]) >= 2 and asked["ask"]["text"]
    await asyncio.sleep(0.5)
    assert group_messages(running) == sent + 1  # asked in the page, not in the group
    assert await balances(ledger_of(running)) == [-52, 0, 52, 0]
    again = {**body, "answer": asked["ask"]["choices"][0]["key"]}  # 再记一次: it happened twice
    answered = await (await client.post("/app/api/record", json=again, headers=auth(ALICE))).json()
    assert answered["ok"] is True
    await running.fake.wait_for(lambda: group_messages(running) == sent + 2)
    assert await balances(ledger_of(running)) == [-104, 0, 104, 0]


async def test_a_line_s_detail_is_the_chat_s_history_of_it(table: tuple[Running, TestClient[Any, Any]]) -> None:
    running, client = table
    await opened(running)
    won = await (
        await client.post("/app/api/record", json={**CAROL_WINS, "nonce": "win-detail"}, headers=auth(ALICE))
    ).json()
    detail = await (await client.get(f"/app/api/line?no={won['no']}", headers=auth(BOB))).json()
    assert "合计 52 花" in detail["text"] and "alice → carol" in detail["text"]
    assert (await client.get("/app/api/line?no=x", headers=auth(BOB))).status == 400


async def test_a_flag_the_win_cannot_claim_is_refused_with_the_chat_s_reason(
    table: tuple[Running, TestClient[Any, Any]],
) -> None:
    running, client = table
    await opened(running)
    robbing = {**CAROL_WINS, "flags": ["robbing_gang"]}  # 抢杠 robs an added gang alice never made
    answer = await (await client.post("/app/api/preview", json=robbing, headers=auth(ALICE))).json()
    assert answer["ok"] is False and answer["reason"] == "抢杠：alice 没有碰 8s，抢不了杠"  # as the chat says it
    assert (
        await client.post("/app/api/preview", json={**CAROL_WINS, "flags": ["x"]}, headers=auth(ALICE))
    ).status == 400


async def test_the_pinned_board_carries_the_app_s_link_through_its_edits(
    table: tuple[Running, TestClient[Any, Any]],
) -> None:
    running, _ = table
    running.fake.pinners.add(GROUP)
    await opened(running)
    await running.say(BOB, "碰 dave 9m")
    await running.say(BOB, "碰 alice 8m")
    await running.front.idle()
    boards = [c for c in running.fake.calls if c.method in ("sendMessage", "editMessageText") and "📋" in str(c.params)]
    assert boards and all("startapp=" in json.dumps(c.params.get("reply_markup")) for c in boards)


async def test_init_data_is_never_logged(
    table: tuple[Running, TestClient[Any, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    running, client = table
    await opened(running)
    caplog.set_level("DEBUG")
    for who in (ALICE, MALLORY):
        header = auth(who)
        await client.get("/app/api/state", headers=header)
        await client.post("/app/api/record", json={**CAROL_WINS, "nonce": f"logged-{who['id']}"}, headers=header)
        assert header["Authorization"][4:] not in caplog.text and "hash=" not in caplog.text


def test_the_bot_s_own_server_runs_in_long_polling_mode_once_the_app_is_set() -> None:
    from bot.telegram.web import wants_web

    assert not wants_web(Settings(token=TOKEN))
    assert wants_web(Settings(token=TOKEN, miniapp_url="https://referee.example.org/app/", miniapp_name="table"))


async def test_the_tab_across_nights_is_in_the_state_once_a_night_closed(
    table: tuple[Running, TestClient[Any, Any]],
) -> None:
    running, client = table
    await opened(running)
    before = await (await client.get("/app/api/state", headers=auth(ALICE))).json()
    assert before["tab"]["text"].startswith("📒 账本：没有待结清的局")
    won = await (
        await client.post("/app/api/record", json={**CAROL_WINS, "nonce": "win-tab-1"}, headers=auth(ALICE))
    ).json()
    assert won.get("ok") is True, won
    await running.say(ALICE, "/close")
    await running.say(ALICE, NEW)
    state = await (await client.get("/app/api/state", headers=auth(ALICE, night=2))).json()
    assert "alice → carol：52" in state["tab"]["text"].lower()


async def test_a_second_winner_on_the_same_discard_is_asked_in_the_page(
    table: tuple[Running, TestClient[Any, Any]],
) -> None:
    running, client = table
    await opened(running)
    await running.say(BOB, "碰 dave 9m")
    first = await (
        await client.post("/app/api/record", json={**CAROL_WINS, "nonce": "carol-wins"}, headers=auth(ALICE))
    ).json()
    assert first["ok"] is True
    await running.fake.wait_for(lambda: any("carol 胡" in t for t in running.fake.texts(GROUP)))
    sent = group_messages(running)
    dave = {
        **CAROL_WINS,
        "winner": 3,
        "tiles": ["2p", "2p", "5s", "6s", "7s", "7s", "9s", "S", "S", "S", "2m", "3m", "4m", "8s"],
    }
    asked = await (
        await client.post("/app/api/record", json={**dave, "nonce": "dave-wins-1"}, headers=auth(ALICE))
    ).json()
    assert asked["ask"]["text"] == "和 #3 同一张牌吗（一炮多响）？"
    assert [choice["label"] for choice in asked["ask"]["choices"]] == ["一炮多响", "是下一盘"]
    await asyncio.sleep(0.5)
    assert group_messages(running) == sent  # asked in the page alone
    both = {**dave, "nonce": "dave-wins-1", "answer": "a0"}
    answered = await (await client.post("/app/api/record", json=both, headers=auth(ALICE))).json()
    assert answered["ok"] is True
    await running.fake.wait_for(lambda: group_messages(running) == sent + 1)
    # dave's hand is carol's with 南 for 东 and 22筒 for 11筒: the same 52 flowers, both paid by alice (docs/rules.md)
    assert await balances(ledger_of(running)) == [-104, 0, 52, 52]


async def test_an_admin_who_does_not_sit_may_record_as_in_the_chat_a_member_may_not(
    table: tuple[Running, TestClient[Any, Any]],
) -> None:
    running, client = table
    running.fake.admins[GROUP] = [EVE["id"]]
    mallet = user(7, "Frank")  # a member, neither seated nor an admin
    await opened(running)
    refused = await (await client.post("/app/api/preview", json=CAROL_WINS, headers=auth(mallet))).json()
    assert refused["ok"] is False and "只有在座的玩家" in refused["reason"]
    recorded = await (
        await client.post("/app/api/record", json={**CAROL_WINS, "nonce": "admin-eve-1"}, headers=auth(EVE))
    ).json()
    assert recorded["ok"] is True
    await running.front.idle()
    assert await balances(ledger_of(running)) == [-52, 0, 52, 0]


async def test_a_win_still_waiting_its_turn_is_said_so_and_a_retry_finds_it_recorded(
    table: tuple[Running, TestClient[Any, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.telegram import app_lines

    running, client = table
    await opened(running)
    running.front.chats.admins.clear()  # the chat's next line looks its admins up, and Telegram is slow
    running.fake.slow_admins.add(GROUP)
    monkeypatch.setattr(app_lines, "WAIT_SECONDS", 0.3)
    body = {**CAROL_WINS, "nonce": "slow-win-1"}
    waiting = await (await client.post("/app/api/record", json=body, headers=auth(ALICE))).json()
    assert waiting["ok"] is False and waiting["pending"] is True  # never "nothing was recorded"
    running.fake.release_admins.set()
    await running.front.idle()
    again = await (await client.post("/app/api/record", json=body, headers=auth(ALICE))).json()
    assert again["ok"] is True and again["no"] == 2
    assert await balances(ledger_of(running)) == [-52, 0, 52, 0]
