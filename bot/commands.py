"""Parse one chat line into a command: `/pong Bob`, `碰 李四 东`, `胡 自摸 123m456m789m234p5p+5p 花2`.

One table (`COMMANDS`) lists every command with its `/latin` names and the plain words (Simplified
and Traditional Chinese, English) that start it; the README's reference is checked against it. The
parser knows the seated players' names so that a name is never mistaken for a tile (西西 is a name).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.errors import EngineError
from engine.notation import parse_hand_parts
from engine.tiles import HARD_FLOWER_CHARS


@dataclass(frozen=True)
class CommandSpec:
    name: str
    slash: tuple[str, ...]
    words: tuple[str, ...]  # plain words that start the command (no slash needed)
    example: str = ""


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("new", ("new",), ("开局", "開局"), "/new Alice Bob Carol Dave preset=nanjing stake=2"),
    CommandSpec("join", ("join",), ("加入",), "/join"),
    CommandSpec("pong", ("pong",), ("碰", "pong"), "/pong Bob 7p"),
    CommandSpec("gang", ("gang",), ("杠", "槓", "明杠", "明槓", "直杠", "直槓", "gang"), "/gang Bob 5s"),
    CommandSpec("added_gang", ("addgang",), ("补杠", "補槓"), "/gang add 7p"),
    CommandSpec("concealed_gang", ("selfgang",), ("暗杠", "暗槓"), "/gang self 3m"),
    CommandSpec("flower_gang", ("flowergang",), ("花杠", "花槓"), "/flowergang"),
    CommandSpec("penalty", ("penalty",), ("罚", "罰"), "/penalty follow Bob"),
    CommandSpec("hu", ("hu", "win"), ("胡", "hu"), "/hu self 123m456m789m234p5p+5p flowers=2"),
    CommandSpec("draw", ("draw",), ("荒庄", "荒莊", "流局"), "/draw"),
    CommandSpec("undo", ("undo",), ("撤销", "撤銷"), "/undo 17"),
    CommandSpec("fix", ("fix",), ("改", "更正"), "/fix 2 /hu self 123m456m789m234p5p+5p flowers=3"),
    CommandSpec("unseat", ("unseat",), ("让座", "讓座", "离座", "離座"), "/unseat Dave"),
    CommandSpec("score", ("score",), ("查分", "分数", "分數"), "/score"),
    CommandSpec("history", ("history",), ("记录", "記錄", "历史", "歷史"), "/history"),
    CommandSpec("rules", ("rules",), ("规则", "規則"), "/rules"),
    CommandSpec("summary", ("summary",), ("结算", "結算"), "/summary"),
    CommandSpec("close", ("close", "yes"), ("确认", "確認", "yes"), "yes"),
    CommandSpec("reopen", ("reopen",), ("重开", "重開"), "/reopen"),
    CommandSpec("stats", ("stats",), ("统计", "統計", "战绩", "戰績"), "/stats"),
    CommandSpec("me", ("me",), ("我的",), "/me"),
    CommandSpec("export", ("export",), ("导出", "導出"), "/export"),
    CommandSpec("lang", ("lang", "language"), ("语言", "語言"), "/lang en"),
    CommandSpec("help", ("help", "start"), ("帮助", "幫助"), "/help"),
)
SPEC_BY_NAME = {spec.name: spec for spec in COMMANDS}
_SLASH = {alias: spec for spec in COMMANDS for alias in spec.slash}
_WORDS = sorted(((word, spec) for spec in COMMANDS for word in spec.words), key=lambda p: -len(p[0]))

SELF_WORDS = frozenset({"self", "自摸", "zimo", "tsumo"})
GANG_KIND_WORDS = {
    "add": "added",
    "added": "added",
    "补": "added",
    "補": "added",
    "补杠": "added",
    "補槓": "added",
    "self": "concealed",
    "concealed": "concealed",
    "暗": "concealed",
    "暗杠": "concealed",
    "暗槓": "concealed",
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
    "四張": "penalty_four",
    "false": "false_win",
    "诈胡": "false_win",
    "詐胡": "false_win",
    "zha": "false_win",
}
FLAG_WORDS = {
    "after-gang": "after_gang",
    "杠开": "after_gang",
    "槓開": "after_gang",
    "杠上开花": "after_gang",
    "槓上開花": "after_gang",
    "大杠开": "after_gang",
    "大槓開": "after_gang",
    "大杠开花": "after_gang",
    "大槓開花": "after_gang",
    "杠后开花": "after_gang",
    "槓後開花": "after_gang",
    "after-flower": "after_flower",
    "小杠开": "after_flower",
    "小槓開": "after_flower",
    "小杠开花": "after_flower",
    "小槓開花": "after_flower",
    "补花胡": "after_flower",
    "補花胡": "after_flower",
    "robbing": "robbing_gang",
    "抢杠": "robbing_gang",
    "搶槓": "robbing_gang",
    "抢杠胡": "robbing_gang",
    "搶槓胡": "robbing_gang",
    "last": "last_stacks",
    "海底": "last_stacks",
    "海底捞月": "last_stacks",
    "海底撈月": "last_stacks",
    "heavenly": "heavenly",
    "天胡": "heavenly",
    "earthly": "earthly",
    "地胡": "earthly",
}
PATTERN_WORDS = {
    "清一色": "qingyise",
    "混一色": "hunyise",
    "对对胡": "duiduihu",
    "對對胡": "duiduihu",
    "碰碰胡": "duiduihu",
    "对对和": "duiduihu",
    "對對和": "duiduihu",
    "全球独钓": "quanqiu",
    "全求独钓": "quanqiu",
    "全球獨釣": "quanqiu",
    "全求獨釣": "quanqiu",
    "金钩钓": "quanqiu",
    "金鉤釣": "quanqiu",
    "全求单钓": "quanqiu",
    "全求單釣": "quanqiu",
    "七对": "qidui",
    "七對": "qidui",
    "豪华七对": "haohua_qidui",
    "豪華七對": "haohua_qidui",
    "超豪华七对": "chaohaohua_qidui",
    "超豪華七對": "chaohaohua_qidui",
    "双豪华七对": "chaohaohua_qidui",
    "雙豪華七對": "chaohaohua_qidui",
    "超超豪华七对": "chaochaohaohua_qidui",
    "超超豪華七對": "chaochaohaohua_qidui",
    "三豪华七对": "chaochaohaohua_qidui",
    "三豪華七對": "chaochaohaohua_qidui",
    "双七对": "shuang_qidui",
    "雙七對": "shuang_qidui",
    "压绝": "yajue",
    "壓絕": "yajue",
    "卡绝": "yajue",
    "卡絕": "yajue",
    "无花果": "wuhuaguo",
    "無花果": "wuhuaguo",
    "门清": "menqing",
    "門清": "menqing",
    "缺一": "que_yi",
    "缺一门": "que_yi",
    "缺一門": "que_yi",
    "缺门": "que_yi",
    "缺門": "que_yi",
    "压档": "kanzhang",
    "壓檔": "kanzhang",
    "卡张": "kanzhang",
    "卡張": "kanzhang",
    "边枝": "bianzhi",
    "邊枝": "bianzhi",
    "边张": "bianzhi",
    "邊張": "bianzhi",
    "独占": "dudiao",
    "獨占": "dudiao",
    "单吊": "dudiao",
    "單吊": "dudiao",
    "单钓": "dudiao",
    "單釣": "dudiao",
    "风碰": "wind_pong",
    "風碰": "wind_pong",
}
LATIN_PATTERNS = frozenset(
    {
        "qingyise",
        "hunyise",
        "duiduihu",
        "quanqiu",
        "qidui",
        "haohua_qidui",
        "chaohaohua_qidui",
        "chaochaohaohua_qidui",
        "shuang_qidui",
        "yajue",
        "wuhuaguo",
        "menqing",
        "que_yi",
        "kanzhang",
        "bianzhi",
        "dudiao",
        "wind_pong",
    }
)
_FLOWERS = re.compile(r"^(?:flowers=|f=|花|硬花)(\d+)$|^(\d+)花$", re.IGNORECASE)
_SOFT = re.compile(r"^(?:soft=|软花|軟花)(\d+)$", re.IGNORECASE)
_OPTION = re.compile(r"^([a-z_]+|规则|規則|底|底分|庄|莊)=(.+)$", re.IGNORECASE)
_OPTION_NAMES = {"规则": "preset", "規則": "preset", "底": "stake", "底分": "stake", "庄": "dealer", "莊": "dealer"}


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
    number: int | None = None  # /undo N
    word: str | None = None  # /lang X, /stats NAME
    plain: bool = False  # started by a plain word, not a /command


def _split_command(text: str) -> tuple[CommandSpec, str, bool] | None:
    stripped = text.strip()
    if stripped.startswith("/"):
        head, _, rest = stripped[1:].partition(" ")
        name = head.split("@", 1)[0].lower()
        spec = _SLASH.get(name)
        return (spec, rest, False) if spec else None
    lowered = stripped.lower()
    for word, spec in _WORDS:
        if lowered.startswith(word):
            rest = stripped[len(word) :]
            if word.isascii() and rest and not rest[0].isspace():
                continue  # "pongs" is not "pong"
            return spec, rest, True
    return None


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[\s,，、]+", text.strip()) if t]


MAX_DIGITS = 9  # event numbers, amounts: anything longer is a typo, not a number

SEAT_TOKEN = re.compile(r"^#[0-3]$")  # a seat by number: what buttons send, to keep callback data short


def _is_name(token: str, known: Sequence[str]) -> bool:
    if SEAT_TOKEN.match(token):
        return True
    folded = token.lstrip("@").casefold()
    return any(folded == name.casefold() for name in known)


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
    return int(token) if token.isdigit() else None


def parse(text: str, known_names: Sequence[str] = ()) -> Command | None:
    """The command in `text`, or None if the line is not addressed to the referee."""
    split = _split_command(text)
    if split is None:
        return None
    spec, rest, plain = split
    if spec.name == "fix":
        return _fix(text.strip(), rest, plain)
    tokens = _tokens(rest)
    builder = _BUILDERS.get(spec.name, _simple)
    return builder(spec.name, text.strip(), tokens, known_names, plain)


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
        else:
            left.append(token)
    return names, tile, left


def _pong(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    names, tile, left = _names_and_tile(tokens, known)
    names += left  # unknown words are names the service will reject with the list of players
    return Command(name, raw, names=tuple(names), tile=tile, plain=plain)


def _gang(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    kind = {"added_gang": "added", "concealed_gang": "concealed"}.get(name, "exposed")
    rest: list[str] = []
    for token in tokens:
        if token.lower() in GANG_KIND_WORDS and not _is_name(token, known):
            kind = GANG_KIND_WORDS[token.lower()]
        else:
            rest.append(token)
    names, tile, left = _names_and_tile(rest, known)
    return Command("gang", raw, names=tuple(names + left), tile=tile, kind=kind, plain=plain)


def _penalty(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    kind = "penalty_custom"
    amount: int | None = None
    names: list[str] = []
    for token in tokens:
        if token.lower() in PENALTY_WORDS and not _is_name(token, known):
            kind = PENALTY_WORDS[token.lower()]
        elif _int(token) is not None and not _is_name(token, known):
            amount = _int(token)
        else:
            names.append(token)
    return Command(name, raw, names=tuple(names), kind=kind, amount=amount, plain=plain)


def _hu(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    names: list[str] = []
    hand: list[str] = []
    declared: list[str] = []
    flags: set[str] = set()
    flowers: int | None = None
    soft = 0
    self_draw = False
    for token in tokens:
        lowered = token.lower()
        if _is_name(token, known):
            names.append(token)
        elif lowered in SELF_WORDS:
            self_draw = True
        elif lowered in FLAG_WORDS or token in FLAG_WORDS:
            flags.add(FLAG_WORDS.get(lowered, FLAG_WORDS.get(token, "")))
        elif token in PATTERN_WORDS or lowered in LATIN_PATTERNS:
            declared.append(PATTERN_WORDS.get(token, lowered))
        elif (match := _FLOWERS.match(token)) is not None:
            flowers = int(match.group(1) or match.group(2))
        elif (match := _SOFT.match(token)) is not None:
            soft = int(match.group(1))
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
    )


def _undo(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    number = _int(tokens[0].lstrip("#")) if tokens else None
    if tokens and number is None:
        raise EngineError("undo.bad_id", text=tokens[0])
    return Command(name, raw, number=number, plain=plain)


def _summary(name: str, raw: str, tokens: list[str], known: Sequence[str], plain: bool) -> Command:
    options: dict[str, str] = {}
    for index, token in enumerate(tokens):
        if token == "--chart" and index + 1 < len(tokens):
            options["chart"] = tokens[index + 1]
        elif token.startswith("--chart="):
            options["chart"] = token.split("=", 1)[1]
    return Command(name, raw, options=options, plain=plain)


_BUILDERS = {
    "new": _new,
    "pong": _pong,
    "gang": _gang,
    "added_gang": _gang,
    "concealed_gang": _gang,
    "penalty": _penalty,
    "hu": _hu,
    "undo": _undo,
    "summary": _summary,
    "export": _summary,
}
