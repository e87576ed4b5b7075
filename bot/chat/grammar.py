"""One grammar row per command: its `/latin` names, how its line is read into a `Command` (its
builder), and what it may do; the builders themselves. The plain words that start a command (Simplified
and Traditional Chinese, English) come from the catalogs (`words.command.<name>`); the README's
reference is checked against both. A line is cut into pieces by bot/chat/scanner.py and read with these
rows by bot/chat/parser.py; each command's handler and menus are its row in bot/chat/commands.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from bot.chat.command import Command
from bot.chat.lexicon import (
    ALSO,
    FLAG,
    FLOWER_WORDS,
    FLOWERS,
    GANG_KIND,
    GANG_KIND_WORDS,
    NAME,
    NUMBER,
    PATTERN,
    PENALTY_KIND,
    PENALTY_WORDS,
    SEAT,
    SELF,
    SOFT,
    TILE,
    flag_keys,
    lexicon,
    plain_words,
)
from bot.chat.lexicon import by_first_char as _by_first_char
from bot.chat.periods import read_stats_words, stats_shape
from bot.chat.rule_words import rules_actions
from bot.chat.scanner import MAX_DIGITS, Words
from bot.chat.season_words import season_shape
from bot.chat.tab_words import tab_amount_cents, tab_undo_word
from bot.chat.tokens import SEAT_TOKEN
from bot.chat.zones import zone_name
from bot.text.vocabulary import fold, normalize_width
from bot.views.board import mode_of
from engine.errors import EngineError
from engine.notation import parse_hand_parts
from engine.preset import PRESET_NAMES
from engine.tiles import HARD_FLOWER_CHARS
from locales import normalize_language

_EVENT_ARGS = frozenset({NAME, SEAT})
ONE_SUITED_TILE = re.compile(r"^\d+[mpsz]$")  # 0m, 10p: a tile by its form, only its number wrong


def tab_shape(name: str, words: Sequence[str]) -> bool:
    """Whether a plain line's words are a payment (`付了 [payer] payee 120`), a settle mark (`结清 [3]`)
    or the undo of one (`付了 撤销 [2]`): anything else after those words is talk."""
    if words and tab_undo_word(words[0]):
        return len(words) == 1 or (len(words) == 2 and words[1].isdigit())
    if name == "paid":
        return len(words) in (2, 3) and tab_amount_cents(words[-1]) is not None
    return len(words) <= 1 and all(w.isdigit() for w in words)


def is_name(token: str, known: Sequence[str]) -> bool:
    if SEAT_TOKEN.match(token):
        return True
    return fold(token.lstrip("@")) in folded_names(tuple(known))


@lru_cache(maxsize=256)
def folded_names(known: tuple[str, ...]) -> frozenset[str]:
    """The seated names as matching sees them: folded once for a seating, not once for each word read."""
    return frozenset(fold(name) for name in known)


def _looks_like_tiles(token: str) -> bool:
    try:
        parse_hand_parts(token)
    except EngineError:
        return False
    return True


_HAND_CHARS = frozenset("+[]{}()万萬筒饼餅条條") | frozenset(HARD_FLOWER_CHARS)


def _hand_like(token: str) -> bool:
    """Tiles, even malformed ones, so that `0m` is reported as a bad tile, not an unknown player."""
    return any(c.isdigit() or c in _HAND_CHARS for c in token) or _looks_like_tiles(token)


def _int(token: str) -> int | None:
    return int(token) if token.isascii() and token.isdigit() and len(token) <= MAX_DIGITS else None


def _simple(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    word = " ".join(tokens) or None
    number = _int(tokens[0]) if len(tokens) == 1 else None
    return Command(
        name, raw, names=tuple(t for t in tokens if is_name(t, known)), word=word, number=number, plain=plain
    )


def _new(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    names: list[str] = []
    options: dict[str, str] = {}
    for token in tokens:
        match = _OPTION.match(token)
        if match:
            key = _OPTION_NAMES.get(match.group(1), match.group(1).lower())
            options[key] = match.group(2)
        else:
            names.append(token)
    return Command(name, raw, names=tuple(names), options=options, plain=plain)


_OPTION = re.compile(r"^([a-z_]+|规则|規則|底|底分|庄|莊)=(.+)$", re.IGNORECASE)
_OPTION_NAMES = {"规则": "preset", "規則": "preset", "底": "stake", "底分": "stake", "庄": "dealer", "莊": "dealer"}


def _names_and_tile(tokens: list[str], known: Sequence[str]) -> tuple[list[str], str | None, list[str]]:
    """Split tokens into player names, at most one tile, and whatever is left."""
    names: list[str] = []
    tile: str | None = None
    left: list[str] = []
    for token in tokens:
        if is_name(token, known):
            names.append(token)
        elif tile is None and _looks_like_tiles(token):
            tile = token
        elif ONE_SUITED_TILE.match(token.lower()) and not _looks_like_tiles(token):
            # `/gang Bob 0m`: a tile's form naming no tile is that, not an unknown player
            raise EngineError("tile.unknown", tile=token)
        else:
            left.append(token)
    return names, tile, left


def _flowers_of(tokens: list[str]) -> tuple[int | None, list[str]]:
    """A `flowers=N` among an event's words (a pong or gang that ends the hand), and the rest."""
    flowers: int | None = None
    rest: list[str] = []
    for token in tokens:
        if (match := _FLOWERS.match(token)) is not None:
            flowers = int(match.group(1))
        else:
            rest.append(token)
    return flowers, rest


