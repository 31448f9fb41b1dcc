"""The simulator of one hand and the playout policies (the search's and the coach's).

The simulator is the rules of one hand (RULES.md §4–§6) on masks, with the
engine's solver for deadwood, lay-offs and hand points; `tests/bots` checks
it against `hollywood_gin.engine` on whole hands.

A *playout* plays a hand out to the end in a lean simulator (`rollout`: both
sides on a plain deadwood count, one meld solve for all discards; each seat
with its style's knock rule, `knocks`). `play_out` plays it with any two
`Policy`s (`normal_policy`, `lean_policy`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.policy import (
    VALUE,
    WEIGHTS,
    Weights,
    indices,
    makes_meld,
    normal_discard,
    normal_take,
    should_knock,
)
from hollywood_gin.engine.cards import cards_of
from hollywood_gin.engine.layoffs import defender_deadwood
from hollywood_gin.engine.melds import arrange_mask, deadwood_mask, discard_deadwoods_mask
from hollywood_gin.engine.scoring import score_hand
from hollywood_gin.engine.vocabulary import PHASES, WALL

OFFER, DRAW, DISCARD, OVER = PHASES
MAX_TURNS = 80  # a playout that has not ended by then counts as a draw

# A decision: ("take", bool) for the upcard offer and the draw, ("discard", card, knock).
Decision = tuple[str, int, bool]


@dataclass(slots=True)
class World:
    """One hand as the simulator plays it (every card known)."""

    hands: list[int]
    stock: list[int]  # top last
    pile: list[int]  # top last
    turn: int
    dealer: int
    phase: str
    knock_limit: int
    wall: bool
    # `hand` scoring: an empty stock takes the pile under its top (a walled hand
    # never empties its stock, so only `wall=False` reads it)
    reshuffle: bool = True
    must_draw_stock: bool = False
    forbidden: int = -1
    took: list[int] = field(default_factory=lambda: [0, 0])
    threw: list[int] = field(default_factory=lambda: [0, 0])
    winner: int | None = None
    points: int = 0

    @classmethod
    def dealt(
        cls, seen: Seen, opp: int, pile: list[int], stock: list[int], *, must_draw_stock: bool
    ) -> World:
        """The world `seen` is in, with the opponent's hand, the pile and the stock guessed."""
        assert seen.turn is not None  # a sampler deals only a hand under way
        hands, took, threw = [0, 0], [0, 0], [0, 0]
        hands[seen.me], hands[1 - seen.me] = seen.hand, opp
        took[1 - seen.me] = seen.opp_has
        threw[1 - seen.me] = seen.opp_threw
        return cls(
            hands=hands,
            stock=stock,
            pile=pile,
            turn=seen.turn,
            dealer=seen.dealer,
            phase=seen.phase,
            knock_limit=seen.knock_limit,
            wall=seen.wall,
            reshuffle=not seen.wall,
            must_draw_stock=must_draw_stock,
            forbidden=seen.forbidden,
            took=took,
            threw=threw,
        )

    def copy(self) -> World:
        return World(
            list(self.hands),
            list(self.stock),
            list(self.pile),
            self.turn,
            self.dealer,
            self.phase,
            self.knock_limit,
            self.wall,
            self.reshuffle,
            self.must_draw_stock,
            self.forbidden,
            list(self.took),
            list(self.threw),
            self.winner,
            self.points,
        )

    def seen(self, seat: int) -> Seen:
        """What `seat` knows here (the simulator's players see only this)."""
        dead = 0
        for i in self.pile:
            dead |= 1 << i
        other = 1 - seat
        return Seen(
            me=seat,
            hand=self.hands[seat],
            pile=tuple(self.pile),
            dead=dead,
            pile_count=len(self.pile),
            opp_has=self.took[other] & self.hands[other],
            opp_threw=self.threw[other],
            opp_count=self.hands[other].bit_count(),
            stock_count=len(self.stock),
            knock_limit=self.knock_limit,
            wall=self.wall,
            phase=self.phase,
            dealer=self.dealer,
            turn=self.turn,
            forbidden=self.forbidden if seat == self.turn else -1,
        )

    def value_for(self, seat: int) -> int:
        if self.winner is None:
            return 0
        return self.points if self.winner == seat else -self.points

    # -- the rules -----------------------------------------------------------

    def can_draw_stock(self) -> bool:
        if self.stock:
            return not self.wall or len(self.stock) > WALL
        return self.reshuffle and len(self.pile) > 1

    def take(self, rng: random.Random, taken: bool) -> None:
        """The upcard offer or the draw: take the pile's top, or not."""
        s = self.turn
        top = self.pile[-1] if self.pile else -1
        if self.phase == OFFER:
            if taken:
                self._take_top(s)
                return
            self.threw[s] |= 1 << top
            if s != self.dealer:
                self.turn = self.dealer
            else:
                self.turn = 1 - self.dealer
                self.phase = DRAW
                self.must_draw_stock = True
            return
        if taken and top >= 0 and not self.must_draw_stock:
            self._take_top(s)
            return
        if not self.can_draw_stock():
            if top >= 0 and not self.must_draw_stock:
                self._take_top(s)
            else:
                self.phase = OVER  # nothing to draw: cannot happen in a real hand
            return
        if top >= 0 and not self.must_draw_stock:
            self.threw[s] |= 1 << top
        if not self.stock:
            under = self.pile[:-1]
            rng.shuffle(under)
            self.stock = under
            self.pile = self.pile[-1:]
        self.hands[s] |= 1 << self.stock.pop()
        self.phase = DISCARD
        self.must_draw_stock = False

    def _take_top(self, s: int) -> None:
        card = self.pile.pop()
        self.hands[s] |= 1 << card
        self.took[s] |= 1 << card
        self.forbidden = card
        self.phase = DISCARD

    def discard(self, card: int, knock: bool) -> None:
        s = self.turn
        if knock:
            self._knock(s, card)
            return
        self.hands[s] &= ~(1 << card)
        self.took[s] &= ~(1 << card)
        self.threw[s] |= 1 << card
        self.pile.append(card)
        self.turn = 1 - s
        self.phase = DRAW
        self.forbidden = -1
        self.must_draw_stock = False
        if self.wall and len(self.stock) == WALL:
            self.phase = OVER  # a draw: nobody scores

    def apply(self, decision: Decision, rng: random.Random) -> None:
        """Carry out one decision of the seat whose turn it is."""
        if decision[0] == "take":
            self.take(rng, bool(decision[1]))
        else:
            self.discard(decision[1], decision[2])

    def _knock(self, s: int, card: int) -> None:
        ten = self.hands[s] & ~(1 << card)
        k, melds, _ = arrange_mask(ten)
        other = self.hands[1 - s]
        if k == 0:
            d = deadwood_mask(other)
        else:
            d = defender_deadwood([cards_of(m) for m in melds], cards_of(other))
        score = score_hand(k, d)
        self.winner = s if score.knocker_wins else 1 - s
        self.points = score.points
        self.phase = OVER


