"""Hard with the opponent's hand shown to its search: a diagnostic, never a player.

How much of hard's shortfall is what it cannot know? `OracleHard` is today's hard
(`Bot("hard")`, the same budget and table memory) whose search deals every world
with the opponent's *real* ten cards (the stock and the unknown pile cards are
still dealt at random, and the opponent's style is still drawn as hard draws it).
If even this scores far below a goal, better guessing of the opponent's hand
cannot reach that goal; what remains is the search's playouts and choice.

`OracleHard(kind="deadwood")` (`--strengths oracle_dw`) is told less: only the
opponent's real deadwood. Its worlds are hard's own, dealt again (up to 60
times, else the closest) until the opponent's hand has a deadwood within
`TOLERANCE` of the real one. How much of the hand's worth is knowing how near
the opponent is to a knock?

    python benchmarks/bench_bots.py --pool --strengths oracle --opponents openspiel ...

It reads the engine's `Match` (through the arena's `bind` hook), which the site's
computer never can, so it stays out of the package: it lives here beside its test
(`tests/bots/test_oracle.py`), and `benchmarks/bench_bots.py` imports it from here.
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
from hollywood_gin.engine.melds import deadwood_mask
from hollywood_gin.engine.views import View

_truth: list[int] = [0]  # the real opponent hand of the decision being searched
_kind: list[str] = ["hand"]  # "hand": its cards; "deadwood": only its deadwood
TOLERANCE = 2


def _with_real_hand(*args: Any, **kwargs: Any) -> Any:
    """`worlds.sample_opponent`, then the real opponent hand swapped in: each card
    of it that the world dealt elsewhere (the stock, the unknown pile) changes
    places with one the world had put in the opponent's hand."""
    drawn = _sample_opponent(*args, **kwargs)
    if drawn is None or not _truth[0]:
        return drawn
    seen = args[0]
    them = 1 - seen.me
    if _kind[0] == "deadwood":
        return _near_deadwood(drawn, them, args, kwargs)
    world, style = drawn
    real, dealt = _truth[0], world.hands[them]
    missing = [i for i in range(52) if real >> i & 1 and not dealt >> i & 1]
    spare = [i for i in range(52) if dealt >> i & 1 and not real >> i & 1]
    where = {c: (place, k) for place in (world.stock, world.pile) for k, c in enumerate(place)}
    for card, other in zip(missing, spare, strict=True):
        place, k = where[card]
        place[k] = other
    world.hands[them] = real
    return world, style


def _near_deadwood(drawn: Any, them: int, args: Any, kwargs: Any) -> Any:
    real = deadwood_mask(_truth[0])
    best, gap = drawn, abs(deadwood_mask(drawn[0].hands[them]) - real)
    for _ in range(60):
        if gap <= TOLERANCE:
            break
        again = _sample_opponent(*args, **kwargs)
        if again is None:
            break
        miss = abs(deadwood_mask(again[0].hands[them]) - real)
        if miss < gap:
            best, gap = again, miss
    return best


class OracleHard:
    """Hard whose worlds hold the opponent's real hand (see the module)."""

    def __init__(self, rng: random.Random, budget: Budget, kind: str = "hand") -> None:
        self.bot = Bot("hard", rng, budget=budget)
        self.match: Match | None = None
        self.kind = kind

    def bind(self, match: Match) -> None:
        self.match = match

    def observe(self, view: View) -> None:
        self.bot.observe(view)

    def choose(self, view: View) -> Action:
        hand = self.match.hand if self.match is not None else None
        _truth[0] = 0
        _kind[0] = self.kind
        if hand is not None and view.you is not None:
            _truth[0] = mask_of(hand.cards[1 - view.you])
        _search.sample_opponent = _with_real_hand  # only for this choice
        try:
            return self.bot.choose(view)
        finally:
            _search.sample_opponent = _sample_opponent
            _truth[0] = 0
