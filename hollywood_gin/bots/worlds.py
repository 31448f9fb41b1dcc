"""The determinisation: worlds dealt consistently with what the seat has seen.

A *world* deals the cards I have not seen at random, consistently with
everything seen (`sample_world`: the opponent holds what it took from the pile
and as many cards as it has; the known pile stays on top; its hand has "played"
its turns, see `_shape`), with an opponent style drawn with it and kept only if
that style would not have knocked with that hand (`sample_opponent`). Each world
is weighted by how likely the opponent's observed choices were with that hand
(`evidence_weight`: a card it threw or passed on that melds with the hand, a
card it took from the pile that does not, each make the world less likely).
"""

from __future__ import annotations

import random
from dataclasses import replace

from hollywood_gin.bots.budget import Budget
from hollywood_gin.bots.knowledge import FULL, TOOK, Seen
from hollywood_gin.bots.playout import World, knocks
from hollywood_gin.bots.policy import Weights, indices, makes_meld
from hollywood_gin.engine.melds import deadwood_mask, discard_deadwoods_mask


def _turns_played(seen: Seen) -> int:
    """About how many draws the opponent has made (the stock starts at 31)."""
    return max(0, 31 - seen.stock_count) // 2


def shaping_turns(seen: Seen, budget: Budget, style: str = "eager") -> int:
    """How many turns the opponent's sampled hand plays (`_shape`) for `style`."""
    scale = budget.patient_scale if style in ("normal", "gin") else budget.shape_scale
    return min(budget.shape_turns, int(budget.shape_base + scale * _turns_played(seen)))


def _shape(opp: int, known: int, rest: list[int], turns: int, rng: random.Random) -> int:
    """Give a uniformly dealt opponent hand the play it has had: for each turn
    played, it draws an unseen card and throws its worst (never a card it is
    known to hold). The thrown card goes back among the unseen, so the deal
    stays consistent; only the likelihood moves toward organised hands, which
    is what a hand that has drawn and thrown for some turns looks like."""
    for _ in range(turns):
        j = rng.randrange(len(rest))
        x = rest[j]
        hand = opp | (1 << x)
        worst, least = x, 999
        for y, d in discard_deadwoods_mask(hand):  # one solve, in index order
            if d < least and not known >> y & 1:
                worst, least = y, d
        opp = hand & ~(1 << worst)
        rest[j] = worst
    return opp


def unseen(seen: Seen) -> tuple[list[int], int, int] | None:
    """The cards `seen` has not seen (in index order), how many of them the opponent
    holds and how many the pile hides; None if the counts disagree."""
    pool = indices(FULL & ~(seen.hand | seen.dead | seen.opp_has))
    opp_unknown = seen.opp_count - seen.opp_has.bit_count()
    pile_unknown = seen.pile_count - len(seen.pile)
    if (
        seen.turn is None
        or opp_unknown < 0
        or pile_unknown < 0
        or len(pool) != opp_unknown + pile_unknown + seen.stock_count
    ):
        return None
    return pool, opp_unknown, pile_unknown


def sample_world(
    seen: Seen,
    rng: random.Random,
    *,
    must_draw_stock: bool = False,
    shaping: bool = True,
    shape_turns: int = 8,
    turns: int | None = None,
    deals: int = 1,
) -> World | None:
    """Deal the unseen cards consistently with `seen`; None if the counts disagree.

    `must_draw_stock`: both passed the upcard, so this first draw is from the stock.
    `turns`: the shaping turns of the opponent's hand (default: its turns played,
    at most `shape_turns`). `deals` > 1: once the opponent has made a plain
    discard, a deal that gives it gin is dealt again (`deals` deals at most): it
    would have gone out (the coach's rule; hard's styles reject such worlds).
    """
    counts = unseen(seen)
    if counts is None:
        return None
    pool, opp_unknown, pile_unknown = counts
    if not shaping:
        turns = 0
    elif turns is None:
        turns = min(_turns_played(seen), shape_turns)
    for deal in range(deals):
        rng.shuffle(pool)
        opp = seen.opp_has
        for i in pool[:opp_unknown]:
            opp |= 1 << i
        rest = pool[opp_unknown:]
        if rest and turns:
            opp = _shape(opp, seen.opp_has, rest, turns, rng)
            rng.shuffle(rest)
        if deal == deals - 1 or not seen.opp_discards or deadwood_mask(opp) > 0:
            break
    pile = rest[:pile_unknown] + list(seen.pile)
    return World.dealt(seen, opp, pile, rest[pile_unknown:], must_draw_stock=must_draw_stock)


def evidence_weight(seen: Seen, opp: int, evidence: float) -> float:
    """How likely the opponent's observed choices were with hand `opp`, relative to
    a hand that explains them all: `evidence` for each card it threw or passed on
    that melds with two of its cards (a player keeps such a card), and for each
    card it took from the pile that melds with none of its others."""
    if evidence >= 1.0:
        return 1.0
    odd = 0
    for i in indices(seen.opp_threw & ~opp):
        if makes_meld(opp, i):
            odd += 1
    for i in indices(seen.opp_has):
        if not makes_meld(opp & ~(1 << i), i):
            odd += 1
    return float(evidence**odd)


