"""BotMemory folds a seat's views, in order, into what the seat has seen."""

from __future__ import annotations

import random
from typing import Any

from hollywood_gin.bots.knowledge import THREW, TOOK, BotMemory
from hollywood_gin.engine.actions import parse_action
from hollywood_gin.engine.cards import Card, parse_cards
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from tests.wire import wire


def bits(text: str) -> int:
    mask = 0
    for c in parse_cards(text.split()):
        mask |= c.bit
    return mask


def deck_with(prefix: str) -> list[Card]:
    """A deck order starting with the given cards, the rest in index order."""
    first = parse_cards(prefix.split())
    rest = [c for c in (Card(i) for i in range(52)) if c not in first]
    return first + rest


def test_memory_tracks_pile_takes_and_throws_through_a_real_match() -> None:
    # Dealer 1: seat 0 (non-dealer) gets positions 0, 2, ..., 18; seat 1 the odd
    # ones; position 20 is the upcard (7H), 21 the top of the stock (2S).
    seat0 = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC"
    seat1 = "AD 2D 3D 4D 5D 6D 7D 8D 9D TD"
    prefix = " ".join(a + " " + b for a, b in zip(seat0.split(), seat1.split(), strict=True))
    deck = deck_with(prefix + " 7H 2S")
    match = Match(Options(), rng=random.Random(1), deck_orders=[deck], first_dealer=1)
    match.start()
    memory = BotMemory()

    def act(seat: int, action: dict[str, Any]) -> None:
        match.apply(seat, parse_action(action))
        memory.observe(match.view(0))

    memory.observe(match.view(0))
    act(0, {"kind": "pass"})
    act(1, {"kind": "take_upcard"})  # the opponent takes 7H: it holds it
    s = memory.seen(match.view(0))
    assert s is not None
    assert s.opp_has == bits("7H")
    assert s.opp_threw == 0
    assert s.opp_discards == 0
    assert s.pile == ()
    act(1, {"kind": "discard", "card": "AD"})  # AD thrown: on the pile, a hint
    act(0, {"kind": "draw_stock"})  # seat 0 gets 2S
    act(0, {"kind": "discard", "card": "TC"})
    act(1, {"kind": "draw_stock"})  # seat 1 declined TC
    s = memory.seen(match.view(0))
    assert s is not None
    assert [str(Card(i)) for i in s.pile] == ["AD", "TC"]
    assert s.dead == bits("AD TC")
    assert s.opp_has == bits("7H")
    assert s.opp_threw == bits("AD TC")
    assert s.opp_discards == 1  # AD; declining TC is no discard
    act(1, {"kind": "discard", "card": "7H"})  # it let 7H go again
    s = memory.seen(match.view(0))
    assert s is not None
    assert s.opp_has == 0
    assert s.top == Card.parse("7H").index
    assert s.pile_count == 3 and len(s.pile) == 3
    assert s.stock_count == 29  # 31 - two stock draws
    assert s.opp_discards == 2
    # in order, with the stock then: its take, its discards (its stock draw between is implied)
    idx = [Card.parse(t).index for t in ("7H", "AD", "7H")]
    assert s.opp_log == ((TOOK, idx[0], 31), (THREW, idx[1], 31), (THREW, idx[2], 29))


def test_a_view_seen_twice_counts_once_and_a_new_hand_resets() -> None:
    match = Match(Options(), rng=random.Random(3), first_dealer=0)
    match.start()
    memory = BotMemory()
    memory.observe(match.view(1))
    match.apply(1, parse_action({"kind": "take_upcard"}))
    view = match.view(1)
    memory.observe(view)
    memory.observe(view)  # e.g. a fresh state after `arrange`: same version
    s = memory.seen(view)
    assert s is not None and s.pile == ()
    top = wire(view)["hand"]["my_cards"][0]
    match.apply(1, parse_action({"kind": "discard", "card": top}))
    s = memory.seen(match.view(1))
    assert s is not None and len(s.pile) == 1


def test_a_gap_in_the_views_falls_back_to_the_top_card() -> None:
    match = Match(Options(), rng=random.Random(5), first_dealer=0)
    match.start()
    memory = BotMemory()
    memory.observe(match.view(0))
    # several moves happen unseen
    match.apply(1, parse_action({"kind": "pass"}))
    match.apply(0, parse_action({"kind": "pass"}))
    match.apply(1, parse_action({"kind": "draw_stock"}))
    card = wire(match.view(1))["hand"]["my_cards"][-1]
    match.apply(1, parse_action({"kind": "discard", "card": card}))
    view = match.view(0)
    s = memory.seen(view)
    assert s is not None
    assert s.pile_count == 2
    # what the view shows is trusted; the rest of the pile counts as unknown
    assert view.hand is not None
    assert [str(Card(i)) for i in s.pile][-1] == view.hand.discard_top
