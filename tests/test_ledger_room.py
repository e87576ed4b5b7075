"""The ledger's room (#47 item 1, docs/rules.md 20): every number of a rule set is checked the same way
whatever door it comes by (typed, a file sent in the chat, RULES_DIR, a house rule, `rules=` on /new),
a rule set and a stake are refused together when the largest payment one event could produce would
not fit the ledger with room for years of nights (engine/bounds.py), and whatever a ledger holds,
/tab, /stats, /export all, /settled N and /summary answer.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.chat.service import Referee
from bot.store.ledger import Ledger
from engine.bounds import LEDGER_EVENTS, MOST_CENTS, largest_event, room
from engine.errors import EngineError
from engine.preset import MOST, PRESET_NAMES, load_preset, load_preset_text, resolved_builtin
from engine.rule_keys import read_file
from tests.kit.fake_telegram import FakeTelegram, user
from tests.kit.harness import Table
from tests.kit.telegram import Running

FAILED = ("出错了", "went wrong")

# The issue's sequence: a stake of 10000 and rules whose self-drawn win moves 3.2 × 10^16 cents from
# each other player (20 hard flowers × 100000 × 砸 100000 × 自摸 16).
ISSUE = [
    "A: /new A B C D 底=10000",
    "A: /rules set zha=100000 hard=100000 self_draw=16 cap=16",
    "A: /hu self 123m456m789m234p5p+5p flowers=20",
    "A: /summary",
    "A: 确认",
]
VIEWS = ["A: /tab", "A: /stats", "A: /stats 本月", "A: /stats 今年", "A: /export all", "A: /settled 1", "A: /summary"]


def answered(out: str) -> bool:
    return bool(out) and not any(word in out for word in FAILED)


async def test_the_issue_sequence_is_refused_at_the_door_and_every_view_answers(table: Table) -> None:
    said = [await table.say(line) for line in ISSUE[:2]]
    assert "这套规则一次最多可能付" in said[1] and "没有记录" in said[1]
    for line in ISSUE[2:]:
        assert answered(await table.say(line)), line
    await table.say("A: /new A B C D")
    for line in VIEWS:
        assert answered(await table.say(line)), line


# ---- one check of every number, whatever door it comes by ---------------------------------------------


@pytest.mark.parametrize("value", [-1, -1000, MOST + 1, 2**62, 2**70])
def test_a_rules_file_number_outside_0_to_100000_is_refused(value: int) -> None:
    raw, errors = read_file(f'base = "nanjing"\n[patterns]\npao = {value}\n')
    assert raw is None and [e.key for e in errors] == ["preset.out_of_range"]
    with pytest.raises(EngineError, match="out_of_range"):
        load_preset_text(f'base = "nanjing"\n[instant]\nflower_gang = {value}\n')


def test_the_bounds_themselves_are_rules() -> None:
    assert load_preset_text('base = "nanjing"\n[patterns]\npao = 100000\n').patterns["pao"].value == MOST
    assert load_preset_text('base = "nanjing"\n[instant]\nflower_gang = 0\n').instant.flower_gang == 0


def test_every_built_in_preset_fits_the_largest_stake() -> None:
    for name in PRESET_NAMES:
        assert room(load_preset(name)).fits(1_000_000), name


def test_the_ledgers_room_is_its_arithmetic() -> None:
    # 2^63 − 1 = 9,223,372,036,854,775,807 cents shared by 10^7 events of the largest payment
    assert MOST_CENTS == 922_337_203_685
    assert MOST_CENTS * LEDGER_EVENTS <= 2**63 - 1


def test_the_largest_event_of_nanjing_by_hand() -> None:
    # docs/rules.md 20: every soft flower 4 times but hard 20 (× 砸 2), every pattern 4 times, 40
    # soft flowers declared × 2, 垒宝塔 10 × 5000 (the longest night), × 比下胡 2, × 3 payers.
    soft = (20 * 1 + 4 * (1 + 2 + 2 + 2 + 1 + 1 + 1 + 1)) * 2  # hard; 风碰 明杠 加杠 暗杠 缺一 压档 边枝 单吊
    patterns = 4 * (20 + 20 + 40 + 60 + 40 + 60 + 80 + 160 + 240 + 320 + 180 + 40 + 40 + 20 + 40 + 320 + 280 + 10)
    total = soft + patterns + 40 * 1 * 2
    assert largest_event(load_preset("nanjing")) == (total + 10 * 5000) * 2 * 3 == 348_528


async def test_a_typed_value_above_the_bound_is_refused(table: Table) -> None:
    await table.say("A: /new A B C D")
    out = await table.say("A: /rules set 跑=100001")
    assert "0 到 100000" in out and "没有记录" in out


async def test_a_rules_file_in_the_operators_folder_is_checked_as_any(table: Table, tmp_path: Path) -> None:
    (tmp_path / "huge.toml").write_text('base = "nanjing"\nname = "huge"\n[patterns]\npao = 1000000\n')
    out = await table.say("A: /new A B C D rules=huge")
    assert "没有规则 huge" in out or "0 到 100000" in out
    assert "开始" not in out


async def test_rules_and_a_stake_are_refused_together(table: Table, tmp_path: Path) -> None:
    # pao 100000 with 跑 in every pattern slot: (4 × 100000 + the rest) × 2 × 3 payers, over 2.4 M
    # flowers: at 10000 a flower (10^6 cents) that is past 922,337,203,685 cents; at 1 it fits.
    (tmp_path / "big.toml").write_text('base = "nanjing"\nname = "big"\n[patterns]\npao = 100000\n')
    refused = await table.say("A: /new A B C D rules=big 底=10000")
    assert "底最多" in refused and "开始" not in refused
    assert "开始" in await table.say("A: /new A B C D rules=big 底=1")
    out = await table.say("A: 改底 10000")
    assert "底最多" in out


async def test_a_house_rule_kept_before_the_bounds_is_checked_at_new(table: Table) -> None:
    await table.say("A: /new A B C D")
    await table.say("A: /rules save friday")
    db = table.referee.nights.ledger._db
    rows = await db.execute_fetchall("SELECT chat_id, key, value FROM chat_settings WHERE key = 'house_rule:friday'")
    chat, key, value = rows[-1]
    friday = json.loads(value)
    friday["patterns"]["pao"] = 2**62
    planted = (chat, key, json.dumps(friday))
    await db.execute("INSERT INTO chat_settings (chat_id, key, value) VALUES (?, ?, ?)", planted)
    await db.commit()
    await table.say("A: 确认结算")
    await table.say("A: /summary")
    await table.say("A: 确认")
    out = await table.say("A: /new A B C D rules=friday")
    assert "0 到 100000" in out and "开始" not in out


# ---- whatever a ledger holds, its views answer -----------------------------------------------------


@pytest.fixture
async def planted(tmp_path: Path) -> AsyncIterator[Path]:
    yield tmp_path / "planted.sqlite3"


async def reopen(path: Path, tmp_path: Path) -> tuple[Ledger, Table]:
    ledger = await Ledger.open(path)
    return ledger, Table(Referee(ledger, rules_dir=tmp_path, charts_enabled=False), "group-1")


def plant_rules(path: Path, raw: dict[str, object]) -> None:
    """The open night's rules replaced in the file, as a ledger written before the bounds may hold them."""
    with sqlite3.connect(path) as db:
        db.execute("UPDATE nights SET preset_json = ? WHERE id = (SELECT MAX(id) FROM nights)", (json.dumps(raw),))


