"""A finished hand's record keeps the sheet as it stood right after the hand (the
state's `sheet` then), so the replay page can show the games that hand finished and
their bonuses (docs/rules.md "Scoring the match": game bonus, line bonuses, shutouts).

The current sheet is not enough: its entries carry no hand numbers, and in Hollywood
a later hand can finish an earlier game (a win goes into every game its winner has
entered). So each record is checked against the live view taken right after its hand,
again once the match has played on, after a replay of the stored log, and in the
records `compaction` hands over.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.engine import Match, Options
from hollywood_gin.engine.actions import parse_action
from tests.engine.helpers import through_json
from tests.engine.test_properties import MAX_ACTIONS, choose
from tests.wire import wire


def as_stored(value: object) -> Any:
    """JSON as written and read back (a store, the wire)."""
    return orjson.loads(orjson.dumps(value))


def play(
    scoring: str, seed: int, greed: float, *, compact: bool = False
) -> tuple[Match, dict[int, Any], dict[int, Any]]:
    """A match of random legal play; per hand, the live sheet right after it and
    (with `compact`) the records that compaction handed over."""
    rng = random.Random(seed)
    m = Match(Options("standard", scoring, 100), rng=random.Random(seed + 1))
    m.start()
    sheets: dict[int, Any] = {}
    kept: dict[int, Any] = {}
    for _ in range(MAX_ACTIONS):
        if m.status == "match_over":
            break
        assert m.hand is not None
        if m.status == "hand_over":
            for seat in (0, 1):
                m.apply(seat, parse_action({"kind": "next_hand"}), version=m.version)
            if compact:
                _, records = m.compaction()
                kept.update({n: as_stored(r) for n, r in records.items()})
                m.compact()
            continue
        seat = next(s for s in (0, 1) if wire(m.view(s))["legal"])
        m.apply(seat, parse_action(choose(m, seat, rng, greed)), version=m.version)
        if m.hand.phase == "over":
            number = m.hand.number
            live = as_stored(wire(m.view(None))["sheet"])
            sheets[number] = live
            # Right after the hand: the record's sheet is the live one.
            record = m.hand_record(number)
            assert record is not None
            assert as_stored(record)["sheet"] == live
    assert m.status == "match_over"
    return m, sheets, kept


@pytest.mark.parametrize("scoring", ["hand", "game", "hollywood"])
@given(seed=st.integers(0, 2**32), greed=st.floats(0.7, 1.0))
@settings(max_examples=4, deadline=None)
def test_each_record_keeps_the_sheet_right_after_its_hand(
    scoring: str, seed: int, greed: float
) -> None:
    m, sheets, _ = play(scoring, seed, greed)
    # Still so once the match has played on (later hands, later games finished).
    for n, live in sheets.items():
        assert as_stored(m.hand_record(n))["sheet"] == live
    # A replay of the stored log rebuilds the same records.
    again = Match.replay(m.options, through_json(m.log))
    for n, live in sheets.items():
        assert as_stored(again.hand_record(n))["sheet"] == live


@pytest.mark.parametrize("scoring", ["game", "hollywood"])
@given(seed=st.integers(0, 2**32))
@settings(max_examples=3, deadline=None)
def test_compacted_hands_keep_their_sheets(scoring: str, seed: int) -> None:
    m, sheets, kept = play(scoring, seed, 0.9, compact=True)
    last = max(sheets)
    # Every hand but the last went out of the log, its record with it.
    assert set(kept) == set(sheets) - {last}
    for n, record in kept.items():
        assert record["sheet"] == sheets[n]
    assert as_stored(m.hand_record(last))["sheet"] == sheets[last]
    # A compacted log (a snapshot first) replays to the same last record.
    again = Match.replay(m.options, through_json(m.log))
    assert as_stored(again.hand_record(last))["sheet"] == sheets[last]


def finished_games(sheet: Any) -> list[int]:
    return [i for i, g in enumerate(sheet["games"]) if g["finished"]]


def test_a_later_hollywood_hand_finishing_an_earlier_game_is_in_its_own_record() -> None:
    """A Hollywood match where a hand finishes game 1 after game 2 (or 3) has been
    entered: that hand's record shows game 1 finished with its bonuses, the hand
    before it shows game 1 still open, and the final sheet (all finished) is
    neither (the match goes on after it)."""
    for seed in range(200):
        m, sheets, _ = play("hollywood", seed, 0.9)
        numbers = sorted(sheets)
        for before, n in itertools.pairwise(numbers):
            was, now = sheets[before], sheets[n]
            entered_later = any(s["entries"] for s in was["games"][1]["seats"])
            goes_on = n != numbers[-1]
            if (
                0 in finished_games(now)
                and 0 not in finished_games(was)
                and entered_later
                and goes_on
            ):
                break
        else:
            continue
        break
    else:
        pytest.fail("no seed in 200 finishes game 1 after game 2 was entered")
    record, earlier = as_stored(m.hand_record(n)), as_stored(m.hand_record(before))
    game = record["sheet"]["games"][0]
    assert game["finished"] and game["winner"] in (0, 1)
    winner = game["seats"][game["winner"]]
    # docs/rules.md "Scoring the match": 100 for the game (200 for a shutout), 25 per
    # won hand.
    assert winner["game_bonus"] in (100, 200)
    assert winner["line_bonus"] == 25 * len(winner["entries"])
    loser = game["seats"][1 - game["winner"]]
    assert loser["line_bonus"] == 25 * len(loser["entries"])
    assert winner["bonus"] == winner["game_bonus"] + winner["line_bonus"]
    assert 0 in record["result"]["games"]
    assert not earlier["sheet"]["games"][0]["finished"]
    final = as_stored(wire(m.view(None))["sheet"])
    assert final != record["sheet"] and final != earlier["sheet"]
