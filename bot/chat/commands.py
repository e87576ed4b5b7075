"""Parse one chat line into a command: `/pong Bob`, `碰 李四 东`, `胡 自摸 123m456m789m234p5p+5p 花2`.

One table (`COMMANDS`) lists every command with its `/latin` names; the plain words that start it
(Simplified and Traditional Chinese, English) come from the catalogs (`words.command.<name>`). The
README's reference is checked against both.

A line is read in two steps. `scan` cuts it into pieces — seated names, command words, flags,
patterns, tiles, numbers, flower counts — by longest match, spaces optional (`花2`, `碰了C`,
`杠上开花`); the parser knows the seated players' names so that a name is never mistaken for a tile
(西西 is a name). Then the command is built from the pieces.

Silence is a feature: a plain line (no `/`) is a command only when every piece of it is a word of
that command's grammar — `花杠呢？`, `胡说八道` and `花杠 Carl` (no Carl at the table) are chatter and
parse to None. A `/command` is always an attempt, so its unknown words are kept for the command
layer to explain (`no player Carl`), and an unknown `/name` parses to the `unknown` command.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from bot.text.replies import Reply
from bot.text.vocabulary import catalog_words, flag_words, fold, normalize_width, pattern_words
from bot.views.board import mode_of
from engine.errors import EngineError
from engine.notation import parse_hand_parts, parse_tile
from engine.preset import PRESET_NAMES
from engine.tiles import HARD_FLOWER_CHARS
from locales import normalize_language


@cache
def plain_words(name: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(catalog_words(f"command.{name}", with_name=False)))


UNKNOWN = "unknown"  # the command name of a `/word` that is no command

# Words of the grammar that are not command words, pattern words or flag words. Each maps to the
# canonical text the builders read. Matching folds scripts, so the Simplified form is enough.
SELF_WORDS = ("self", "self-draw", "self draw", "selfdraw", "self-drawn", "自摸", "zimo", "tsumo")
# A 胡 line that says it shares the last win's discard (一炮多响): joined to it without a question.
ALSO_WORDS = ("also", "一炮多响", "一炮两响", "一炮三响", "same-discard")
GANG_KIND_WORDS = {
    "add": "added",
    "added": "added",
    "补": "added",
    "added_gang": "added",  # 补杠 is a command word; inside /gang it names the kind
    "concealed": "concealed",
    "暗": "concealed",
    "self": "concealed",
    "concealed_gang": "concealed",
    "exposed": "exposed",
    "明": "exposed",
    "直": "exposed",
}
PENALTY_WORDS = {
    "follow": "penalty_follow",
    "跟牌": "penalty_follow",
    "跟": "penalty_follow",
    "four": "penalty_four",
    "四张": "penalty_four",
    "false": "false_win",
    "诈胡": "false_win",
    "zha": "false_win",
}
FLOWER_WORDS = ("花", "硬花", "flowers", "flower")  # with a number: 花2 2花 两花 花 二 2 flowers
SOFT_WORDS = ("软花", "soft")
MEASURE_WORDS = ("个",)  # 4个花
PARTICLES = ("了",)  # 碰了 杠了 胡了: only right after the command word
# A plain line ending in a sentence particle is talk about the game, not a command (流局吗, 花杠呢).
SENTENCE_PARTICLES = frozenset("吗嗎呢吧啊呀嘛么麼啦哦喔咯呗唄")
_TRAILING_MARKS = "!。.~…"

# Piece kinds.
NAME, SEAT, VERB, SELF, FLAG, PATTERN, ALSO = "name", "seat", "verb", "self", "flag", "pattern", "also"
GANG_KIND, PENALTY_KIND, FLOWER_WORD, SOFT_WORD, MEASURE = "gang_kind", "penalty_kind", "flower", "soft", "measure"
PARTICLE, NUMBER, TILE, FLOWERS, SOFT, WORD = "particle", "number", "tile", "flowers", "soft_count", "word"


@dataclass(frozen=True)
class Piece:
    kind: str
    text: str  # canonical: what the builders read (`flowers=2`, `after_gang`, `123m`, the seated name)
    start: int  # where it was typed in the normalized line
    end: int


@dataclass(frozen=True)
class Command:
    name: str
    raw: str
    names: tuple[str, ...] = ()  # player names, in the order typed
    tile: str | None = None
    kind: str | None = None  # gang kind, penalty kind
    amount: int | None = None
    options: dict[str, str] = field(default_factory=dict)
    self_draw: bool = False
    hand_text: str = ""
    declared: tuple[str, ...] = ()
    flowers: int | None = None
    soft: int = 0
    flags: frozenset[str] = frozenset()
    number: int | None = None  # /undo N, /history N (the page)
    word: str | None = None  # /lang X, /stats NAME, the unknown /command
    plain: bool = False  # started by a plain word, not a /command
    also: bool = False  # 胡 … 一炮多响 / also: another winner on the last win's discard


# ---- words ---------------------------------------------------------------------------------------


@cache
def _lexicon() -> tuple[tuple[str, str, str], ...]:
    """Every fixed word as (folded word, piece kind, canonical text), longest first."""
    verbs = {fold(word): spec.name for spec in COMMANDS for word in spec.words}
    entries: dict[str, tuple[str, str]] = {}

    def add(words: Mapping[str, str] | Sequence[str], kind: str, canonical: Callable[[str], str]) -> None:
        for word in words:
            folded = fold(word)
            if folded not in entries and folded not in verbs:
                entries[folded] = (kind, canonical(word))

    add(SELF_WORDS, SELF, lambda _: "self")
    add(ALSO_WORDS, ALSO, lambda _: "also")
    add(flag_words(), FLAG, flag_words().__getitem__)
    add(pattern_words(frozenset(verbs)), PATTERN, pattern_words(frozenset(verbs)).__getitem__)
    add(GANG_KIND_WORDS, GANG_KIND, lambda w: w if w.isascii() else _latin_kind(GANG_KIND_WORDS, w))
    add(PENALTY_WORDS, PENALTY_KIND, lambda w: w if w.isascii() else _latin_kind(PENALTY_WORDS, w))
    add(FLOWER_WORDS, FLOWER_WORD, lambda w: w)
    add(SOFT_WORDS, SOFT_WORD, lambda w: w)
    add(MEASURE_WORDS, MEASURE, lambda w: w)
    add(PARTICLES, PARTICLE, lambda w: w)
    table = [(word, VERB, name) for word, name in verbs.items()]
    table += [(word, kind, text) for word, (kind, text) in entries.items()]
    return tuple(sorted(table, key=lambda entry: -len(entry[0])))


@cache
def _lexicon_by_first_char() -> Mapping[str, tuple[tuple[str, str, str], ...]]:
    """The lexicon indexed by its words' first (folded) character: a line is read in one pass."""
    index: dict[str, list[tuple[str, str, str]]] = {}
    for entry in _lexicon():
        index.setdefault(entry[0][0], []).append(entry)
    return {char: tuple(entries) for char, entries in index.items()}


