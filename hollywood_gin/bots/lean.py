"""The lean playout policy and its fast rollout (the hard search's playouts).

`lean_policy` is the policy as a `Policy` on `Seen`s (the reference, for
`playout.play_out` and the tests); `rollout` plays the same moves without
building a `Seen` each step, remembering its answers by hand.
"""

from __future__ import annotations

import random

from hollywood_gin.bots.evaluate import least_after_taking, least_discard
from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.playout import (
    GIN_LOW,
    MAX_TURNS,
    OVER,
    Decision,
    Policy,
    World,
    knocks,
)
from hollywood_gin.bots.policy import (
    VALUE,
    WEIGHTS,
    Weights,
    indices,
    makes_meld,
    normal_discard,
    normal_take,
    ranked_discards,
    should_knock,
)
from hollywood_gin.engine.melds import deadwood_mask, discard_deadwoods_mask
from hollywood_gin.engine.vocabulary import PHASES, WALL

DISCARD = PHASES[2]


def lean_policy(w: Weights = WEIGHTS, style: str = "normal") -> Policy:
    """The playout policy: a plain deadwood count instead of normal's look at
    live cards (ten times cheaper, so the search can afford enough deals to
    tell candidates apart), and the knock rule of `style` (`knocks`)."""

    def decide(seen: Seen, world: World) -> Decision:
        hand = seen.hand
        if world.phase == DISCARD:
            best, best_score, least = -1, 1e9, 99
            for i in indices(hand):
                if i == seen.forbidden:
                    continue
                d = deadwood_mask(hand ^ (1 << i))
                least = min(least, d)
                score = d - 0.01 * VALUE[i]
                if score < best_score:
                    best, best_score = i, score
            return ("discard", best, knocks(style, seen, least, w))
        if not world.pile or world.must_draw_stock:
            return ("take", 0, False)
        if not world.can_draw_stock():
            return ("take", 1, False)
        top = world.pile[-1]
        eleven = hand | (1 << top)
        if seen.wall and seen.drawable == 1:
            after = min(deadwood_mask(eleven ^ (1 << c)) for c in indices(hand))
            return ("take", int(should_knock(seen, after, w)), False)
        if not makes_meld(hand, top) and VALUE[top] > 3:
            return ("take", 0, False)
        after = min(deadwood_mask(eleven ^ (1 << c)) for c in indices(hand))
        return ("take", int(after + 3 <= deadwood_mask(hand)), False)

    return decide


def _knock_rule(style: str, world: World, seat: int, deadwood: int, w: Weights) -> bool:
    """`knocks(style, world.seen(seat), deadwood)` without building the `Seen`."""
    limit = world.knock_limit
    if deadwood > limit:
        return False
    if deadwood == 0 or style == "eager":
        return True
    left = max(0, len(world.stock) - (WALL if world.wall else 0))
    if style == "gin":
        return left <= GIN_LOW
    if world.wall and left == 0:
        return deadwood <= w.wall_knock
    other = 1 - seat
    took = (world.took[other] & world.hands[other]).bit_count()
    target = limit - w.early - w.late * max(0.0, (16 - left) / 2) - w.opp_penalty * min(2, took)
    return deadwood <= max(1.0, target)


# The lean policy's answers by hand (pure functions of the cards, shared by every
# search in the process, cleared when they grow past 20 000 entries each: 7 MB at most)
_DISCARDS: dict[tuple[int, int], tuple[int, int]] = {}  # (hand, forbidden) -> (card, least)
# (hand, top) -> the least deadwood after taking top, and the hand's deadwood now
_TAKES: dict[tuple[int, int], tuple[int, int]] = {}
_LIMIT = 20_000


def _lean_discard(world: World, seat: int, style: str, w: Weights) -> tuple[int, bool]:
    """The lean policy's discard (as `lean_policy`), remembered by hand: the
    playouts of one search meet the same hands again and again."""
    hand = world.hands[seat]
    forbidden = world.forbidden
    key = (hand, forbidden)
    known = _DISCARDS.get(key)
    if known is None:
        if len(_DISCARDS) > _LIMIT:
            _DISCARDS.clear()
        known = _DISCARDS[key] = least_discard(hand, forbidden)
    return known[0], _knock_rule(style, world, seat, known[1], w)


