"""A table's events and figures said as replies (message keys): an event's line, a win's breakdown and
the steps that made its payments, a refused win, a tile's name in the chat's language, an engine
error's parameters made readable (seats by their names), a logged meld a win contradicts, the board."""

from __future__ import annotations

from collections.abc import Sequence

from bot.night.night import Night
from bot.night.played import Played
from bot.night.records import Seat
from bot.text.replies import LIST, Joined, Reply
from bot.text.vocabulary import fold
from bot.views.house_rules import what as rule_change
from bot.views.lines import factor_lines, money_first, scoreboard
from engine.events import Draw, Event, FlowerGang, FourWinds, Gang, Penalty, Pong, RangeMark, SetDealer, SetRules, Win
from engine.melds import LoggedMeldMissing
from engine.preset import Preset
from engine.scoring import Item
from engine.settlement import Factor
from engine.table import WinRefused
from engine.tiles import WIND_LETTERS, tile_name
from engine.units import COUNTED_KEYS


def tile_word(text: str) -> Reply | str:
    """One tile named in a reply: a wind by its name in the chat's language (东 in Simplified, 東 in
    Traditional, E in English), a suited tile in its notation (`9p`). Only a single tile: a hand
    stays notation, and buttons send notation whatever the reply shows."""
    return Reply(f"tiles.wind_{text.lower()}") if len(text) == 1 and text in WIND_LETTERS else text


def readable(params: dict[str, object], seats: Sequence[Seat], night: Night | None = None) -> dict[str, object]:
    """Seat numbers in engine errors become names, a tile (`E`) its name in the chat's language, and
    an event (`id`, a ledger row) the number tonight's players know it by."""
    shown = dict(params)
    if night is not None and isinstance(shown.get("id"), int):
        shown["id"] = night.shown(int(str(shown["id"])))
    if isinstance(shown.get("tile"), str):
        shown["tile"] = tile_word(str(shown["tile"]))
    if isinstance(shown.get("why"), str):
        shown["why"] = Reply(f"liability.{shown['why']}")
    if isinstance(shown.get("triggers"), str):  # which facts of the hand doubled the next one
        triggers = tuple(Reply(f"trigger.{key}") for key in str(shown["triggers"]).split(",") if key)
        shown["triggers"] = Joined(triggers, LIST)  # "、" in Chinese, ", " in English
    for key in ("seat", "winner", "feeder", "taker", "dealer"):
        value = shown.get(key)
        if isinstance(value, int) and 0 <= value < len(seats):
            shown[key] = seats[value].name
    return shown


def meld_conflict(night: Night, error: LoggedMeldMissing, hand: int) -> Reply:
    """A logged meld the typed win does not hold, named by its event number (never internal codes)."""
    events = night.meld_events(int(error.params["seat"]), hand)
    event_id = night.shown(events[error.index]) if error.index < len(events) else "?"
    kind = Reply(f"meld_name.{error.params['kind']}")
    tile = str(error.params["tile"])
    meld = Reply("meld.named", {"kind": kind, "tile": tile_word(tile)}) if tile else kind
    return Reply(error.key, {"id": event_id, "meld": meld})


def board(night: Night) -> Reply:
    """The four seats (a newcomer after 换人 starts at 0), then whoever left tonight with their figures."""
    amounts, money = night.seat_totals()
    seated = {fold(seat.name) for seat in night.seats}
    left = [person for person in night.people() if fold(person.name) not in seated]
    mixed = money_first(night)  # money alone (docs/rules.md 17d)
    return scoreboard(night.seats, night.state, amounts, money, left, mixed)


def item_count(item: Item) -> str:
    """` ×4` after an item's name: a count × a rate says its count, 1 too (`硬花 ×1：2`, never "硬花：2",
    read as two flowers); a pattern counted once says none (`清一色：60`)."""
    return f" ×{item.count}" if item.count > 1 or item.key in COUNTED_KEYS else ""


