"""The Mini App's page in headless Chromium (#50 items 3, 4, 6): a phone taps a win tile by tile and sees
the score after every tap, records it once, is refused when its initData is not Telegram's, and
watches the night move when a line is typed in the chat. Run against the stand-in server
(tests/kit/app_stub.py) that answers as docs/miniapp.md says; expected figures are docs/rules.md's."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.kit.app_stub import START, Stub, build_app
from tests.kit.browser import chromium, open_page
from tests.kit.init_data import forged, sign_init_data
from tests.kit.served import served

WANG_WU = 103  # seat 2
STRANGER = 999
# 门清 (docs/rules.md §4): 跑 20 + 缺一门 2 + 门清 20 + 无花果 40 = 82, paid by the discarder 张三.
HAND = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p", "5p", "5p"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as running:
        yield running


@pytest.fixture
def table() -> Iterator[tuple[Stub, str, Any]]:
    stub = Stub(live_wait=2.0)
    with served(lambda: build_app(stub)) as (base, loop):
        yield stub, f"{base}/app/", loop


class Taps:
    """Taps on the page, counted, each waiting for the preview it caused."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.count = 0

    def __call__(self, selector: str) -> None:
        self.page.click(selector)
        self.count += 1
        self.page.wait_for_function("() => !document.getElementById('preview').dataset.pending")

    def preview(self) -> tuple[str, str]:
        box = self.page.locator("#preview")
        return box.get_attribute("data-state") or "", box.inner_text()


def pad(browser: Any, url: str, init_data: str, **kwargs: Any) -> tuple[Any, Taps]:
    page = open_page(browser, url, init_data, **kwargs)
    return page, Taps(page)


def wait_for_lines(stub: Stub, count: int) -> None:
    deadline = time.monotonic() + 5
    while len(stub.lines) < count and time.monotonic() < deadline:
        time.sleep(0.02)


def test_a_win_tapped_shows_the_score_after_every_tap_and_records_one_message(browser: Any, table: Any) -> None:
    stub, url, _ = table
    page, tap = pad(browser, url, sign_init_data(WANG_WU, "王五", START))
    tap("#winners [data-seat='2']")
    assert tap.preview()[1] == "再点谁放炮，或者自摸"
    tap("#discarders [data-seat='0']")
    for count, code in enumerate(HAND, start=1):
        tap(f"#keys [data-code='{code}']")
        state, text = tap.preview()
        if count < 14:
            assert state == "bad"
            assert f"还差 {14 - count} 张" in text
    state, text = tap.preview()
    assert state == "ok"
    assert "合计 82 花" in text
    assert "张三 → 王五：82 花" in text
    assert "门清 20" in text
    tap("#flowers [data-flowers='0']")
    assert page.locator("#record").is_enabled()
    tap("#record")
    page.wait_for_selector("#toast:not([hidden])")
    assert page.inner_text("#toast") == "✅ 已记为 #1"
    assert stub.group_messages == [stub.lines[0]["text"].removeprefix("✅ #1 ")]
    assert stub.money == [-82, 0, 82, 0]
    assert tap.count == 18  # winner, discarder, 14 tiles, flowers, record: within #50's 19
    # the pad is cleared for the next win, and the night's line is in the live view
    assert page.locator("#tray .held").count() == 0
    page.click("#tab-live")
    page.wait_for_selector("#lines li[data-no='1']")
    assert "胡 王五" in page.inner_text("#lines li[data-no='1']")


def test_a_fifth_copy_shows_the_reason_and_records_nothing(browser: Any, table: Any) -> None:
    stub, url, _ = table
    page, tap = pad(browser, url, sign_init_data(WANG_WU, "王五", START))
    tap("#winners [data-seat='2']")
    tap("#discarders [data-seat='self']")
    for code in ["1m"] * 5 + HAND[5:]:
        tap(f"#keys [data-code='{code}']")
    state, text = tap.preview()
    assert (state, text) == ("bad", "1m 出现了 5 张，每种牌只有 4 张")
    assert page.locator("#keys [data-code='1m'] .n.over").inner_text() == "5"
    assert page.locator("#record").is_disabled()
    page.evaluate("document.getElementById('record').click()")
    assert stub.lines == [] and stub.group_messages == []


def test_record_pressed_twice_records_one_win(browser: Any, table: Any) -> None:
    stub, url, _ = table
    page, tap = pad(browser, url, sign_init_data(WANG_WU, "王五", START))
    tap("#winners [data-seat='2']")
    tap("#discarders [data-seat='0']")
    for code in HAND:
        tap(f"#keys [data-code='{code}']")
    page.evaluate("() => { const b = document.getElementById('record'); b.click(); b.click(); }")
    page.wait_for_selector("#toast:not([hidden])")
    wait_for_lines(stub, 1)
    assert len(stub.lines) == 1 and len(stub.group_messages) == 1
    # a retry after a lost answer carries the same nonce: recorded once, answered with the same number
    retry = """async ([init, body]) => (await fetch('api/record', {method: 'POST', body: JSON.stringify(body),
        headers: {Authorization: 'tma ' + init, 'Content-Type': 'application/json'}})).json()"""
    body = {"winner": 1, "discarder": 3, "tiles": HAND, "melds": [], "flowers": 0, "flags": [], "nonce": "retry-1"}
    init_data = sign_init_data(WANG_WU, "王五", START)
    first, second = (page.evaluate(retry, [init_data, body]) for _ in range(2))
    assert first == second == {"ok": True, "no": 2, "text": stub.lines[1]["text"]}
    assert len(stub.lines) == 2 and len(stub.group_messages) == 2


