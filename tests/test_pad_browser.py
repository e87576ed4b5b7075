"""The Mini App's page in headless Chromium (#50 items 3, 4, 6) against the real bot and its Mini App
server, the fake Bot API behind them: a phone taps a win tile by tile and sees the score after every
tap, records it once (one group message, the ledger's row), is refused when its initData is not
Telegram's or not a member's, and watches the night move when a line is typed in the chat."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from locales import Translator
from tests.kit.app_table import MALLORY, AppTable, app_table
from tests.kit.browser import chromium, open_page, page_errors
from tests.kit.init_data import forged
from tests.kit.telegram import ALICE, BOB, CAROL

# Carol wins on Alice's discard, 234m 11p 567s 79s EEE + 8s, 4 hard flowers (docs/rules.md: 跑 20,
# 硬花 ×4 8, 风碰 ×1 2, 压档 2, 门清 20 = 52 flowers; Alice pays Carol 52).
CAROL_WINS = ["1p", "1p", "5s", "6s", "7s", "7s", "9s", "E", "E", "E", "2m", "3m", "4m", "8s"]
WORDS = Translator("zh-Hans")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as running:
        yield running


@pytest.fixture
def table(tmp_path: Path) -> Iterator[AppTable]:
    with app_table(tmp_path) as running:
        running.open_night()
        running.say(BOB, "碰 dave 9m")  # the chat's first event: its once-a-chat note on pinning goes with it
        yield running


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

    def win(self, winner: int, discarder: int | str, tiles: list[str]) -> None:
        self(f"#winners [data-seat='{winner}']")
        self(f"#discarders [data-seat='{discarder}']")
        for code in tiles:
            self(f"#keys [data-code='{code}']")


def pad(browser: Any, table: AppTable, who: dict[str, Any], **kwargs: Any) -> tuple[Any, Taps]:
    page = open_page(browser, table.url, table.init_data(who), **kwargs)
    return page, Taps(page)


def settled(table: AppTable, before: int, count: int) -> list[str]:
    """The group's messages since `before`, once `count` of them came (or 5 s passed)."""
    deadline = time.monotonic() + 5
    while len(table.group_messages()) < before + count and time.monotonic() < deadline:
        time.sleep(0.05)
    table.idle()
    return table.group_messages()[before:]


def test_a_win_tapped_shows_the_score_after_every_tap_and_records_one_message(browser: Any, table: AppTable) -> None:
    page, tap = pad(browser, table, CAROL)
    tap("#winners [data-seat='2']")
    assert tap.preview()[1] == "再点谁放炮，或者自摸"
    tap("#discarders [data-seat='0']")
    for count, code in enumerate(CAROL_WINS, start=1):
        tap(f"#keys [data-code='{code}']")
        state, text = tap.preview()
        if count < 14:
            assert state == "short"
            assert text.startswith(f"还差 {14 - count} 张"), count
    assert tap.preview()[0] == "ok"
    tap("#flowers [data-flowers='4']")
    state, text = tap.preview()
    assert state == "ok"
    assert page.inner_text("#preview .total") == "52 花"
    assert "alice → carol：52 花" in text
    assert "/hu carol alice 234m11p56779sEEE +8s flowers=4" in text
    before = len(table.group_messages())
    tap("#record")
    page.wait_for_selector("#toast:not([hidden])")
    sent = settled(table, before, 1)
    assert len(sent) == 1 and "carol 胡 alice 的炮" in sent[0]
    assert table.balances() == [-52, 0, 52, 0]
    assert tap.count == 18  # winner, discarder, 14 tiles, flowers, record: within #50's 19
    number = page.inner_text("#toast").removeprefix("✅ 已记为 #")
    assert f"#{number} " in sent[0] or f"#{number}\n" in sent[0]
    # the pad is cleared for the next win, and the ledger's row is in the live view
    assert page.locator("#tray .held").count() == 0
    page.click("#tab-live")
    page.wait_for_selector(f"#lines li[data-no='{number}']")
    assert "/hu carol alice 234m11p56779sEEE +8s flowers=4" in page.inner_text(f"#lines li[data-no='{number}']")
    assert page_errors(page) == []


