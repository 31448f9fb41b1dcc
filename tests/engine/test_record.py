"""The record between the two seats of a table (`Match.matches_won`): every match
that ends counts for its winner (played out, resigned or claimed), rematches
included, and a replay of the stored log has it, compacted or not."""

from __future__ import annotations

import pytest

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.errors import BadAction
from hollywood_gin.engine.events import Snapshot, log_from_json
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from tests.e2e.conftest import ANN, BOB, deck

OPTIONS = Options("standard", "hand", 100)  # one hand is a match


def match() -> Match:
    m = Match(OPTIONS, deck_orders=[deck(ANN, BOB, "4H", [])] * 8, first_dealer=1)
    m.endings = True
    m.start()
    return m


def rematch(m: Match) -> None:
    m.apply(0, Action.of("new_match"))
    m.apply(1, Action.of("new_match"))


def test_each_ended_match_counts_for_its_winner() -> None:
    m = match()
    assert m.matches_won == (0, 0)
    assert "matches_won" not in m.view(0).wire()["table"]
    m.apply(0, Action.of("take_upcard"))
    knock = next(a for a in m.legal(0) if a.kind == "knock")
    m.apply(0, knock)  # played out: Ann wins
    assert m.matches_won == (1, 0)
    rematch(m)
    assert m.matches_won == (1, 0)
    m.apply(0, Action.of("resign"))  # resigned: Bob wins
    m.apply(0, Action.of("resign"))  # a second press counts nothing
    assert m.matches_won == (1, 1)
    assert m.view(None).wire()["table"]["matches_won"] == (1, 1)
    rematch(m)
    m.apply(1, Action.of("resign"))
    assert m.matches_won == (2, 1)


def test_a_replay_has_the_record_compacted_or_not() -> None:
    m = match()
    m.apply(1, Action.of("resign"))
    rematch(m)
    m.apply(1, Action.of("resign"))
    rematch(m)
    assert m.matches_won == (2, 0)
    stored = [e.to_json() for e in m.log]
    again = Match.replay(OPTIONS, log_from_json(stored), endings=True)
    assert again.matches_won == (2, 0)
    m.compact()  # the log now starts at the last deal's snapshot
    first = m.log[0]
    assert isinstance(first, Snapshot) and first.matches_won == (2, 0)
    stored = [e.to_json() for e in m.log]
    again = Match.replay(OPTIONS, log_from_json(stored), endings=True)
    assert again.matches_won == (2, 0)
    again.apply(0, Action.of("resign"))
    assert again.matches_won == (2, 1)
    assert again.view(0).wire()["table"]["matches_won"] == (2, 1)


@pytest.mark.parametrize("bad", [[1], [1, -1], [1, True], "2-1", [1, 2, 3]])
def test_a_damaged_record_in_a_snapshot_is_refused(bad: object) -> None:
    m = match()
    m.apply(1, Action.of("resign"))
    rematch(m)
    m.compact()
    stored = [e.to_json() for e in m.log]
    stored[0]["matches_won"] = bad
    with pytest.raises(BadAction):
        log_from_json(stored)


def test_a_log_stored_before_the_record_replays_and_counts_on() -> None:
    """A table stored before the record was kept: its snapshots have no matches_won.
    It still loads (the snapshots still follow from its hands), and its record
    starts at its latest deal."""
    m = match()
    m.apply(1, Action.of("resign"))
    rematch(m)
    m.apply(0, Action.of("resign"))
    rematch(m)
    stored = [e.to_json() for e in m.log]
    for entry in stored:
        entry.pop("matches_won", None)
    again = Match.replay(OPTIONS, log_from_json(stored), endings=True)
    assert again.matches_won == (0, 0)
    assert [e.to_json() for e in again.log] == stored
    again.apply(1, Action.of("resign"))
    assert again.matches_won == (1, 0)
