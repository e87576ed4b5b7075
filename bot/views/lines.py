"""Read-only answers built from the ledger and the table state: score, history, rules, summary."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from itertools import pairwise

from bot.night.night import Night
from bot.night.people import Person, merged_index, stake_runs
from bot.night.records import EventRow, LineText, NightRow, PaymentRow, Seat
from bot.night.tally import PlayerTally, Tally
from bot.text.replies import LIST, Chinese, Joined, Reply
from engine.preset import PRESET_NAMES, Preset, load_preset
from engine.scoring import DISPLAY_RANK
from engine.settlement import Factor
from engine.table import TableState
from engine.transfers import minimal_transfers
from engine.units import UnitRule

SEAT_KEYS = ("seat.east", "seat.south", "seat.west", "seat.north")


def format_money(cents: int) -> str:
    """Minor units to a plain decimal string: 1250 -> "12.50", 1200 -> "12", -50 -> "-0.50"."""
    value = Decimal(cents) / 100
    return f"{value:.0f}" if cents % 100 == 0 else f"{value:.2f}"


def unit_key(preset: Preset) -> str:
    return "unit_name.chips" if preset.chips.enabled else "unit_name.flowers"


def payment_lines(payments: Sequence[PaymentRow], seats: Sequence[Seat], preset: Preset) -> list[Reply]:
    return [
        Reply(
            "pay.line",
            {
                "payer": seats[p.payer].name,
                "payee": seats[p.payee].name,
                "amount": p.amount,
                "unit": Reply(unit_key(preset)),
                "money": format_money(p.money_cents),
            },
        )
        for p in payments
    ]


def factor_lines(factors: Sequence[Factor], seats: Sequence[Seat]) -> list[Reply]:
    """One line per multiplier the engine applied: 比下胡 ×2, 垒宝塔 (48 + 10×1) × 2 = 116, 包牌 ..."""
    lines: list[Reply] = []
    for factor in factors:
        params: dict[str, object] = dict(factor.params)
        if "liable" in params:
            params["liable"] = seats[factor.params["liable"]].name
        if factor.parts:
            parts = tuple(Reply(f"multiplier.{key}", {"factor": value}) for key, value in factor.parts)
            params["parts"] = Joined(parts, " · ")
        lines.append(Reply(f"factor.{factor.key}", params))
    return lines


def mixes_stakes(schedule: Sequence[tuple[int, int]], hand: int) -> bool:
    """Whether the night's hands up to `hand` (the one being played) were played for more than one
    stake (a 改底 that changed what a hand is played for): then flowers no longer say what anyone
    takes home, and the board, the ranking and the chart go by money (docs/rules.md 17d)."""
    return len(stake_runs(schedule, hand)) > 1


def money_first(night: Night) -> bool:
    """Whether the night's figures go by money alone now (`mixes_stakes` up to the hand being played):
    the board, the chart and a correction's changes decide it here, so they never disagree."""
    return mixes_stakes(night.stake_schedule(), night.state.hand_no)


def balance_unit(preset: Preset) -> Reply:
    """What a balance counts: flowers (or chips), points for a preset that starts from a count (敞开头)."""
    return Reply("unit_name.points" if preset.start else unit_key(preset))


def signed(amount: int) -> str:
    """`+6`, `−18` (a true minus sign), `0`: a change, said with its direction."""
    return f"+{amount}" if amount > 0 else f"−{-amount}" if amount < 0 else "0"


def signed_money(cents: int) -> str:
    """A change of money: `+3`, `−0.50`, `0`."""
    return f"+{format_money(cents)}" if cents > 0 else f"−{format_money(-cents)}" if cents < 0 else "0"


def balance(amount: int, unit: Reply, cents: int, mixed: bool) -> Reply:
    """A person's figure: `-47 花（8 元）` while every hand was played for one stake (money is the
    flowers × the stake, so the two agree); money alone, `8 元`, in a night that mixes stakes, where
    a net flower count can say the opposite of what the person takes home."""
    if mixed:
        return Reply("balance.money", {"money": format_money(cents)})
    return Reply("balance.both", {"amount": amount, "unit": unit, "money": format_money(cents)})