def _lean_take(world: World, seat: int, w: Weights) -> bool:
    """The lean policy's take (as `lean_policy`)."""
    if not world.pile or world.must_draw_stock:
        return False
    if not world.can_draw_stock():
        return True
    top = world.pile[-1]
    hand = world.hands[seat]
    wall_now = world.wall and len(world.stock) - WALL == 1
    if not wall_now and not makes_meld(hand, top) and VALUE[top] > 3:
        return False
    key = (hand, top)
    known = _TAKES.get(key)
    if known is None:
        if len(_TAKES) > _LIMIT:
            _TAKES.clear()
        known = _TAKES[key] = (least_after_taking(hand, top), deadwood_mask(hand))
    if wall_now:
        return _knock_rule("normal", world, seat, known[0], w)
    return known[0] + 3 <= known[1]


# normal's look (`normal_discard`, `normal_take`) for the first turns of a playout,
# remembered by everything it reads: the first discard after a searched take meets
# the same position in every world
_LOOKS: dict[tuple[int, ...], tuple[int, bool]] = {}


def _look_key(world: World, seat: int, extra: int) -> tuple[int, ...]:
    other = 1 - seat
    dead = 0
    for i in world.pile:
        dead |= 1 << i
    return (
        seat,
        world.hands[seat],
        world.forbidden,
        dead,
        world.took[other] & world.hands[other],
        world.threw[other],
        len(world.stock),
        world.knock_limit,
        int(world.wall),
        extra,
    )


def _remember(key: tuple[int, ...], value: tuple[int, bool]) -> tuple[int, bool]:
    if len(_LOOKS) > _LIMIT:
        _LOOKS.clear()
    _LOOKS[key] = value
    return value


def _look_discard(world: World, seat: int, style: str, w: Weights, width: int) -> tuple[int, bool]:
    """Normal's discard (its one-draw look at the live cards, danger included) with
    `style`'s knock rule on the least deadwood; `width` > 0: normal's look at only
    the `width` discards leaving the least deadwood (fewer solves)."""
    key = _look_key(world, seat, -1 - len(style) - 10 * width)
    known = _LOOKS.get(key)
    if known is not None:
        return known
    hand, forbidden = world.hands[seat], world.forbidden
    if style == "normal" and not width:
        return _remember(key, normal_discard(world.seen(seat), w))
    options = [(d, -VALUE[i], -i, i) for i, d in discard_deadwoods_mask(hand) if i != forbidden]
    options.sort()
    least_card, least = options[0][3], options[0][0]
    if _knock_rule(style, world, seat, least, w):
        return _remember(key, (least_card, True))
    only = 0
    if width:
        for option in options[:width]:
            only |= 1 << option[3]
    return _remember(key, (ranked_discards(world.seen(seat), w, only)[0][1], False))


def _look_take(world: World, seat: int, w: Weights) -> bool:
    """Normal's take (a sure keep against a blind stock draw, one draw ahead)."""
    if not world.pile or world.must_draw_stock:
        return False
    if not world.can_draw_stock():
        return True
    key = _look_key(world, seat, world.pile[-1] + 100)
    known = _LOOKS.get(key)
    if known is None:
        known = _remember(key, (0, normal_take(world.seen(seat), world.pile[-1], w)))
    return known[1]


def rollout(
    world: World,
    styles: tuple[str, str],
    rng: random.Random,
    w: Weights,
    looks: tuple[int, int] = (0, 0),
    look_takes: tuple[int, int] = (0, 0),
    width: int = 0,
) -> World:
    """Play the hand to its end with the lean policy, seat s knocking by `styles[s]`
    (or MAX_TURNS turns, then it counts as a draw). The same play as `play_out`
    with two `lean_policy` players, without building a `Seen` each step.

    `looks[s]`: seat s's first that many discards are normal's (its one-draw look at
    the live cards, `_look_discard`, over the `width` least-deadwood discards when
    `width` > 0), the lean count after; `look_takes[s]` the same for its draws
    (`normal_take`)."""
    steps = 0
    discards = [0, 0]
    takes = [0, 0]
    while world.phase != OVER and steps < 3 * MAX_TURNS:
        seat = world.turn
        if world.phase == DISCARD:
            if discards[seat] < looks[seat]:
                card, knock = _look_discard(world, seat, styles[seat], w, width)
            else:
                card, knock = _lean_discard(world, seat, styles[seat], w)
            discards[seat] += 1
            world.discard(card, knock)
        else:
            if takes[seat] < look_takes[seat]:
                taken = _look_take(world, seat, w)
            else:
                taken = _lean_take(world, seat, w)
            takes[seat] += 1
            world.take(rng, taken)
        steps += 1
    if world.phase != OVER:
        world.phase = OVER
        world.winner = None
    return world