def _latin_kind(table: Mapping[str, str], word: str) -> str:
    """The ASCII word of the same kind (`跟牌` → `follow`), which is what the builders read."""
    return next(key for key, value in table.items() if key.isascii() and value == table[word])


@cache
def flag_keys() -> frozenset[str]:
    return frozenset(flag_words().values())


@cache
def pattern_keys() -> frozenset[str]:
    return frozenset(text for _, kind, text in _lexicon() if kind == PATTERN)


# ---- scanning ------------------------------------------------------------------------------------

_SEPARATOR = re.compile(r"[\s,，、;；]+")
_SUIT_MARKS = "万萬筒饼餅条條"
_TILE_PART = (
    rf"\d+[mpszMPSZ{_SUIT_MARKS}]|[一二三四五六七八九]+[{_SUIT_MARKS}]|[ESWN]+(?![A-Za-z])"
    rf"|[东東南西北{HARD_FLOWER_CHARS}]|[+\[\]{{}}()]"
)
_TILES = re.compile(rf"(?:{_TILE_PART})+")
_COUNT_OPTION = re.compile(r"(flowers|f|花|硬花|soft|软花|軟花)=(\d+)(?![A-Za-z0-9])", re.IGNORECASE)
_SEAT_OR_ID = re.compile(r"#\d+")
_DIGITS = re.compile(r"\d+")
_CHINESE_NUMBER = re.compile(r"[零一二两兩三四五六七八九十百]+")
_CHINESE_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2, "兩": 2}
_ASCII_WORD = re.compile(r"[^\s,，、;；\u0080-\U0010ffff]+")


def chinese_number(text: str) -> int | None:
    """二 → 2, 两 → 2, 十二 → 12, 二十 → 20, 一百 → 100, 一百零二 → 102, 一百二 → 120 (as it is said);
    None for what is not a number."""
    if "百" in text:
        hundreds, _, rest = text.partition("百")
        high = chinese_number(hundreds) if hundreds else 1
        if not rest:
            low: int | None = 0
        elif rest[0] == "零":
            low = _CHINESE_DIGITS.get(rest[1:]) if len(rest) == 2 else None
        elif len(rest) == 1:
            digit = _CHINESE_DIGITS.get(rest)
            low = None if digit is None else digit * 10  # 一百二 is 120
        else:
            low = chinese_number(rest)
            low = low if low is not None and low >= 10 else None
        return None if high is None or low is None or not 0 < high < 10 else high * 100 + low
    if "十" in text:
        tens, _, ones = text.partition("十")
        high = _CHINESE_DIGITS.get(tens, None) if tens else 1
        low = _CHINESE_DIGITS.get(ones, None) if ones else 0
        return None if high is None or low is None or len(tens) > 1 or len(ones) > 1 else high * 10 + low
    if len(text) == 1:
        return _CHINESE_DIGITS.get(text)
    return None


def _word_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def _bounded(line: str, start: int, end: int) -> bool:
    """An ASCII word matches only whole (`pongs` is not `pong`, `Bobby` is not `Bob`)."""
    if _word_char(line[start]) and start > 0 and _word_char(line[start - 1]):
        return False
    return not (_word_char(line[end - 1]) and end < len(line) and _word_char(line[end]))