def balance_change(amount: int, unit: Reply, cents: int, mixed: bool) -> Reply:
    """What a correction moved a person's figure by, in the figure's own words: `+6 花（+3 元）`, or
    `−9 元` alone once the night mixes stakes (`balance`)."""
    if mixed:
        return Reply("balance.money", {"money": signed_money(cents)})
    return Reply("balance.both", {"amount": signed(amount), "unit": unit, "money": signed_money(cents)})


def seat_name(seat: Seat) -> str | Reply:
    """A seat's player, or `（空位）` for a seat freed by /unseat: never an empty name."""
    return seat.name or Reply("night.free_seat")


def scoreboard(
    seats: Sequence[Seat],
    state: TableState,
    amounts: Sequence[int],
    money: Sequence[int],
    left: Sequence[Person] = (),
    mixed: bool = False,
) -> Reply:
    """The compact status line: hand, round, dealer, ×2, and each player's balance; then whoever
    left the table tonight (a 换人) with what they keep, so the board follows people and sums to 0.
    `mixed`: the night mixes stakes (`mixes_stakes`), so each balance is money alone."""
    start = state.preset.start
    unit = balance_unit(state.preset)  # every figure says what it is: 敞开头 shows points
    parts = [
        Reply(
            "board.person",
            {
                "seat": Reply(SEAT_KEYS[i]),
                "name": seat_name(seats[i]),
                "amount": start + amounts[i],
                "money": format_money(money[i]),
                "balance": balance(start + amounts[i], unit, money[i], mixed),
            },
        )
        for i in range(4)
    ]
    parts.extend(left_line(person, state.preset, mixed) for person in left)
    flags: list[Reply] = []
    if state.doubled or state.preset.every_hand_doubled:
        flags.append(Reply("board.doubled", {"factor": state.preset.doubling_factor}))
    if state.preset.jiang_passes:
        flags.append(Reply("board.jiang", {"passes": state.dealer_passes, "of": state.preset.jiang_passes}))
    if state.dealer_streak:
        flags.append(Reply("board.streak", {"streak": state.dealer_streak}))
    if state.chips is not None:
        flags.append(Reply("board.chips", {"chips": " / ".join(str(c) for c in state.chips)}))
    return Reply(
        "board.header",
        {
            "hand": state.hand_no,
            "round": state.round_no,
            "dealer": seat_name(seats[state.dealer]),
            "flags": Joined(tuple(flags), ""),  # each flag opens with its own " · "
            "players": Joined(tuple(parts), "\n"),
        },
    )


def left_line(person: Person, preset: Preset, mixed: bool = False) -> Reply:
    """`  张伟（已离座）：-95 花（-95 元）`: one who stood up tonight, on the board until the night closes
    (`-95 元` alone in a night that mixes stakes)."""
    unit = balance_unit(preset)
    amount = preset.start + person.amount
    params = {"name": person.name, "amount": amount, "money": format_money(person.money_cents)}
    return Reply("score.left", {**params, "balance": balance(amount, unit, person.money_cents, mixed)})


def history(
    events: Sequence[EventRow],
    texts: Mapping[int, LineText],
    reversed_ids: set[int],
    hands: Mapping[int, int],
    fixed_by: Mapping[int, int] | None = None,
    shown: Mapping[int, Reply] | None = None,
    merges: Mapping[int, int] | None = None,
    number: Callable[[int], int | str] = lambda event_id: event_id,
) -> list[Reply]:
    """The latest log lines, each as typed (`texts`: Night.texts of these rows); `hands` gives each
    event's hand as the corrected night has it, and `fixed_by` which event corrected a line (shown
    instead of "undone"), `shown` what a line that is not for people to read (a guided flow's
    token) stands for, `merges` the rows that joined another winner to a win on one discard (each
    with the row it joined): one win, read as such. `number`: the number tonight's players know a
    row by (Night.shown)."""
    lines: list[Reply] = []
    fixed_by, merges = fixed_by or {}, merges or {}
    joined_by: dict[int, int] = {}  # a first win, by the first claim that joined it
    for row, first in sorted(merges.items()):
        joined_by.setdefault(first, row)
    for event in events:
        key = "history.line_undone" if event.id in reversed_ids else "history.line"
        kind = "win" if event.id in merges else event.kind  # a second winner is a win, not a correction
        params: dict[str, object] = {
            "id": number(event.id),
            "hand": hands.get(event.id, event.hand_no),
            "kind": Reply(f"kind.{kind}"),
            "text": (shown or {}).get(event.id, texts[event.id].raw_text),
            "speaker": event.speaker,
        }
        if event.id in reversed_ids and fixed_by.get(event.id) in merges:
            key, params = "history.line_joined", {**params, "with": number(fixed_by[event.id])}
        elif event.id in reversed_ids and event.id in fixed_by:
            key, params = "history.line_fixed", {**params, "by": number(fixed_by[event.id])}
        elif event.id in joined_by and event.id not in merges:  # the first win, a claim joined it
            key, params = "history.line_joined", {**params, "with": number(joined_by[event.id])}
        elif event.id in merges and event.id not in reversed_ids:
            key, params = "history.line_joining", {**params, "first": number(merges[event.id])}
        lines.append(Reply(key, params))
    return lines or [Reply("history.empty")]


