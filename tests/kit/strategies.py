"""Hypothesis strategies: random legal winning hands that reach the hard cases.

- `standard_hands`: four sets + a pair with exactly 0-4 melds (the meld count is drawn first, so four
  melds are as common as none), melds of every kind.
- `sole_wait_hands`: a 压档, 边枝 or 独占 wait that is the hand's only wait (the rest of the hand
  avoids the wait's suit), with or without the winner's own pong of the winning tile (压绝).
- `near_wait_hands`: the same shapes, but the rest may use the wait's suit, so the wait is often not
  sole: the shapes where a wait flower or 压绝 must be refused.
- `seven_pairs_hands`: seven pairs, with fours of a kind.
`winning_hands` mixes them; seven pairs are one branch of six.

For whole nights (tests/test_properties.py): `night_openings` (four seated, or three and a `/join`),
`night_operations` (lines as the table types them, with 包牌 runs of three or four mouths from one
feeder, 三嘴 forced ends, several winners on one discard, and corrections of earlier lines),
`another_version` (a line as /fix would change it).
"""

from __future__ import annotations

from collections import Counter

from hypothesis import strategies as st

from engine.hand import Hand, Meld, MeldKind
from engine.tiles import COPIES, NUM_KINDS, SUIT_SIZE, Tile, is_wind, suit_of, suited

SEQUENCE_STARTS = [t for t in range(NUM_KINDS) if not is_wind(t) and t % SUIT_SIZE <= SUIT_SIZE - 3]
MELD_KINDS = list(MeldKind)
ALL_TILES = list(range(NUM_KINDS))


def _free(counts: Counter[Tile], tile: Tile, needed: int) -> bool:
    return counts[tile] + needed <= COPIES


@st.composite
def _rest(
    draw: st.DrawFn, counts: Counter[Tile], sets: int, pair: bool, max_melds: int, avoid_suit: int | None
) -> tuple[list[Tile], list[Meld]]:
    """`sets` sets (some melded, at most `max_melds`) and optionally a pair, outside `avoid_suit`."""

    def allowed(tile: Tile) -> bool:
        return avoid_suit is None or suit_of(tile) != avoid_suit

    closed: list[Tile] = []
    melds: list[Meld] = []
    meld_count = draw(st.integers(0, min(max_melds, sets)))
    for index in range(sets):
        if index < meld_count:
            kind = draw(st.sampled_from(MELD_KINDS))
            size = 4 if kind.is_gang else 3
            tile = draw(st.sampled_from([t for t in ALL_TILES if allowed(t) and _free(counts, t, size)]))
            counts[tile] += size
            melds.append(Meld(kind, tile))
            continue
        starts = [
            s
            for s in SEQUENCE_STARTS
            if allowed(s) and all(_free(counts, s + i, 1) for i in range(3)) and closed.count(s) < 2
        ]  # an identical sequence at most twice: four would be read as seven pairs
        if starts and draw(st.booleans()):
            start = draw(st.sampled_from(starts))
            tiles = [start, start + 1, start + 2]
        else:
            tile = draw(st.sampled_from([t for t in ALL_TILES if allowed(t) and _free(counts, t, 3)]))
            tiles = [tile] * 3
        counts.update(tiles)
        closed.extend(tiles)
    if pair:
        tile = draw(st.sampled_from([t for t in ALL_TILES if allowed(t) and _free(counts, t, 2)]))
        counts[tile] += 2
        closed.extend([tile, tile])
    return closed, melds


@st.composite
def standard_hands(draw: st.DrawFn) -> Hand:
    """Four sets and a pair with exactly 0-4 melds; the winning tile is any closed tile."""
    closed, melds = draw(_exact_melds(draw(st.integers(0, 4))))
    winning = draw(st.sampled_from(closed))
    closed.remove(winning)
    return Hand(tuple(sorted(closed)), tuple(melds), winning)


@st.composite
def _exact_melds(draw: st.DrawFn, meld_count: int) -> tuple[list[Tile], list[Meld]]:
    counts: Counter[Tile] = Counter()
    melds: list[Meld] = []
    for _ in range(meld_count):
        kind = draw(st.sampled_from(MELD_KINDS))
        size = 4 if kind.is_gang else 3
        tile = draw(st.sampled_from([t for t in ALL_TILES if _free(counts, t, size)]))
        counts[tile] += size
        melds.append(Meld(kind, tile))
    closed, _ = draw(_rest(counts, 4 - meld_count, True, 0, None))
    return closed, melds


WAIT_SHAPES = ("middle", "edge_low", "edge_high", "pair")


