"""Opponents of other styles: bots that play one plain style each, for measuring the
computer's strengths against players it was not built on (`tests/bots/test_strengths.py`,
`benchmarks/bench_bots.py --pool`, docs/bots.md).

Each is a `Bot` (it sees only its seat's views, through `BotMemory`) whose decisions
follow one style:

- `eager`: normal's draws and discards, but knocks as soon as the rules allow (least
  deadwood): the style of most rule-based Gin bots;
- `gin`: normal's draws and discards, never knocks below gin until the stock is low
  (at most `GIN_LOW` draws left), then knocks as soon as legal;
- `greedy`: takes the pile card whenever it lowers its deadwood, throws the card that
  leaves the least deadwood (ties: the higher card), knocks as soon as legal;
- `easy`, `normal`: the site's own strengths.

The computer's strengths never play against these at a table, and the hard search
must not be tuned against one of them in particular (its worlds' style prior names
`eager` and `gin` as kinds of opponent, not as these bots).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from hollywood_gin.bots import Bot
from hollywood_gin.bots.arena import Player
from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.playout import Decision
from hollywood_gin.bots.policy import VALUE, indices, normal_take, ranked_discards
from hollywood_gin.engine.melds import deadwood_mask

GIN_LOW = 6  # the gin hunter knocks below gin once this few stock draws are left


def _least(seen: Seen) -> tuple[int, int]:
    """(deadwood, card): the discard that leaves the least deadwood (ties: higher card)."""
    return min(
        (deadwood_mask(seen.hand ^ (1 << i)), -VALUE[i], i)
        for i in indices(seen.hand)
        if i != seen.forbidden
    )[0::2]


class _Styled(Bot):
    """A Bot whose decisions come from `take` and `discard` below."""

    def __init__(self, rng: random.Random | None = None) -> None:
        super().__init__("normal", rng)

    def take(self, seen: Seen) -> bool:
        return normal_take(seen, seen.top, self.weights)

    def discard(self, seen: Seen) -> tuple[int, bool]:
        raise NotImplementedError

    def _decide(self, seen: Seen, kinds: set[str]) -> Decision:
        if seen.phase == "discard":
            card, knock = self.discard(seen)
            return ("discard", card, knock)
        if seen.top < 0 or not kinds & {"take_upcard", "draw_discard"}:
            return ("take", 0, False)
        return ("take", int(self.take(seen)), False)


class Eager(_Styled):
    def discard(self, seen: Seen) -> tuple[int, bool]:
        least, card = _least(seen)
        if least <= seen.knock_limit:
            return card, True
        return ranked_discards(seen, self.weights)[0][1], False


class GinHunter(_Styled):
    def discard(self, seen: Seen) -> tuple[int, bool]:
        least, card = _least(seen)
        if least == 0 or (least <= seen.knock_limit and seen.drawable <= GIN_LOW):
            return card, True
        return ranked_discards(seen, self.weights)[0][1], False


class Greedy(_Styled):
    def take(self, seen: Seen) -> bool:
        after = min(
            deadwood_mask((seen.hand | (1 << seen.top)) ^ (1 << c)) for c in indices(seen.hand)
        )
        return after < deadwood_mask(seen.hand)

    def discard(self, seen: Seen) -> tuple[int, bool]:
        least, card = _least(seen)
        return card, least <= seen.knock_limit


STYLES: dict[str, Callable[[random.Random], Player]] = {
    "eager": Eager,
    "gin": GinHunter,
    "greedy": Greedy,
    "easy": lambda rng: Bot("easy", rng),
    "normal": lambda rng: Bot("normal", rng),
}
POOL = tuple(STYLES)  # every style here (benchmarks/bot_pool.py adds OpenSpiel's bot)