Policy = Callable[[Seen, World], Decision]


def normal_policy(w: Weights = WEIGHTS) -> Policy:
    def decide(seen: Seen, world: World) -> Decision:
        if world.phase == DISCARD:
            card, knock = normal_discard(seen, w)
            return ("discard", card, knock)
        can_take = bool(world.pile) and not world.must_draw_stock
        taken = can_take and (not world.can_draw_stock() or normal_take(seen, world.pile[-1], w))
        return ("take", int(taken), False)

    return decide


GIN_LOW = 6  # the "gin" style knocks below gin once this few stock draws are left


def knocks(style: str, seen: Seen, deadwood: int, w: Weights = WEIGHTS) -> bool:
    """Would a player of `style` knock with this least deadwood here?"""
    if deadwood > seen.knock_limit:
        return False
    if style == "eager" or deadwood == 0:
        return True
    if style == "gin":
        return seen.drawable <= GIN_LOW
    return should_knock(seen, deadwood, w)


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
_TAKES: dict[tuple[int, int], int] = {}  # (hand, top) -> least deadwood after taking top


def least_discard(hand: int, forbidden: int) -> tuple[int, int]:
    """The discard that leaves the least deadwood (the higher card on a tie) and that
    deadwood, all discards from one solve; `forbidden` may not be thrown."""
    best, best_score, least = -1, 1e9, 99
    for i, d in discard_deadwoods_mask(hand):
        if i == forbidden:
            continue
        if d < least:
            least = d
        score = d - 0.01 * VALUE[i]
        if score < best_score:
            best, best_score = i, score
    return best, least


def _lean_discard(world: World, seat: int, style: str, w: Weights) -> tuple[int, bool]:
    """The lean policy's discard (as `lean_policy`), remembered by hand: the
    playouts of one search meet the same hands again and again."""
    hand = world.hands[seat]
    forbidden = world.forbidden
    key = (hand, forbidden)
    known = _DISCARDS.get(key)
    if known is None:
        if len(_DISCARDS) > 20_000:
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
    after = _TAKES.get(key)
    if after is None:
        after = min(d for i, d in discard_deadwoods_mask(hand | (1 << top)) if i != top)
        if len(_TAKES) > 20_000:
            _TAKES.clear()
        _TAKES[key] = after
    if wall_now:
        return _knock_rule("normal", world, seat, after, w)
    return after + 3 <= deadwood_mask(hand)


def rollout(world: World, styles: tuple[str, str], rng: random.Random, w: Weights) -> World:
    """Play the hand to its end with the lean policy, seat s knocking by `styles[s]`
    (or MAX_TURNS turns, then it counts as a draw). The same play as `play_out`
    with two `lean_policy` players, without building a `Seen` each step."""
    steps = 0
    while world.phase != OVER and steps < 3 * MAX_TURNS:
        seat = world.turn
        if world.phase == DISCARD:
            card, knock = _lean_discard(world, seat, styles[seat], w)
            world.discard(card, knock)
        else:
            world.take(rng, _lean_take(world, seat, w))
        steps += 1
    if world.phase != OVER:
        world.phase = OVER
        world.winner = None
    return world


def apply(world: World, decision: Decision, rng: random.Random) -> None:
    if decision[0] == "take":
        world.take(rng, bool(decision[1]))
    else:
        world.discard(decision[1], decision[2])


def play_out(world: World, policies: tuple[Policy, Policy], rng: random.Random) -> World:
    """Play the hand to its end (or MAX_TURNS turns, then it counts as a draw)."""
    steps = 0
    while world.phase != OVER and steps < 3 * MAX_TURNS:
        seat = world.turn
        apply(world, policies[seat](world.seen(seat), world), rng)
        steps += 1
    if world.phase != OVER:
        world.phase = OVER
        world.winner = None
    return world
