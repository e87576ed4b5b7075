"""`python -m engine score "<hand>" [options]`: score one win from the command line.

Exit status: 0 valid win, 1 refused win (below the limit, no winning shape, or a claim the hand cannot
support: RULES §5), 2 bad input (including a hard-flower count outside 0–20). `--json` prints exactly one object.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.claims import ClaimRefused, check_claims, check_hard_flowers, situation_of
from engine.errors import EngineError
from engine.notation import parse_hand
from engine.preset import PRESET_NAMES, Preset, load_preset, load_preset_file
from engine.scoring import WinScore, score_hand
from engine.units import WinFlags
from locales import Translator, normalize_language

EXIT_VALID, EXIT_REFUSED, EXIT_BAD_INPUT = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description="Nanjing Mahjong scoring")
    commands = parser.add_subparsers(dest="command", required=True)
    score = commands.add_parser("score", help="score one winning hand")
    score.add_argument("hand", help='e.g. "11p 567s 79s [EEE] [444p] +8s"')
    score.add_argument("--preset", default="nanjing", help=f"one of {', '.join(PRESET_NAMES)}")
    score.add_argument("--rules-file", help="a house-rules TOML file (overrides --preset)")
    score.add_argument("--self-draw", action="store_true")
    score.add_argument("--hard-flowers", type=int, default=0)
    score.add_argument("--dealer", action="store_true")
    score.add_argument("--after-gang", action="store_true")
    score.add_argument(
        "--after-flower-gang", action="store_true", help="杠开 right after a flower gang (presets that allow it)"
    )
    score.add_argument("--after-flower", action="store_true")
    score.add_argument("--last-stacks", action="store_true")
    score.add_argument("--heavenly", action="store_true")
    score.add_argument("--earthly", action="store_true")
    score.add_argument("--robbing-gang", action="store_true")
    score.add_argument("--lang", default="zh", help="zh, zh-Hant or en")
    score.add_argument("--json", action="store_true")
    return parser


def _flags(args: argparse.Namespace) -> WinFlags:
    check_hard_flowers(args.hard_flowers)
    return WinFlags(
        hard_flowers=args.hard_flowers,
        self_draw=args.self_draw or args.robbing_gang,  # 抢杠 is paid as a self-draw
        dealer=args.dealer,
        after_gang=args.after_gang or args.after_flower_gang,
        after_flower=args.after_flower,
        last_stacks=args.last_stacks,
        heavenly=args.heavenly,
        earthly=args.earthly,
        robbing_gang=args.robbing_gang,
    )


def format_score(score: WinScore, translator: Translator, min_hard: int = 0) -> str:
    """The itemized breakdown and the total, in the player's language."""
    lines = []
    for item in score.items:
        name = translator.t(f"unit.{item.key}")
        count = f" ×{item.count}" if item.count > 1 else ""
        lines.append(f"  {name}{count}: {item.flowers}")
    lines.append(translator.t("score.total", total=score.total))
    if not score.valid and score.reason:
        winner = translator.t("cli.this_hand")
        lines.append(translator.t(score.reason, total=score.total, winner=winner, min_hard=min_hard))
    return "\n".join(lines)


def _preset(args: argparse.Namespace) -> Preset:
    if args.rules_file:
        try:
            return load_preset_file(Path(args.rules_file))
        except EngineError:
            raise
        except (OSError, ValueError, KeyError, TypeError) as error:  # unreadable or malformed TOML
            raise EngineError("cli.bad_rules_file", path=args.rules_file, error=str(error)) from error
    return load_preset(args.preset)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    translator = Translator(normalize_language(args.lang) or "zh-Hans")
    try:
        preset = _preset(args)
        hand, flags = parse_hand(args.hand), _flags(args)
        situation = situation_of(
            hand, self_draw=args.self_draw, dealer=args.dealer, flower_gang_before=args.after_flower_gang
        )
        check_claims(flags, preset, situation)
        score = score_hand(hand, flags, preset)
    except ClaimRefused as refused:
        if args.json:
            print(json.dumps({"valid": False, "total": 0, "items": [], "error": refused.key}, ensure_ascii=False))
        else:
            print(translator.t(refused.key, **refused.params), file=sys.stderr)
        return EXIT_REFUSED
    except EngineError as error:
        if args.json:
            print(json.dumps({"valid": False, "total": 0, "items": [], "error": error.key}, ensure_ascii=False))
        else:
            print(translator.t(error.key, **error.params), file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        items = [{"key": item.key, "flowers": item.flowers} for item in score.items]
        body = {"valid": score.valid, "total": score.total, "items": items, "error": score.reason}
        print(json.dumps(body, ensure_ascii=False))
    else:
        print(format_score(score, translator, preset.small_hu_min_hard))
    return EXIT_VALID if score.valid else EXIT_REFUSED
