"""The message helper the delivery tests assert with (tests/kit/messages.py)."""

from __future__ import annotations

import pytest

from tests.kit.messages import rendered, says


def test_says_finds_a_message_by_its_key_and_the_figures_it_names() -> None:
    opened = rendered("night.opened", "en", night=1, preset="nanjing", stake=1, dealer="alice")
    reply = f"some line before\n{opened}\nand after"
    assert says(reply, "night.opened", "en", night=1)
    assert says(reply, "night.opened", "en", night=1, dealer="alice")
    assert not says(reply, "night.opened", "en", night=2)  # another night's opening
    assert not says(reply, "night.opened", "en", night=1, dealer="bob")
    assert not says(reply, "night.none", "en")


def test_an_unknown_key_is_the_tests_mistake_never_a_pass() -> None:
    with pytest.raises(KeyError):
        says("anything", "night.opend")
    with pytest.raises(KeyError):
        rendered("night.opend")


def test_a_plural_message_is_said_by_any_of_its_forms_and_rendered_by_its_count() -> None:
    one = rendered("summary.header", "en", night=3, count=1, preset="nanjing", stake=1)
    many = rendered("summary.header", "en", night=3, count=5, preset="nanjing", stake=1)
    assert one != many  # English has two forms
    assert says(one, "summary.header", "en", night=3) and says(many, "summary.header", "en", night=3)
    assert not says(many, "summary.header", "en", night=4)
    assert says(rendered("summary.header", night=3, count=5, preset="nanjing", stake=1), "summary.header", night=3)
