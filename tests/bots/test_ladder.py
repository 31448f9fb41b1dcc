"""The ladder: eight rungs of one policy and search, their slips, their ratings file
and their styles (docs/protocol-guide.md "Computer opponents", docs/bots.md "The ladder")."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from hollywood_gin.bots import ratings
from hollywood_gin.bots.arena import duplicate
from hollywood_gin.bots.coach import COACH, replay, seed_of
from hollywood_gin.bots.ladder import BY_ID, LADDER, LadderBot, Mistakes, personality
from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.vocabulary import COMPUTER_IDS, STRENGTHS
from tests.bots.coach_hands import judge, ladder_hand

SIDE_KEYS = {
    "points",
    "points_ci",
    "hands",
    "hands_ci",
    "gin_rate",
    "undercut_rate",
    "knock_turn",
    "pickups",
    "feeds",
}


def test_eight_rungs_three_of_them_the_strengths() -> None:
    assert [p.level for p in LADDER] == list(range(1, 9))
    assert set(COMPUTER_IDS) == set(BY_ID)
    assert set(STRENGTHS) <= set(BY_ID)
    assert BY_ID["easy"].base == "easy" and BY_ID["hard"].base == "hard"
    with pytest.raises(ValueError, match="unknown computer"):
        personality("genius")


def test_the_ratings_file_rises_with_the_level_and_is_the_arenas_format() -> None:
    data = json.loads(ratings.PATH.read_text())
    rows = sorted(data["ratings"], key=lambda r: r["level"])
    assert [r["id"] for r in rows] == [p.id for p in LADDER]
    elos = [r["elo"] for r in rows]
    assert all(a < b for a, b in itertools.pairwise(elos)), elos
    for r in rows:
        lo, hi = r["elo_ci"]
        assert lo <= r["elo"] <= hi
    assert data["anchor"] == {"id": "normal", "elo": 1500.0}
    assert data["command"].startswith("hollywood-gin ratings ")
    played = {(p["a"], p["b"]) for p in data["pairings"]}
    for p in data["pairings"]:
        result = p["result"]
        assert set(result) == {"a", "b", "deals"} and result["deals"] >= 1
        # a file written before the arena printed `feeds` lacks only that figure
        for side in (result["a"], result["b"]):
            assert SIDE_KEYS - {"feeds"} <= set(side) <= SIDE_KEYS
        assert result["a"]["points"] + result["b"]["points"] == pytest.approx(1, abs=1e-3)
    # each level meets the level three below on the ratings' own fresh deals
    for low in range(1, len(LADDER) - 2):
        assert (LADDER[low + 2].id, LADDER[low - 1].id) in played


def test_the_fit_recovers_a_known_ladder() -> None:
    # shares made from Elo gaps of 100 a level come back as such gaps
    games = []
    for high, low in ratings.pairings():
        p = 1 / (1 + 10 ** (-100 * (high - low) / 400))
        games.append((high, low, round(1000 * p), 1000 - round(1000 * p), 50))
    fitted = ratings.fit(games, len(LADDER))
    assert fitted[6] == 1500.0
    for a, b in itertools.pairwise(fitted):
        assert b - a == pytest.approx(100, abs=1)


def _played(who: str, deals: int, seed: int) -> tuple[list[LadderBot], list[tuple[int, int]]]:
    bots: list[LadderBot] = []

    def make(rng: random.Random) -> LadderBot:
        bot = LadderBot(BY_ID[who], rng)
        bots.append(bot)
        return bot

    result = duplicate(make, "normal", deals, seed)
    return bots, result.points


@pytest.mark.parametrize(
    ("who", "kinds"),
    [("rookie", {"hold_high"}), ("magpie", {"misread", "early_knock"}), ("gin", {"misread"})],
)
def test_lower_rungs_slip_in_the_named_ways_and_the_same_seed_slips_alike(
    who: str, kinds: set[str]
) -> None:
    bots, points = _played(who, 12, 95_000)
    slipped = [kind for bot in bots for kind, _ in bot.slipped]
    assert kinds <= set(slipped)
    assert set(slipped) <= {"misread", "hold_high", "early_knock"}
    again, points_again = _played(who, 12, 95_000)
    assert [b.slipped for b in again] == [b.slipped for b in bots]
    assert points_again == points


def test_the_upper_rungs_make_no_slips() -> None:
    for p in LADDER:
        if p.level >= 7:
            assert p.mistakes == Mistakes()
        else:
            assert p.level <= 2 or p.mistakes.any


def _figures(who: str) -> dict[str, float]:
    side = duplicate(f"computer:{who}", "normal", 60, 830_000).to_json()["a"]
    assert isinstance(side, dict)
    return side


def test_the_styles_are_told_apart_by_their_figures_against_the_same_opponent() -> None:
    # the styles built on normal, on fixed deals against normal
    # (docs/bots.md "Styles against the same opponent")
    fig = {who: _figures(who) for who in ("magpie", "knocker", "gin", "cautious")}
    others = lambda who: [f for w, f in fig.items() if w not in (who, "cautious")]  # noqa: E731
    assert all(fig["magpie"]["pickups"] >= 1.5 * f["pickups"] for f in others("magpie"))
    assert all(fig["gin"]["gin_rate"] >= f["gin_rate"] + 0.08 for f in others("gin"))
    assert all(fig["knocker"]["knock_turn"] <= f["knock_turn"] - 0.5 for f in others("knocker"))
    # the cautious discarder's throws are the ones the opponent takes least
    rest = [f for w, f in fig.items() if w != "cautious"]
    assert all(fig["cautious"]["feeds"] <= 0.9 * f["feeds"] for f in rest)
    for who, f in fig.items():
        assert BY_ID[who].figure in f


def test_a_seeded_slip_is_labelled_a_human_mistake_by_the_review() -> None:
    # rookie's hand 44005 (benchmarks/bench_mistakes.py): at its first discard it
    # throws the 8H it should keep, holding the JS; the coach calls it an inaccuracy
    # or a mistake, and says the better move was throwing the high card
    record, seat, slips = ladder_hand("rookie", 44_005)
    assert slips.get(4) == "hold_high", slips
    point = next(p for p in replay(record, seat).points if p.index == 4)
    review = judge(point, seed_of(record, seat, 4), COACH)
    assert review["label"] in ("inaccuracy", "mistake"), review
    assert review["chosen"] == {"kind": "discard", "card": "8H"}
    assert Card.parse(review["best"]["card"]).value >= 9, review
