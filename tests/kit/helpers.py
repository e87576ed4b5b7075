"""Small helpers so tests read like the rules: a hand in notation, flags, the expected figure."""

from __future__ import annotations

from engine.notation import parse_hand
from engine.preset import load_preset
from engine.scoring import WinScore, score_hand
from engine.units import WinFlags


def score(hand: str, preset: str = "nanjing", **flags: object) -> WinScore:
    return score_hand(parse_hand(hand), WinFlags(**flags), load_preset(preset))  # type: ignore[arg-type]


def items(result: WinScore) -> dict[str, int]:
    return {item.key: item.flowers for item in result.items}
