"""Issue 27 round 6's two search options, both off by default: more playouts
where the choice is close (`Budget.extend`) and the race against an eager
opponent in the playouts (`Budget.race`). Seeded deals, no clock."""

from __future__ import annotations

import itertools
import random
import time

from hollywood_gin.bots import Budget
from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.playout import Decision
from hollywood_gin.bots.search import SearchStats, _close_call, hard_decide
from tests.bots.test_strengths import _hard_moves, _knock_decisions


def test_both_are_off_by_default() -> None:
    assert Budget().extend == 0
    assert Budget().race is False


def _close(values: list[list[float | None]], **fields: float) -> int | None:
    options: list[Decision] = [("discard", 3, False), ("discard", 7, False), ("discard", 9, False)]
    budget = Budget(extend=int(fields.pop("extend", 100)), **fields)  # type: ignore[arg-type]
    n = len(values[0])
    return _close_call(options, [0, 1, 2], values, [1.0] * n, [8.0] * n, budget)


def test_a_close_call_is_a_lead_between_extend_z_and_confidence_standard_errors() -> None:
    """Candidate 1 leads normal's choice by 1 with a standard error of 0.89 (1.1
    standard errors: not the confidence of 2), candidate 2 trails."""
    base: list[float | None] = [0.0, 0.0, 0.0, 0.0, 0.0]
    lead: list[float | None] = [-1.0, 3.0, -1.0, 3.0, 1.0]  # mean 1, error sqrt(3.2 / 4)
    worse: list[float | None] = [-1.0, -1.0, -2.0, -1.0, -1.0]
    assert _close([base, lead, worse]) == 1
    assert _close([base, lead, worse], extend=0) is None  # off
    assert _close([base, lead, worse], confidence=1.05) is None  # clear: no need
    assert _close([base, lead, worse], extend_z=1.2) is None  # too far behind
    assert _close([base, worse, worse]) is None  # nobody leads


def test_a_close_call_plays_exactly_extend_more_playouts_on_any_clock() -> None:
    """With `extend` the count is still counted: every searched decision plays its
    `playouts` (no early stop here) or exactly `extend` more, some of them do, and
    the moves and counts are the same on a clock that loses 50 ms a reading."""
    budget = Budget(playouts=40, stop=0.0, extend=24)
    ticks = itertools.count()
    slow = lambda: next(ticks) * 0.05  # noqa: E731
    quick = _hard_moves(budget, time.perf_counter, range(3, 7))
    loaded = _hard_moves(budget, slow, range(3, 7))
    counts = [p for _, p, c in quick if c > 1]
    assert set(counts) == {40, 64}
    assert loaded == quick
    # off, the same decisions play exactly their 40
    plain = _hard_moves(Budget(playouts=40, stop=0.0), time.perf_counter, range(3, 7))
    assert all(p == 40 for _, p, c in plain if c > 1)


def test_the_race_changes_only_the_worlds_whose_opponent_is_eager() -> None:
    """`race` makes me knock as soon as I may in the playouts of eager worlds: with
    no eager world it decides exactly as without it; with every world eager it
    changes some of the decisions' playouts (the knock decisions against eager)."""
    decisions = _knock_decisions(range(0, 5))
    assert len(decisions) >= 5

    def decide(seen: Seen, kinds: set[str], **fields: object) -> tuple[Decision, int]:
        budget = Budget(playouts=120, seconds=None, **fields)  # type: ignore[arg-type]
        stats = SearchStats()
        move = hard_decide(seen, kinds, random.Random(1), budget=budget, stats=stats)
        return move, stats.playouts

    patient = (("normal", 0.6), ("gin", 0.4))
    eager = (("eager", 1.0),)
    changed = 0
    for seen, kinds in decisions:
        assert decide(seen, kinds, styles=patient, race=True) == decide(seen, kinds, styles=patient)
        changed += decide(seen, kinds, styles=eager, race=True) != decide(seen, kinds, styles=eager)
    assert changed >= 1