def test_a_fifth_copy_shows_the_reason_and_records_nothing(browser: Any, table: AppTable) -> None:
    table.say(CAROL, "碰 alice 4p")
    page, tap = pad(browser, table, CAROL)
    before = len(table.group_messages())
    tap.win(2, "self", ["1p", "1p", "5s", "6s", "7s", "4p", "4p"])
    state, text = tap.preview()
    assert state == "bad" and "4筒" in text
    assert page.locator("#tray .meld .tile").count() == 3  # the pong logged tonight, shown as logged
    assert page.locator("#record").is_disabled()
    page.evaluate("document.getElementById('record').click()")
    assert settled(table, before, 0) == []
    assert table.balances() == [0, 0, 0, 0]


def test_a_gang_logged_without_its_tile_takes_the_first_tap(browser: Any, table: AppTable) -> None:
    table.say(CAROL, "暗杠")  # a concealed gang, which tile not said
    page, tap = pad(browser, table, CAROL)
    tap("#winners [data-seat='2']")
    tap("#discarders [data-seat='self']")
    assert page.locator("#tray .meld.open .tile.blank").count() == 4
    assert page.locator("#tray .meld.open").get_attribute("data-label") == "点它的牌"
    tap("#keys [data-code='5m']")  # the gang's tile
    assert page.locator("#tray .meld:not(.open) .tile").count() == 4
    for code in ["1p", "1p", "5s", "6s", "7s", "7s", "9s", "E", "E", "E", "8s"]:
        tap(f"#keys [data-code='{code}']")
    state, text = tap.preview()
    assert state == "ok" and "(5555m)" in text, text  # the gang said in the line the page records
    assert page.locator("#keys [data-code='5m'] .n").inner_text() == "4"


def test_record_pressed_twice_records_one_win(browser: Any, table: AppTable) -> None:
    page, tap = pad(browser, table, CAROL)
    tap.win(2, 0, CAROL_WINS)
    tap("#flowers [data-flowers='4']")
    before = len(table.group_messages())
    page.evaluate("() => { const b = document.getElementById('record'); b.click(); b.click(); }")
    page.wait_for_selector("#toast:not([hidden])")
    assert len(settled(table, before, 2)) == 1
    assert table.balances() == [-52, 0, 52, 0]


def test_a_question_the_chat_would_ask_is_asked_in_the_page_before_recording(browser: Any, table: AppTable) -> None:
    page, tap = pad(browser, table, CAROL)
    tap.win(2, 0, CAROL_WINS)
    tap("#flowers [data-flowers='4']")
    before = len(table.group_messages())
    tap("#record")
    page.wait_for_selector("#toast:not([hidden])")
    assert len(settled(table, before, 1)) == 1
    tap.win(2, 0, CAROL_WINS)  # the same win again, nothing between: a repeat, or the next hand's?
    tap("#flowers [data-flowers='4']")
    tap("#record")
    page.wait_for_selector("#sheet:not([hidden])")
    assert page.inner_text("#sheet-text")
    choices = page.locator("#sheet-choices button")
    assert choices.count() >= 3  # the server's choices and 取消
    assert len(settled(table, before, 2)) == 1  # asked in the page, not in the group
    assert table.balances() == [-52, 0, 52, 0]
    choices.first.click()  # 再记一次: it happened twice
    page.wait_for_selector("#sheet", state="hidden")
    assert len(settled(table, before, 2)) == 2
    assert table.balances() == [-104, 0, 104, 0]


