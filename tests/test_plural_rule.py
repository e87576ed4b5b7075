"""A message's plural form is chosen by its catalog's own rule (the Plural-Forms header, as Babel reads
it), not by `count == 1`: English has two forms (1, and any other count, 0 too), Chinese one."""

from __future__ import annotations

from locales import LANGUAGES, Translator, load_catalog
from tests.kit.messages import plural_forms


def test_each_language_reads_its_rule_from_its_catalog() -> None:
    assert load_catalog("en").plural_expr == "(n != 1)"
    assert [load_catalog("en").plural_index(n) for n in (0, 1, 2, 21)] == [1, 0, 1, 1]
    for language in ("zh-Hans", "zh-Hant"):
        assert [load_catalog(language).plural_index(n) for n in (0, 1, 2)] == [0, 0, 0]
    assert set(LANGUAGES) == {"en", "zh-Hans", "zh-Hant"}


def test_a_plural_message_takes_the_form_its_rule_names() -> None:
    key = "summary.transfers_header"  # who pays whom (1 transfer) / ({count} transfers)
    one, other = plural_forms(key, "en")[:2]
    translator = Translator("en")
    assert translator.n(key, 1) == one.format(count=1)
    assert translator.n(key, 0) == other.format(count=0)  # 0 is plural in English
    assert translator.n(key, 3) == other.format(count=3)
