"""Hand points (docs/rules.md "Scoring a hand") and the score sheet
(docs/rules.md "Scoring the match"), from the rules text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.engine.scoring import Sheet, score_hand
from tests.wire import sheet as wire_sheet

ALEXANDRA, BOB = 0, 1


@pytest.mark.parametrize(
    ("k", "d", "kind", "knocker_wins", "points"),
    [
        (0, 31, "gin", True, 56),  # 31 + 25
        (0, 0, "gin", True, 25),  # a defender with 0 still loses: 0 + 25
        (4, 43, "knock", True, 39),  # 43 - 4
        (9, 10, "knock", True, 1),  # 10 - 9
        (8, 4, "undercut", False, 29),  # 8 - 4 + 25
        (7, 7, "undercut", False, 25),  # K >= D: 7 - 7 + 25
        (10, 0, "undercut", False, 35),  # 10 - 0 + 25
    ],
)
def test_score_hand(k: int, d: int, kind: str, knocker_wins: bool, points: int) -> None:
    s = score_hand(k, d)
    assert (s.kind, s.knocker_wins, s.points) == (kind, knocker_wins, points)


@given(st.integers(0, 10), st.integers(0, 130))
@settings(max_examples=200, deadline=None)
def test_every_won_hand_is_worth_at_least_one_point(k: int, d: int) -> None:
    s = score_hand(k, d)
    assert s.points >= 1
    assert s.knocker_wins == (k == 0 or k < d)


def seats(sheet: Sheet, game: int) -> list[list[int]]:
    return [list(e) for e in sheet.games[game].entries]


def test_hand_scoring_one_hand_is_the_game() -> None:
    sheet = Sheet("hand", 100)
    assert sheet.record(BOB, 26) == [0]
    d = wire_sheet(sheet)
    assert d["games"] == [
        {
            "seats": [
                {"entries": [], "points": 0, "bonus": 0, "game_bonus": 0, "line_bonus": 0},
                {"entries": [26], "points": 26, "bonus": 0, "game_bonus": 0, "line_bonus": 0},
            ],
            "finished": True,
            "winner": BOB,
        }
    ]
    assert (d["totals"], d["match_winner"]) == ([0, 26], BOB)
    assert sheet.match_over
    with pytest.raises(ValueError):
        sheet.record(ALEXANDRA, 5)


def test_game_scoring_to_the_target_with_game_and_line_bonuses() -> None:
    sheet = Sheet("game", 100)
    sheet.record(ALEXANDRA, 60)
    sheet.record(BOB, 30)
    assert not sheet.match_over and sheet.match_winner is None
    assert wire_sheet(sheet)["games"][0]["seats"][0]["bonus"] == 0  # no bonus before the end
    sheet.record(ALEXANDRA, 45)  # 60 + 45 = 105 >= 100
    g = wire_sheet(sheet)["games"][0]
    assert g["finished"] and g["winner"] == ALEXANDRA
    # Alexandra: game 100 + line 2 x 25 = 150; Bob: line 1 x 25 = 25.
    assert [s["bonus"] for s in g["seats"]] == [150, 25]
    assert [(s["game_bonus"], s["line_bonus"]) for s in g["seats"]] == [(100, 50), (0, 25)]
    assert [s["points"] for s in g["seats"]] == [105, 30]
    # Totals: 105 + 150 = 255; 30 + 25 = 55.
    assert sheet.totals() == [255, 55]
    assert sheet.match_winner == ALEXANDRA


def test_game_exactly_at_the_target_ends_it() -> None:
    sheet = Sheet("game", 250)
    sheet.record(BOB, 125)
    sheet.record(ALEXANDRA, 1)
    assert not sheet.match_over
    sheet.record(BOB, 125)  # 250: reached
    assert sheet.match_over and sheet.match_winner == BOB


def test_shutout_doubles_the_game_bonus() -> None:
    sheet = Sheet("game", 100)
    sheet.record(BOB, 60)
    sheet.record(BOB, 50)  # 110, Alexandra scored nothing
    g = wire_sheet(sheet)["games"][0]
    # Bob: 200 (shutout) + 2 x 25 = 250; totals 110 + 250 = 360.
    assert [s["bonus"] for s in g["seats"]] == [0, 250]
    assert [(s["game_bonus"], s["line_bonus"]) for s in g["seats"]] == [(0, 0), (200, 50)]
    assert sheet.totals() == [0, 360]


def test_game_winner_is_the_one_who_reached_the_target_even_with_a_lower_total() -> None:
    sheet = Sheet("game", 100)
    for _ in range(9):
        sheet.record(ALEXANDRA, 11)  # 99 after nine wins
    sheet.record(BOB, 100)
    # Alexandra: 99 + 9 x 25 = 324. Bob: 100 + 100 + 25 = 225. Bob has the game.
    assert sheet.totals() == [324, 225]
    assert sheet.match_winner == BOB


def test_the_hollywood_worked_example() -> None:
    # docs/rules.md "Scoring the match": Bob 10; Alexandra 18; Bob 30; Bob 4.
    sheet = Sheet("hollywood", 100)
    assert sheet.record(BOB, 10) == [0]  # Bob's 1st win: game 1
    assert sheet.record(ALEXANDRA, 18) == [0]  # Alexandra's 1st: game 1
    assert sheet.record(BOB, 30) == [0, 1]  # Bob's 2nd: games 1-2
    assert sheet.record(BOB, 4) == [0, 1, 2]  # Bob's 3rd: games 1-3
    d = wire_sheet(sheet)
    assert [g["seats"][ALEXANDRA]["points"] for g in d["games"]] == [18, 0, 0]
    # Game 1: 10 + 30 + 4 = 44; game 2: 30 + 4 = 34; game 3: 4.
    assert [g["seats"][BOB]["points"] for g in d["games"]] == [44, 34, 4]
    assert [g["seats"][BOB]["entries"] for g in d["games"]] == [[10, 30, 4], [30, 4], [4]]
    assert not any(g["finished"] for g in d["games"])
    assert d["totals"] == [18, 82] and d["match_winner"] is None


def test_one_hand_finishes_two_hollywood_games() -> None:
    sheet = Sheet("hollywood", 100)
    sheet.record(ALEXANDRA, 5)  # game 1
    sheet.record(BOB, 10)  # game 1
    sheet.record(BOB, 20)  # games 1-2
    assert sheet.record(BOB, 80) == [0, 1, 2]
    # Game 1: Bob 10 + 20 + 80 = 110 >= 100, finished. Game 2: 20 + 80 = 100,
    # finished on the same hand. Game 3: 80, still open.
    assert [g.finished for g in sheet.games] == [True, True, False]
    assert [g.winner for g in sheet.games] == [BOB, BOB, None]
    # Game 1 bonuses: Bob 100 + 3 x 25 = 175, Alexandra 1 x 25 = 25.
    assert sheet.games[0].bonus == [25, 175]
    # Game 2: Alexandra scored nothing there, a shutout: 200 + 2 x 25 = 250.
    assert sheet.games[1].bonus == [0, 250]
    assert not sheet.match_over


def test_a_win_only_into_finished_games_is_recorded_nowhere() -> None:
    sheet = Sheet("hollywood", 100)
    sheet.record(ALEXANDRA, 60)  # game 1
    sheet.record(ALEXANDRA, 50)  # games 1-2: game 1 at 110 is finished
    assert sheet.games[0].finished and sheet.games[0].winner == ALEXANDRA
    # Bob's 1st win would go into game 1 only, which is finished.
    assert sheet.record(BOB, 7) == []
    assert all(g.entries[BOB] == [] for g in sheet.games)
    assert sheet.wins[BOB] == 1  # still one of Bob's won hands
    # So his 2nd win goes into games 1-2, of which only game 2 is open.
    assert sheet.record(BOB, 9) == [1]
    assert [g.entries[BOB] for g in sheet.games] == [[], [9], []]
    # Game 1's bonuses did not change: Alexandra 200 (Bob had 0) + 2 x 25.
    assert sheet.games[0].bonus == [250, 0]


def test_hollywood_match_ends_when_all_three_games_are_finished() -> None:
    sheet = Sheet("hollywood", 100)
    sheet.record(BOB, 100)  # game 1 to Bob
    sheet.record(ALEXANDRA, 100)  # Alexandra's 1st: game 1 is finished: nowhere
    sheet.record(ALEXANDRA, 100)  # 2nd: game 2 to Alexandra
    assert [g.winner for g in sheet.games] == [BOB, ALEXANDRA, None]
    assert not sheet.match_over and sheet.match_winner is None
    sheet.record(ALEXANDRA, 100)  # 3rd: game 3
    assert sheet.match_over and sheet.match_winner == ALEXANDRA  # 2 games of 3
    # Bob: 100 + 200 (shutout) + 25 = 325. Alexandra: game 2 100 + 200 + 25,
    # game 3 the same: 2 x 325 = 650.
    assert sheet.totals() == [650, 325]


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(1, 60)), max_size=60))
@settings(max_examples=150, deadline=None)
def test_hollywood_sheet_invariants(wins: list[tuple[int, int]]) -> None:
    sheet = Sheet("hollywood", 100)
    for seat, points in wins:
        if sheet.match_over:
            break
        open_before = [not g.finished for g in sheet.games]
        n = sheet.wins[seat] + 1
        into = sheet.record(seat, points)
        # Exactly the open games among the first min(n, 3).
        assert into == [g for g in range(min(n, 3)) if open_before[g]]
    for g in sheet.games:
        for s in (0, 1):
            # Points toward the target: a finished game accepts no more once reached.
            assert g.points(s) == sum(g.entries[s])
        if g.finished:
            assert g.winner is not None and g.points(g.winner) >= 100
            loser = 1 - g.winner
            assert g.points(loser) < 100
            game_bonus = 200 if g.points(loser) == 0 else 100
            assert g.bonus[g.winner] == game_bonus + 25 * len(g.entries[g.winner])
            assert g.bonus[loser] == 25 * len(g.entries[loser])
        else:
            assert g.bonus == [0, 0] and max(g.points(0), g.points(1)) < 100
