"""The Mini App's page in a real browser: Debian's headless Chromium driven by Playwright (no browser
downloaded), with a stand-in for Telegram's `telegram-web-app.js` that hands the page its initData
and theme and keeps what the page asked of Telegram (the MainButton, haptics) in `window.__tg`."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
PHONE = {"width": 390, "height": 844}

LIGHT = {
    "bg_color": "#ffffff",
    "secondary_bg_color": "#efeff4",
    "text_color": "#000000",
    "hint_color": "#8e8e93",
    "link_color": "#007aff",
    "button_color": "#007aff",
    "button_text_color": "#ffffff",
    "accent_text_color": "#007aff",
    "destructive_text_color": "#ff3b30",
    "section_bg_color": "#ffffff",
}
DARK = {
    "bg_color": "#1c1c1d",
    "secondary_bg_color": "#000000",
    "text_color": "#ffffff",
    "hint_color": "#98989e",
    "link_color": "#3e88f7",
    "button_color": "#3e88f7",
    "button_text_color": "#ffffff",
    "accent_text_color": "#3e88f7",
    "destructive_text_color": "#eb5545",
    "section_bg_color": "#2c2c2e",
}

# What the page may ask of Telegram.WebApp, kept in window.__tg for the tests to read.
_TELEGRAM_STUB = """
(() => {
  const log = (window.__tg = { calls: [], main: { text: "", visible: false, active: true }, haptics: [] });
  const handlers = {};
  const main = {
    setText(text) { log.main.text = text; return main; },
    show() { log.main.visible = true; return main; },
    hide() { log.main.visible = false; return main; },
    enable() { log.main.active = true; return main; },
    disable() { log.main.active = false; return main; },
    showProgress() { return main; },
    hideProgress() { return main; },
    onClick(fn) { log.mainClick = fn; return main; },
  };
  window.Telegram = { WebApp: {
    initData: %(init_data)s,
    colorScheme: %(scheme)s,
    themeParams: %(theme)s,
    ready() { log.calls.push("ready"); },
    expand() { log.calls.push("expand"); },
    onEvent(name, fn) { handlers[name] = fn; },
    enableClosingConfirmation() {}, disableClosingConfirmation() {},
    HapticFeedback: {
      impactOccurred(s) { log.haptics.push("impact:" + s); },
      selectionChanged() { log.haptics.push("selection"); },
      notificationOccurred(s) { log.haptics.push("notification:" + s); },
    },
    BackButton: { show() { log.back = true; }, hide() { log.back = false; }, onClick(fn) { log.backClick = fn; } },
    %(main)s
  } };
})();
"""


def chromium_or_skip(path: str = CHROMIUM, environ: Mapping[str, str] = os.environ) -> str:
    """The browser's path; a missing browser skips the test on a developer's machine and fails it in CI."""
    if shutil.which(path) or Path(path).is_file():
        return path
    message = f"no Chromium at {path} (Debian's `chromium` package; .ci/run installs it)"
    if environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def font_config(folder: Path) -> dict[str, str]:
    """A fontconfig file adding the CJK font that comes with the dependencies, so the glyphs of the
    tiles and the page show in a screenshot on a machine without CJK fonts."""
    fonts = resources.files("paperang_p2_fonts_cjk") / "fonts"
    conf = folder / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        '<include ignore_missing="yes">/etc/fonts/fonts.conf</include>'
        f"<dir>{fonts}</dir><cachedir>{folder / 'cache'}</cachedir></fontconfig>",
        encoding="utf-8",
    )
    return {**os.environ, "FONTCONFIG_FILE": str(conf)}


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium of Debian's, driven by Playwright."""
    from playwright.sync_api import sync_playwright

    path = chromium_or_skip()
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, env=font_config(Path(folder)))
        try:
            yield browser
        finally:
            browser.close()


_ERRORS: dict[int, list[str]] = {}


def page_errors(page: Any) -> list[str]:
    """The uncaught errors of the page's script so far."""
    return _ERRORS.get(id(page), [])


def open_page(
    browser: Any,
    url: str,
    init_data: str,
    *,
    dark: bool = False,
    main_button: bool = False,
    telegram: bool = True,
    scale: float = 1,
) -> Any:
    """A phone-sized page at `url`, Telegram's script answered by the stand-in (or absent)."""
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=scale, color_scheme="dark" if dark else "light", has_touch=True
    )
    page = context.new_page()
    script = _TELEGRAM_STUB % {
        "init_data": json.dumps(init_data),
        "scheme": json.dumps("dark" if dark else "light"),
        "theme": json.dumps(DARK if dark else LIGHT),
        "main": "MainButton: main," if main_button else "",
    }

    def answer(route: Any) -> None:
        if telegram:
            route.fulfill(status=200, content_type="text/javascript", body=script)
        else:
            route.abort()

    page.route(TELEGRAM_SCRIPT, answer)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    _ERRORS[id(page)] = errors
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page