def _about(preset: Preset) -> Reply:
    """A built-in preset's one-line description from the catalogs (English reads English), while its
    numbers are the preset's; any other rule set's is derived from its numbers (docs/rules.md 20), and
    its authors' own words follow — unless they are a built-in preset's, inherited with `base`."""
    if preset.name in PRESET_NAMES and preset == load_preset(preset.name):
        return Reply(f"preset.about.{preset.name}")
    instant = preset.instant
    pao = preset.patterns.get("pao")
    numbers = {
        "pao": pao.value if pao else 0,
        "zha": preset.zha,
        "exposed": instant.exposed_gang,
        "added": instant.added_gang,
        "concealed": instant.concealed_gang,
        "flower": instant.flower_gang,
        "follow": instant.penalty_follow,
    }
    words = preset.description
    if not words or words in builtin_descriptions():
        return Reply("rules.about_numbers", numbers)
    return Reply("rules.about_numbers_words", {**numbers, "words": Chinese(words)})


@cache
def builtin_descriptions() -> frozenset[str]:
    return frozenset(load_preset(name).description for name in PRESET_NAMES)


def rules(preset: Preset, stake_cents: int) -> list[Reply]:
    lines = [
        Reply(
            "rules.header",
            {"name": preset.name, "description": _about(preset), "stake": format_money(stake_cents)},
        )
    ]
    lines.append(
        Reply(
            "rules.formula",
            {
                "zha": preset.zha,
                "mode": Reply(f"rules.mode_{preset.patterns_mode}"),
                "min_hard": preset.small_hu_min_hard,
            },
        )
    )
    instant = preset.instant
    lines.append(
        Reply(
            "rules.instant",
            {
                "exposed": instant.exposed_gang,
                "added": instant.added_gang,
                "concealed": instant.concealed_gang,
                "flower": instant.flower_gang,
                "follow": instant.penalty_follow,
                "four": instant.penalty_four,
            },
        )
    )
    if "hard" in preset.soft:  # a count the players give, not a soft flower
        lines.append(Reply("rules.hard", {"value": preset.soft["hard"].value}))
    lines.append(Reply("rules.soft_header"))
    lines.extend(
        Reply("rules.unit", {"name": Reply(f"unit.{k}"), "value": r.value})
        for k, r in in_display_order(preset.soft)
        if k != "hard"
    )
    lines.append(Reply("rules.pattern_header"))
    lines.extend(_pattern_line(key, rule) for key, rule in in_display_order(preset.patterns))
    if preset.triggers:
        triggers = Joined(tuple(Reply(f"trigger.{t}") for t in sorted(preset.triggers)), LIST)
        lines.append(Reply("rules.triggers", {"triggers": triggers, "factor": preset.doubling_factor}))
    if preset.triggers and preset.leibaota_step:
        lines.append(Reply("rules.leibaota", {"step": preset.leibaota_step, "factor": preset.doubling_factor}))
    if preset.dealer_stays_on:
        reasons = Joined(tuple(Reply(f"trigger.{r}") for r in sorted(preset.dealer_stays_on)), LIST)
        lines.append(Reply("rules.dealer", {"reasons": reasons}))
    lines.extend(_changkaitou_rules(preset))
    if preset.chips.enabled:
        lines.append(
            Reply(
                "rules.chips",
                {"start": preset.chips.start, "divisor": preset.chips.divisor, "fixed": preset.liability.fixed},
            )
        )
    lines.append(Reply("rules.not_enforced"))
    return lines


