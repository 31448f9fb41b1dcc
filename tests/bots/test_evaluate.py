"""The evaluator shared by the hard search and the coach (`bots/evaluate.py`): its
candidates, its paired playouts and the rules read on them."""

from __future__ import annotations

import random
from collections.abc import Callable

from hollywood_gin.bots.coach import COACH, replay
from hollywood_gin.bots.evaluate import Dealt, Strategy, Trial, candidates, least_discard
from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.lean import rollout
from hollywood_gin.bots.playout import Decision, World
from hollywood_gin.bots.policy import WEIGHTS, normal_discard
from hollywood_gin.bots.worlds import sample_world
from hollywood_gin.engine.cards import Card, mask_of
from tests.bots.coach_hands import UNDERCUT


def _mask(*cards: str) -> int:
    return mask_of(Card.parse(c) for c in cards)


def _index(card: str) -> int:
    return Card.parse(card).index


def test_least_discard_throws_the_higher_card_then_the_first() -> None:
    # Three melds and two loose tens: either leaves 10; the jack comes first by index.
    eleven = _mask("2H", "3H", "4H", "9S", "9D", "9C", "5C", "6C", "7C", "JD", "QD")
    assert least_discard(eleven) == (min(_index("JD"), _index("QD")), 10)
    # A loose king and a loose ace: the king goes.
    eleven = _mask("2H", "3H", "4H", "9S", "9D", "9C", "5C", "6C", "7C", "KS", "AD")
    assert least_discard(eleven) == (_index("KS"), 1)
    # ... unless it may not be thrown (the card just taken from the pile).
    assert least_discard(eleven, forbidden=_index("KS")) == (_index("AD"), 10)


def _discards() -> list[tuple[Seen, set[str]]]:
    points = replay(UNDERCUT, 1).points
    return [(p.seen, {a.kind for a in p.legal}) for p in points if p.phase == "discard"]


def test_normal_s_choice_comes_first_and_a_legal_knock_is_played_both_ways() -> None:
    knocks = 0
    for seen, kinds in _discards():
        out = candidates(seen, kinds, Strategy())
        card, knock = normal_discard(seen)
        assert out[0] == ("discard", card, knock)
        assert len(out) == len(set(out))
        if "knock" in kinds:
            knocks += 1
            assert any(d[2] for d in out) and any(not d[2] for d in out)
        else:
            assert not any(d[2] for d in out)
    assert knocks >= 2


def test_the_coach_s_strategy_adds_the_least_deadwood_discard() -> None:
    for seen, kinds in _discards():
        wider = candidates(seen, kinds, COACH.strategy())
        hard = candidates(seen, kinds, Strategy(prune=3.0))
        assert wider[: len(hard)] == hard or set(hard) <= set(wider)
        least = ("discard", least_discard(seen.hand, seen.forbidden)[0], False)
        assert least in wider


def _trial(twice: bool = False) -> tuple[Trial, Callable[[], Dealt | None]]:
    """A trial at one of the hand's discards, and its dealer of worlds (seeded); with
    `twice`, normal's choice is candidate 0 and candidate 2."""
    seen, kinds = _discards()[1]
    options = candidates(seen, kinds, Strategy())
    assert len(options) >= 3
    options = [options[0], options[1], options[0]] if twice else options[:3]
    rng = random.Random(5)

    def playout(w: World, r: random.Random) -> float:
        return rollout(w, ("normal", "normal"), r, WEIGHTS).value_for(seen.me)

    def deal() -> Dealt | None:
        world = sample_world(seen, rng)
        return None if world is None else Dealt(world, rng.getrandbits(32), playout)

    return Trial(options), deal


def test_every_candidate_meets_the_same_worlds_and_the_same_luck() -> None:
    """Common random numbers: a candidate played twice gets the same result on every
    world (its difference from itself is exactly 0), and leaving candidates does not
    change the worlds or the luck the others meet."""
    trial, deal = _trial(twice=True)
    assert trial.play(40, deal)
    assert trial.values[0] == trial.values[2]
    assert trial.paired(2) == (0.0, 0.0)
    assert trial.values[0] != trial.values[1]
    fewer, deal = _trial(twice=True)
    fewer.alive = [0, 1]
    assert fewer.play(40, deal)
    assert fewer.values[:2] == trial.values[:2]
    assert fewer.values[2] == [None] * 40
    assert (trial.playouts, fewer.playouts) == (120, 80)


def test_the_playouts_stop_at_the_cap_within_a_world() -> None:
    trial, deal = _trial()
    trial.play(10, deal, cap=7)
    assert trial.playouts == 7
    assert trial.worlds == 3
    assert trial.values[0][2] is not None and trial.values[2][2] is None


def test_the_rules_read_the_pairs() -> None:
    options: list[Decision] = [("discard", 1, False), ("discard", 2, False), ("discard", 3, False)]
    # option 1 is 10 points better than option 0 everywhere, give or take 1; option 2
    # 20 worse
    base = [float(v % 7) for v in range(30)]
    values: list[list[float | None]] = [
        list(base),
        [b + 10 + (1 if k % 2 else -1) for k, b in enumerate(base)],
        [b - 20 for b in base],
    ]
    trial = Trial(options, values=values, weights=[1.0] * 30, margins=[0.0] * 30)
    paired = trial.paired(1)
    assert paired is not None and abs(paired[0] - 10.0) < 0.05 and paired[1] < 0.25
    assert trial.pick(2.0) == 1
    assert not trial.settled(1.0)
    # the loss (about 10) is clear of 3 and 15, not of 8 or 10
    assert trial.clear_of([3.0, 15.0], 2.0)
    assert not trial.clear_of([3.0, 8.0, 10.0, 15.0], 2.0)
    trial.drop(3.0)
    assert trial.alive == [0, 1]  # option 2 is clearly behind the leader: it leaves
    trial.alive = [0, 2]
    assert trial.settled(1.0)