def breakdown(winner: str, items: Sequence[Item], total: int) -> Reply:
    lines = [
        Reply("score.item", {"name": Reply(f"unit.{i.key}"), "count": item_count(i), "flowers": i.flowers})
        for i in items
    ]
    return Reply("score.breakdown", {"winner": winner, "items": lines, "total": total})


def refused_reason(refused: WinRefused, name: str) -> Reply:
    """Why the rules refuse a win, with the 小胡 limit in force (docs/rules.md 20b: numbers said are the
    numbers in force)."""
    params = {"winner": name, "total": refused.score.total, "min_hard": refused.params.get("min_hard", "")}
    return Reply(refused.key, params)


def doubled_mark(factors: Sequence[Factor], preset: Preset) -> Reply:
    """`（比下胡 ×3）`: the factor the hand was doubled by (its own rules'), else the rules in force."""
    factor = next((f.params["factor"] for f in factors if f.key in ("bixiahu", "leibaota")), preset.doubling_factor)
    return Reply("hand.doubled_mark", {"factor": factor})


def refused_win(seats: Sequence[Seat], refused: WinRefused) -> tuple[Reply, ...]:
    name = seats[refused.params["winner"]].name if seats else "?"
    replies = [refused_reason(refused, name)]
    if refused.score.items:
        replies.append(breakdown(name, refused.score.items, refused.score.total))
    replies.append(Reply("error.nothing_recorded"))
    return tuple(replies)


def describe(event: Event, seats: Sequence[Seat]) -> Reply:
    def who(seat: int | None) -> str:
        return seats[seat].name if seat is not None else "?"

    def tile(value: int | None) -> Reply | str:
        return tile_word(tile_name(value)) if value is not None else ""

    if isinstance(event, Pong | Gang):
        kind = "pong" if isinstance(event, Pong) else event.kind.value
        # a tile typed or not: its own sentence each way, so no language is left with a dangling word
        key = f"what.{kind}_tile" if event.tile is not None else f"what.{kind}"
        return Reply(key, {"actor": who(event.actor), "feeder": who(event.feeder), "tile": tile(event.tile)})
    if isinstance(event, FlowerGang):
        return Reply("what.flower_gang", {"actor": who(event.actor)})
    if isinstance(event, FourWinds):
        return Reply("what.four_winds", {"actor": who(event.actor)})
    if isinstance(event, RangeMark):
        return Reply("what.range_mark", {"actor": who(event.actor), "tile": tile(event.tile)})
    if isinstance(event, Penalty):
        return Reply(f"what.{event.kind}", {"offender": who(event.offender), "amount": event.amount or ""})
    if isinstance(event, Win):
        winners = ", ".join(who(c.winner) for c in event.claims)
        if event.discarder is None:
            return Reply("what.self_draw", {"winners": winners})
        robbing = any(c.flags.robbing_gang for c in event.claims)
        return Reply(
            "what.robbing" if robbing else "what.discard_win",
            {"winners": winners, "discarder": who(event.discarder)},
        )
    if isinstance(event, SetDealer):
        return Reply("what.dealer", {"dealer": who(event.seat)})
    if isinstance(event, SetRules):
        return rule_change(event)
    assert isinstance(event, Draw)
    return Reply("what.draw")


def explained(played: Played, seats: Sequence[Seat]) -> list[Reply]:
    """Each winner's breakdown followed by the steps that made the payments from it, one per line."""
    replies: list[Reply] = []
    for winner, score in played.scores:
        replies.append(breakdown(seats[winner].name, score.items, score.total))
        if score.from_log:
            units = Joined(tuple(Reply(f"unit.{key}") for key in score.from_log), " · ")
            replies.append(Reply("score.from_log", {"units": units}))
        replies.extend(factor_lines([f for f in played.factors if f.seat == winner], seats))
    replies.extend(factor_lines([f for f in played.factors if f.seat is None], seats))
    return replies
