"""House rules say what they are (#48 item 7, docs/rules.md 20): `/rules save NAME` after 确认结算
keeps the rules the latest night was played with; a rules file sent mid-night that would undo tonight's
`/rules set` values says so in one line; a rule set's description is derived from its numbers; the
change list never shows a rule set's name or words as a rule.
"""

from __future__ import annotations

from bot.chat.handlers.common import Upload
from bot.chat.service import Incoming, Speaker
from bot.text.replies import render_response
from locales import Translator
from tests.kit.harness import Table

FRIDAY = 'base = "nanjing"\nname = "friday"\n[patterns]\npao = 30\n'  # 跑 30; 门清 as nanjing's 20


async def send(table: Table, text: str, name: str) -> str:
    speaker = Speaker(id="A", name="A", by_name=True)
    upload = Upload(f"{name}.toml", len(text.encode()), text)
    response = await table.referee.handle(Incoming("group-1", speaker, "/rules", upload=upload))
    assert response is not None
    return render_response(response, Translator(response.language))


async def test_save_after_the_close_keeps_the_rules_the_night_was_played_with(table: Table) -> None:
    await table.play("A: /new A B C D\nA: /rules set 跑=10 门清=10\nA: /summary\nA: 确认")
    assert "存为 周五" in await table.say("A: /rules save 周五")
    shown = await table.say("A: /rules 周五")
    assert "跑 pao：20 → 10" in shown and "门清 menqing：20 → 10" in shown
    assert "规则 周五" in await table.say("A: /new A B C D rules=周五")
    assert "跑 pao=10" in await table.say("A: /rules all")


async def test_a_file_that_undoes_tonights_values_says_so(table: Table) -> None:
    await table.play("A: /new A B C D\nB: /pong C\nA: /rules set 跑=10 门清=10")
    out = await send(table, FRIDAY, "friday")
    undone = [line for line in out.splitlines() if "/rules set" in line and "门清" in line]
    assert len(undone) == 1 and "跑" in undone[0]  # both of tonight's values, one line


async def test_a_file_that_keeps_tonights_values_says_nothing_of_them(table: Table) -> None:
    await table.play("A: /new A B C D\nB: /pong C\nA: /rules set 门清=10")
    out = await send(table, FRIDAY.replace("pao = 30", "pao = 30\nmenqing = 10"), "friday")
    assert "改回" not in out and "undoes" not in out


async def test_a_rule_sets_description_is_its_numbers(table: Table) -> None:
    await table.say("A: /new A B C D")
    await send(table, FRIDAY, "friday")  # starts from nanjing, whose own words say 跑20
    header = (await table.say("A: /rules friday")).splitlines()[0]
    assert "跑30" in header and "跑20" not in header
    await table.play("A: /rules set 门清=10\nA: /rules save 周五")
    header = (await table.say("A: /rules 周五")).splitlines()[0]
    assert "跑30" in header and "南京麻将" not in header


async def test_the_change_list_shows_rules_not_a_name(table: Table) -> None:
    await table.play("A: /new A B C D\nB: /pong C")
    out = await send(table, FRIDAY, "friday")
    assert "跑 pao：20 → 30" in out
    assert "name" not in out and "nanjing → friday" not in out


async def test_a_changed_rule_set_lists_its_units_in_the_usual_order(table: Table) -> None:
    before = await table.say("A: /rules all")
    await table.play("A: /new A B C D\nA: /rules set 跑=10")
    after = await table.say("A: /rules all")

    def units(text: str) -> list[str]:
        return [line.split()[0] for line in text.splitlines() if line.startswith("  ") and "→" not in line]

    assert units(after) == units(before) and units(after)[0] == "风碰"