def test_a_record_whose_answer_was_lost_is_sent_again_with_its_nonce_and_records_once(
    browser: Any, table: AppTable
) -> None:
    page, tap = pad(browser, table, CAROL)
    tap.win(2, 0, CAROL_WINS)
    tap("#flowers [data-flowers='4']")
    sent: list[str] = []

    def lose_the_first_answer(route: Any) -> None:
        sent.append(json.loads(route.request.post_data)["nonce"])
        if len(sent) == 1:
            route.fetch()  # the server records the win; its answer never reaches the phone
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route("**/app/api/record", lose_the_first_answer)
    before = len(table.group_messages())
    page.click("#record")
    page.wait_for_selector("#toast:not([hidden])")
    assert page.inner_text("#toast") == WORDS.t("app.pad.offline")
    page.wait_for_selector("#toast", state="hidden")
    page.click("#record")  # pressed again
    page.wait_for_selector("#toast:not([hidden])")
    assert page.inner_text("#toast").startswith("✅ 已记为 #")
    assert len(sent) == 2 and sent[0] == sent[1]
    assert len(settled(table, before, 2)) == 1
    assert table.balances() == [-52, 0, 52, 0]


@pytest.mark.parametrize(
    ("opened", "key"),
    [
        (lambda t: forged(t.init_data(CAROL)), "app.forged"),
        (lambda t: t.init_data(CAROL, auth_date=int(time.time()) - 2 * 24 * 3600), "app.expired"),
        (lambda t: t.init_data(CAROL, token="654321:another-bot"), "app.forged"),
        (lambda t: t.init_data(MALLORY), "app.stranger"),
    ],
    ids=["forged", "expired", "another-bot", "stranger"],
)
def test_a_refused_caller_sees_why_and_can_record_nothing(browser: Any, table: AppTable, opened: Any, key: str) -> None:
    before = len(table.group_messages())
    page = open_page(browser, table.url, opened(table))
    assert page.inner_text("#notice") == WORDS.t(key)
    assert page.locator("#view-pad").is_hidden()
    assert page.locator("#record").is_disabled()
    assert settled(table, before, 0) == []
    assert table.balances() == [0, 0, 0, 0]


def test_the_live_view_moves_when_a_line_is_typed_in_the_chat(browser: Any, table: AppTable) -> None:
    page = open_page(browser, table.url, table.init_data(ALICE))
    page.click("#tab-live")
    lines = page.locator("#lines li").count()
    table.say(BOB, "碰 carol 4p")
    page.wait_for_function(f"() => document.querySelectorAll('#lines li').length > {lines}", timeout=3000)  # #50: 3 s
    assert "碰 carol 4p" in page.inner_text("#lines li:first-child .body")
    assert page.locator("#chart-card").is_hidden()  # no chart before a hand is scored
    tab = page.evaluate(
        "fetch('api/state', {headers: {Authorization: 'tma ' + Telegram.WebApp.initData}})"
        ".then((r) => r.json()).then((state) => state.tab)"
    )
    assert page.locator("#tab-card").is_visible() is bool(tab and tab["text"])
    if tab and tab["text"]:
        assert page.inner_text("#tab-text") == tab["text"]  # the tab as /tab shows it
    assert page_errors(page) == []


def test_undo_from_the_page_is_the_chat_s_undo(browser: Any, table: AppTable) -> None:
    table.say(CAROL, "胡 alice 234m 11p 567s 79s EEE +8s 花4")
    assert table.balances() == [-52, 0, 52, 0]
    page = open_page(browser, table.url, table.init_data(BOB))
    page.click("#tab-live")
    win = page.locator("#lines li", has_text="胡 alice").first
    number = win.get_attribute("data-no")
    win.locator(".body").click()  # a line tapped opens on its 明细 and what may be done with it
    win.locator(".detail", has_text="alice → carol：52 花").wait_for()
    before = len(table.group_messages())
    win.locator(".undo").click()
    assert win.locator(".undo").inner_text() == f"确定撤销 #{number}？"
    win.locator(".undo").click()
    page.wait_for_selector(f"#lines li.undone[data-no='{number}']", timeout=5000)
    assert len(settled(table, before, 1)) == 1  # the one message a typed /undo gives
    assert table.balances() == [0, 0, 0, 0]


