"""The replay page's positions (`hollywood_gin.web.http.replay.hand_steps`) and the coach's
replay of a hand, on whole hands played by a quick random player, reshuffles of the
stock included (`hand` scoring): each position is the engine's after that action."""

from __future__ import annotations

import random
from typing import Any

import pytest

from hollywood_gin.bots.coach import replay
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.web.http.replay import hand_steps


def quick(legal: list[Action], rng: random.Random) -> Action:
    knocks = [a for a in legal if a.kind == "knock"]
    if knocks and rng.random() < 0.5:
        return rng.choice(knocks)
    plain = [a for a in legal if a.kind != "knock"]
    return rng.choice(plain or legal)


def a_hand(seed: int, scoring: str) -> tuple[dict[str, Any], list[list[set[str]]]]:
    """A finished hand's record, and both seats' cards after each of its actions."""
    rng = random.Random(seed)
    match = Match(Options(scoring=scoring), rng=random.Random(seed), first_dealer=seed % 2)
    match.start()
    hand = match.hand
    assert hand is not None
    seen = [[{str(c) for c in hand.cards[s]} for s in (0, 1)]]
    while match.status == "playing":
        seat = next(s for s in (0, 1) if match.legal(s))
        match.apply(seat, quick(match.legal(seat), rng))
        seen.append([{str(c) for c in hand.cards[s]} for s in (0, 1)])
    record = match.hand_record(1)
    assert record is not None
    return record, seen


@pytest.mark.parametrize("scoring", ["hand", "game"])
def test_every_position_is_the_engines(scoring: str) -> None:
    reshuffled = 0
    for seed in range(6):
        record, seen = a_hand(seed, scoring)
        steps = hand_steps(record)
        assert len(steps) == len(record["actions"]) + 1
        assert [[set(h) for h in s["hands"]] for s in steps] == seen
        assert steps[-1]["phase"] == "over"
        assert [s["move"]["index"] for s in steps[1:]] == list(range(len(record["actions"])))
        reshuffled += bool(record["reshuffles"])
        for seat in (0, 1):
            mine = [i for i, a in enumerate(record["actions"]) if a["seat"] == seat]
            assert [p.index for p in replay(record, seat).points] == mine
    if scoring == "hand":
        assert reshuffled, "no hand here reshuffled its stock: the case is not tested"
