"""The positions of a finished hand, move by move, for its replay page (`/t/{id}/hands/{n}`).

Built with the engine from the hand's record (the same record anyone may fetch once
the hand is over), so the page shows what the engine did, never a reconstruction of
its own: step 0 is the deal, step k the table after the record's action k-1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hollywood_gin.bots.coach import RecordDeals
from hollywood_gin.engine.actions import PLAY_KINDS, parse_action
from hollywood_gin.engine.errors import RuleError
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.melds import arrange, deadwood
from hollywood_gin.engine.options import Options
from hollywood_gin.engine.vocabulary import MOVERS

TAKES = ("take_upcard", "draw_discard")


def hand_steps(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every position of the hand: both hands (as the engine keeps them, with their
    melds and deadwood), the pile, the stock's count, whose turn, the cards each seat
    took from the pile and still holds (public), the move that led here and the
    actions that were open at it. An action the engine refuses ends the list."""
    match = Match(Options.from_dict(record["options"]), dealer=RecordDeals(record))
    match.start()
    hand = match.hand
    assert hand is not None
    known: list[list[str]] = [[], []]
    steps = [_step(match, known, None, None)]
    for index, entry in enumerate(record.get("actions") or ()):
        seat = entry.get("seat")
        wire = entry.get("action")
        try:
            action = parse_action(wire)
            legal = [a.wire() for a in match.legal(seat)] if seat in (0, 1) else []
            match.apply(seat, action)
        except (RuleError, TypeError, ValueError):
            if isinstance(wire, Mapping) and wire.get("kind") not in PLAY_KINDS:
                continue  # not a move of the hand (a kind of a later version): no step
            break
        if action.kind not in PLAY_KINDS and hand.phase != "over":
            continue  # not a move of the hand's play (a reaction, say): no step
        card = None if action.card is None else str(action.card)
        if action.kind in TAKES and hand.last_action is not None:
            card = getattr(hand.last_action, "card", None)
            if card is not None:
                known[seat].append(card)
        elif action.kind == "discard" and card in known[seat]:
            known[seat].remove(card)
        move = {"index": index, "seat": seat, "kind": action.kind, "card": card}
        if entry.get("by") in MOVERS:
            move["by"] = entry["by"]  # made for the seat: the page says so
        steps.append(_step(match, known, move, legal))
        if hand.phase == "over":
            break
    return steps


def _step(
    match: Match,
    known: list[list[str]],
    move: dict[str, Any] | None,
    legal: list[dict[str, Any]] | None,
) -> dict[str, Any]:
    hand = match.hand
    assert hand is not None
    hands = [[str(c) for c in hand.cards[s]] for s in (0, 1)]
    melds = []
    for s in (0, 1):
        groups, _dead = arrange(hand.cards[s])
        melds.append([[str(c) for c in g] for g in groups])
    return {
        "move": move,
        "legal": legal,
        "hands": hands,
        "melds": melds,
        "deadwood": [deadwood(hand.cards[s]) for s in (0, 1)],
        "known": [list(k) for k in known],
        "pile": [str(c) for c in hand.discard],
        "stock": len(hand.stock),
        "turn": hand.turn,
        "phase": hand.phase,
        "knock_limit": hand.knock_limit,
    }