def _canonical_tiles(text: str) -> str:
    """`123M` → `123m`, `一二三万` → `123万`: the forms the engine's notation reads."""
    text = re.sub(r"(\d)([MPSZ])", lambda m: m[1] + m[2].lower(), text)
    return re.sub(
        rf"[一二三四五六七八九]+(?=[{_SUIT_MARKS}])",
        lambda m: "".join(str(_CHINESE_DIGITS[c]) for c in m[0]),
        text,
    )


class _Scanner:
    def __init__(self, line: str, known: Sequence[str]) -> None:
        self.line = line
        self.folded = fold(line)
        self.names: dict[str, list[tuple[str, str]]] = {}  # by first folded character, longest first
        for folded, name in sorted({(fold(name), name) for name in known if name}, key=lambda n: -len(n[0])):
            self.names.setdefault(folded[0], []).append((folded, name))

    def pieces(self) -> list[Piece]:
        pieces: list[Piece] = []
        position = 0
        while position < len(self.line):
            gap = _SEPARATOR.match(self.line, position)
            if gap:
                position = gap.end()
                continue
            piece = self.known_piece(position) or self.unknown_piece(position)
            pieces.append(piece)
            position = piece.end
        return _pair_counts(_collapse_unknown_chunks(self.line, pieces))

    def known_piece(self, at: int) -> Piece | None:
        for reader in (self.name, self.count_option, self.word, self.tiles, self.number):
            piece = reader(at)
            if piece is not None:
                return piece
        return None

    def name(self, at: int) -> Piece | None:
        start = at + 1 if self.line[at] == "@" and at + 1 < len(self.line) else at
        for folded, name in self.names.get(self.folded[start], ()):
            end = start + len(folded)
            if self.folded.startswith(folded, start) and _bounded(self.line, start, end):
                return Piece(NAME, name, at, end)
        return None

    def count_option(self, at: int) -> Piece | None:
        match = _COUNT_OPTION.match(self.line, at)
        if match is None or len(match[2]) > MAX_DIGITS:
            return None
        kind = SOFT if fold(match[1]) in {fold(w) for w in SOFT_WORDS} or match[1].lower() == "soft" else FLOWERS
        prefix = "soft" if kind == SOFT else "flowers"
        return Piece(kind, f"{prefix}={int(match[2])}", at, match.end())

    def word(self, at: int) -> Piece | None:
        for word, kind, text in _lexicon_by_first_char().get(self.folded[at], ()):
            end = at + len(word)
            if self.folded.startswith(word, at) and _bounded(self.line, at, end):
                return Piece(kind, text, at, end)
        return None

    def tiles(self, at: int) -> Piece | None:
        match = _TILES.match(self.line, at)
        if match is None or not _bounded(self.line, at, match.end()):
            return None
        return Piece(TILE, _canonical_tiles(match[0]), at, match.end())

    def number(self, at: int) -> Piece | None:
        if match := _SEAT_OR_ID.match(self.line, at):
            return Piece(SEAT, match[0], at, match.end())
        if (match := _DIGITS.match(self.line, at)) and _bounded(self.line, at, match.end()):
            if len(match[0]) > MAX_DIGITS:  # a typo or a prank, not a number: left for the command to refuse
                return None
            return Piece(NUMBER, str(int(match[0])), at, match.end())
        if (match := _CHINESE_NUMBER.match(self.line, at)) and (value := chinese_number(match[0])) is not None:
            return Piece(NUMBER, str(value), at, match.end())
        return None

    def unknown_piece(self, at: int) -> Piece:
        """An unknown word: a whole ASCII word, or non-ASCII characters up to the next known piece."""
        if self.line[at].isascii():
            match = _ASCII_WORD.match(self.line, at)
            end = match.end() if match else at + 1
            return Piece(WORD, self.line[at:end], at, end)
        end = at + 1
        while end < len(self.line) and not self.line[end].isascii() and not _SEPARATOR.match(self.line, end):
            if self.known_piece(end) is not None:
                break
            end += 1
        return Piece(WORD, self.line[at:end], at, end)


def _collapse_unknown_chunks(line: str, pieces: list[Piece]) -> list[Piece]:
    """A space-separated chunk with any unknown part is one unknown word (`Carl7p`, `李斯`), so that a
    /command's error names what was typed."""
    out: list[Piece] = []
    index = 0
    while index < len(pieces):
        last = index
        while last + 1 < len(pieces) and pieces[last + 1].start == pieces[last].end:
            last += 1
        chunk = pieces[index : last + 1]
        if any(p.kind == WORD for p in chunk):
            out.append(Piece(WORD, line[chunk[0].start : chunk[-1].end], chunk[0].start, chunk[-1].end))
        else:
            out.extend(chunk)
        index = last + 1
    return out


def _pair_counts(pieces: list[Piece]) -> list[Piece]:
    """A flower word and a number make a count, either way round: 花2 花 2 2花 两花 花二 4个花 2 flowers."""
    out: list[Piece] = []
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        following = pieces[index + 1 : index + 3]
        kinds = [p.kind for p in following]
        if piece.kind in (FLOWER_WORD, SOFT_WORD) and kinds[:1] == [NUMBER]:
            out.append(_count(piece, following[0], following[0]))
            index += 2
        elif piece.kind == NUMBER and kinds[:1] and kinds[0] in (FLOWER_WORD, SOFT_WORD):
            out.append(_count(following[0], piece, following[0]))
            index += 2
        elif piece.kind == NUMBER and kinds == [MEASURE, FLOWER_WORD]:
            out.append(_count(following[1], piece, following[1]))
            index += 3
        else:
            out.append(piece)
            index += 1
    return out


