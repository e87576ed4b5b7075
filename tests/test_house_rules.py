"""A group's own rules (#43 item 1, docs/rules.md 20): `/rules` lists every value a group may change
with its key, `/rules set KEY=VALUE …` changes tonight's from the next hand (a ledger event, undone
with /undo, kept at its place when the night is re-derived), a rules file sent to the group with the
caption `/rules` is checked whole and kept by name, `/new … rules=NAME` opens a night with the
group's house rules or an operator's file (RULES_DIR). The night's opener and the chat's admins may
change them.

Every figure is worked by hand from docs/rules.md (nanjing): worked example 1 is A's self-draw
`123m 456m 789m 234p 5p +5p`, 2 hard flowers: 跑 + 2 × (2 hard + 缺一 1) + 门清 20; worked example 2
is B's discard win `11p 567s 79s [EEE] [444p] +8s`, 4 hard flowers: 跑 + 2 × (4 + 压档 1 + 风碰 1 +
缺一 1), no 门清 (it holds pongs).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.chat.rule_words import ambiguous_key_words, key_named
from bot.chat.service import Incoming, Referee, Speaker
from bot.night import checkpoint as checkpoints
from bot.store.ledger import Ledger
from bot.telegram.settings import BadSetting, Settings
from bot.text.replies import render_response
from bot.views.house_rules import label_key, short_names
from engine.errors import EngineError
from engine.events import SetRules
from engine.preset import load_preset
from engine.rule_keys import change_of, chat_keys, format_keys, read_file, rules_after, values_of
from engine.table import new_table
from locales import LANGUAGES, Translator, load_catalog
from tests.kit.fake_telegram import FakeTelegram, user
from tests.kit.harness import Table
from tests.kit.messages import changes
from tests.kit.telegram import GROUP, Running, balances

WIN_1 = "123m 456m 789m 234p 5p +5p flowers=2"  # worked example 1, self-drawn
WIN_2 = "11p 567s 79s [EEE] [444p] +8s flowers=4"  # worked example 2, on a discard

# A night whose rules change in its first hand (after a pong: the hand has begun, so from hand 2).
NIGHT = f"""
A: /new A B C D
B: /pong C
A: /rules set 跑=10 跟牌=6 比下胡-=荒庄
B: /hu C {WIN_2}
A: /draw
A: /penalty follow D
A: /hu self {WIN_1}
"""
# Hand 1 (A deals), played by nanjing as it opened (跑 20): B wins on C's discard, 20 + 2 × 7 = 34,
#   C → B 34. No 比下胡 trigger (a small win by a non-dealer): B deals hand 2, not doubled.
# Hand 2 (B deals), the new rules: a draw, no longer a 比下胡 trigger, so B does not stay: C deals hand
#   3, not doubled (by nanjing the draw would have doubled hand 3 and kept B dealing).
# Hand 3 (C deals): 跟牌 by D at the new 6: D → A, B, C 6 each. A self-draws with 跑 10:
#   10 + 2 × 3 + 20 = 36 from each.
#   A 6 + 108 = 114 · B 34 + 6 − 36 = 4 · C −34 + 6 − 36 = −64 · D −18 − 36 = −54 (sum 0)
NIGHT_BALANCES = {"A": 114, "B": 4, "C": -64, "D": -54}


async def say_as(referee: Referee, name: str, text: str, admin: bool = False, private: bool = False) -> str:
    speaker = Speaker(id=name, name=name, by_name=True, is_admin=admin)
    response = await referee.handle(Incoming("group-1", speaker, text, private=private))
    return render_response(response, Translator(response.language)) if response is not None else ""


# ---- /rules: every value a group may change, with its key ----------------------------------------


async def test_rules_lists_every_value_a_group_may_change_with_its_key(table: Table) -> None:
    await table.say("A: /new A B C D")
    out = await table.say("/rules all")
    nanjing = values_of(load_preset("nanjing"))
    listed = [key for key in chat_keys() if key in nanjing]
    assert all(f" {short_names()[key]}=" in out for key in listed)
    for line in (
        "跑 pao=20",
        "门清 menqing=20",
        "明杠 exposed_gang=6",
        "跟牌 penalty_follow=10",
        "垒宝塔 leibaota_step=10",
    ):
        assert line in out
    assert "比下胡 triggers=大胡、" in out and "荒庄" in out
    # a key nanjing.toml leaves to its default is listed too: the keys are the reader's, not the file's
    assert "四风归齐 four_winds=0" in out and "自摸倍数 self_draw=1" in out


async def test_rules_in_english_name_the_same_keys(table: Table) -> None:
    await table.say("/lang en")
    out = await table.say("/rules all")
    assert "base pao=20" in out and "exposed gang exposed_gang=6" in out and "doubles the next hand triggers=" in out


def test_every_changeable_key_has_a_name_in_every_language_and_no_name_stands_for_two() -> None:
    for language in LANGUAGES:
        catalog = load_catalog(language).singular
        assert [key for key in chat_keys() if label_key(key) not in catalog] == [], language
    assert ambiguous_key_words() == frozenset()
    assert key_named("跑") == key_named("pao") == key_named("patterns.pao") == "patterns.pao"
    assert key_named("直杠") == key_named("明杠") == key_named("exposed_gang") == "instant.exposed_gang"
    assert key_named("跟牌") == "instant.penalty_follow" and key_named("比下胡") == "bixiahu.triggers"
    assert key_named("門清") == key_named("Concealed hand") == "patterns.menqing"  # any script, any case
    assert key_named("暗杠软花") == "soft.gang_concealed" and key_named("暗杠") == "instant.concealed_gang"


def test_the_keys_are_read_off_the_engines_reader() -> None:
    # every key the reader asks for is a key of the format; the chat may change numbers, yes/no, a
    # choice and sets, never what a night opens with (start, chips) nor a file's own words
    assert set(chat_keys()) <= set(format_keys())
    assert "start" in format_keys() and "chips.start" in format_keys()
    assert not {"start", "chips.start", "chips.enabled", "name", "description"} & set(chat_keys())
    assert {"patterns.pao", "soft.hard", "instant.four_winds", "bixiahu.triggers", "liability.kinds"} <= set(
        chat_keys()
    )
    assert "patterns.yajue.big" in format_keys() and "patterns.yajue.big" not in chat_keys()


# ---- /rules set ----------------------------------------------------------------------------------


async def test_a_change_plays_from_the_next_hand_and_the_money_follows_it(table: Table) -> None:
    out = await table.play(NIGHT)
    assert "✅ #3 规则改了，从第 2 盘起：" in out
    assert "跑 pao：20 → 10" in out and "跟牌 penalty_follow：10 → 6" in out and "比下胡 triggers：−荒庄" in out
    assert await table.balances() == NIGHT_BALANCES
    rules = await table.say("/rules all")
    assert "今晚改过" in rules and "跑 pao：20 → 10" in rules and "跑 pao=10" in rules
    history = await table.say("/history")
    assert "#3 [第1盘] 改规则：/rules set 跑=10 跟牌=6 比下胡-=荒庄（A）" in history
    assert "改规则：跑=10、跟牌=6、比下胡-=荒庄" in await table.say("/history #3")


async def test_a_change_before_anything_is_played_counts_from_that_hand(table: Table) -> None:
    await table.say("A: /new A B C D")
    out = await table.say("A: /rules set pao=10")
    assert "从这一盘（第 1 盘）起" in out
    await table.say(f"B: /hu self {WIN_1}")
    # 10 + 2 × 3 + 20 = 36 from each (B does not deal: no dealer win)
    assert await table.balances() == {"A": -36, "B": 108, "C": -36, "D": -36}


async def test_bad_keys_and_values_are_named_all_at_once_and_nothing_changes(table: Table) -> None:
    await table.say("A: /new A B C D")
    before = await table.row_counts()
    out = await table.say("A: /rules set 跑=x foo=3 门清+=2 比下胡+=nope 暗杠=-1 start=5 yajue.big=否 zha=2 zha=3 乱写")
    assert "规则没改" in out
    for said in (
        "跑=x：要写 0 到 100000 的整数",
        "foo：没有这一项",
        "门清+=2：+= 和 -= 只能用在一组值上",
        "比下胡：没有 nope",
        "暗杠=-1：要写 0 到 100000 的整数",
        "start：开局时才定",
        "yajue.big：在群里不能这样改，请发规则文件",
        "zha 写了两次",
        "乱写：要写成 键=值",
    ):
        assert said in out, said
    assert await table.row_counts() == before
    assert "跑 pao=20" in await table.say("/rules all")


async def test_a_value_the_engine_refuses_is_named_and_nothing_changes(table: Table) -> None:
    await table.say("A: /new A B C D")
    before = await table.row_counts()
    out = await table.say("A: /rules set 跑=20")
    assert "这些值本来就是这样" in out  # no change: no event either
    assert await table.row_counts() == before


async def test_an_undone_change_re_derives_the_night(table: Table) -> None:
    await table.play(NIGHT)
    out = await table.say("A: /undo 3")
    # As nanjing again: hand 2's draw is a 比下胡 trigger, so B stays (连庄 1) and hand 3 is doubled
    # with 垒宝塔 N = 1. Hand 3: 跟牌 10 × 2 = 20 from D to each; A's self-draw 20 + 6 + 20 = 46,
    # (46 + 10 × 1) × 2 = 112 from each. Hand 1 is as it was (B +34, C −34).
    #   A 20 + 336 = 356 · B 34 + 20 − 112 = −58 · C −34 + 20 − 112 = −126 · D −60 − 112 = −172 (sum 0)
    # The correction moves A +242, B −62, C −62, D −118.
    assert (
        changes(("A", "+242", "+242"), ("B", "−62", "−62"), ("C", "−62", "−62"), ("D", "−118", "−118")) in out
    )  # at 1 元 a flower: money as the flowers
    assert await table.balances() == {"A": 356, "B": -58, "C": -126, "D": -172}


async def test_a_change_keeps_its_place_when_an_earlier_line_is_undone(table: Table) -> None:
    await table.play(NIGHT)
    await table.say("A: /undo 4")  # B's win in hand 1 never happened
    # The log is now: B's pong, the change (hand 1 had begun: from hand 2), the draw, the 跟牌, A's win.
    # Hand 1 (A deals) ends in the draw, settled by nanjing: a trigger, so A stays and hand 2 is
    #   doubled (连庄 1, 垒宝塔 N = 1).
    # Hand 2 (A deals), the new rules, doubled: 跟牌 6 × 2 = 12 from D to each; A's self-draw
    #   10 + 6 + 20 = 36, (36 + 10 × 1) × 2 = 92 from each.
    #   A 12 + 276 = 288 · B 12 − 92 = −80 · C 12 − 92 = −80 · D −36 − 92 = −128 (sum 0)
    assert await table.balances() == {"A": 288, "B": -80, "C": -80, "D": -128}


async def test_a_change_during_a_hand_stacks_on_one_waiting_for_the_next(table: Table) -> None:
    await table.say("A: /new A B C D")
    await table.say("B: /pong C")
    await table.say("A: /rules set 跑=10")
    out = await table.say("A: /rules set 门清=10")
    assert "从第 2 盘起" in out and "门清 menqing：20 → 10" in out
    rules = await table.say("/rules all")
    assert "第 2 盘起再改：" in rules and "跑 pao：20 → 10" in rules and "跑 pao=20" in rules
    await table.say("B: /draw")
    await table.say(f"B: /hu self {WIN_1}")
    # hand 1 was a draw (a trigger: A stays, hand 2 doubled, N = 1): B's self-draw 10 + 6 + 10 = 26,
    # (26 + 10) × 2 = 72 from each
    assert await table.balances() == {"A": -72, "B": 216, "C": -72, "D": -72}


async def test_start_points_and_chips_wait_for_a_new_night(table: Table) -> None:
    await table.say("A: /new A B C D")
    assert "start：开局时才定" in await table.say("A: /rules set start=1000")
    with pytest.raises(EngineError) as refused:  # 进园子's chips start with the night
        rules_after(load_preset("jinyuanzi"), SetRules((change_of("chips.start", "=", 50),)))
    assert refused.value.key == "rules.night_only" and refused.value.params == {"key": "chips.start"}


# ---- who may -------------------------------------------------------------------------------------


async def test_the_opener_and_admins_may_change_the_rules_players_may_not(referee: Referee) -> None:
    await say_as(referee, "A", "/new A B C D")
    assert "只有开这局的人和群管理员能改规则" in await say_as(referee, "B", "/rules set 跑=10")
    assert "✅ #2 规则改了" in await say_as(referee, "Admin", "/rules set 跑=10", admin=True)
    assert "只有开这局的人和群管理员能改规则" in await say_as(referee, "B", "/undo 2")  # undoing is changing
    assert "撤销了 #2" in await say_as(referee, "A", "/undo 2")
    assert "只有开这局的人和群管理员能改规则" in await say_as(referee, "B", "/rules save ours")
    assert "规则是群里的事" in await say_as(referee, "A", "/rules set 跑=10", private=True)
    assert "/rules set" in await say_as(referee, "B", "/rules")  # anyone may look


async def test_a_rules_change_cannot_be_fixed_only_undone(table: Table) -> None:
    await table.say("A: /new A B C D")
    await table.say("A: /rules set 跑=10")
    before = await table.row_counts()
    assert "#2（改规则）不能修改" in await table.say("A: /fix 2 /rules set 跑=15")
    assert await table.row_counts() == before


async def test_a_set_takes_values_by_name_in_order(table: Table) -> None:
    await table.say("A: /new A B C D")
    out = await table.say("A: /rules set 包牌=快照,抢杠 连庄+=荒庄，花杠")
    assert "包牌 kinds：抢杠 > 大杠开花 > 快照 > 清一色三嘴 → 快照 > 抢杠" in out
    assert "连庄 stays_on：+荒庄 +花杠" in out


# ---- house rules by name -------------------------------------------------------------------------


async def test_saved_rules_open_a_later_night_and_may_be_the_default(table: Table) -> None:
    await table.say("A: /new A B C D")
    await table.say("A: /rules set 跑=10")
    assert "现在的规则存为 ours" in await table.say("A: /rules save ours")
    assert "不能当规则的名字" in await table.say("A: /rules save nanjing")
    await table.say("A: /summary")
    await table.say("A: yes")
    assert "规则 ours" in await table.say("A: /new A B C D rules=ours")
    await table.say(f"B: /hu self {WIN_1}")
    assert await table.balances() == {"A": -36, "B": 108, "C": -36, "D": -36}  # 10 + 6 + 20 from each
    assert "以后不写规则开局都用 ours" in await table.say("A: /rules default ours")
    await table.say("A: /summary")
    await table.say("A: yes")
    assert "规则 ours" in await table.say("A: /new A B C D")  # a bare /new plays the group's default
    assert "本群的规则：ours" in await table.say("/rules all")
    assert "规则 ours 删了" in await table.say("A: /rules drop ours")
    assert "不写规则开局时用：nanjing" in await table.say("/rules all")


async def test_an_operators_file_opens_a_night_by_name(table: Table, tmp_path: Path) -> None:
    # the harness's referee reads tmp_path as its rules folder (the console's is its own folder)
    (tmp_path / "ourtable.toml").write_text('base = "nanjing"\nname = "ourtable"\n[patterns]\npao = 10\n', "utf-8")
    assert "管理员另备：ourtable" in await table.say("/rules all")
    assert "跑 pao：20 → 10" in await table.say("/rules ourtable")  # short: what differs from nanjing
    assert "规则 ourtable" in await table.say("A: /new A B C D rules=ourtable.toml")
    await table.say(f"B: /hu self {WIN_1}")
    assert await table.balances() == {"A": -36, "B": 108, "C": -36, "D": -36}


async def test_an_operators_file_is_found_only_inside_its_folder(table: Table, tmp_path: Path) -> None:
    inner = tmp_path / "rules"
    inner.mkdir()
    (tmp_path / "secret.toml").write_text('base = "nanjing"\nname = "secret"\n', "utf-8")
    referee = Referee(table.referee.nights.ledger, rules_dir=inner, charts_enabled=False)
    assert "没有规则 ../secret" in await say_as(referee, "A", "/new A B C D rules=../secret")


async def test_a_bad_operators_file_names_every_error(table: Table, tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('base = "nanjing"\nname = "bad"\n[patterns]\npao = "ten"\nnope = 1\n', "utf-8")
    out = await table.say("A: /new A B C D rules=bad")
    assert "规则文件的 patterns.pao 值不对" in out and "不认识的项：patterns.nope" in out
    assert await table.row_counts() == (0, 0, 0)


def test_read_file_names_every_bad_key_and_value() -> None:
    text = (
        'base = "nanjing"\nname = "x"\n[patterns]\npao = "ten"\nfoo = 3\n[instant]\nbar = 1\n'
        '[bixiahu]\ntriggers = ["nope"]\n'
    )
    raw, errors = read_file(text)
    assert raw is None
    assert [(e.key, e.params["key"]) for e in errors] == [
        ("preset.bad_value", "patterns.pao"),
        ("preset.unknown_key", "patterns.foo"),
        ("preset.unknown_key", "instant.bar"),
        ("preset.bad_value", "bixiahu.triggers"),
    ]
    _, missing = read_file('name = "x"\n[win]\nzha = 2\n')  # no base: every required key named
    assert {e.params["key"] for e in missing} >= {"win.small_hu_min_hard", "instant.exposed_gang", "dealer.stays_on"}


# ---- the ledger: a restart, a checkpoint ---------------------------------------------------------


async def test_a_changed_rule_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    first = Referee(await Ledger.open(path), charts_enabled=False)
    await say_as(first, "A", "/new A B C D")
    await say_as(first, "A", "/rules set 跑=10")
    await say_as(first, "B", f"/hu self {WIN_1}")  # hand 1 closes: its checkpoint holds the rules in force
    await first.close()
    again = Referee(await Ledger.open(path), charts_enabled=False)
    assert "跑 pao=10" in await say_as(again, "A", "/rules all")
    await say_as(again, "C", f"/hu self {WIN_1}")
    # hand 1: B 36 from each; hand 2 (B deals; no trigger): C 36 from each
    night = await again.night_json("group-1")
    assert night is not None and night["balances"] == {"A": -72, "B": 72, "C": 72, "D": -72}
    await again.close()


def test_a_checkpoint_holds_the_rules_only_when_a_change_made_them() -> None:
    nanjing = load_preset("nanjing")
    changed = rules_after(nanjing, SetRules((change_of("patterns.pao", "=", 10),)))
    plain = new_table(nanjing)
    assert "rules" not in json.loads(checkpoints.encode_state(plain, nanjing))
    stored = checkpoints.encode_state(new_table(changed), nanjing)
    assert checkpoints.decode_state(stored, nanjing).preset.rules["pao"].value == 10


# ---- Telegram: a rules file sent as a document; RULES_DIR ----------------------------------------

ALICE, BOB = user(1, "Alice"), user(2, "Bob")
OPEN = "/new @alice @bob @carol @dave"
OURS = 'base = "nanjing"\nname = "ours"\n[patterns]\npao = 10\n[instant]\npenalty_follow = 6\n'


async def test_a_rules_file_sent_to_the_group_is_kept_and_played_from_the_next_hand(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, OPEN)
        await bot.say(ALICE, "/penalty follow dave")  # hand 1 has begun: by nanjing, 10 from Dave to each
        out = await bot.send_file(ALICE, "/rules", "ours.toml", OURS.encode())
        assert "规则 ours 存好了" in out and "从第 2 盘起" in out and "跑 pao：20 → 10" in out
        assert fake.downloads == ["documents/doc1.toml"]
        await bot.say(BOB, f"/hu self {WIN_1}")  # hand 1, nanjing: 20 + 6 + 20 = 46 from each
        # the 跟牌 doubled hand 2 and Alice (the dealer) stays, 连庄 1: hand 2 by the file, Carol's
        # self-draw 10 + 6 + 20 = 36, (36 + 10 × 1) × 2 = 92 from each
        await bot.say(user(3, "Carol"), f"/hu self {WIN_1}")
    # Alice 10 − 46 − 92 = −128 · Bob 10 + 138 − 92 = 56 · Carol 10 − 46 + 276 = 240 · Dave −30 − 46 − 92 = −168
    assert await balances(db) == [-128, 56, 240, -168]


async def test_a_bad_rules_file_is_refused_naming_every_error(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    bad = 'base = "nanjing"\nname = "ours"\n[patterns]\npao = "ten"\nnope = 1\n[bixiahu]\ntriggers = ["rain"]\n'
    async with Running(fake, db) as bot:
        await bot.say(ALICE, OPEN)
        out = await bot.send_file(ALICE, "/rules", "ours.toml", bad.encode())
        assert "规则文件没收" in out
        assert "patterns.pao" in out and "patterns.nope" in out and "bixiahu.triggers" in out
        assert "'rain'" in out
        out = await bot.send_file(ALICE, "/rules", "broken.toml", b"[patterns\npao = 10\n")
        assert "不是有效的 TOML" in out
        assert "跑 pao=20" in await bot.say(ALICE, "/rules all")


async def test_a_rules_file_too_big_is_refused_before_it_is_fetched(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db) as bot:
        await bot.say(ALICE, OPEN)
        out = await bot.send_file(ALICE, "/rules", "huge.toml", b"# " * 40_000)
        assert "huge.toml 有 78 KB，规则文件最多 64 KB" in out
        assert fake.downloads == []  # its size was asked first: never fetched


async def test_only_the_opener_and_admins_send_rules_files(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "tg.sqlite3"
    fake.admins[GROUP] = [5]
    eve = user(5, "Eve")
    async with Running(fake, db) as bot:
        await bot.say(ALICE, OPEN)
        assert "只有开这局的人和群管理员能改规则" in await bot.send_file(BOB, "/rules", "ours.toml", OURS.encode())
        assert "规则 ours 存好了" in await bot.send_file(eve, "/rules", "ours.toml", OURS.encode())


async def test_rules_dir_gives_every_group_the_operators_files(fake: FakeTelegram, tmp_path: Path) -> None:
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "friday.toml").write_text('base = "nanjing"\nname = "friday"\n[patterns]\npao = 10\n', "utf-8")
    db = tmp_path / "tg.sqlite3"
    async with Running(fake, db, rules_dir=folder) as bot:
        assert "规则 friday" in await bot.say(ALICE, f"{OPEN} rules=friday")
        await bot.say(BOB, f"/hu self {WIN_1}")
    assert await balances(db) == [-36, 108, -36, -36]  # 10 + 6 + 20 from each


def test_rules_dir_must_be_a_folder(tmp_path: Path) -> None:
    assert Settings.from_environment({"RULES_DIR": str(tmp_path)}).rules_dir == str(tmp_path)
    with pytest.raises(BadSetting, match="RULES_DIR"):
        Settings.from_environment({"RULES_DIR": str(tmp_path / "missing")})
