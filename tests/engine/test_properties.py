"""Property tests over whole matches of random legal play, in all nine option
combinations: every match ends, the 52 cards are always all there, views
never leak a hidden card, `legal` is exactly what `apply` accepts, versions go
up by one per action, and replaying the log rebuilds the same views.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.engine import Match, Options, RuleError, arrange, best_discards
from hollywood_gin.engine.actions import parse_action
from hollywood_gin.engine.cards import CARDS, Card
from tests.engine.helpers import through_json
from tests.wire import wire

COMBOS = [
    (r, s) for r in ("standard", "straight", "oklahoma") for s in ("hand", "game", "hollywood")
]
MAX_ACTIONS = 20_000  # far above what a match takes with the policy below
ALL_CARDS = [str(c) for c in CARDS]
KINDS = ["take_upcard", "pass", "draw_stock", "draw_discard", "discard", "knock"]


def choose(m: Match, seat: int, rng: random.Random, greed: float) -> dict[str, Any]:
    """A random legal action, leaning towards good play so gin-only matches end."""
    legal = wire(m.view(seat))["legal"]
    knocks = [a for a in legal if a["kind"] == "knock"]
    if knocks and rng.random() < 0.9:
        a = dict(rng.choice(knocks))
        if rng.random() < 0.3:
            # Name the melds: the least-deadwood arrangement of the ten left.
            ten = [
                Card.parse(c) for c in wire(m.view(seat))["hand"]["my_cards"] if c != a["discard"]
            ]
            a["melds"] = [[str(c) for c in meld] for meld in arrange(ten)[0]]
        return a
    discards = [a for a in legal if a["kind"] == "discard"]
    if discards and rng.random() < greed:
        mine = [Card.parse(c) for c in wire(m.view(seat))["hand"]["my_cards"]]
        best = {str(c) for c, _ in best_discards(mine)}
        good = [a for a in discards if a["card"] in best]
        return rng.choice(good or discards)
    return rng.choice(legal)


def random_action(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(KINDS)
    if kind == "discard":
        return {"kind": kind, "card": rng.choice(ALL_CARDS)}
    if kind == "knock":
        return {"kind": kind, "discard": rng.choice(ALL_CARDS)}
    return {"kind": kind}


def is_listed(action: dict[str, Any], legal: list[dict[str, Any]]) -> bool:
    return any({k: v for k, v in a.items() if k != "deadwood"} == action for a in legal)


def check_cards(m: Match) -> None:
    """All 52 cards are somewhere, each once, and the views' counts agree."""
    hand = m.hand
    assert hand is not None
    everything = [*hand.cards[0], *hand.cards[1], *hand.stock, *hand.discard]
    if hand.result is not None and hand.result.knock_discard is not None:
        everything.append(hand.result.knock_discard)
    assert len(everything) == 52 and set(everything) == set(CARDS)
    h = wire(m.view(None))["hand"]
    knocked = 1 if h.get("result") and h["result"]["knock_discard"] else 0
    assert sum(h["card_counts"]) + h["stock_count"] + h["discard_count"] + knocked == 52


def check_hidden(m: Match, public: list[set[str]]) -> None:
    """No view shows a stock card or a card of a hand it does not hold, except
    those that went into that hand face up (`public[seat]`)."""
    hand = m.hand
    assert hand is not None
    if hand.phase == "over":
        return  # the result reveals everything, on purpose
    stock = {str(c) for c in hand.stock}
    for viewer in (0, 1, None):
        hidden = set(stock)
        for s in (0, 1):
            if s != viewer:
                hidden |= {str(c) for c in hand.cards[s]} - public[s]
        text = json.dumps(wire(m.view(viewer)))
        leaked = [c for c in hidden if f'"{c}"' in text]
        assert not leaked, (viewer, leaked)


def play_match(rules: str, scoring: str, seed: int, greed: float) -> None:
    rng = random.Random(seed)
    m = Match(Options(rules, scoring, 100), rng=random.Random(seed + 1))
    m.start()
    checkpoint_at = rng.randrange(1, 400)
    checkpoint: tuple[int, list[dict[str, Any]]] | None = None
    public: list[set[str]] = [set(), set()]
    hand_number = 1
    for step in range(MAX_ACTIONS):
        if m.status == "match_over":
            break
        assert m.hand is not None
        if m.hand.number != hand_number:
            hand_number, public = m.hand.number, [set(), set()]
        check_cards(m)
        check_hidden(m, public)
        seat = next(s for s in (0, 1) if wire(m.view(s))["legal"])
        # A random action that `legal` does not list is refused and changes nothing.
        probe = random_action(rng)
        for who in (seat, 1 - seat):
            if who == seat and is_listed(probe, wire(m.view(seat))["legal"]):
                continue
            before = (m.version, len(m.log), m.view(who))
            with pytest.raises(RuleError):
                m.apply(who, parse_action(probe), version=m.version)
            assert (m.version, len(m.log), m.view(who)) == before
        if rng.random() < 0.05:
            mine = wire(m.view(seat))["hand"]["my_cards"]
            m.arrange(seat, rng.sample(mine, len(mine)))
        action = choose(m, seat, rng, greed)
        version = m.version
        m.apply(seat, parse_action(action), version=version)
        assert m.version == version + 1
        last = wire(m.view(None))["hand"]["last_action"]
        if (
            m.hand.number == hand_number
            and last
            and last["kind"] in ("take_upcard", "draw_discard")
        ):
            public[seat].add(last["card"])
        if step == checkpoint_at:
            checkpoint = (len(m.log), copy.deepcopy(m.orders), [m.view(s) for s in (0, 1, None)])
    assert m.status == "match_over", f"no end after {MAX_ACTIONS} actions"
    assert wire(m.view(None))["sheet"]["match_winner"] in (0, 1)
    log = through_json(m.log)
    again = Match.replay(m.options, log, orders=m.orders)
    assert again.version == m.version
    assert [again.view(s) for s in (0, 1, None)] == [m.view(s) for s in (0, 1, None)]
    if checkpoint is not None:
        n, orders, views = checkpoint
        part = Match.replay(m.options, log[:n], orders=orders)
        assert [part.view(s) for s in (0, 1, None)] == views


@pytest.mark.parametrize(("rules", "scoring"), COMBOS)
@given(seed=st.integers(0, 2**32), greed=st.floats(0.7, 1.0))
@settings(max_examples=3, deadline=None)
def test_random_legal_play_ends_every_match_and_keeps_every_invariant(
    rules: str, scoring: str, seed: int, greed: float
) -> None:
    play_match(rules, scoring, seed, greed)


@given(seed=st.integers(0, 2**32))
@settings(max_examples=10, deadline=None)
def test_a_hand_scoring_match_with_plain_random_play_ends(seed: int) -> None:
    # Greed 0: uniformly random discards; only the knock preference remains.
    play_match("standard", "hand", seed, 0.0)
