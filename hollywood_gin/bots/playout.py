"""The simulator of one hand and the playout policies (the search's and the coach's).

The simulator is the rules of one hand (docs/rules.md "A hand") on masks, with the
engine's solver for deadwood, lay-offs and hand points; `tests/bots` checks
it against `hollywood_gin.engine` on whole hands.

A *playout* plays a hand out to the end: `play_out` with any two `Policy`s
(`normal_policy`, `lean.lean_policy`); the search's fast playouts are
`lean.rollout` (both sides on a plain deadwood count, each seat with its
style's knock rule, `knocks`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.policy import (
    WEIGHTS,
    Weights,
    normal_discard,
    normal_take,
    should_knock,
)
from hollywood_gin.engine.cards import cards_of
from hollywood_gin.engine.layoffs import defender_deadwood
from hollywood_gin.engine.melds import arrange_mask, deadwood_mask
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