@pytest.mark.parametrize(
    ("init_data", "words"),
    [
        (forged(sign_init_data(WANG_WU, "王五", START)), "不是从 Telegram 打开的"),
        (sign_init_data(WANG_WU, "王五", START, auth_date=int(time.time()) - 2 * 24 * 3600), "打开太久了"),
        (sign_init_data(WANG_WU, "王五", START, token="654321:another-bot"), "不是从 Telegram 打开的"),
        (sign_init_data(STRANGER, "路人", START), "你不在这一桌"),
    ],
    ids=["forged", "expired", "another-bot", "stranger"],
)
def test_a_refused_caller_sees_why_and_can_record_nothing(browser: Any, table: Any, init_data: str, words: str) -> None:
    stub, url, _ = table
    page = open_page(browser, url, init_data)
    assert words in page.inner_text("#notice")
    assert page.locator("#view-pad").is_hidden()
    assert page.locator("#record").is_disabled()
    assert stub.lines == [] and stub.group_messages == []


def test_the_live_view_moves_when_a_line_is_typed_in_the_chat(browser: Any, table: Any) -> None:
    stub, url, loop = table
    page = open_page(browser, url, sign_init_data(WANG_WU, "王五", START))
    page.click("#tab-live")
    assert page.inner_text("#lines") == "今晚还没有记录"
    loop.call_soon_threadsafe(stub.type_line, "碰 李四 5p")
    page.wait_for_selector("#lines li[data-no='1']", timeout=3000)  # #50: within 3 s
    assert page.inner_text("#lines li[data-no='1'] .body") == "碰 李四 5p"


def test_undo_from_the_page_is_the_chat_s_undo(browser: Any, table: Any) -> None:
    stub, url, loop = table
    loop.call_soon_threadsafe(stub.type_line, "碰 李四 5p")
    page = open_page(browser, url, sign_init_data(WANG_WU, "王五", START))
    page.click("#tab-live")
    page.click("#lines li[data-no='1'] .undo")
    assert page.inner_text("#lines li[data-no='1'] .undo") == "确定撤销 #1？"
    page.click("#lines li[data-no='1'] .undo")
    page.wait_for_selector("#lines li.undone[data-no='1']")
    assert stub.group_messages[-1] == "/undo 1"


def test_telegram_s_main_button_records_when_there_is_one(browser: Any, table: Any) -> None:
    stub, url, _ = table
    page, tap = pad(browser, url, sign_init_data(WANG_WU, "王五", START), main_button=True)
    assert page.locator(".dock").is_hidden()
    tap("#winners [data-seat='2']")
    tap("#discarders [data-seat='0']")
    assert page.evaluate("window.__tg.main") == {"text": "记录", "visible": True, "active": False}
    for code in HAND:
        tap(f"#keys [data-code='{code}']")
    assert page.evaluate("window.__tg.main.active") is True
    page.evaluate("window.__tg.mainClick()")
    page.wait_for_selector("#toast:not([hidden])")
    assert len(stub.lines) == 1
    haptics = page.evaluate("window.__tg.haptics")
    assert haptics.count("impact:light") == 14 and haptics[-1] == "notification:success"


def test_the_page_works_without_telegram_s_script(browser: Any, table: Any) -> None:
    """Opened outside Telegram (or with its script blocked): the page reads initData from the address."""
    _, url, _ = table

    init_data = sign_init_data(WANG_WU, "王五", START)
    page, tap = pad(browser, f"{url}#tgWebAppData={quote(init_data)}", "", telegram=False)
    assert page.evaluate("window.Telegram") is None
    tap("#winners [data-seat='2']")
    tap("#discarders [data-seat='self']")
    assert page.locator("#preview").get_attribute("data-state") == "bad"
    assert page.locator(".dock").is_visible()


def test_the_dark_theme_takes_telegram_s_colours(browser: Any, table: Any) -> None:
    _, url, _ = table
    page = open_page(browser, url, sign_init_data(WANG_WU, "王五", START), dark=True)
    assert page.evaluate("document.documentElement.dataset.scheme") == "dark"
    background = page.evaluate("getComputedStyle(document.querySelector('.keys')).backgroundColor")
    assert background == "rgb(44, 44, 46)"  # the theme's section_bg_color
    face = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--tile-face').trim()")
    assert face == "#ece6d6"
