"""Which unseen cards the opponent is likely to hold, from everything it did.

A small logistic model, one card at a time: `card_features` describes an unseen
card by its relations to what the opponent did this hand (the cards it took
from the pile and still holds, the cards it threw, its last two throws, the
upcards and pile tops it passed on), by how many of the card's meld partners
are out of play for it (in the pile, or in my hand), by its value and by how
long the hand has run. `card_odds` turns `COEFFICIENTS` into each card's odds
of being in the opponent's hand; the determinisation deals the opponent's
unknown cards in proportion to them (`worlds.sample_world`).

The coefficients were fitted offline (`benchmarks/card_model.py`) on seeded
hands in which the real hands were known, against the in-house styles only
(eager, gin, greedy, easy, normal): never OpenSpiel's bot, and never on the
screening or validation deals of the hard benchmark (docs/bots.md "Round 8").
Only the seat's own `Seen` is read, so nothing hidden can leak in.
"""

from __future__ import annotations

import math

from hollywood_gin.bots.knowledge import FULL, THREW, Seen
from hollywood_gin.bots.policy import RANK_BITS, VALUE, indices

FEATURES = (
    "took_set",  # cards of its rank the opponent took from the pile and holds
    "took_run1",  # ... of its suit one rank away
    "took_run2",  # ... two ranks away
    "threw_set",  # cards of its rank the opponent threw this hand
    "threw_run1",
    "threw_run2",
    "last_set",  # ... among its last two throws
    "last_run1",
    "passed_set",  # cards of its rank it passed on (upcard, a pile top)
    "passed_run1",
    "gone_set",  # its rank's other cards out of play for the opponent (pile, my hand)
    "gone_run1",  # its suit's neighbours one rank away out of play (or off the end)
    "value",  # its value / 10
    "value_late",  # value x turns played / 10
    "turns",  # the opponent's turns played / 10
)


def _run(mask: int, i: int, step: int) -> int:
    """How many cards of `mask` lie `step` ranks from card `i` in its suit."""
    r = i % 13
    n = 0
    if r >= step and mask >> (i - step) & 1:
        n += 1
    if r + step <= 12 and mask >> (i + step) & 1:
        n += 1
    return n


def _ends(i: int) -> int:
    """How many of card i's one-away neighbours do not exist (an ace, a king)."""
    r = i % 13
    return int(r == 0) + int(r == 12)


def card_features(seen: Seen) -> dict[int, tuple[float, ...]]:
    """Each card I have not seen (not mine, not in the pile, not known in the
    opponent's hand) -> its features, in the order of `FEATURES`."""
    took = seen.opp_has
    threw = 0
    last = 0
    throws = [card for kind, card, _ in seen.opp_log if kind == THREW]
    for card in throws:
        threw |= 1 << card
    for card in throws[-2:]:
        last |= 1 << card
    passed = seen.opp_threw & ~threw
    gone = seen.dead | seen.hand
    turns = max(0, 31 - seen.stock_count) / 20
    out: dict[int, tuple[float, ...]] = {}
    for i in indices(FULL & ~(seen.hand | seen.dead | seen.opp_has)):
        rank = RANK_BITS[i % 13]
        value = VALUE[i] / 10
        out[i] = (
            (took & rank).bit_count(),
            _run(took, i, 1),
            _run(took, i, 2),
            (threw & rank).bit_count(),
            _run(threw, i, 1),
            _run(threw, i, 2),
            (last & rank).bit_count(),
            _run(last, i, 1),
            (passed & rank).bit_count(),
            _run(passed, i, 1),
            (gone & rank).bit_count(),
            _run(gone, i, 1) + _ends(i),
            value,
            value * turns,
            turns,
        )
    return out


# Fitted by `benchmarks/card_model.py` (see the module's docstring); the order of `FEATURES`.
COEFFICIENTS: tuple[float, ...] = (
    0.849,  # took_set
    0.800,  # took_run1
    0.469,  # took_run2
    -1.071,  # threw_set
    -0.883,  # threw_run1
    -0.438,  # threw_run2
    0.262,  # last_set
    0.107,  # last_run1
    -0.568,  # passed_set
    -0.470,  # passed_run1
    -0.019,  # gone_set
    -0.106,  # gone_run1
    -0.085,  # value
    0.037,  # value_late
    1.854,  # turns
)


def card_odds(
    seen: Seen, coefficients: tuple[float, ...] = COEFFICIENTS, scale: float = 1.0
) -> dict[int, float]:
    """Each unseen card -> its odds of being in the opponent's hand, up to a common
    factor (the model's logit times `scale`, exponentiated)."""
    out = {}
    for i, f in card_features(seen).items():
        z = sum(c * x for c, x in zip(coefficients, f, strict=True))
        out[i] = math.exp(scale * z)
    return out