def _no_second_tile(left: Sequence[str]) -> None:
    """A pong or gang is of one tile: another tile typed after it is not used, so it is an error."""
    extra = [token for token in left if _looks_like_tiles(token)]
    if extra:
        raise EngineError("command.extra_args", extra=" ".join(extra))


def _pong(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    flowers, tokens = _flowers_of(tokens)
    names, tile, left = _names_and_tile(tokens, known)
    _no_second_tile(left)
    names += left  # unknown words are names the service will reject with the list of players
    return Command(name, raw, names=tuple(names), tile=tile, flowers=flowers, plain=plain)


def _flower_gang(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    # Every word is a name: an unknown one is refused by the service, never read as "the speaker".
    return Command(name, raw, names=tuple(tokens), plain=plain)


def _gang(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    kind = {"added_gang": "added", "concealed_gang": "concealed"}.get(name, "exposed")
    flowers, tokens = _flowers_of(tokens)
    rest: list[str] = []
    for token in tokens:
        if token.lower() in GANG_KIND_WORDS and not is_name(token, known):
            kind = GANG_KIND_WORDS[token.lower()]
        else:
            rest.append(token)
    names, tile, left = _names_and_tile(rest, known)
    _no_second_tile(left)
    return Command("gang", raw, names=tuple(names + left), tile=tile, kind=kind, flowers=flowers, plain=plain)


def _penalty(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    kind = "penalty_custom"
    amount: int | None = None
    names: list[str] = []
    kinds = 0
    for token in tokens:
        if token.lower() in PENALTY_WORDS and not is_name(token, known):
            kind = PENALTY_WORDS[token.lower()]
            kinds += 1
        elif _number(token) is not None and not is_name(token, known):
            if amount is not None:
                raise EngineError("command.extra_args", extra=token)
            amount = _number(token)
        else:
            names.append(token)
    # 跟牌 and 四张 are priced by the rules: an amount with them, or two kinds, is not used
    if kinds > 1 or (amount is not None and kind in ("penalty_follow", "penalty_four")):
        raise EngineError("command.extra_args", extra=" ".join(tokens))
    return Command(name, raw, names=tuple(names), kind=kind, amount=amount, plain=plain)


def _number(token: str) -> int | None:
    """An amount typed by a person: ASCII digits only (full-width ones are normalized before);
    more than MAX_DIGITS digits is refused rather than stored."""
    value = _int(token)
    if value is not None and len(token) > MAX_DIGITS:
        raise EngineError("number.too_big", text=token)
    return value


_FLOWERS = re.compile(r"^flowers=(\d+)$")  # any length: a huge count is refused as too big, not as a tile
_SOFT = re.compile(r"^soft=(\d+)$")


def _hu(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    names: list[str] = []
    hand: list[str] = []
    declared: list[str] = []
    flags: set[str] = set()
    flowers: int | None = None
    soft = 0
    self_draw = False
    also = False
    for index, token in enumerate(tokens):
        if is_name(token, known):
            names.append(token)
        elif token == "self":
            self_draw = True
        elif token == "also":
            also = True
        elif token == "+" and names and index + 1 < len(tokens) and is_name(tokens[index + 1], known):
            continue  # B+C: two winners, as B,C
        elif token in flag_keys():
            flags.add(token)
        elif token in pattern_keys():
            declared.append(token)
        elif (match := _FLOWERS.match(token)) is not None:
            if flowers is not None:
                raise EngineError("command.extra_args", extra=token)
            flowers = _typed_count(match.group(1))
        elif (match := _SOFT.match(token)) is not None:
            if soft:
                raise EngineError("command.extra_args", extra=token)
            soft = _typed_count(match.group(1))
        elif token in FLOWER_WORDS:
            continue  # 花 with no count: the service asks for the count
        elif _hand_like(token):
            hand.append(token)
        else:
            names.append(token)
    return Command(
        name,
        raw,
        names=tuple(names),
        self_draw=self_draw,
        hand_text=" ".join(hand),
        declared=tuple(declared),
        flowers=flowers,
        soft=soft,
        flags=frozenset(flags),
        plain=plain,
        also=also,
    )


def _typed_count(digits: str) -> int:
    if len(digits) > MAX_DIGITS:
        raise EngineError("number.too_big", text=digits)
    return int(digits)


def _undo(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    number = _number(tokens[0].lstrip("#")) if tokens else None
    if tokens and number is None:
        raise EngineError("undo.bad_id", text=tokens[0])
    return Command(name, raw, number=number, plain=plain)


def _history(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    """`/history 2`: a page of the log, 1 (the default) the latest; `/history #12`: event 12 in full
    (what a win's 明细 button asks)."""
    if tokens and tokens[0].startswith("#"):
        event = _number(tokens[0][1:])
        if event is None:
            raise EngineError("history.bad_event", text=tokens[0])
        return Command(name, raw, options={"event": str(event)}, plain=plain)
    page = _number(tokens[0]) if tokens else None
    if tokens and (page is None or page < 1):
        raise EngineError("history.bad_page", text=tokens[0])
    return Command(name, raw, number=page, plain=plain)


EXPORT_ALL = ("all", "全部")  # `/export all`


def _summary(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    options: dict[str, str] = {}
    rest = list(tokens)
    while rest:
        token = rest.pop(0)
        if token == "--chart" and rest and "chart" not in options:
            options["chart"] = rest.pop(0)
        elif token.startswith("--chart=") and "chart" not in options:
            options["chart"] = token.split("=", 1)[1]
        elif name == "export" and token.casefold() in EXPORT_ALL and "all" not in options:
            options["all"] = token  # every closed night of the chat, not the latest
        else:  # every word it cannot use named, not the first alone
            raise EngineError("command.extra_args", extra=" ".join([token, *rest]))
    return Command(name, raw, options=options, plain=plain)


def _rules(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    """`/rules` (in force), `/rules NAME` (any rules by name), `/rules ACTION WORDS…` (a change: `kind`)."""
    action = rules_actions().get(fold(tokens[0])) if tokens else None
    if action is not None:  # its words split at spaces only: a set's values are split at commas (比下胡=荒庄,花杠)
        words = normalize_width(raw).split()[2:]
        return Command(name, raw, names=tuple(words), kind=action, plain=plain)
    if len(tokens) > 1:
        raise EngineError("command.extra_args", extra=" ".join(tokens[1:]))
    return Command(name, raw, word=tokens[0] if tokens else None, plain=plain)


def _plain_rules(words: Sequence[str]) -> bool:
    """A plain line of the rules: 规则 alone, 规则 and a built-in preset's name, or a change whose
    every word is KEY=VALUE (`规则 改 跑=10`): anything else after 规则 is talk."""
    if not words:
        return True
    if len(words) == 1:
        return words[0].lower() in PRESET_NAMES
    return rules_actions().get(fold(words[0])) == "set" and all("=" in word for word in words[1:])


def only_looks(command: Command) -> bool:
    """Whether a command's line is a question (answered alike whoever asks, changes nothing): a
    question's grammar read with no action (`/rules set …` changes the rules)."""
    spec = GRAMMAR_BY_NAME.get(command.name)
    return spec is not None and spec.looks_only and command.kind in (None, "all")  # `/rules all` only looks


def _stats(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    """`/stats`, `/stats Bob`, `/stats 本月 [Bob] [csv]`: a plain line's period read whole, a name by pieces."""
    asked, names = read_stats_words(tokens, plain), tuple(t for t in tokens if is_name(t, known))
    return Command(name, raw, names, word=asked.name, options=asked.options, plain=plain, period=asked.period)


def _chore(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    return Command(name, raw, names=tuple(tokens), plain=plain)


Builder = Callable[[str, str, list[str], Sequence[str], bool], Command]
WholeWords = Callable[[list[str]], bool]


@dataclass(frozen=True)
class Grammar:
    """One row per command: its names, how its line is read, what it may do, and its help.

    The plain words that start it come from the catalogs (`words.command.<name>`), its help line is
    `help.<name>` and its menu entry `cmd.<name>`; its handler and menus are its row in the one command
    table, bot/chat/commands.py (the handlers read this module, so the table that names them sits above)."""

    name: str
    slash: tuple[str, ...]  # its `/latin` names, the first one shown
    example: str = ""
    build: Builder = _simple  # reads the command's words into a Command
    # A plain line: the kinds of piece that may follow the command word (anything else is talk) ...
    plain: frozenset[str] = frozenset()
    # ... or, for a command whose words are read whole (new names, amounts), whether they are its words
    whole: WholeWords | None = None
    slash_whole: bool = False  # a /command's words are read whole, not scanned for names and tiles
    most_words: int | None = None  # the most words it takes (a /command with more is an error)
    single_tile: bool = False  # a plain line names at most one tile
    flow: bool = False  # `/hu ~…`: a step of a guided flow (bot/chat/handlers/flows.py)
    looks_only: bool = False  # a question: changes nothing (a summary waiting for `yes` still stands)
    chat_own: bool = False  # the chat's own settings and tab: a line of it never claims a seat
    seats_itself: bool = False  # `/join`, `我是 李四`: no automatic binding before it
    head_only: bool = False  # answered and recorded from a checkpoint's head and the events after it

    @property
    def words(self) -> tuple[str, ...]:
        """The plain words that start the command (no slash needed), in every language: the
        catalogs' `words.command.<name>`, so a language brings its own words."""
        return plain_words(self.name)

    @property
    def claims_a_seat(self) -> bool:
        """Whether a line of it by an account with no seat may claim the one its name matches."""
        return not self.looks_only and not self.chat_own

    @property
    def hinted(self) -> bool:
        """A table event's plain line, answered with a hint when one piece fails. Other commands'
        plain words (查分, 结算 …) are too common in talk to read anything into a stray word after them."""
        return bool(self.plain) and self.most_words != 1 and not self.looks_only


_EVENT = _EVENT_ARGS  # who: a seated name or a seat


def _whole_words(count: int) -> WholeWords:
    return lambda words: len(words) == count


def _one_of(known: Callable[[str], object]) -> WholeWords:
    return lambda words: not words or (len(words) == 1 and known(words[0]) is not None)


GRAMMARS: tuple[Grammar, ...] = (
    Grammar(
        "new",
        ("new",),
        "/new Alice Bob Carol Dave preset=nanjing stake=2",
        _new,
        whole=lambda words: True,
        slash_whole=True,
    ),
    Grammar(
        "join", ("join",), "/join", plain=frozenset({NAME}), slash_whole=True, most_words=1, seats_itself=True
    ),  # 我是 李四: what the claim buttons read, typed
    Grammar(
        "pong", ("pong",), "/pong Bob 7p", _pong, _EVENT | {TILE, FLOWERS}, single_tile=True, head_only=True
    ),  # 花N: 三嘴/三清
    Grammar(
        "gang",
        ("gang",),
        "/gang Bob 5s",
        _gang,
        _EVENT | {TILE, GANG_KIND, SELF, FLOWERS},
        flow=True,
        single_tile=True,
        head_only=True,
    ),
    Grammar(
        "added_gang", ("addgang",), "/gang add 7p", _gang, _EVENT | {TILE, FLOWERS}, single_tile=True, head_only=True
    ),
    Grammar(
        "concealed_gang",
        ("selfgang",),
        "/gang self 3m",
        _gang,
        _EVENT | {TILE, FLOWERS},
        single_tile=True,
        head_only=True,
    ),
    Grammar("flower_gang", ("flowergang",), "/flowergang", _flower_gang, _EVENT, head_only=True),
    Grammar(
        "penalty",
        ("penalty",),
        "/penalty follow Bob",
        _penalty,
        _EVENT | {PENALTY_KIND, NUMBER},
        flow=True,
        head_only=True,
    ),
    Grammar("winds", ("winds",), "/winds Bob", _flower_gang, _EVENT, head_only=True),  # names only, like 花杠
    Grammar(
        "range", ("range", "jia"), "/range Bob 5s", _pong, _EVENT | {TILE}, single_tile=True, head_only=True
    ),  # a name, a tile
    Grammar(
        "hu",
        ("hu", "win"),
        "/hu self 123m456m789m234p5p+5p flowers=2",
        _hu,
        _EVENT | {SELF, FLAG, PATTERN, FLOWERS, SOFT, TILE, ALSO},
        flow=True,
    ),
    Grammar("draw", ("draw",), "/draw", most_words=0, head_only=True),
    Grammar("undo", ("undo",), "/undo 17", _undo, frozenset({NUMBER, SEAT}), most_words=1),
    Grammar("again", ("again",), "/again", most_words=2),  # `/again q7 no`, `/again 3`
    Grammar("fix", ("fix",), "/fix 2 /hu self 123m456m789m234p5p+5p flowers=3"),  # read by _fix, _plain_fix
    Grammar("unseat", ("unseat",), "/unseat Dave", plain=frozenset({NAME}), most_words=1),
    Grammar("rename", ("rename",), "/rename Dave David", _chore, whole=_whole_words(2), slash_whole=True),
    Grammar("swap", ("swap",), "/swap Dave Eve", _chore, whole=_whole_words(2), slash_whole=True),
    Grammar(
        "stake",
        ("stake",),
        "/stake 2",
        _chore,
        slash_whole=True,
        whole=lambda words: len(words) == 1 and re.fullmatch(r"\d+(\.\d+)?", words[0]) is not None,
    ),
    Grammar("dealer", ("dealer",), "/dealer Bob", _chore, whole=_whole_words(1), slash_whole=True),
    Grammar("score", ("score",), "/score", most_words=0, looks_only=True, head_only=True),
    Grammar(
        "history", ("history",), "/history 2", _history, frozenset({NUMBER}), most_words=1, looks_only=True
    ),  # 记录 2: the page
    Grammar("rules", ("rules",), "/rules", _rules, whole=_plain_rules, slash_whole=True, looks_only=True),
    Grammar("summary", ("summary",), "/summary", _summary, slash_whole=True, looks_only=True, head_only=True),
    Grammar("close", ("close", "yes"), "yes", most_words=0),
    Grammar("reopen", ("reopen",), "/reopen", most_words=0),
    Grammar(
        "stats",
        ("stats",),
        "/stats 本月",
        _stats,
        plain=frozenset({NAME}),
        whole=stats_shape,
        slash_whole=True,
        looks_only=True,
        head_only=True,
    ),
    # the tab's commands (bot/chat/handlers/tab.py) read their words whole: names of people from other nights, amounts
    Grammar(
        "tab",
        ("tab",),
        "/tab",
        _chore,
        whole=lambda words: not words,
        slash_whole=True,
        most_words=0,
        looks_only=True,
        head_only=True,
    ),
    Grammar(
        "paid",
        ("paid",),
        "/paid Bob Alice 120",
        _chore,
        whole=lambda words: tab_shape("paid", words),
        slash_whole=True,
        chat_own=True,
    ),
    Grammar(
        "settled",
        ("settled",),
        "/settled 3",
        _chore,
        whole=lambda words: tab_shape("settled", words),
        slash_whole=True,
        chat_own=True,
    ),
    Grammar(
        "season",
        ("season", "seasons"),
        "/season new 2026秋",
        _chore,  # its words are read by its handler (bot/chat/handlers/seasons.py), as the tab's are
        whole=season_shape,
        slash_whole=True,
        chat_own=True,
        head_only=True,
    ),
    Grammar("me", ("me",), "/me", most_words=0, looks_only=True),
    Grammar("export", ("export",), "/export", _summary, slash_whole=True, looks_only=True),
    Grammar(
        "lang",
        ("lang", "language"),
        "/lang en",
        whole=_one_of(normalize_language),
        slash_whole=True,
        most_words=1,
        chat_own=True,
    ),
    Grammar("board", ("board",), "/board each", whole=_one_of(mode_of), slash_whole=True, most_words=1, chat_own=True),
    Grammar("tz", ("tz", "timezone"), "/tz Asia/Shanghai", whole=_one_of(zone_name), slash_whole=True, chat_own=True),
    # /help WORD: one command in full, the word read whole (`/help flower gang`)
    Grammar("help", ("help", "start"), "/help", slash_whole=True, looks_only=True),
)
GRAMMAR_BY_NAME = {spec.name: spec for spec in GRAMMARS}
BY_SLASH = {alias: spec for spec in GRAMMARS for alias in spec.slash}


# ---- the fixed words, with every command's plain words ----------------------------------------------


@cache
def verbs() -> tuple[tuple[str, str], ...]:
    """Every command's plain words, folded, with the command each starts."""
    return tuple({fold(word): spec.name for spec in GRAMMARS for word in spec.words}.items())


@cache
def fixed_words() -> Words:
    """The fixed words a line is scanned with, by first character."""
    return _by_first_char(lexicon(verbs()))


@cache
def claim_words() -> tuple[str, ...]:
    """The words that name a pattern or a flag at a win (清一色, 压绝, 海底), folded: what a word on a
    win line may be a slip of."""
    return tuple(word for word, kind, _ in lexicon(verbs()) if kind in (PATTERN, FLAG))


@cache
def pattern_keys() -> frozenset[str]:
    return frozenset(text for _, kind, text in lexicon(verbs()) if kind == PATTERN)