@st.composite
def _wait_hand(draw: st.DrawFn, sole: bool) -> Hand:
    """A 压档 (r-1 r+1 wins r), 边枝 (12 wins 3, 89 wins 7) or 独占 (t wins t) in one suit; with the
    winner's pong of the winning tile for 压绝 (sequence waits only)."""
    suit = draw(st.integers(0, 2))
    shape = draw(st.sampled_from(WAIT_SHAPES))
    if shape == "middle":
        rank = draw(st.integers(2, 8))
        partial = [suited(rank - 1, suit), suited(rank + 1, suit)]
    elif shape == "edge_low":
        rank, partial = 3, [suited(1, suit), suited(2, suit)]
    elif shape == "edge_high":
        rank, partial = 7, [suited(8, suit), suited(9, suit)]
    else:
        rank = draw(st.integers(1, 9))
        partial = [suited(rank, suit)]
    winning = suited(rank, suit)
    counts: Counter[Tile] = Counter(partial)
    counts[winning] += 1
    melds: list[Meld] = []
    if shape != "pair" and draw(st.booleans()):
        melds.append(Meld(MeldKind.PONG, winning))  # the other three copies: 压绝
        counts[winning] += 3
    sets = 3 if shape != "pair" else 4
    closed, rest_melds = draw(_rest(counts, sets - len(melds), shape != "pair", 4 - len(melds), suit if sole else None))
    return Hand(tuple(sorted([*partial, *closed])), (*melds, *rest_melds), winning)


def sole_wait_hands() -> st.SearchStrategy[Hand]:
    return _wait_hand(sole=True)


def near_wait_hands() -> st.SearchStrategy[Hand]:
    return _wait_hand(sole=False)


@st.composite
def seven_pairs_hands(draw: st.DrawFn) -> Hand:
    kinds = draw(st.lists(st.integers(0, NUM_KINDS - 1), min_size=4, max_size=7))
    counts: Counter[Tile] = Counter()
    for kind in kinds:
        if counts[kind] <= COPIES - 2 and sum(counts.values()) < 14:
            counts[kind] += 2
    filler = 0
    while sum(counts.values()) < 14:
        if counts[filler] <= COPIES - 2:
            counts[filler] += 2
        filler += 1
    tiles = sorted(counts.elements())
    winning = draw(st.sampled_from(tiles))
    tiles.remove(winning)
    return Hand(tuple(tiles), (), winning)


winning_hands = st.one_of(
    standard_hands(), standard_hands(), standard_hands(), sole_wait_hands(), near_wait_hands(), seven_pairs_hands()
)


# ---- nights: lines as people at the table type them ---------------------------------------------

NIGHT_HAND = "123m456m789m234p5p+5p"  # 42 + 2 × hard flowers, 门清 included
NAMES = ("A", "B", "C", "D", "F")  # no "E": a player named like the East wind makes `/pong B E` two names
PONG_TILES = ("1m", "E", "9p", "5s", "7m")  # different kinds: four of them make four mouths
# weights by repetition: chores that stop the table (unseat, close) are rarer than table events
NIGHT_KINDS = (
    *("flower", "pong", "pong_tile", "penalty", "self_win", "win") * 3,
    *("draw", "stake", "swap", "rename", "dealer", "unseat", "close", "summary", "rules") * 2,
    *("join", "reopen") * 3,  # a seat freed or a night closed is usually taken up again
)


@st.composite
def night_lines(draw: st.DrawFn) -> str:
    """A table line or a chore, as someone at the table types it (names may be off the table)."""
    actor, other = draw(st.sampled_from(NAMES)), draw(st.sampled_from(NAMES))
    flowers = draw(st.integers(0, 6))
    kind = draw(st.sampled_from(NIGHT_KINDS))
    return {
        "flower": f"{actor}: /flowergang",
        "pong": f"{actor}: /pong {other}",
        "pong_tile": f"{actor}: /pong {other} {draw(st.sampled_from(PONG_TILES))}",
        "penalty": f"{actor}: /penalty follow {other}",
        "self_win": f"{actor}: /hu self {NIGHT_HAND} flowers={flowers + 4}",
        "win": f"{actor}: /hu {other} {NIGHT_HAND} flowers={flowers}",
        "draw": f"{actor}: /draw",
        "stake": f"A: /stake {draw(st.sampled_from(['0.5', '2', '3']))}",
        "swap": f"A: /swap {actor} {other}",
        "rename": f"A: /rename {actor} {other}",
        "dealer": f"A: /dealer {actor}",
        "join": f"{actor}: /join",
        "unseat": f"A: /unseat {actor}",
        "close": "A: /close",
        "reopen": "A: /reopen",
        "summary": f"{actor}: /summary",
        "rules": f"A: /rules set {draw(st.sampled_from(['跑=30', '跑=10', '跟牌=6']))}",  # docs/rules.md 20
    }[kind]