def knocked_before(
    seen: Seen, opp: int, theirs: Seen, style: str, w: Weights, rng: random.Random
) -> bool:
    """Would an opponent of `style` holding `opp` now have knocked at one of its
    earlier plain discards (`seen.opp_log`)? Going back from its last discard, each
    discard is taken back into the hand and the draw before it out of it: the pile
    card it took, or (a stock draw) one of its cards at random that it did not take
    from the pile. At each earlier discard the style is asked about the least
    deadwood it could have kept from its eleven cards, with the stock as it was then
    (`theirs`: the opponent's view now). A log that does not add up (views missed)
    says nothing."""
    log = seen.opp_log
    taken = 0
    for kind, card, _ in log:
        if kind == TOOK:
            taken |= 1 << card
    hand = opp
    last = True
    k = len(log) - 1
    while k >= 0:
        kind, card, stock = log[k]
        k -= 1
        if kind == TOOK or hand >> card & 1 or hand.bit_count() != 10:
            return False  # a take without its discard, or a card held twice: a gap
        eleven = hand | (1 << card)
        if not last:
            least = min(d for _, d in discard_deadwoods_mask(eleven))
            if knocks(style, replace(theirs, stock_count=stock), least, w):
                return True
        last = False
        # the draw before this discard
        if k >= 0 and log[k][0] == TOOK:
            took = log[k][1]
            k -= 1
            if not eleven >> took & 1:
                return False
            hand = eleven & ~(1 << took)
        else:
            free = indices(eleven & ~taken)
            if not free:
                return False
            hand = eleven & ~(1 << free[rng.randrange(len(free))])
    return False


UNLIKE = 0.05  # the likelihood of a knock its style would not make (people vary)


def style_weights(seen: Seen, budget: Budget, w: Weights) -> list[tuple[str, float]]:
    """`budget.styles` weighed by the opponent's knocks in earlier hands at this
    table: each style knocks with any deadwood it allows, equally likely (eager:
    0 to the limit; normal: 0 to its target then; gin: only 0 until the stock
    is low), and with another deadwood `UNLIKE` times as often."""
    out = []
    for name, prior in budget.styles:
        weight = prior
        for deadwood, left, limit in seen.opp_knocks:
            then = Seen(
                me=1 - seen.me,
                hand=0,
                pile=(),
                dead=0,
                pile_count=0,
                opp_has=0,
                opp_threw=0,
                opp_count=10,
                stock_count=left,
                knock_limit=limit,
                wall=False,
                phase="discard",
                dealer=0,
                turn=None,
            )
            allowed = [d for d in range(limit + 1) if knocks(name, then, d, w)]
            weight *= 1 / len(allowed) if deadwood in allowed else UNLIKE / (limit + 1)
        out.append((name, weight))
    total = sum(weight for _, weight in out)
    return [(name, weight / total) for name, weight in out] if total > 0 else list(budget.styles)


def sample_opponent(
    seen: Seen,
    rng: random.Random,
    budget: Budget,
    w: Weights,
    *,
    must_draw_stock: bool = False,
    tries: int = 30,
) -> tuple[World, str] | None:
    """A deal (`sample_world`) and a style for the opponent, drawn together given
    what the opponent did: a style (by `style_weights`) and a deal are drawn,
    and once the opponent has made a plain discard, a pair in which that style
    would have knocked with its ten cards is drawn again (rejection sampling:
    the pair's chance is its prior times "it did not knock"). As turns pass
    without a knock, the eager style fades (it would have knocked with most
    hands) and low hands come with the styles that wait."""
    styles = style_weights(seen, budget, w)
    names = [name for name, _ in styles]
    weights = [weight for _, weight in styles]
    drawn = None
    for _ in range(tries):
        style = rng.choices(names, weights)[0]
        world = sample_world(
            seen,
            rng,
            must_draw_stock=must_draw_stock,
            turns=shaping_turns(seen, budget, style),
        )
        if world is None:
            return None
        drawn = (world, style)
        if not seen.opp_discards:
            return drawn
        # what the opponent saw at its discard: about the same stock as now
        theirs = world.seen(1 - seen.me)
        deadwood = deadwood_mask(world.hands[1 - seen.me])
        if not knocks(style, theirs, deadwood, w) and not (
            budget.history and knocked_before(seen, world.hands[1 - seen.me], theirs, style, w, rng)
        ):
            return drawn
    if drawn is not None:
        # nothing fitted in time: the last deal, with a style that fits it if any does
        world = drawn[0]
        theirs = world.seen(1 - seen.me)
        deadwood = deadwood_mask(world.hands[1 - seen.me])
        fits = [n for n in names if not knocks(n, theirs, deadwood, w)]
        drawn = (world, fits[0] if fits else names[0])
    return drawn
