"""The coach's hint (`bots/hints.py`): from what the seat knows only, the same for the
same position and seed, the coach's own candidates priced (docs/bots.md "Hints")."""

from __future__ import annotations

import random
from dataclasses import replace

from hollywood_gin.bots.arena import deal_deck
from hollywood_gin.bots.hints import HINT_BUDGET, hint, point_now, seed_for
from hollywood_gin.bots.knowledge import BotMemory
from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from tests.bots.helpers import unseen_shuffled

SMALL = replace(HINT_BUDGET, samples=60, batch=60, least=60)


def _match(deck: list[Card]) -> Match:
    match = Match(Options(), rng=random.Random(0), deck_orders=[deck], first_dealer=1)
    match.start()
    return match


def _hidden_shuffled(deck: list[Card], seat: int, seed: int) -> list[Card]:
    """The same deal for `seat` (its cards, the upcard), the cards it cannot see
    (the opponent's hand, the stock) shuffled among their places."""
    match = _match(deck)
    assert match.hand is not None
    seen = set(match.hand.cards[seat]) | {match.hand.discard[-1]}
    return unseen_shuffled(deck, seen, seed)


def _hint_at_offer(deck: list[Card]) -> dict[str, object]:
    match = _match(deck)
    view = match.view(0)  # seat 0 does not deal: the upcard is offered to it first
    memory = BotMemory()
    seen = memory.seen(view)
    assert seen is not None and match.hand is not None
    point = point_now(seen, match.hand.phase, view.legal)
    assert point is not None
    return hint(point, seed_for("t", 0, view.version), SMALL)


def test_the_hint_knows_only_the_seats_cards() -> None:
    for deal in range(3):
        deck = deal_deck(1_810_000 + deal)
        other = _hidden_shuffled(deck, 0, deal)
        assert other != deck
        assert _match(other).hand.cards[1] != _match(deck).hand.cards[1]  # type: ignore[union-attr]
        assert _hint_at_offer(deck) == _hint_at_offer(other)


def test_the_hint_prices_every_choice_best_first() -> None:
    body = _hint_at_offer(deal_deck(1_810_100))
    choices = body["choices"]
    assert isinstance(choices, list)
    assert {c["action"]["kind"] for c in choices} == {"take_upcard", "pass"}
    assert body["best"] == choices[0]["action"]
    assert choices[0]["expected"] >= choices[1]["expected"]


def test_a_discard_hint_names_legal_discards_and_normals_move() -> None:
    match = _match(deal_deck(1_810_200))
    memory = BotMemory()
    match.apply(0, match.playable(0)[[a.kind for a in match.playable(0)].index("pass")])
    match.apply(1, next(a for a in match.playable(1) if a.kind == "pass"))
    match.apply(0, next(a for a in match.playable(0) if a.kind == "draw_stock"))
    view = match.view(0)
    seen = memory.seen(view)
    assert seen is not None and match.hand is not None and match.hand.phase == "discard"
    point = point_now(seen, "discard", view.legal)
    assert point is not None
    body = hint(point, 7, SMALL)
    legal = [a.to_dict() for a in view.legal]
    choices = body["choices"]
    assert isinstance(choices, list) and len(choices) >= 2
    assert all(c["action"] in legal for c in choices)
    assert point.chosen.to_dict() in [c["action"] for c in choices]
    assert hint(point, 7, SMALL) == body  # the same seed, the same hint