HOSTILE = {"win": {"zha": 100000}, "soft": {"hard": 100000}, "multipliers": {"self_draw": 16, "cap": 16}}


def hostile_rules(**over: object) -> dict[str, object]:
    raw = resolved_builtin("nanjing")
    for section, values in HOSTILE.items():
        raw[section] = {**raw.get(section, {}), **values}  # type: ignore[dict-item]
    return {**raw, **over}


@pytest.mark.parametrize(
    "rules",
    [
        pytest.param(hostile_rules(), id="the-issue's-rules"),
        pytest.param({**resolved_builtin("nanjing"), "patterns": {"pao": 2**62}}, id="pao-2^62"),
        pytest.param(
            {**resolved_builtin("nanjing"), "instant": {**resolved_builtin("nanjing")["instant"], "flower_gang": -100}},
            id="negative",
        ),
    ],
)
async def test_a_ledger_holding_rules_beyond_the_bounds_still_answers(
    planted: Path, tmp_path: Path, rules: dict[str, object]
) -> None:
    ledger, table = await reopen(planted, tmp_path)
    await table.say("A: /new A B C D 底=10000")
    await ledger.close()
    plant_rules(planted, rules)
    ledger, table = await reopen(planted, tmp_path)
    try:
        played = ("A: /hu self 123m456m789m234p5p+5p flowers=20", "A: 花杠", "A: /undo", "A: /summary", "A: 确认")
        for line in (*played, "A: /reopen", "A: /summary", "A: 确认"):
            assert answered(await table.say(line)), line
        await table.say("A: /new A B C D")
        await table.say("A: /hu self 123m456m789m234p5p+5p flowers=2")
        for line in VIEWS:
            assert answered(await table.say(line)), line
    finally:
        await ledger.close()


