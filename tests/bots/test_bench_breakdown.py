"""The duels' record of how each hand ended (`tests/bots/duels.py`, read by
`bench_bots.py --report --breakdown`)
agrees with its points, `--hard-budget` reads the opponent-style prior, and
`--pooled` joins the paired comparison of several styles."""

from __future__ import annotations

import random
from typing import Any

import pytest

from hollywood_gin.bots import Bot, Budget
from hollywood_gin.bots.styles import STYLES
from hollywood_gin.engine.options import Options
from tests.bots.duels import budget_field, duel, pool_report


def test_each_hand_has_an_end_that_adds_up_to_the_points() -> None:
    options = Options("standard", "game", 100)
    make = (
        lambda d: Bot("normal", random.Random(d)),
        lambda d: STYLES["eager"](random.Random(d + 1)),
    )
    tally = duel(make, 4, options, 440000)
    assert len(tally.ends) == tally.hands == 8
    won = [0, 0]
    for deal, seat, winner, kind, points, knocker, kd, before, after, stock, actions in tally.ends:
        assert 440000 <= deal < 440004 and seat in (0, 1) and actions > 0
        assert 0 <= stock <= 31
        if winner is None:
            assert kind == "draw" and knocker is None
            continue
        won[winner] += points
        assert kind in ("gin", "knock", "undercut")
        assert (knocker == winner) == (kind != "undercut")
        assert kd is not None and after is not None and after <= before
        assert (kd == 0) == (kind == "gin")
    assert won == [sum(a for a, _ in tally.points_by_deal), sum(b for _, b in tally.points_by_deal)]


def test_hard_budget_reads_the_style_prior() -> None:
    budget = budget_field(Budget(), "styles=normal:0.2/eager:0.7/gin:0.1")
    assert budget.styles == (("normal", 0.2), ("eager", 0.7), ("gin", 0.1))
    assert budget_field(budget, "evidence=0.25").evidence == 0.25
    assert budget_field(budget, "takes=0").takes is False
    # an optional number (None by default) is read as a number
    assert Budget().eager_margin is None
    assert budget_field(budget, "eager_margin=0").eager_margin == 0.0


def test_pooled_compares_the_styles_deals_together(capsys: pytest.CaptureFixture[str]) -> None:
    def rec(label: str, style: str, points: list[tuple[int, int]]) -> dict[str, Any]:
        return {
            "a": "hard",
            "b": style,
            "label": label,
            "hands": 2 * len(points),
            "knocks": [0, 0],
            "undercuts": [0, 0],
            "deals": list(range(len(points))),
            "points": [list(p) for p in points],
            "think_ms": ["0", "0"],
        }

    # x takes 30 of 40 points against one style and 10 of 40 against the other;
    # y takes 20 of 40 on both: pooled, they are even (40 of 80 each)
    records = [
        rec("x", "s", [(15, 5), (15, 5)]),
        rec("x", "t", [(5, 15), (5, 15)]),
        rec("y", "s", [(10, 10), (10, 10)]),
        rec("y", "t", [(10, 10), (10, 10)]),
    ]
    pool_report(records, [("x", "y")], [["s", "t"]])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| x − y")]
    assert rows[0].startswith("| x − y | s | 4 | +25.0 |")
    assert rows[1].startswith("| x − y | t | 4 | -25.0 |")
    assert rows[2].startswith("| x − y | s+t | 8 | +0.0 |")
