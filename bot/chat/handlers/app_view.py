"""What the Mini App shows (docs/miniapp.md): the night as the page draws it, and a win previewed as
it is tapped — scored by the engine under tonight's rules with the melds already logged, itemised as
the chat itemises it, or refused with the reason the chat would give. Nothing here writes: a win is
recorded as the line `胡` typed in the chat (`win_line`), by the front end, through the chat's inbox.

A win on the page is the tile pad's (bot/chat/handlers/tile_pad.py) fed its taps in one go: the
winner, the discard, the tiles of the winner's melds logged without one, the melds the log never
saw, the concealed tiles (the last one is the winning tile), the hard flowers and the flags. So the
page refuses what the pad refuses (a fifth copy, a tile too many) with the same words."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bot.chat.command import Command
from bot.chat.handlers import tab, tile_pad
from bot.chat.handlers.common import Context, Refusal, recording_night
from bot.chat.handlers.flows import preview as preview_lines
from bot.chat.handlers.flows import tile_label
from bot.chat.handlers.questions import history, score
from bot.chat.handlers.tile_flow import flag_index, flag_label, meld_text, offered_flags, pad_table
from bot.chat.handlers.tile_pad import ALPHABET, MAX_FLOWERS, Pad, Table, Why
from bot.night.night import Night
from bot.night.seating import seat_of
from bot.text.replies import Joined, Reply, render
from bot.text.vocabulary import flag_fields
from bot.threads import in_thread
from bot.views.board import live, one_payment_line
from bot.views.charts import ChartNotDrawn, night_chart
from bot.views.lines import SEAT_KEYS, balance_unit, format_money
from engine.notation import parse_tile
from engine.tiles import NUM_KINDS, format_tiles, tile_name
from locales import Translator

MAX_TILES = 18  # concealed tiles and meld tiles a draft may name: a hand holds at most 14 + 4 gangs
LINE_NUMBER = re.compile(r"#(\d+)")


@dataclass(frozen=True)
class WinDraft:
    """A win as the page has it tapped (docs/miniapp.md, `POST /app/api/preview`)."""

    winner: int
    discarder: int | None  # None: 自摸
    tiles: tuple[str, ...]  # concealed, in tap order: the last is the winning tile
    fills: tuple[str, ...] = ()  # the tiles of the winner's melds logged without one, in log order
    melds: tuple[tuple[str, bool], ...] = ()  # melds the log never saw: (tile, is a gang)
    flowers: int = 0
    flags: tuple[str, ...] = ()


class BadDraft(ValueError):
    """A draft no pad could have made (an unknown tile, a seat that is not one): the page's bug."""


def taps(draft: WinDraft, seats: int) -> list[str]:
    """The pad's taps that make this draft (bot/chat/handlers/tile_pad.py's letters)."""
    if not 0 <= draft.winner < seats or (draft.discarder is not None and not 0 <= draft.discarder < seats):
        raise BadDraft("seat")
    if len(draft.tiles) + len(draft.fills) + 4 * len(draft.melds) > MAX_TILES + 4 * 4:
        raise BadDraft("tiles")
    if not 0 <= draft.flowers <= MAX_FLOWERS:
        raise BadDraft("flowers")
    known = flag_index()
    if any(flag not in known for flag in draft.flags):
        raise BadDraft("flag")
    ops = [f"v{draft.winner}", "ds" if draft.discarder is None else f"d{draft.discarder}"]
    ops += [f"t{ALPHABET[tile_of(code)]}" for code in draft.fills]
    for code, gang in draft.melds:
        ops += [f"t{ALPHABET[tile_of(code)]}"] * (4 if gang else 3) + ["g" if gang else "p"]
    ops += [f"t{ALPHABET[tile_of(code)]}" for code in draft.tiles]
    ops.append(f"h{ALPHABET[draft.flowers]}")
    ops += [f"f{ALPHABET[known[flag]]}" for flag in dict.fromkeys(draft.flags)]
    return ops