def in_display_order(rules: Mapping[str, UnitRule]) -> list[tuple[str, UnitRule]]:
    """Units in the order the engine shows them (engine/units.py), whatever order their rules were
    stored in: a rule set changed tonight is kept with sorted keys."""
    return sorted(rules.items(), key=lambda pair: DISPLAY_RANK.get(pair[0], len(DISPLAY_RANK)))


def _changkaitou_rules(preset: Preset) -> list[Reply]:
    """The lines only some presets need: every hand doubled, 四风归齐, 包子 order, 将, start points."""
    lines: list[Reply] = []
    if preset.every_hand_doubled:
        lines.append(Reply("rules.every_hand", {"factor": preset.doubling_factor}))
    if preset.instant.four_winds:
        lines.append(Reply("rules.four_winds", {"amount": preset.instant.four_winds}))
    if any(kind in CHANGKAITOU_LIABILITIES for kind in preset.liability.kinds):
        kinds = Joined(tuple(Reply(f"liability.{k}") for k in preset.liability.kinds), " > ")
        lines.append(Reply("rules.liabilities", {"kinds": kinds}))
    if preset.jiang_passes:
        lines.append(Reply("rules.jiang", {"passes": preset.jiang_passes}))
    if preset.start:
        lines.append(Reply("rules.start", {"start": preset.start}))
    return lines


CHANGKAITOU_LIABILITIES = frozenset({"sanzui", "sanqing", "quanqiu_range", "gang_after"})


def _pattern_line(key: str, rule: UnitRule) -> Reply:
    """A pattern's worth: its value, or what it does when it is not a number (兜底翻, 整铲)."""
    name = Reply(f"unit.{key}")
    if rule.doubles_total:
        return Reply("rules.unit_doubles", {"name": name})
    if rule.takes_all:
        return Reply("rules.unit_takes_all", {"name": name})
    return Reply("rules.unit_big" if rule.big else "rules.unit", {"name": name, "value": rule.value})


@dataclass(frozen=True)
class PlayerStats:
    """One person's night for /summary: several occupancy indices of one name (back after a 换人)
    are one person."""

    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    biggest: int = 0
    biggest_keys: tuple[str, ...] = ()
    gang_net: int = 0
    penalty_net: int = 0


GANG_REASONS = frozenset({"exposed_gang", "added_gang", "concealed_gang", "flower_gang"})
PENALTY_REASONS = frozenset({"penalty_follow", "penalty_four", "penalty_custom", "false_win"})


def player_stats(tally: Tally, names: Sequence[str]) -> list[PlayerStats]:
    """Per person (as `merged_index(names)` numbers them; `names`: the night's occupancy): wins,
    self-draws, deal-ins, the biggest hand (of equal ones the first), gang and penalty money net."""
    merged = merged_index(names)
    people = len(set(merged))
    counts = [[0, 0, 0, 0, 0] for _ in range(people)]  # wins, self-draws, deal-ins, gang, penalty
    biggest: list[PlayerTally | None] = [None] * people
    for index, player in enumerate(tally.players):
        person = merged[index]
        for at, value in enumerate((player.wins, player.self_draws, player.deal_ins)):
            counts[person][at] += value
        best = biggest[person]
        if player.biggest and (best is None or _bigger(player, best)):
            biggest[person] = player
    for net in tally.reasons:
        if net.reason in GANG_REASONS:
            counts[merged[net.player]][3] += net.amount
        elif net.reason in PENALTY_REASONS:
            counts[merged[net.player]][4] += net.amount
    return [
        PlayerStats(wins, draws, deal_ins, best.biggest, best.biggest_keys, gang, penalty)
        if best is not None
        else PlayerStats(wins, draws, deal_ins, gang_net=gang, penalty_net=penalty)
        for (wins, draws, deal_ins, gang, penalty), best in zip(counts, biggest, strict=True)
    ]


def _bigger(player: PlayerTally, than: PlayerTally) -> bool:
    """A bigger biggest hand, or as big and played earlier (the first of equal ones counts)."""
    return (player.biggest, -player.biggest_hand) > (than.biggest, -than.biggest_hand)


