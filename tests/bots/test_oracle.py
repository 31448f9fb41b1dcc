"""`tests/bots/oracle.py`, the diagnostic that shows hard's search the opponent's
real hand (or only its deadwood): its worlds must be whole, consistent deals."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hollywood_gin.bots import Budget, search, worlds
from hollywood_gin.bots.knowledge import BotMemory, Seen
from hollywood_gin.bots.playout import World
from hollywood_gin.bots.policy import WEIGHTS
from hollywood_gin.engine.cards import mask_of
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.melds import deadwood_mask
from hollywood_gin.engine.options import Options
from tests.bots import oracle


def _mid_hand(seed: int) -> Match:
    rng = random.Random(seed)
    match = Match(Options("standard", "game", 100), rng=rng)
    match.start()
    for _ in range(9):
        seat = 0 if match.legal(0) else 1
        match.apply(seat, rng.choice([a for a in match.legal(seat) if a.kind != "knock"]))
    return match


def _worlds(kind: str) -> Iterator[tuple[int, Seen, int, World]]:
    """Ten oracle worlds in each of eight positions: the seat to move, what it has
    seen, the opponent's real hand, the world."""
    for seed in range(8):
        match = _mid_hand(seed)
        seat = 0 if match.legal(0) else 1
        seen = BotMemory().seen(match.view(seat))
        assert seen is not None and match.hand is not None
        real = mask_of(match.hand.cards[1 - seat])
        oracle._truth[0], oracle._kind[0] = real, kind
        try:
            for k in range(10):
                drawn = oracle._with_real_hand(seen, random.Random(k), Budget(), WEIGHTS)
                assert drawn is not None
                yield seat, seen, real, drawn[0]
        finally:
            oracle._truth[0], oracle._kind[0] = 0, "hand"


def test_the_oracle_deals_the_real_hand_and_every_card_once() -> None:
    for seat, seen, real, world in _worlds("hand"):
        assert world.hands[1 - seat] == real
        assert world.hands[seat] == seen.hand
        assert world.pile[len(world.pile) - len(seen.pile) :] == list(seen.pile)
        cards = [*world.stock, *world.pile]
        for mask in world.hands:
            cards += [i for i in range(52) if mask >> i & 1]
        assert sorted(cards) == list(range(52))


def test_the_deadwood_oracle_deals_hands_near_the_real_deadwood() -> None:
    gaps = [
        abs(deadwood_mask(world.hands[1 - seat]) - deadwood_mask(real))
        for seat, _, real, world in _worlds("deadwood")
    ]
    assert len(gaps) == 80
    assert sum(gap <= oracle.TOLERANCE for gap in gaps) >= 0.9 * len(gaps)


def test_the_search_is_patched_only_during_a_choice() -> None:
    match = _mid_hand(3)
    seat = 0 if match.legal(0) else 1
    bot = oracle.OracleHard(random.Random(1), Budget(playouts=40, seconds=None))
    bot.bind(match)
    assert search.sample_opponent is worlds.sample_opponent
    action = bot.choose(match.view(seat))
    assert action in match.legal(seat)
    assert search.sample_opponent is worlds.sample_opponent