def tile_of(code: str) -> int:
    try:
        tile = parse_tile(code)
    except Exception:
        raise BadDraft("tile") from None
    if not 0 <= tile < NUM_KINDS:
        raise BadDraft("tile")
    return tile


def pad_of(night: Night, draft: WinDraft, seats: int) -> Pad | Why:
    """The pad the draft's taps make, or why one of them cannot apply (the chat's own words). Every
    flag may be tapped: the engine refuses one this win cannot claim when it scores it (working out
    which flags any win could claim here, as the chat's pad does once for its keyboard, cost three
    quarters of a preview)."""
    pad = Pad()
    offered = frozenset(range(len(flag_fields())))
    tables: dict[tuple[int | None, int | None], Table] = {}  # what the log knows depends on who won, from whom
    for op in taps(draft, seats):
        table = tables.get((pad.winner, pad.source))
        if table is None:
            table = tables[(pad.winner, pad.source)] = pad_table(night, pad)
        result = tile_pad.apply(pad, table, op, seats, offered)
        if isinstance(result, Why):
            return result
        pad = result
    return pad


def win_command(pad: Pad, night: Night, text: str = "") -> Command:
    """The win as the hand typed in notation (bot/chat/handlers/tile_flow.py does the same)."""
    table = pad_table(night, pad)
    assert pad.winner is not None and pad.source is not None and pad.last is not None
    melds = tile_pad.hand_melds(pad, table)
    parts = [format_tiles(tile_pad.concealed_before_win(pad)), *(m.notation() for m in melds)]
    hand = " ".join(part for part in parts if part) + f" +{tile_name(pad.last)}"
    names = (f"#{pad.winner}",) if pad.self_draw else (f"#{pad.winner}", f"#{pad.source}")
    flags = frozenset(flag_fields()[index] for index in range(len(flag_fields())) if pad.flags >> index & 1)
    return Command("hu", text, names=names, self_draw=pad.self_draw, hand_text=hand, flowers=pad.hard, flags=flags)


def win_line(command: Command, night: Night) -> str:
    """The line a player would type for this win (`/hu 王五 张三 11p567s79s… flowers=4`): the page
    records exactly this, as if typed by whoever pressed 记录."""
    seats = night.seats
    winner = seats[int(command.names[0][1:])].name
    source = "self" if command.self_draw else seats[int(command.names[1][1:])].name
    flags = "".join(f" {flag}" for flag in sorted(command.flags))
    return f"/hu {winner} {source} {command.hand_text} flowers={command.flowers}{flags}"


def preview(context: Context, draft: WinDraft, translator: Translator) -> dict[str, object]:
    """`POST /app/api/preview`'s answer: the win scored, or why not (nothing is written)."""
    night = recording_night(context)
    seats = len(context.seats)
    pad = pad_of(night, draft, seats)
    if isinstance(pad, Why):
        params: dict[str, object] = {"left": pad.left, "missing": ""}
        if pad.tile is not None:
            params["tile"] = tile_label(pad.tile)
        return {"ok": False, "reason": render(Reply(pad.key, params), translator), "needed": None}
    table = pad_table(night, pad)
    lacking = tile_pad.missing(pad, table)
    if lacking:
        left = tile_pad.needed(pad, table) - len(pad.tiles) if not tile_pad.unfilled(pad, table) else None
        reason = Joined(tuple(Reply(key) for key in lacking), Reply("list.separator"))
        said = render(Reply("tiles.tap_missing", {"missing": reason, "left": left or 0}), translator)
        return {"ok": False, "reason": said, "needed": left}
    command = win_command(pad, night)
    lines = preview_lines(context, night, command)
    if lines and lines[0].key == "flow.refused":
        return {"ok": False, "reason": render(lines[0].params["reason"], translator), "needed": None}
    shown = [render(reply, translator) for reply in live(one_payment_line(lines))]
    return {"ok": True, "lines": shown, "text": "\n".join(shown), "line": win_line(command, night)}