def summary(
    night: NightRow,
    seats: Sequence[Seat],
    preset: Preset,
    amounts: Sequence[int],
    money: Sequence[int],
    stats: Sequence[PlayerStats],
    hands: int,
    passes: int = 0,
    players: Sequence[Seat] | None = None,
    stakes: Sequence[tuple[int, int]] = (),
) -> list[Reply]:
    """`seats`, `amounts`, `money`: everyone who played tonight (more than four after a 换人);
    `players`: the four seats now, for the per-seat statistics (default: `seats`); `stakes`: the
    night's runs of hands at one stake, (first hand, stake), as `bot.night.people.stake_runs` gives them."""
    mixed = len(stakes) > 1  # docs/rules.md 17d: money alone, no net flower figure
    header = {"night": night.number, "preset": preset.name, "stake": _stakes_of(night.stake_cents, stakes)}
    lines = [Reply("summary.header", header, count=hands)]
    if preset.jiang_passes:
        lines.append(Reply("summary.jiang", {"passes": passes, "of": preset.jiang_passes}))
    # ranked by the money each takes home: after a 改底 the flowers alone can put a payer above a payee
    ranked = sorted(range(len(amounts)), key=lambda s: (-money[s], -amounts[s], s))
    unit = Reply("unit_name.points" if preset.start else unit_key(preset))
    for place, seat in enumerate(ranked, start=1):
        amount = preset.start + amounts[seat]
        lines.append(
            Reply(
                "summary.rank",
                {
                    "place": place,
                    "name": seats[seat].name,
                    "amount": amount,
                    "money": format_money(money[seat]),
                    "balance": balance(amount, unit, money[seat], mixed),
                },
            )
        )
    transfers = minimal_transfers(list(money))
    if transfers:
        lines.append(Reply("summary.transfers_header", count=len(transfers)))
        lines.extend(
            Reply(
                "summary.transfer",
                {"payer": seats[t.payer].name, "payee": seats[t.payee].name, "money": format_money(t.amount)},
            )
            for t in transfers
        )
    else:
        lines.append(Reply("summary.all_square"))
    for seat, player in enumerate(stats):
        lines.append(
            Reply(
                # a night that mixes stakes: no gang or penalty net in flowers (its sign can differ
                # from the money those payments moved)
                "summary.player_stats_mixed" if mixed else "summary.player_stats",
                {
                    "name": (players or seats)[seat].name,
                    "wins": player.wins,
                    "self_draws": player.self_draws,
                    "deal_ins": player.deal_ins,
                    "biggest": _biggest_of(player),
                    "gang": player.gang_net,
                    "penalty": player.penalty_net,
                    "unit": Reply(unit_key(preset)),
                },
            )
        )
    return lines


def _stakes_of(in_force: int, runs: Sequence[tuple[int, int]]) -> Joined | str:
    """The stake the header names: after a 改底 each stake with its hands (hands 1–4 at 2 read as
    played for 1 would make the money figures look wrong); a one-stake night, the stake alone."""
    if len(runs) < 2:
        return format_money(in_force)
    parts: list[Reply] = []
    for (first, cents), (after, _) in pairwise(runs):
        last = after - 1
        key, params = (
            ("summary.stake_hands", {"first": first, "last": last})
            if last > first
            else ("summary.stake_hand", {"hand": first})
        )
        parts.append(Reply(key, {"stake": format_money(cents), **params}))
    first, cents = runs[-1]
    parts.append(Reply("summary.stake_from", {"stake": format_money(cents), "hand": first}))
    return Joined(tuple(parts), LIST)


def _biggest_of(player: PlayerStats) -> Reply | str:
    """The biggest hand (a win's total is in flowers, chips or not) and its patterns, or nothing at all for
    a player who did not win (no "biggest 0")."""
    if not player.wins:
        return ""
    return Reply("summary.biggest", {"biggest": player.biggest, "patterns": _patterns_of(player.biggest_keys)})


def _patterns_of(keys: Sequence[str]) -> Reply | str:
    """The biggest hand's patterns in brackets, or nothing at all (no stray separator)."""
    shown = tuple(Reply(f"unit.{k}") for k in keys if k not in ("pao", "hard"))
    return Reply("summary.patterns", {"patterns": Joined(shown, LIST)}) if shown else ""


def transfers_json(money: Sequence[int], seats: Sequence[Seat]) -> list[dict[str, str]]:
    return [
        {"from": seats[t.payer].name, "to": seats[t.payee].name, "amount": format_money(t.amount)}
        for t in minimal_transfers(list(money))
    ]
