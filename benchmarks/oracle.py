"""Hard with the opponent's hand shown to its search: a diagnostic, never a player.

How much of hard's shortfall is what it cannot know? `OracleHard` is today's hard
(`Bot("hard")`, the same budget and table memory) whose search deals every world
with the opponent's *real* ten cards (the stock and the unknown pile cards are
still dealt at random, and the opponent's style is still drawn as hard draws it).
If even this scores far below a goal, better guessing of the opponent's hand
cannot reach that goal; what remains is the search's playouts and choice.

    python benchmarks/bench_bots.py --pool --strengths oracle --opponents openspiel ...

It reads the engine's `Match` (through the arena's `bind` hook), which the site's
computer never can; it lives in `benchmarks/` for that reason.
"""

from __future__ import annotations

import random
from typing import Any

from hollywood_gin.bots import Bot, Budget
from hollywood_gin.bots import search as _search
from hollywood_gin.bots.worlds import sample_opponent as _sample_opponent
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import mask_of
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.views import View

_truth: list[int] = [0]  # the real opponent hand of the decision being searched


def _with_real_hand(*args: Any, **kwargs: Any) -> Any:
    """`worlds.sample_opponent`, then the real opponent hand swapped in: each card
    of it that the world dealt elsewhere (the stock, the unknown pile) changes
    places with one the world had put in the opponent's hand."""
    drawn = _sample_opponent(*args, **kwargs)
    if drawn is None or not _truth[0]:
        return drawn
    world, style = drawn
    seen = args[0]
    them = 1 - seen.me
    real, dealt = _truth[0], world.hands[them]
    missing = [i for i in range(52) if real >> i & 1 and not dealt >> i & 1]
    spare = [i for i in range(52) if dealt >> i & 1 and not real >> i & 1]
    where = {c: (place, k) for place in (world.stock, world.pile) for k, c in enumerate(place)}
    for card, other in zip(missing, spare, strict=True):
        place, k = where[card]
        place[k] = other
    world.hands[them] = real
    return world, style


_search.sample_opponent = _with_real_hand  # type: ignore[assignment]


class OracleHard:
    """Hard whose worlds hold the opponent's real hand (see the module)."""

    def __init__(self, rng: random.Random, budget: Budget) -> None:
        self.bot = Bot("hard", rng, budget=budget)
        self.match: Match | None = None

    def bind(self, match: Match) -> None:
        self.match = match

    def observe(self, view: View) -> None:
        self.bot.observe(view)

    def choose(self, view: View) -> Action:
        hand = self.match.hand if self.match is not None else None
        _truth[0] = 0
        if hand is not None and view.you is not None:
            _truth[0] = mask_of(hand.cards[1 - view.you])
        try:
            return self.bot.choose(view)
        finally:
            _truth[0] = 0