def _count(word: Piece, number: Piece, last: Piece) -> Piece:
    soft = word.kind == SOFT_WORD
    start = min(word.start, number.start)
    return Piece(SOFT if soft else FLOWERS, f"{'soft' if soft else 'flowers'}={number.text}", start, last.end)


def scan(line: str, known: Sequence[str] = ()) -> list[Piece]:
    """The pieces of a (width-normalized) line."""
    return _Scanner(line, known).pieces()


# ---- parsing -------------------------------------------------------------------------------------

_EVENT_ARGS = frozenset({NAME, SEAT})


TAB_AMOUNT = re.compile(r"(\d{1,9})(?:\.(\d{1,2}))?(?:元|块|塊)?")


def tab_amount_cents(word: str) -> int | None:
    """An amount as typed (`120`, `12.5`, `120元`, `五十块`, `一百二`) in cents; None if it is none."""
    match = TAB_AMOUNT.fullmatch(word)
    if match is not None:
        return int(match[1]) * 100 + int((match[2] or "0").ljust(2, "0"))
    value = chinese_number(word.rstrip("元块塊"))
    return None if value is None else value * 100


def tab_undo_word(word: str) -> bool:
    return fold(word) in {fold(w) for w in catalog_words("tab.undo", with_name=False)}


def tab_shape(name: str, words: Sequence[str]) -> bool:
    """Whether a plain line's words are a payment (`付了 [payer] payee 120`), a settle mark (`结清 [3]`)
    or the undo of one (`付了 撤销 [2]`): anything else after those words is talk."""
    if words and tab_undo_word(words[0]):
        return len(words) == 1 or (len(words) == 2 and words[1].isdigit())
    if name == "paid":
        return len(words) in (2, 3) and tab_amount_cents(words[-1]) is not None
    return len(words) <= 1 and all(w.isdigit() for w in words)


# A question's own id in a button's command (`/again q7 no`): the button answers that question, once
# (bot/chat/handlers/repeats.py); a front end keys the press by it (bot/telegram/input.py).
QUESTION = re.compile(r"(?<!\S)q(\d{1,9})(?!\S)")


def question_token(question: int) -> str:
    return f"q{question}"


def question_of(command_line: str) -> int | None:
    """The question a button's command answers (`/again q7` → 7), or None."""
    match = QUESTION.search(command_line)
    return int(match[1]) if match else None


def asks_only(text: str) -> bool:
    """Whether the line is a question (/score, /summary, 查分 …): answered alike whoever asks, so a
    front end need not look up the speaker's rights in the chat (an admin list) to answer it. Read
    without the table's names: a line that needs them to be read is not taken for a question."""
    try:
        command = parse(text)
    except EngineError:
        return False
    spec = SPEC_BY_NAME.get(command.name) if command is not None else None
    return spec is not None and spec.looks_only


_SLASH_HEAD = re.compile(r"(\S*)\s*(.*)", re.DOTALL)


def parse(text: str, known_names: Sequence[str] = ()) -> Command | None:
    """The command in `text`, or None if the line is not addressed to the referee."""
    raw = text.strip()
    line = normalize_width(raw)
    if line.startswith("/"):
        return _parse_slash(raw, line, known_names)
    return _parse_plain(raw, line, known_names)


def _parse_slash(raw: str, line: str, known: Sequence[str]) -> Command | None:
    match = _SLASH_HEAD.match(line, 1)
    assert match is not None  # the pattern matches any text
    head, rest = match.groups()
    name = head.partition("@")[0]
    spec = _SLASH.get(name.lower())
    if spec is None:
        # A front end drops `/foo@otherbot` before it gets here (the console has no other bots).
        return Command(UNKNOWN, raw, word="/" + name) if name else None
    if spec.name == "fix":
        return _fix(raw, rest, False)
    claim = CLAIM_ROWS.match(rest.strip()) if spec.name == "undo" else None
    if claim is not None:  # `/undo claim=57,58`: the button under a claim by another name (read whole)
        return Command(spec.name, raw, options={"claim": claim[0].removeprefix("claim=")})
    if spec.flow and rest.startswith("~"):  # a guided flow's step: its state, read by the flow
        return Command(spec.name, raw, word=rest.strip())
    # free text (names to seat, options, a path, a language) is read whole; other words are scanned
    tokens = _tokens(rest) if spec.slash_whole else [p.text for p in scan(rest, known) if p.kind != PARTICLE]
    if spec.most_words is not None and len(tokens) > spec.most_words:
        raise EngineError("command.extra_args", extra=" ".join(tokens[spec.most_words :]))
    return spec.build(spec.name, raw, tokens, known, False)


