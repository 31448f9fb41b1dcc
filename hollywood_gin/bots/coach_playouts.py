"""The coach's playouts: its playout policies and its sampling of the unseen cards.

Pinned here, apart from the hard search's tunable ones (`lean`, `worlds`), so
that tuning the search never changes a stored review (`coach.COACH_VERSION`).
The simulator is the search's (`playout.World`).
"""

from __future__ import annotations

import random

from hollywood_gin.bots import playout, worlds
from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.lean import least_discard
from hollywood_gin.bots.playout import DISCARD, Decision, Policy, World
from hollywood_gin.bots.policy import (
    VALUE,
    indices,
    makes_meld,
    normal_discard,
    normal_take,
    should_knock,
)
from hollywood_gin.engine.melds import deadwood_mask, discard_deadwoods_mask

__all__ = ["POLICIES", "lean_policy", "normal_policy", "play_out", "sample_world"]


def play_out(world: World, policy: Policy, rng: random.Random) -> World:
    """Both seats play `policy` to the hand's end (or `playout.MAX_TURNS` turns: then a draw)."""
    return playout.play_out(world, (policy, policy), rng)


def normal_policy(seen: Seen, world: World) -> Decision:
    """The normal computer's choice."""
    if world.phase == DISCARD:
        card, knock = normal_discard(seen)
        return ("discard", card, knock)
    can_take = bool(world.pile) and not world.must_draw_stock
    taken = can_take and (not world.can_draw_stock() or normal_take(seen, world.pile[-1]))
    return ("take", int(taken), False)


def lean_policy(seen: Seen, world: World) -> Decision:
    """Normal's knock and wall rules on a plain deadwood count: discard the card that
    leaves the least deadwood (the highest of equals), take a pile card that melds or
    lowers the deadwood by three."""
    hand = seen.hand
    if world.phase == DISCARD:
        best, least = least_discard(hand, seen.forbidden)
        return ("discard", best, should_knock(seen, least))
    if not world.pile or world.must_draw_stock:
        return ("take", 0, False)
    if not world.can_draw_stock():
        return ("take", 1, False)
    top = world.pile[-1]
    if not (seen.wall and seen.drawable == 1) and not makes_meld(hand, top) and VALUE[top] > 3:
        return ("take", 0, False)
    # The least deadwood after taking it and throwing another card.
    after = min(d for i, d in discard_deadwoods_mask(hand | (1 << top)) if i != top)
    if seen.wall and seen.drawable == 1:
        return ("take", int(should_knock(seen, after)), False)
    return ("take", int(after + 3 <= deadwood_mask(hand)), False)


# None: the search's own rollout (`lean.rollout`), which plays `lean_policy`'s moves
# without building a `Seen` each step (tests/bots/test_coach.py holds them equal).
POLICIES: dict[str, Policy | None] = {"lean": None, "normal": normal_policy}


def _shape(opp: int, known: int, rest: list[int], turns: int, rng: random.Random) -> int:
    """Give a uniformly dealt opponent hand the play it has had: for each turn it
    played, it draws an unseen card and throws its worst (never a card it is known to
    hold). The thrown card goes back among the unseen, so the deal stays consistent;
    the likelihood moves toward organised hands, as a hand that has drawn and thrown
    for some turns is."""
    for _ in range(turns):
        j = rng.randrange(len(rest))
        x = rest[j]
        hand = opp | (1 << x)
        worst, least = x, 999
        for y in indices(hand & ~known):
            d = deadwood_mask(hand ^ (1 << y))
            if d < least:
                worst, least = y, d
        opp = hand & ~(1 << worst)
        rest[j] = worst
    return opp


def sample_world(
    seen: Seen, rng: random.Random, *, must_draw_stock: bool, shape_turns: int = 8
) -> World | None:
    """Deal the unseen cards in agreement with `seen`; None if the counts disagree.

    The opponent's hand is shaped by the turns it has played (`_shape`); once it has
    made a plain discard, a deal that gives it gin is dealt again (a few times at
    most): it would have gone out."""
    counts = worlds.unseen(seen)
    if counts is None:
        return None
    pool, opp_unknown, pile_unknown = counts
    turns = min(max(0, 31 - seen.stock_count) // 2, shape_turns)
    for _ in range(8):
        rng.shuffle(pool)
        opp = seen.opp_has
        for i in pool[:opp_unknown]:
            opp |= 1 << i
        rest = pool[opp_unknown:]
        if rest and turns:
            opp = _shape(opp, seen.opp_has, rest, turns, rng)
            rng.shuffle(rest)
        if not seen.opp_discards or deadwood_mask(opp) > 0:
            break
    pile = rest[:pile_unknown] + list(seen.pile)
    return World.dealt(seen, opp, pile, rest[pile_unknown:], must_draw_stock=must_draw_stock)