def state(context: Context, night: Night, user_id: str, translator: Translator) -> dict[str, object]:
    """The parts of `GET /app/api/state` read off the night (the front end adds its own)."""
    seats = night.seats
    me = seat_of(seats, context.incoming.speaker)
    melds = {
        str(seat): [
            {
                "kind": meld.kind.value,
                "tile": tile_name(meld.tile) if meld.tile is not None else None,
                "text": render(meld_text(meld.kind, meld.tile), translator),
            }
            for meld in night.state.melds[seat]
        ]
        for seat in range(len(seats))
    }
    flags = sorted(offered_flags(night, len(seats))) if not night.closed else []
    amounts, money = night.seat_totals()
    start = night.state.preset.start
    return {
        "night": {"id": night.id, "number": night.number, "closed": night.closed},
        "me": {"name": seats[me].name if me is not None else None, "seat": me, "seated": me is not None},
        "seats": [
            {
                "seat": index,
                "name": seat.name,
                "wind": render(Reply(SEAT_KEYS[index]), translator),
                "dealer": index == night.state.dealer,
                "you": index == me,
            }
            for index, seat in enumerate(seats)
        ],
        "hand": {
            "number": night.state.hand_no,
            "dealer": night.state.dealer,
            "streak": night.state.dealer_streak,
            "double": night.state.doubled or night.state.preset.every_hand_doubled,
        },
        "melds": melds,
        "tiles": [{"code": tile_name(t), "label": render(tile_label(t), translator)} for t in range(NUM_KINDS)],
        "flags": [{"key": flag_fields()[i], "label": translator.t(flag_label(night, i))} for i in flags],
        "max_flowers": MAX_FLOWERS,
        "standing": {
            "unit": render(balance_unit(night.state.preset), translator),
            "rows": [
                {
                    "seat": index,
                    "name": seat.name,
                    "amount": start + amounts[index],
                    "money": format_money(money[index]),
                }
                for index, seat in enumerate(seats)
            ],
        },
    }


async def board_and_lines(context: Context, night: Night, translator: Translator) -> dict[str, object]:
    """The board as `/score` shows it, and the night's lines as `/history` shows them (page 1)."""
    board = await score(replace(context, command=Command("score", "/score")))
    board_text = "\n".join(render(reply, translator) for reply in board.replies)
    lines: list[dict[str, object]] = []
    if night.lines():
        page = await history(replace(context, command=Command("history", "/history", number=1)))
        undone = {night.shown(row.id) for row in night.lines() if row.id not in night.active}
        for reply in page.replies[1:]:
            text = render(reply, translator)
            found = LINE_NUMBER.search(text)
            number = int(found.group(1)) if found else None
            lines.append({"no": number, "text": text, "undone": number in undone})
    try:
        owed = await tab.show(replace(context, command=Command("tab", "/tab")))
        tab_text: str | None = "\n".join(render(reply, translator) for reply in owed.replies)
    except Refusal:  # no night closed unsettled yet
        tab_text = None
    return {"board": {"text": board_text}, "lines": lines, "tab": {"text": tab_text}}


async def detail(context: Context, number: int, translator: Translator) -> str:
    """A line's 明细 as `/history #N` shows it: the line, then the event as the corrected night plays it."""
    shown = await history(replace(context, command=Command("history", "/history", options={"event": str(number)})))
    return "\n".join(render(reply, translator) for reply in shown.replies)


async def chart(context: Context, night: Night) -> bytes | None:
    """The night's chart as `/summary` draws it (PNG, kept by the night's version like the chat's),
    None when charts are off, nothing was scored yet, or the drawing process gave up."""
    services = context.services
    if not services.charts_enabled or night.hands_played() == 0:
        return None
    version = (night.id, night.log_size(), context.language)
    image = services.charts.kept(version, "PNG")
    if image is not None:
        return image
    tally = await night.tally()
    shown = await in_thread(night_chart, night, tally, context.language)
    try:
        return await services.charts.chart(version, shown, "PNG")
    except ChartNotDrawn:
        return None


def refusal_text(error: Refusal, translator: Translator) -> str:
    return "\n".join(render(reply, translator) for reply in error.replies)