@st.composite
def mouths(draw: st.DrawFn) -> list[str]:
    """包牌 (RULES §8 快照): a winner takes three or four mouths from one feeder, then wins; with
    four the win is owed at once (on the feeder's discard or as a self-draw, as the prompt says).
    敞开头 (§12 三嘴): the fourth mouth, from the feeder or another, ends the hand at the pong when
    its line gives the hard flowers (without them it is asked for them, and not recorded)."""
    winner, feeder = draw(st.sampled_from(NAMES[:4])), draw(st.sampled_from(NAMES[:4]))
    count = draw(st.integers(3, 4))
    lines = [f"{winner}: /pong {feeder} {tile}" for tile in PONG_TILES[:3]]
    if count == 4:
        fourth = draw(st.sampled_from((feeder, feeder, *NAMES[:4])))
        ends = draw(st.sampled_from(("", " flowers=1", " flowers=4")))
        lines.append(f"{winner}: /pong {fourth} {PONG_TILES[3]}{ends}")
    discarder = draw(st.sampled_from(("self", feeder, *NAMES[:4])))
    patterns = draw(st.sampled_from(("对对胡 全球独钓", "对对胡", "")))
    flowers = draw(st.integers(0, 5))
    return [*lines, f"{winner}: /hu {discarder} {patterns} flowers={flowers}".replace("  ", " ")]


@st.composite
def same_discard(draw: st.DrawFn) -> list[str]:
    """一炮多响 (RULES §8): two or three winners on one discard. A later winner's line says it
    (`also`), or is asked and answered: `/again` (the same discard) or `/again next` (a win of the
    next hand)."""
    discarder = draw(st.sampled_from(NAMES[:4]))
    others = [name for name in NAMES[:4] if name != discarder]
    winners = draw(st.lists(st.sampled_from(others), min_size=2, max_size=3, unique=True))
    lines: list[str] = []
    for index, winner in enumerate(winners):
        line = f"{winner}: /hu {discarder} {NIGHT_HAND} flowers={draw(st.integers(0, 6))}"
        how = draw(st.sampled_from(("also", "again", "next"))) if index else "first"
        if how in ("first", "also"):
            lines.append(line if how == "first" else f"{line} also")
        else:
            answer = "/again" if how == "again" else "/again next"
            lines += [line, f"{draw(st.sampled_from(NAMES[:4]))}: {answer}"]
    return lines


def another_version(line: str, nudge: int) -> str | None:
    """The same kind of line, changed (None for a line /fix does not take: a chore)."""
    speaker, text = line.split(": ", 1)
    if text.startswith(("/stake", "/swap", "/rename", "/dealer", "/join", "/unseat", "/close", "/reopen")):
        return None
    if "flowers=" in text:
        head, flowers = text.rsplit("flowers=", 1)
        return f"{speaker}: {head}flowers={int(flowers) + 1 + nudge % 3}"
    if text.startswith("/penalty"):
        return f"{speaker}: /penalty {'four' if 'follow' in text else 'follow'} {text.split()[-1]}"
    if text == "/flowergang":
        return f"{speaker}: /flowergang {NAMES[nudge % 4]}"
    words = text.split()
    if words[0] == "/pong" and len(words) == 3 and words[2] in PONG_TILES:  # another tile: 快照 counts move
        tile = PONG_TILES[(PONG_TILES.index(words[2]) + 1 + nudge % 4) % len(PONG_TILES)]
        return f"{speaker}: /pong {words[1]} {tile}"
    return None


Operation = tuple[str, str, int]  # ("line", line, 0), or ("fix" | "undo", which place, nudge)

night_openings = st.one_of(
    st.just(("A: /new A B C D",)),
    st.sampled_from(NAMES[3:]).map(lambda name: ("A: /new A B C", f"{name}: /join")),  # a free seat
    st.just(("A: /new A B C D preset=changkaitou",)),  # 敞开头: 三嘴 forced ends at a pong
)

_one_line: st.SearchStrategy[list[Operation]] = night_lines().map(lambda line: [("line", line, 0)])
_mouths: st.SearchStrategy[list[Operation]] = mouths().map(lambda lines: [("line", line, 0) for line in lines])
_same_discard: st.SearchStrategy[list[Operation]] = same_discard().map(lambda lines: [("line", x, 0) for x in lines])
_correction: st.SearchStrategy[list[Operation]] = st.tuples(
    st.sampled_from(("fix", "undo")), st.integers(0, 50).map(str), st.integers(0, 9)
).map(lambda op: [op])

night_operations: st.SearchStrategy[list[Operation]] = st.lists(
    st.one_of(_one_line, _one_line, _correction, _correction, _mouths, _same_discard), min_size=1, max_size=16
).map(lambda groups: [op for group in groups for op in group])