def _parse_plain(raw: str, line: str, known: Sequence[str]) -> Command | None:
    if "?" in line:
        return None
    line = line.rstrip(_TRAILING_MARKS).rstrip()
    if not line or line[-1] in SENTENCE_PARTICLES:
        return None
    pieces = scan(line, known)
    found = _verb(pieces)
    if found is None:
        return None
    name, lead, args = found
    if name == "fix":
        return None if lead else _plain_fix(raw, line[pieces[0].end :], known)
    spec = SPEC_BY_NAME[name]
    if spec.whole is not None:
        rest = line[pieces[len(lead)].end :]
        words = _tokens(rest)
        if (rest and not rest[0].isspace()) or lead or not spec.whole(words):
            return None
        return spec.build(name, raw, words, known, True)
    if not _exact(spec, args):
        return None
    tokens = [p.text for p in (*lead, *args) if p.kind != PARTICLE]
    try:
        return spec.build(name, raw, tokens, known, True)
    except EngineError:
        return None  # words of the command that do not fit together (罚 跟牌 李四 10): talk, not a command


def _verb(pieces: Sequence[Piece]) -> tuple[str, tuple[Piece, ...], tuple[Piece, ...]] | None:
    """The command a plain line starts with, after any names (乙 杠 丙 5s): a command word, or 自摸 or a
    win flag (杠上开花 …) standing for 胡. Returns the command, the names before it, and the rest."""
    index = 0
    while index < len(pieces) and pieces[index].kind in (NAME, SEAT):
        index += 1
    if index == len(pieces):
        return None
    first = pieces[index]
    lead = tuple(pieces[:index])
    if first.kind == VERB:
        rest = pieces[index + 1 :]
        if rest and rest[0].kind == PARTICLE:
            rest = rest[1:]
        return first.text, lead, tuple(rest)
    if first.kind in (SELF, FLAG):  # 自摸 …, 杠上开花 胡 …: the word 胡 may follow once
        rest = list(pieces[index:])
        if len(rest) > 1 and rest[1].kind == PARTICLE:  # 自摸了
            del rest[1]
        verb = next((i for i, p in enumerate(rest) if p.kind == VERB and p.text == "hu"), None)
        if verb is not None:
            del rest[verb : verb + (2 if verb + 1 < len(rest) and rest[verb + 1].kind == PARTICLE else 1)]
        return "hu", lead, tuple(rest)
    return None


def _exact(spec: CommandSpec, args: Sequence[Piece]) -> bool:
    """Whether every piece after the command word belongs to this command's grammar."""
    if any(piece.kind not in spec.plain for piece in args):
        return False
    if spec.most_words is not None and len(args) > spec.most_words:
        return False
    if spec.single_tile:
        tiles = [p.text for p in args if p.kind == TILE]
        return len(tiles) <= 1 and all(_one_tile(tile) for tile in tiles)
    return True


def _one_tile(text: str) -> bool:
    try:
        parse_tile(text)
    except EngineError:
        return False
    return True


# Errors that mean a /command was typed in the wrong form (not that the table refused it): the reply
# adds the command's right form. Plain lines never get here in the wrong form: they are chatter.
USAGE_ERRORS = frozenset(
    {
        "player.unknown",
        "tile.unknown",
        "tile.not_one",
        "meld.malformed",
        "hand.no_winning_tile",
        "hand.two_winning_tiles",
        "hu.needs_flowers",
        "hu.whose_discard",
        "penalty.needs_amount",
        "command.too_many_names",
        "command.extra_args",
        "number.too_big",
        "undo.bad_id",
        "history.bad_page",
        "board.unknown",
    }
)


def usage_hint(command: Command | str | None, replies: Sequence[Reply]) -> Reply | None:
    """The one-line right form of a /command (a Command, or the text of a line that did not parse)
    refused for its form; None for plain lines and other refusals."""
    if isinstance(command, str):
        line = normalize_width(command).strip()
        match = _SLASH_HEAD.match(line, 1) if line.startswith("/") else None
        spec = _SLASH.get(match[1].partition("@")[0].lower()) if match else None
    else:
        spec = SPEC_BY_NAME.get(command.name) if command is not None and not command.plain else None
    if spec is None or not any(reply.key in USAGE_ERRORS for reply in replies):
        return None
    return Reply("command.usage", {"usage": Reply(f"help.{spec.name}", {"example": spec.example})})


def _tokens(text: str) -> list[str]:
    return [t for t in _SEPARATOR.split(text.strip()) if t]


MAX_DIGITS = 9  # event numbers, amounts: anything longer is a typo, not a number

SEAT_TOKEN = re.compile(r"^#[0-3]$")  # a seat by number: what buttons send, to keep callback data short


def _is_name(token: str, known: Sequence[str]) -> bool:
    if SEAT_TOKEN.match(token):
        return True
    folded = fold(token.lstrip("@"))
    return any(folded == fold(name) for name in known)


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


def _fix(raw: str, rest: str, plain: bool) -> Command | None:
    """`/fix N <corrected line>`: the number, and the line kept whole (parsed again by the handler).
    A plain 改 not followed by a number is chatter (改天再打)."""
    number_text, _, line = rest.strip().partition(" ")
    number_text = number_text.lstrip("#")
    if not number_text.isascii() or not number_text.isdigit():
        if plain:
            return None
        raise EngineError("fix.usage")
    if len(number_text) > MAX_DIGITS:
        raise EngineError("number.too_big", text=number_text)
    return Command("fix", raw, number=int(number_text), word=line.strip() or None, plain=plain)


