"""House rules cannot fill the disk (#47 item 5, docs/rules.md 20): a rules file's text is bounded, each
house rule is stored once (a change appends what changed: the rule kept, or the small list of names),
`/rules NAME` fits one Telegram message, the rest one tap away.
"""

from __future__ import annotations

import json

from bot.chat.handlers.common import Upload
from bot.chat.service import Incoming, Referee, Speaker
from bot.store import house_rules
from bot.store.rows import HouseRules
from bot.text.replies import render_response
from engine.preset import TEXT_MOST, resolved_builtin
from engine.rule_keys import read_file
from locales import Translator
from tests.kit.harness import Table

MESSAGE_LIMIT = 4096  # Telegram's sendMessage text, in characters


def big_rules(name: str) -> str:
    """A rules file as big as the bounds allow: the longest description, every pattern scored with a
    long exclusion list."""
    description = "说" * TEXT_MOST["description"]
    return f'base = "nanjing"\nname = "{name}"\ndescription = "{description}"\n'


async def send(referee: Referee, text: str, name: str) -> str:
    speaker = Speaker(id="A", name="A", by_name=True, is_admin=True)
    upload = Upload(f"{name}.toml", len(text.encode()), text)
    response = await referee.handle(Incoming("group-1", speaker, "/rules", upload=upload))
    assert response is not None
    return render_response(response, Translator(response.language))


async def stored_bytes(table: Table) -> int:
    db = table.referee.nights.ledger._db
    rows = await db.execute_fetchall("SELECT COALESCE(SUM(LENGTH(CAST(value AS BLOB))), 0) FROM chat_settings")
    return int(rows[0][0])


def test_a_description_past_its_bound_is_refused() -> None:
    raw, errors = read_file(f'base = "nanjing"\nname = "x"\ndescription = "{"x" * 201}"\n')
    assert raw is None and [e.key for e in errors] == ["preset.too_long"]
    raw, errors = read_file(
        'base = "nanjing"\nname = "x"\n[patterns]\nqidui = { value = 80, excludes = ["menqing", "menqing"] }\n'
    )
    assert raw is None and [e.key for e in errors] == ["preset.bad_value"]  # a repeat only makes a file big


async def test_each_change_appends_what_changed_not_every_rule(table: Table) -> None:
    for n in range(20):
        assert "存好了" in await send(table.referee, big_rules(f"r{n}"), f"r{n}")
    await table.say("A: /new A B C D")  # the opener may change the rules
    before = await stored_bytes(table)
    for n in range(100):
        out = await table.say(f"A: /rules default r{n % 20}")
        assert f"r{n % 20}" in out
    per_line = (await stored_bytes(table) - before) / 100
    assert per_line < 400  # the list of names and the default, never the twenty rules (~1 KB each)
    before = await stored_bytes(table)
    await send(table.referee, big_rules("r3").replace("说", "话"), "r3")  # one rule changed: it alone is written
    one = len(json.dumps(json.loads(json.dumps(big_rules("r3")))))
    assert await stored_bytes(table) - before < 2 * one + 2000
    house = await table.referee.nights.house_rules("group-1")
    assert sorted(house.rules) == sorted(f"r{n}" for n in range(20)) and house.default == "r19"
    assert str(house.rules["r3"]["description"]).startswith("话")


async def test_house_rules_stored_whole_before_are_read_and_carried_on(table: Table) -> None:
    friday = {**resolved_builtin("nanjing"), "name": "friday", "description": ""}
    old = HouseRules({"friday": friday}, "friday")  # the former whole-set row
    await table.referee.nights.set_setting("group-1", house_rules.SETTING, house_rules.encode_whole(old))
    house = await table.referee.nights.house_rules("group-1")
    assert dict(house.rules) == {"friday": friday} and house.default == "friday"
    await table.say("A: /new A B C D")
    await table.say("A: /rules save saturday")
    house = await table.referee.nights.house_rules("group-1")
    assert sorted(house.rules) == ["friday", "saturday"] and house.default == "friday"
    await table.say("A: /rules drop friday")
    house = await table.referee.nights.house_rules("group-1")
    assert sorted(house.rules) == ["saturday"] and house.default is None


async def test_rules_name_fits_one_message_with_the_rest_one_tap_away(table: Table) -> None:
    hostile = (
        big_rules("wide")
        + "[patterns]\n"
        + "".join(
            f"{key} = {{ value = 100000, big = true }}\n" for key in ("pao", "menqing", "haidi", "hunyise", "qingyise")
        )
    )
    assert "存好了" in await send(table.referee, hostile, "wide")
    speaker = Speaker(id="A", name="A", by_name=True)
    response = await table.referee.handle(Incoming("group-1", speaker, "/rules wide"))
    assert response is not None
    shown = render_response(response, Translator(response.language))
    assert len(shown) <= MESSAGE_LIMIT
    assert any(choice.command.startswith("/rules all") for choice in response.choices)
    full = await table.say("A: /rules all wide")
    assert "跑 pao=100000" in full


async def test_anyone_may_look_at_all_the_rules(table: Table) -> None:
    await table.say("A: /new A B C D")
    assert "跑 pao=20" in await table.say("Z: /rules all")  # a question: no rights asked
    assert "/rules all 名字" in await table.say("A: /rules all a b")
