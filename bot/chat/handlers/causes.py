"""What doubled the next hand, named by the events that did it (`⚠️ 下一盘比下胡（×2）：#12 李四 清一色`).

The engine says which facts of a hand double the next one (a big win, a draw, a flower gang …); the
players remember events, so the warning names each event behind them: its number (the place it was
first typed at, as /history and /fix know it), who, and what.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from bot.night.played import Played
from bot.night.records import Seat
from bot.text.replies import LIST, Choice, Joined, Reply
from engine.events import Draw, FlowerGang, Penalty, Win
from engine.preset import Preset

BETWEEN = Reply("doubled.separator")  # between two events: "；" / "; "


def facts_of(played: Played, facts: set[str]) -> set[str]:
    """The facts an event stands for by its kind; every other fact is the win's (or, with no win in
    the hand, the pong's or gang's that set a liability)."""
    event = played.event
    if isinstance(event, FlowerGang):
        return facts & {"flower_gang"}
    if isinstance(event, Penalty):
        return facts & {event.kind}
    if isinstance(event, Draw):
        return facts & {"draw"}
    return set()


def doubled_causes(
    hand: Sequence[Played],
    triggers: str,
    seats: Sequence[Seat],
    preset: Preset,
    number: Callable[[int], int | str] = lambda place: place,
) -> Joined | None:
    """The events of `hand` behind the facts `triggers` (the engine's comma list), in order; None when
    no event can be named (the warning then lists the facts alone). `number`: the number a place is
    known by tonight (Night.shown)."""
    facts = {key for key in triggers.split(",") if key}
    hand = one_win_each(hand)
    left = set(facts)
    causes: list[tuple[Played, set[str]]] = []
    for played in hand:
        own = facts_of(played, left)
        if own:
            causes.append((played, own))
            left -= own
    owner = next((p for p in reversed(hand) if isinstance(p.event, Win)), None)
    if owner is None:  # a liability fact set by a pong or gang (快照 三嘴 …)
        owner = next((p for p in reversed(hand) if any(n.key.startswith("table.") for n in p.notices)), None)
    if left and owner is not None:
        causes.append((owner, left))
        left = set()
    if not causes or left:
        return None
    causes.sort(key=lambda cause: cause[0].place)
    return Joined(tuple(cause_line(p, own, seats, preset, number) for p, own in causes), BETWEEN)


def one_win_each(hand: Sequence[Played]) -> list[Played]:
    """The hand's events with the claims joined to a win (一炮多响) read into it: one win, at its place."""
    events: list[Played] = []
    for played in hand:
        event, last = played.event, events[-1] if events else None
        if isinstance(event, Win) and event.joins is not None and last is not None and isinstance(last.event, Win):
            claims = (*last.event.claims, *event.claims)
            events[-1] = replace(last, event=replace(last.event, claims=claims), scores=(*last.scores, *played.scores))
            continue
        events.append(played)
    return events


def cause_line(
    played: Played,
    facts: set[str],
    seats: Sequence[Seat],
    preset: Preset,
    number: Callable[[int], int | str] = lambda place: place,
) -> Reply:
    """`#12 李四 清一色`: a big win names its big patterns rather than "大胡"."""
    names: list[Reply] = []
    if "big_hu" in facts and isinstance(played.event, Win):
        big = [i.key for _, score in played.scores for i in score.items if _is_big(preset, i.key)]
        names += [Reply(f"unit.{key}") for key in dict.fromkeys(big)]
    shown = sorted(facts - {"big_hu"}) if names else sorted(facts)
    names += [Reply(f"trigger.{key}") for key in shown]
    # a big pattern that is a trigger of its own too (大杠开花) is named once
    what = Joined(tuple(names), LIST, unique=True)
    who = actors(played, seats)
    if not who:
        return Reply("doubled.cause_event", {"id": number(played.place), "what": what})
    return Reply("doubled.cause", {"id": number(played.place), "who": who, "what": what})


def _is_big(preset: Preset, key: str) -> bool:
    rule = preset.patterns.get(key)
    return rule is not None and rule.big


def actors(played: Played, seats: Sequence[Seat]) -> Joined | str:
    event = played.event
    if isinstance(event, Win):
        return Joined(tuple(seats[c.winner].name for c in event.claims), LIST)
    seat = getattr(event, "actor", getattr(event, "offender", None))
    return seats[seat].name if isinstance(seat, int) and 0 <= seat < len(seats) else ""


# ---- the line a notice asks for, as a button ------------------------------------------------------

FEW_FLOWERS = 9  # count buttons 0-8, as in the guided flow; more is typed


def notice_choices(played: Played, seats: Sequence[Seat]) -> tuple[Choice, ...]:
    """快照's fourth mouth ends the hand at once: the prompt gives the line to send (with the hard
    flowers), and a button sends it; the count is asked next (`flower_choices`)."""
    choices: list[Choice] = []
    for said in played.notices:
        if said.key == "table.kuaizhao_fourth":
            taker = int(said.params["taker"])
            label = Reply("button.record_win", {"name": seats[taker].name})
            choices.append(Choice(label, f"/hu #{taker} self duiduihu quanqiu"))
    return tuple(choices)


def flower_choices(line: str) -> tuple[Choice, ...]:
    """A win typed without its hard-flower count: one button per count, each the same line with it."""
    stem = line.strip()
    # as the line was typed: a /command or an English line (`hu Bob`) takes flowers=N, Chinese 花N
    form = "{stem} flowers={n}" if stem.startswith("/") or stem.isascii() else "{stem} 花{n}"
    return tuple(Choice(Reply("button.count", {"count": n}), form.format(stem=stem, n=n)) for n in range(FEW_FLOWERS))
