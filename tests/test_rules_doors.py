"""A rules name and a rules file are checked before they touch anything (#47 item 6, docs/rules.md 20):
a name of 300 characters or with a NUL is refused before it is made a path, a file of 5,000 nested
arrays is refused before it is parsed, and a stranger's rules document is not downloaded at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import EngineError
from engine.preset import load_preset_text
from engine.rule_keys import read_file
from tests.kit.fake_telegram import FakeTelegram, user
from tests.kit.harness import Table
from tests.kit.telegram import Running

FAILED = ("出错了", "went wrong")
LONG = "x" * 300
NESTED = ("a = " + "[" * 5000 + "]" * 5000 + "\n").encode()  # 10 KB


@pytest.mark.parametrize(
    "line",
    [
        f"A: /rules {LONG}",
        f"A: /new A B C D rules={LONG}",
        "A: /rules a\x00b",
        "A: /new A B C D rules=a\x00b",
        f"A: /rules save {LONG}",
        "A: /rules default a\x00b",
    ],
)
async def test_a_rules_name_too_long_or_with_a_nul_is_refused(table: Table, line: str) -> None:
    out = await table.say(line)
    assert out and not any(word in out for word in FAILED)
    assert "开始" not in out


async def test_a_file_of_nested_arrays_is_refused_cleanly() -> None:
    raw, errors = read_file(NESTED.decode())
    assert raw is None and [e.key for e in errors] == ["preset.too_deep"]
    with pytest.raises(EngineError, match="too_deep"):
        load_preset_text(NESTED.decode())


async def test_a_file_of_nested_arrays_in_the_operators_folder_is_passed_over(table: Table, tmp_path: Path) -> None:
    (tmp_path / "deep.toml").write_bytes(NESTED)
    out = await table.say("A: /new A B C D rules=deep")
    assert "嵌套超过 8 层" in out and "开始" not in out


ALICE, EVE = user(1, "Alice"), user(5, "Eve")


async def test_a_nested_file_sent_in_the_chat_is_refused(fake: FakeTelegram, tmp_path: Path) -> None:
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        out = await bot.send_file(ALICE, "/rules", "deep.toml", NESTED)
        assert "规则文件没收" in out and "嵌套" in out


async def test_a_strangers_rules_document_is_not_downloaded(fake: FakeTelegram, tmp_path: Path) -> None:
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        await bot.say(ALICE, "/new @alice @bob @carol @dave")
        out = await bot.send_file(EVE, "/rules", "ours.toml", b'base = "nanjing"\nname = "ours"\n')
        assert "只有开这局的人和群管理员能改规则" in out
        assert fake.downloads == []  # the rights were checked first: never fetched
        await bot.send_file(ALICE, "/rules", "ours.toml", b'base = "nanjing"\nname = "ours"\n')
        assert fake.downloads == ["documents/doc2.toml"]


def test_a_number_of_5000_digits_is_refused_cleanly() -> None:
    raw, errors = read_file('base = "nanjing"\n[patterns]\npao = ' + "9" * 5000 + "\n")
    assert raw is None and [e.key for e in errors] == ["preset.bad_toml"]
    raw, errors = read_file('base = "nanjing"\n[patterns]\npao = 1e999\n')  # a float: no rule takes one
    assert raw is None and [e.key for e in errors] == ["preset.bad_value"]


async def test_a_typed_number_of_5000_digits_is_refused_cleanly(table: Table) -> None:
    await table.say("A: /new A B C D")
    out = await table.say("A: /rules set 跑=" + "9" * 5000)
    assert "0 到 100000" in out and not any(word in out for word in FAILED)
    await table.play("A: /summary\nA: 确认")
    out = await table.say("A: /new A B C D start=" + "9" * 5000)
    assert out and "开始" not in out and not any(word in out for word in FAILED)


def test_a_file_of_many_long_unknown_keys_is_named_in_one_short_answer() -> None:
    from bot.chat.handlers.common import Refusal
    from bot.chat.handlers.house import checked_text
    from bot.text.replies import render
    from locales import Translator

    text = 'base = "nanjing"\n' + "".join(f"{'k' * 500}{n} = 1\n" for n in range(100))
    try:
        checked_text(text)
    except Refusal as refusal:
        rendered = "\n".join(render(reply, Translator("zh-Hans")) for reply in refusal.replies)
    else:
        raise AssertionError("refused")
    assert len(rendered) < 4096 and "还有 88 项" in rendered