def plant_payments(path: Path, night: int, amount: int, money: int, count: int) -> None:
    """Payment rows added to a night's first event, straight into the file, and the figures built from
    the night before them dropped (a cache: the views build them again from the rows)."""
    with sqlite3.connect(path) as db:
        (event,) = db.execute("SELECT MIN(id) FROM events WHERE night_id = ?", (night,)).fetchone()
        db.executemany(
            "INSERT INTO payments (event_id, night_id, payer, payee, amount, money_cents, reason)"
            " VALUES (?, ?, 1, 0, ?, ?, 'win')",
            [(event, night, amount, money)] * count,
        )
        for table_name in ("night_figures", "night_people", "tallies", "tally_nets"):
            db.execute(f"DELETE FROM {table_name} WHERE night_id = ?", (night,))


@pytest.mark.parametrize(
    ("amount", "money", "count"),
    [
        pytest.param(348_528, MOST_CENTS, 40, id="the-largest-events-the-checks-allow"),
        # 10^7 of them, folded into ten rows of 10^6: the ledger's whole room, 9,223,372,036,850,000,000 cents
        pytest.param(348_528 * 10**6, MOST_CENTS * 10**6, 10, id="the-ledgers-whole-room"),
        pytest.param(2**62, 2**62, 3, id="rows-whose-sum-overflows"),
        pytest.param(2**63 - 1, 2**63 - 1, 2, id="rows-at-sqlite's-limit"),
    ],
)
async def test_planted_payments_leave_every_view_answering(
    planted: Path, tmp_path: Path, amount: int, money: int, count: int
) -> None:
    ledger, table = await reopen(planted, tmp_path)
    await table.play("A: /new A B C D 底=10000\nA: /hu self 123m456m789m234p5p+5p flowers=2\nA: /summary\nA: 确认")
    await ledger.close()
    plant_payments(planted, 1, amount, money, count)
    ledger, table = await reopen(planted, tmp_path)
    try:
        await table.play("A: /new A B C D\nA: /hu self 123m456m789m234p5p+5p flowers=2")
        for line in VIEWS:
            assert answered(await table.say(line)), line
    finally:
        await ledger.close()


async def test_nights_each_in_range_whose_sum_is_not_leave_every_view_answering(planted: Path, tmp_path: Path) -> None:
    ledger, table = await reopen(planted, tmp_path)
    night = "A: /new A B C D 底=10000\nA: /hu self 123m456m789m234p5p+5p flowers=2\nA: /summary\nA: 确认"
    await table.play(f"{night}\n{night}")
    await ledger.close()
    for number in (1, 2):  # each night's rows fit an INTEGER; the two summed do not
        plant_payments(planted, number, 6 * 10**12, 6 * 10**18, 1)  # 6 × 10^12 flowers at 10000 a flower
    ledger, table = await reopen(planted, tmp_path)
    try:
        await table.say("A: /new A B C D")
        # A each night: 6 × 10^16 planted + 3 × 46 flowers × 10000 = 60,000,000,001,380,000; twice:
        assert "+120000000002760000" in await table.say("A: /stats 本月")  # summed exactly, past 2^63 cents
        for line in VIEWS:
            assert answered(await table.say(line)), line
    finally:
        await ledger.close()


async def test_the_issue_sequence_through_telegram(fake: FakeTelegram, tmp_path: Path) -> None:
    alice = user(1, "Alice")
    async with Running(fake, tmp_path / "tg.sqlite3") as bot:
        await bot.say(alice, "/new @alice @bob @carol @dave 底=10000")
        out = await bot.say(alice, "/rules set zha=100000 hard=100000 self_draw=16 cap=16")
        assert "这套规则一次最多可能付" in out
        for line in ("/hu self 123m456m789m234p5p+5p flowers=20", "/summary", "确认"):
            assert answered(await bot.say(alice, line)), line
        for line in ("/tab", "/stats", "/stats 本月", "/export all"):
            assert answered(await bot.say(alice, line)), line
