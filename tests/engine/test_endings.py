"""Resign, claim, stand-in and timeout moves in the engine
(docs/protocol-guide.md "Around the match"): any mix of them replays from the log to
the same match."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.engine.actions import END_KINDS
from hollywood_gin.engine.errors import RuleError
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options

ALL = [r + s for s in "CDHS" for r in "A23456789TJQK"]


def views(match: Match) -> list[object]:
    return [match.view(s).wire() for s in (0, 1, None)]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), scoring=st.sampled_from(["hand", "game", "hollywood"]))
def test_any_mix_of_endings_replays_to_the_same_match(seed: int, scoring: str) -> None:
    rng = random.Random(seed)
    options = Options("standard", scoring, 100, rng.choice([None, 30]))
    match = Match(options, rng=random.Random(seed))
    match.endings = True
    match.start()
    for _ in range(300):
        match.presence.absent = [rng.random() < 0.1, rng.random() < 0.1]
        seat = rng.randrange(2)
        legal = match.legal(seat)
        if not legal:
            continue
        ends = [a for a in legal if a.kind in END_KINDS]
        plays = [a for a in legal if a.kind not in END_KINDS]
        if ends and rng.random() < 0.05:
            action, by = rng.choice(ends), None
        elif plays:
            action = rng.choice(plays)
            by = rng.choice([None, None, "timeout", "stand_in"])
        else:
            continue
        before = (match.version, len(match.log))
        try:
            match.apply(seat, action, match.version, by=by)
        except RuleError:
            assert (match.version, len(match.log)) == before  # a refusal changes nothing
            continue
        if action.kind in ("resign", "claim"):
            # Ended early: over, won by the right seat, only a new match is open.
            assert match.status == "match_over"
            winner = match.view(0).sheet.match_winner
            assert match.ended is not None
            by_seat = match.ended.seat
            assert winner == (1 - by_seat if match.ended.by == "resign" else by_seat)
            assert [a.kind for a in match.legal(0)] == ["new_match"]
        if rng.random() < 0.05 and any(match.presence.stand_in):
            match.back(match.presence.stand_in.index(True))
        replayed = Match.replay(options, match.log, endings=True)
        replayed.presence.absent = list(match.presence.absent)
        assert views(replayed) == views(match)
        assert (
            replayed.presence.timeouts == match.presence.timeouts
            and replayed.presence.stand_in == match.presence.stand_in
        )