def _plain_fix(raw: str, rest: str, known: Sequence[str]) -> Command | None:
    """改 is a fix only in the fix grammar, `改 N <line>` with a line that is itself a command, or
    that holds a command's word (`改 2 丁 胡 乙 …`: 丁 stood up since, so the line reads as a
    command only among the players of then — the handler reads it there, and answers either way):
    `改 1 下` and `改天再打` are talk."""
    command = _fix(raw, rest, True)
    if command is None or command.word is None:
        return None
    try:
        corrected = parse(command.word, known)
    except EngineError:
        return command  # a /command in the wrong form: the fix's handler explains it
    if corrected is None and reads_with_names_of_then(command.word, known):
        return command  # a correction all the same: never silently lost
    return command if corrected is not None else None


def reads_with_names_of_then(line: str, known: Sequence[str]) -> bool:
    """Whether the unknown words where a line names its players (before its command word, or right
    after it: `丁 胡 乙`, `甲 胡 丁`) make it a command once read as names: players who stood up since.
    A stray word elsewhere (`… flowers=3 谢谢`) leaves it talk."""
    pieces = scan(line, known)
    verb = next((i for i, p in enumerate(pieces) if p.kind in (VERB, SELF)), None)
    if verb is None:
        return False
    places = [*pieces[:verb], *pieces[verb + 1 : verb + 2]]
    words = [p.text for p in places if p.kind == WORD]
    return bool(words) and parse(line, [*known, *words]) is not None


