"""The arena (`hollywood_gin.bots.arena.duplicate`, `hollywood-gin arena`): duplicate
deals in process, any two bots, shares with 95 % intervals."""

from __future__ import annotations

import random

import pytest

from hollywood_gin.bots.arena import (
    IllegalChoice,
    RandomPlayer,
    Seated,
    deal_deck,
    duplicate,
    factory,
)
from hollywood_gin.bots.arena_result import ArenaResult
from hollywood_gin.cli import main
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.views import View


class FirstLegal:
    """A client bot: the first legal action; counts its hooks."""

    def __init__(self) -> None:
        self.hands = 0
        self.matches = 0

    def choose(self, view: View, legal: tuple[Action, ...]) -> Action:
        return legal[0]

    def hand_over(self, view: View) -> None:
        assert view.hand is not None and view.hand.outcome is not None
        self.hands += 1

    def match_over(self, view: View) -> None:
        assert view.table.status == "match_over"
        self.matches += 1


MADE: list[FirstLegal] = []


def first_legal() -> FirstLegal:
    bot = FirstLegal()
    MADE.append(bot)
    return bot


class Cheater:
    def choose(self, view: View, legal: tuple[Action, ...]) -> Action:
        return Action.of("new_match")


def cheater() -> Cheater:
    return Cheater()


def test_normal_is_ahead_of_easy_on_200_duplicate_deals() -> None:
    result = duplicate("normal", "easy", 200, seed=0)
    assert (result.deals, result.hands) == (200, 400)
    assert result.points_share() > 0.5
    low, high = result.points_interval()
    assert low < result.points_share() < high
    assert low > 0.5  # ahead beyond the interval, not by luck of the deals


def test_each_deal_is_played_twice_with_the_seats_swapped() -> None:
    # the same bot on both sides: every deal's two hands mirror each other, so each
    # side wins exactly what the other does, deal by deal
    result = duplicate("easy", "easy", 12, seed=5)
    assert all(a == b for a, b in result.points)
    assert result.points_share() == 0.5
    assert deal_deck(5) == deal_deck(5) != deal_deck(6)


def test_jobs_split_the_deals_and_give_the_same_result() -> None:
    one = duplicate("normal", "random", 6, seed=3)
    two = duplicate("normal", "random", 6, seed=3, jobs=2)
    assert (one.points, one.wins, one.draws) == (two.points, two.wins, two.draws)


def test_a_module_factory_bot_plays_through_its_hooks() -> None:
    MADE.clear()
    result = duplicate(f"{__name__}:first_legal", "easy", 3, seed=1)
    assert result.deals == 3
    assert len(MADE) == 6  # a fresh bot for every hand
    assert all(b.hands == 1 and b.matches == 1 for b in MADE)  # one-hand matches


def test_a_bot_that_chooses_an_illegal_action_is_stopped() -> None:
    with pytest.raises(IllegalChoice):
        duplicate(f"{__name__}:cheater", "easy", 1)


@pytest.mark.parametrize("name", ["", "nope", "no_such_module_x:f", f"{__name__}:nothing"])
def test_unknown_bots_are_refused(name: str) -> None:
    with pytest.raises(ValueError):
        factory(name)


def test_random_is_the_floor() -> None:
    assert isinstance(factory("random")(random.Random(1)), RandomPlayer)
    assert isinstance(factory(f"{__name__}:first_legal")(random.Random(1)), Seated)


def test_intervals_cover_the_share_and_are_reproducible() -> None:
    r = ArenaResult("a", "b", points=[(10, 0), (0, 5), (20, 30), (3, 3)], wins=[(1, 0)] * 4)
    assert r.points_share() == pytest.approx(33 / 71)
    assert r.hands_share() == 1.0
    assert r.points_interval() == r.points_interval()
    low, high = r.points_interval()
    assert 0 <= low <= r.points_share() <= high <= 1


def test_the_command_prints_both_sides(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "normal", "random", "--deals", "4", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "normal vs random: 4 duplicate deals, 8 hands" in out
    lines = out.splitlines()
    assert lines[2].startswith("normal ") and lines[3].startswith("random ")
    assert main(["arena", "normal", "nope"]) == 2
