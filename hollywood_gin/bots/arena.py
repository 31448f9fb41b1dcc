"""Bots against each other through the real engine (`Match`), for tests and benchmarks.

Every player sees only `match.view(seat)`: each view goes to `observe`, and
the seat with a legal action is asked to `choose`. `RandomPlayer` plays a
uniformly random legal action (the benchmark's floor).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.hand import HandResult
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.views import View


class Player(Protocol):
    def observe(self, view: View) -> None: ...

    def choose(self, view: View) -> Action: ...


class RandomPlayer:
    """Any legal action, uniformly at random."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def observe(self, view: View) -> None:
        return None

    def choose(self, view: View) -> Action:
        return self.rng.choice(view.legal)


@dataclass(slots=True)
class HandOutcome:
    winner: int | None
    points: int
    kind: str
    actions: int
    result: HandResult


class TooLong(RuntimeError):
    """A hand or match went past its action bound (a stuck policy)."""


def _step(match: Match, players: tuple[Player, Player]) -> bool:
    """Show both seats their views; the seat that may act does. False: nobody may."""
    views = [match.view(0), match.view(1)]
    for seat in (0, 1):
        players[seat].observe(views[seat])
    for seat in (0, 1):
        if views[seat].legal:
            match.apply(seat, players[seat].choose(views[seat]), views[seat].version)
            return True
    return False


def play_hand(
    match: Match, players: tuple[Player, Player], *, max_actions: int = 2000
) -> HandOutcome:
    """Play the current hand of a started match to its end.

    :raises TooLong: more than `max_actions` actions.
    """
    actions = 0
    while match.status == "playing":
        if actions >= max_actions or not _step(match, players):
            raise TooLong(f"the hand did not end within {actions} actions")
        actions += 1
    for seat in (0, 1):
        players[seat].observe(match.view(seat))
    assert match.hand is not None and match.hand.result is not None
    result = match.hand.result
    return HandOutcome(result.winner, result.points, result.kind, actions, result)


def next_hand(match: Match, players: tuple[Player, Player]) -> None:
    """Both seats send `next_hand` (through their own `choose`)."""
    while match.status == "hand_over":
        if not _step(match, players):
            raise TooLong("nobody could send next_hand")


def play_match(
    match: Match, players: tuple[Player, Player], *, max_hands: int = 200
) -> list[HandOutcome]:
    """Play a started match until `match_over`.

    :raises TooLong: more than `max_hands` hands.
    """
    hands: list[HandOutcome] = []
    while match.status != "match_over":
        if len(hands) >= max_hands:
            raise TooLong(f"the match did not end within {max_hands} hands")
        if match.status == "hand_over":
            next_hand(match, players)
        hands.append(play_hand(match, players))
    return hands
