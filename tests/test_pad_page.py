"""The Mini App's page as files (#50 items 3, 5, 7): every word from the catalogs, Telegram's script from
Telegram and nothing inline (the server's Content-Security-Policy allows neither), and a first load
within 150 KB besides Telegram's script."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.web.tiles import sprite
from locales import LANGUAGES, load_catalog
from tests.kit.browser import chromium_or_skip

STATIC = Path(__file__).resolve().parent.parent / "bot" / "web" / "static"
PAGE = (STATIC / "index.html").read_text(encoding="utf-8")
SCRIPT = (STATIC / "app.js").read_text(encoding="utf-8")
STYLE = (STATIC / "app.css").read_text(encoding="utf-8")


def keys_of_the_page() -> set[str]:
    in_script = re.findall(r'"(app\.pad\.[a-z_]+)"', SCRIPT)
    return set(in_script) | set(re.findall(r'data-t(?:-label)?="([^"]+)"', PAGE))


def test_every_word_of_the_page_is_in_every_catalog() -> None:
    used = keys_of_the_page()
    assert used
    for language in LANGUAGES:
        assert used - set(load_catalog(language).singular) == set(), language


def test_every_word_of_the_page_s_catalog_is_used() -> None:
    catalog = {key for key in load_catalog("zh-Hans").singular if key.startswith("app.pad.")}
    assert catalog - keys_of_the_page() == set()


def test_telegram_s_script_is_loaded_from_telegram_and_no_script_is_inline() -> None:
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", PAGE, re.S)
    assert [attrs.strip() for attrs, _ in scripts] == [
        'src="https://telegram.org/js/telegram-web-app.js"',
        'type="module" src="app.js"',
    ]
    assert all(body.strip() == "" for _, body in scripts)
    assert " on" not in re.sub(r"<script.*?</script>", "", PAGE, flags=re.S).replace("\n", " ").split(">")[0]
    assert not list(STATIC.glob("telegram-web-app*"))


def test_the_page_calls_its_api_by_relative_addresses_with_telegram_s_init_data() -> None:
    assert "fetch(`api/${path}`" in SCRIPT
    assert "Authorization: `tma ${initData()}`" in SCRIPT
    assert "localStorage" not in SCRIPT and "document.cookie" not in SCRIPT


def test_the_first_load_is_within_150_kb_besides_telegram_s_script() -> None:
    weight = sum(len(text.encode()) for text in (PAGE, SCRIPT, STYLE, sprite()))
    assert weight <= 150 * 1024


def test_a_missing_browser_skips_the_browser_tests_on_a_developer_s_machine_and_fails_them_in_ci() -> None:
    with pytest.raises(pytest.skip.Exception):
        chromium_or_skip("/nowhere/chromium", {})
    with pytest.raises(pytest.fail.Exception):
        chromium_or_skip("/nowhere/chromium", {"CI": "true"})