def test_fix_from_the_page_is_the_chat_s_fix(browser: Any, table: AppTable) -> None:
    table.say(CAROL, "胡 alice 234m 11p 567s 79s EEE +8s 花4")
    page = open_page(browser, table.url, table.init_data(CAROL))
    page.click("#tab-live")
    win = page.locator("#lines li", has_text="胡 alice").first
    win.locator(".body").click()
    win.locator(".fix-open").click()
    assert win.locator(".fix input").input_value() == "胡 alice 234m 11p 567s 79s EEE +8s 花4"  # to mend
    before = len(table.group_messages())
    win.locator(".fix input").fill("胡 alice 234m 11p 567s 79s EEE +8s 花5")
    win.locator(".fix .send").click()
    assert len(settled(table, before, 1)) == 1  # the one message a typed /fix gives
    # 5 hard flowers (docs/rules.md): 跑 20 + 硬花 ×5 10 + 风碰 2 + 压档 2 + 门清 20 = 54
    assert table.balances() == [-54, 0, 54, 0]
    page.wait_for_function("() => document.querySelector('#lines').innerText.includes('花5')", timeout=3000)


def test_telegram_s_main_button_records_when_there_is_one(browser: Any, table: AppTable) -> None:
    page, tap = pad(browser, table, CAROL, main_button=True)
    assert page.locator(".dock").is_hidden()
    tap("#winners [data-seat='2']")
    tap("#discarders [data-seat='0']")
    assert page.evaluate("window.__tg.main") == {"text": "记录", "visible": True, "active": False}
    for code in CAROL_WINS:
        tap(f"#keys [data-code='{code}']")
    assert page.evaluate("window.__tg.main.active") is True
    page.evaluate("window.__tg.mainClick()")
    page.wait_for_selector("#toast:not([hidden])")
    table.idle()
    assert table.balances()[2] > 0
    haptics = page.evaluate("window.__tg.haptics")
    assert haptics.count("impact:light") == 14 and haptics[-1] == "notification:success"
    # Telegram's BackButton leads from the live night back to the pad
    assert page.evaluate("window.__tg.back") is False
    page.click("#tab-live")
    assert page.evaluate("window.__tg.back") is True and page.evaluate("window.__tg.main.visible") is False
    page.evaluate("window.__tg.backClick()")
    assert page.locator("#view-pad").is_visible() and page.evaluate("window.__tg.back") is False


def test_the_page_works_without_telegram_s_script(browser: Any, table: AppTable) -> None:
    """Opened with Telegram's script blocked, the page reads initData from the address as Telegram gives it."""
    address = f"{table.url}#tgWebAppData={quote(table.init_data(CAROL))}"
    page = open_page(browser, address, "", telegram=False)
    assert page.evaluate("window.Telegram") is None
    tap = Taps(page)
    tap.win(2, "self", CAROL_WINS[:3])
    assert tap.preview() == ("short", page.inner_text("#preview"))
    assert "还差 11 张" in tap.preview()[1]
    assert page.locator(".dock").is_visible()


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ("Win", "Tonight", "Now whose discard it was, or Self-draw")),
        ("zh-hant", ("記胡", "牌局", "再點誰放炮，或者自摸")),
    ],
)
def test_the_page_speaks_the_user_s_language(
    browser: Any, table: AppTable, language: str, words: tuple[str, ...]
) -> None:
    page = open_page(browser, table.url, table.init_data({**CAROL, "language_code": language}))
    page.click("#winners [data-seat='2']")
    page.wait_for_function("() => !document.getElementById('preview').dataset.pending")
    assert (page.inner_text("#tab-pad"), page.inner_text("#tab-live"), page.inner_text("#preview")) == words
    assert page.locator("#keys .key").count() == 32  # 31 tiles and ⌫, whatever the language


def test_the_dark_theme_takes_telegram_s_colours(browser: Any, table: AppTable) -> None:
    page = open_page(browser, table.url, table.init_data(CAROL), dark=True)
    assert page.evaluate("document.documentElement.dataset.scheme") == "dark"
    background = page.evaluate("getComputedStyle(document.querySelector('.keys')).backgroundColor")
    assert background == "rgb(44, 44, 46)"  # the theme's section_bg_color
    face = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--tile-face').trim()")
    assert face == "#ece6d6"
