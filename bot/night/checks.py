"""Checks against the table: what a line may not do at the table as the night's log has it, refused
before it costs anyone money (engine/checks.py holds the rules; here they meet the night's hand)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.night.played import Played
from engine.checks import check_flower_gangs, check_meld, check_penalty_amount, check_soft, check_win_copies
from engine.claims import check_declared
from engine.errors import EngineError
from engine.events import Event, FlowerGang, Gang, Penalty, Pong, Win
from engine.hand import MeldKind
from engine.table import TableState


def check_against_table(state: TableState, in_hand: Sequence[Played], event: Event) -> None:
    """Refuse what the table makes impossible before it costs anyone money (engine.checks): `state`,
    the table now; `in_hand`, the events of the hand being played (bot/night/fold.py's `current_hand`)."""
    if isinstance(event, Pong | Gang) and event.tile is not None:
        same = next((p for p in in_hand if p.event == event), None)
        if same is not None:
            raise EngineError("event.already_recorded", id=same.event_id)
    if isinstance(event, Pong):
        check_meld(state.melds, event.actor, MeldKind.PONG, event.tile)
    elif isinstance(event, Gang):
        check_meld(state.melds, event.actor, event.kind, event.tile)
    elif isinstance(event, FlowerGang):
        check_flower_gangs(sum(isinstance(p.event, FlowerGang) for p in in_hand))
    elif isinstance(event, Penalty):
        check_penalty_amount(event.amount)
    elif isinstance(event, Win):
        check_win_at(state, event)


def check_win_at(state: TableState, event: Win) -> None:
    """A win's claims against the table they are won at: declared patterns, soft flowers, copies."""
    check_declared_win(state, event)
    for claim in event.claims:
        check_soft(claim.soft)
        if claim.winning is not None:
            robbed = event.discarder if claim.flags.robbing_gang else None
            check_win_copies(state.melds, claim.winner, claim.concealed, claim.melds, claim.winning, robbed)


def check_declared_win(state: TableState, event: Event) -> None:
    """A pattern named without tiles (清一色, 混一色, 门清, 七对) against the winner's melds logged in the
    hand (decision 6a): for a new line or a corrected one, and for a stored win after a correction
    (which is refused if it contradicts it). Folding the stored night never checks it: a stored win
    is never dropped on re-derivation."""
    if isinstance(event, Win):
        for claim in event.claims:
            if claim.declared is not None:
                check_declared(claim.declared, state.melds[claim.winner], state.preset, claim.winner)