def _simple(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    word = " ".join(tokens) or None
    number = _int(tokens[0]) if len(tokens) == 1 else None
    return Command(
        name, raw, names=tuple(t for t in tokens if _is_name(t, known)), word=word, number=number, plain=plain
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
        if _is_name(token, known):
            names.append(token)
        elif tile is None and _looks_like_tiles(token):
            tile = token
        elif _ONE_SUITED_TILE.match(token.lower()) and not _looks_like_tiles(token):
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
        if token.lower() in GANG_KIND_WORDS and not _is_name(token, known):
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
        if token.lower() in PENALTY_WORDS and not _is_name(token, known):
            kind = PENALTY_WORDS[token.lower()]
            kinds += 1
        elif _number(token) is not None and not _is_name(token, known):
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
        if _is_name(token, known):
            names.append(token)
        elif token == "self":
            self_draw = True
        elif token == "also":
            also = True
        elif token == "+" and names and index + 1 < len(tokens) and _is_name(tokens[index + 1], known):
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


CLAIM_ROWS = re.compile(r"^claim=(\d{1,12})(?:,(\d{1,12}))?$")  # the undo-claim button's: bind row, line row


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


def _chore(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    return Command(name, raw, names=tuple(tokens), plain=plain)


Builder = Callable[[str, str, list[str], Sequence[str], bool], Command]
WholeWords = Callable[[list[str]], bool]


@dataclass(frozen=True)
class CommandSpec:
    """One row per command: its names, how its line is read, what it may do, and its help.

    The plain words that start it come from the catalogs (`words.command.<name>`), its help line is
    `help.<name>` and its menu entry `cmd.<name>`; its handler is the row of the same name in
    bot/chat/service.py's `HANDLERS` (the handlers read this module, so the table of functions sits above)."""

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
        return bool(self.plain) and self.most_words != 1


_EVENT = _EVENT_ARGS  # who: a seated name or a seat


def _whole_words(count: int) -> WholeWords:
    return lambda words: len(words) == count


def _one_of(known: Callable[[str], object]) -> WholeWords:
    return lambda words: not words or (len(words) == 1 and known(words[0]) is not None)


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "new",
        ("new",),
        "/new Alice Bob Carol Dave preset=nanjing stake=2",
        _new,
        whole=lambda words: True,
        slash_whole=True,
    ),
    CommandSpec(
        "join", ("join",), "/join", plain=frozenset({NAME}), slash_whole=True, most_words=1, seats_itself=True
    ),  # 我是 李四: what the claim buttons read, typed
    CommandSpec(
        "pong", ("pong",), "/pong Bob 7p", _pong, _EVENT | {TILE, FLOWERS}, single_tile=True, head_only=True
    ),  # 花N: 三嘴/三清
    CommandSpec(
        "gang",
        ("gang",),
        "/gang Bob 5s",
        _gang,
        _EVENT | {TILE, GANG_KIND, SELF, FLOWERS},
        flow=True,
        single_tile=True,
        head_only=True,
    ),
    CommandSpec(
        "added_gang", ("addgang",), "/gang add 7p", _gang, _EVENT | {TILE, FLOWERS}, single_tile=True, head_only=True
    ),
    CommandSpec(
        "concealed_gang",
        ("selfgang",),
        "/gang self 3m",
        _gang,
        _EVENT | {TILE, FLOWERS},
        single_tile=True,
        head_only=True,
    ),
    CommandSpec("flower_gang", ("flowergang",), "/flowergang", _flower_gang, _EVENT, head_only=True),
    CommandSpec(
        "penalty",
        ("penalty",),
        "/penalty follow Bob",
        _penalty,
        _EVENT | {PENALTY_KIND, NUMBER},
        flow=True,
        head_only=True,
    ),
    CommandSpec("winds", ("winds",), "/winds Bob", _flower_gang, _EVENT, head_only=True),  # names only, like 花杠
    CommandSpec(
        "range", ("range", "jia"), "/range Bob 5s", _pong, _EVENT | {TILE}, single_tile=True, head_only=True
    ),  # a name, a tile
    CommandSpec(
        "hu",
        ("hu", "win"),
        "/hu self 123m456m789m234p5p+5p flowers=2",
        _hu,
        _EVENT | {SELF, FLAG, PATTERN, FLOWERS, SOFT, TILE, ALSO},
        flow=True,
    ),
    CommandSpec("draw", ("draw",), "/draw", most_words=0, head_only=True),
    CommandSpec("undo", ("undo",), "/undo 17", _undo, frozenset({NUMBER, SEAT}), most_words=1),
    CommandSpec("again", ("again",), "/again", most_words=2),  # `/again q7 no`, `/again 3`
    CommandSpec("fix", ("fix",), "/fix 2 /hu self 123m456m789m234p5p+5p flowers=3"),  # read by _fix, _plain_fix
    CommandSpec("unseat", ("unseat",), "/unseat Dave", plain=frozenset({NAME}), most_words=1),
    CommandSpec("rename", ("rename",), "/rename Dave David", _chore, whole=_whole_words(2), slash_whole=True),
    CommandSpec("swap", ("swap",), "/swap Dave Eve", _chore, whole=_whole_words(2), slash_whole=True),
    CommandSpec(
        "stake",
        ("stake",),
        "/stake 2",
        _chore,
        slash_whole=True,
        whole=lambda words: len(words) == 1 and re.fullmatch(r"\d+(\.\d+)?", words[0]) is not None,
    ),
    CommandSpec("dealer", ("dealer",), "/dealer Bob", _chore, whole=_whole_words(1), slash_whole=True),
    CommandSpec("score", ("score",), "/score", most_words=0, looks_only=True, head_only=True),
    CommandSpec(
        "history", ("history",), "/history 2", _history, frozenset({NUMBER}), most_words=1, looks_only=True
    ),  # 记录 2: the page
    CommandSpec(
        "rules",
        ("rules",),
        "/rules",
        whole=_one_of(lambda word: word.lower() in PRESET_NAMES or None),
        slash_whole=True,
        most_words=1,
        looks_only=True,
    ),
    CommandSpec("summary", ("summary",), "/summary", _summary, slash_whole=True, looks_only=True, head_only=True),
    CommandSpec("close", ("close", "yes"), "yes", most_words=0),
    CommandSpec("reopen", ("reopen",), "/reopen", most_words=0),
    CommandSpec("stats", ("stats",), "/stats", plain=frozenset({NAME}), most_words=1, looks_only=True, head_only=True),
    # the tab's commands (bot/chat/handlers/tab.py) read their words whole: names of people from other nights, amounts
    CommandSpec(
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
    CommandSpec(
        "paid",
        ("paid",),
        "/paid Bob Alice 120",
        _chore,
        whole=lambda words: tab_shape("paid", words),
        slash_whole=True,
        chat_own=True,
    ),
    CommandSpec(
        "settled",
        ("settled",),
        "/settled 3",
        _chore,
        whole=lambda words: tab_shape("settled", words),
        slash_whole=True,
        chat_own=True,
    ),
    CommandSpec("me", ("me",), "/me", most_words=0, looks_only=True),
    CommandSpec("export", ("export",), "/export", _summary, slash_whole=True, looks_only=True),
    CommandSpec(
        "lang",
        ("lang", "language"),
        "/lang en",
        whole=_one_of(normalize_language),
        slash_whole=True,
        most_words=1,
        chat_own=True,
    ),
    CommandSpec(
        "board", ("board",), "/board each", whole=_one_of(mode_of), slash_whole=True, most_words=1, chat_own=True
    ),
    CommandSpec("help", ("help", "start"), "/help", most_words=0, looks_only=True),
)
SPEC_BY_NAME = {spec.name: spec for spec in COMMANDS}
_SLASH = {alias: spec for spec in COMMANDS for alias in spec.slash}
# what may follow each command word in a plain line (the near-command hints read it too)
PLAIN_ARGS = {spec.name: spec.plain for spec in COMMANDS if spec.plain}


def reports_an_event(command: Command, known: Sequence[str]) -> bool:
    """Whether a plain line is a table event that names a seated player or a tile (`Bob gang Alice
    9p`, `pong Carol 6s`): the whole grammar of a report, so its refusal is answered whatever the
    script — unlike a bare English word that merely starts a chat message (`yes`, `dealer wins`)."""
    spec = SPEC_BY_NAME.get(command.name)
    if spec is None or not spec.hinted:
        return False
    return bool(command.tile or command.hand_text or any(_is_name(name, known) for name in command.names))


# ---- near-commands: a plain line one piece away from a command ----------------------------------

_ONE_SUITED_TILE = re.compile(r"^\d+[mpsz]$")  # 0m, 10p: a tile by its form, only its number wrong
_NOT_WHOLE = re.compile(r"^(?:[-+]\d+|[-+]?\d*[.,/]\d+)$")  # 1.5, -5, 1/2 (a plain 5 is whole)


def not_whole_amount(word: str) -> bool:
    """A penalty amount typed as a number that is not whole flowers (`1.5`, `-5`, `1/2`): the
    scanner leaves it a word, so the line would read it as a name."""
    return _NOT_WHOLE.match(word) is not None


@dataclass(frozen=True)
class NearMiss:
    """Why a plain line is not the command it almost is: a hint key and its fields, and the line
    with the one failing piece mended (`corrected`, names as seated) when there is one."""

    key: str
    params: Mapping[str, str]
    corrected: str | None = None
    slash: str = ""  # the command's /name
    lead: tuple[str, ...] = ()  # the names typed before the command word
    args: tuple[str, ...] = ()  # the pieces after it, as typed; args[bad] is the failing one
    bad: int = 0
    needs_actor: bool = False  # the mended line's event is the speaker's (no actor named in it)

    def button(self, replacement: str, actor: str | None) -> str:
        """The mended line as a /command for a button (`/pong #3 #1 6s`): the failing piece
        replaced (by a seat token), the speaker's seat named first when the event is theirs."""
        args = [replacement if index == self.bad else text for index, text in enumerate(self.args)]
        words = [*self.lead, *([actor] if actor and self.needs_actor else []), *args]
        return " ".join([f"/{self.slash}", *words])


def closest_name(word: str, known: Sequence[str]) -> str | None:
    """The one seated name that `word` is a slip of: the same length (two characters or more) with
    exactly one character different — the wrong character an input method offers for the same
    sound (李思 for 李四, 王伍 for 王五) — or two neighbours swapped (Bbo for Bob). A dropped or
    added letter (Carl, Bobb) is not read as a slip:
    such a line is as likely talk about someone else."""
    folded = fold(word.lstrip("@"))
    if len(folded) < 2:
        return None
    close = {name for name in known if _one_slip(fold(name), folded)}
    return close.pop() if len(close) == 1 else None


def _one_slip(name: str, typed: str) -> bool:
    """One character wrong, or two neighbours swapped (Bbo for Bob: a thumb on a phone)."""
    if len(name) != len(typed):
        return False
    wrong = [at for at, (a, b) in enumerate(zip(name, typed, strict=True)) if a != b]
    if len(wrong) == 1:
        return True
    return (
        len(wrong) == 2
        and wrong[1] == wrong[0] + 1
        and name[wrong[0]] == typed[wrong[1]]
        and name[wrong[1]] == typed[wrong[0]]
    )


def near_command(text: str, known: Sequence[str]) -> NearMiss | None:
    """For a plain line that `parse` read as chatter: a hint when it is a table event's word and
    grammar with exactly one piece wrong — an unknown name close to a seated one, or a tile that
    cannot be (`0m`). Talk (a question, a sentence particle, stray words) gets None: silence."""
    line = normalize_width(text.strip())
    if line.startswith("/") or "?" in line:
        return None
    line = line.rstrip(_TRAILING_MARKS).rstrip()
    if not line or line[-1] in SENTENCE_PARTICLES:
        return None
    pieces = scan(line, known)
    found = _verb(pieces)
    if found is None or not SPEC_BY_NAME[found[0]].hinted:
        return None
    name, lead, args = found
    spec = SPEC_BY_NAME[name]
    bad = [
        p for p in args if p.kind not in spec.plain or (p.kind == TILE and spec.single_tile and not _one_tile(p.text))
    ]
    if len(bad) != 1:
        return None
    piece = bad[0]
    typed = line[piece.start : piece.end]
    if piece.kind in (TILE, WORD) and _ONE_SUITED_TILE.match(typed.lower()) and not _one_tile(typed):
        return NearMiss("hint.no_such_tile", {"tile": typed})
    if name == "penalty" and piece.kind == WORD and not_whole_amount(typed):
        return NearMiss("penalty.bad_amount", {"amount": typed})  # 罚 李四 1.5: whole flowers only
    if piece.kind != WORD:
        return None
    seated = closest_name(typed, known)
    if seated is None:
        return None
    corrected = line[: piece.start] + seated + line[piece.end :]
    try:
        command = parse(corrected, known)
    except EngineError:
        return None
    if command is None:
        return None
    texts = tuple(line[p.start : p.end] for p in args if p.kind != PARTICLE)
    return NearMiss(
        "hint.no_such_name",
        {"typed": typed, "name": seated},
        corrected,
        SPEC_BY_NAME[name].slash[0],
        tuple(line[p.start : p.end] for p in lead),
        texts,
        [p for p in args if p.kind != PARTICLE].index(piece),
        len(command.names) < _names_with_actor(command),
    )


def _names_with_actor(command: Command) -> int:
    """How many names an event's line holds when its actor is named (the handlers read the first
    of them as the actor): two where someone fed the meld or the win, one otherwise; a penalty
    names its offender and never means the speaker."""
    if command.name == "penalty":
        return 0
    fed = command.name == "pong" or (command.name == "gang" and command.kind == "exposed")
    return 2 if fed or (command.name == "hu" and not command.self_draw and not command.flags) else 1
