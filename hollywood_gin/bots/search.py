"""The hard policy: determinised search of every decision, from the seat's view only.

Every decision with more than one sensible choice is searched: the upcard
offer and the draw (take the pile card or not, when the card melds or lowers
my deadwood), which card to throw (normal's choice, the next plain discards
of normal's ranking within `Budget.prune` of its best, and knocking when the
rules allow it), and so knock or play on. Normal's own choice is always
candidate 0.

A *world* deals the cards I have not seen at random, consistently with
everything seen (`sample_world`: the opponent holds what it took from the pile
and as many cards as it has; the known pile stays on top; its hand has "played"
its turns, see `_shape`), with an opponent style drawn with it and kept only if
that style would not have knocked with that hand (`sample_opponent`). Each world
is weighted by how likely the opponent's observed choices were with that hand
(`evidence_weight`: a card it threw or passed on that melds with the hand, a
card it took from the pile that does not, each make the world less likely).

A *playout* plays one candidate out to the end of the hand in a lean simulator
(`rollout`: both sides on a plain deadwood count, one meld solve for all
discards; me with normal's knock rule, the opponent with its style's). The
candidates meet the same worlds (common random numbers) in rounds of
*successive halving*: each round spends its share of the playouts evenly on the
candidates still in, then the worse half leaves (normal's choice always stays).
Hard leaves normal's choice only for a candidate better on the shared worlds by
more than `Budget.confidence` standard errors, a knock by `Budget.knock_margin`
points more (the playouts continue with a plainer player than hard, which
undervalues playing on).

The budget is work, not time: exactly `Budget.playouts` playouts per searched
decision, from a seed drawn from the bot's rng, so the same seed and view give
the same move however loaded the machine is. `Budget.seconds` is only a safety
cap that a quiet machine never reaches.

The simulator is the rules of one hand (RULES.md §4–§6) on masks, with the
engine's solver for deadwood, lay-offs and hand points; `tests/bots` checks
it against `hollywood_gin.engine` on whole hands.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from hollywood_gin.bots.knowledge import FULL, Seen
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
from hollywood_gin.engine.cards import cards_of
from hollywood_gin.engine.melds import (
    arrange_mask,
    deadwood_mask,
    defender_deadwood,
    discard_deadwoods_mask,
)
from hollywood_gin.engine.scoring import score_hand
from hollywood_gin.engine.vocabulary import PHASES, WALL

OFFER, DRAW, DISCARD, OVER = PHASES
MAX_TURNS = 80  # a playout that has not ended by then counts as a draw

# A decision: ("take", bool) for the upcard offer and the draw, ("discard", card, knock).
Decision = tuple[str, int, bool]


@dataclass(frozen=True, slots=True)
class Budget:
    """How much the hard policy thinks per decision: a count of playouts, not time."""

    playouts: int = 480  # per searched decision, exactly (fewer only at the safety cap)
    # a safety cap in wall time per move, counted from the moment the bot is asked;
    # a quiet machine never reaches it (None: no cap)
    seconds: float | None = 4.0
    discards: int = 3  # plain discards tried besides normal's choice (its next best)
    prune: float = 3.0  # ... only those within this much of normal's best score
    takes: bool = True  # search the upcard offer and the draw too
    # The opponent's sampled hand "plays" shaping turns (see `_shape`): `shape_base` +
    # `shape_scale` x its turns played (a patient style, normal or gin, `patient_scale` x:
    # it takes more from the pile and keeps a lower hand), at most `shape_turns`.
    # Measured: with 1 x (at most 8), sampled hands held 5-14 points more deadwood than
    # the real opponents' at the same point of the hand (docs/bots.md).
    shape_turns: int = 40
    shape_scale: float = 1.5
    shape_base: int = 1
    patient_scale: float = 2.5
    # points a knock must beat waiting by (see `hard_decide`; 4 in issue 16, when
    # only the knock was searched; 8 and the confidence of 2 were chosen on the
    # screening deals 300000+ of issue 27, docs/bots.md)
    knock_margin: float = 8.0
    # leave normal's choice only for a candidate better by this many standard errors
    confidence: float = 2.0
    # stop after a halving round once every candidate left is worse than normal's
    # choice by this many standard errors (0: always spend the whole budget); the
    # count still depends only on the seed and the view, never on the clock
    stop: float = 1.0
    # a world's weight is multiplied by this for each choice of the opponent that
    # would have been odd with the hand dealt to it (see `evidence_weight`)
    evidence: float = 0.5
    # The opponent's style in the playouts, drawn per deal with these prior weights
    # and kept only if it agrees with what the opponent did (see `sample_opponent`):
    # normal's low, late knock; knocking as soon as legal; gin only until the stock is low.
    styles: tuple[tuple[str, float], ...] = (("normal", 0.4), ("eager", 0.4), ("gin", 0.2))


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


def _lean_discard(world: World, seat: int, style: str, w: Weights) -> tuple[int, bool]:
    """The lean policy's discard (as `lean_policy`), remembered by hand: the
    playouts of one search meet the same hands again and again."""
    hand = world.hands[seat]
    forbidden = world.forbidden
    key = (hand, forbidden)
    known = _DISCARDS.get(key)
    if known is None:
        best, best_score, least = -1, 1e9, 99
        for i, d in discard_deadwoods_mask(hand):  # one solve for every discard
            if i == forbidden:
                continue
            if d < least:
                least = d
            score = d - 0.01 * VALUE[i]
            if score < best_score:
                best, best_score = i, score
        if len(_DISCARDS) > 20_000:
            _DISCARDS.clear()
        known = _DISCARDS[key] = (best, least)
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


# -- determinisation -----------------------------------------------------------------


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


def sample_world(
    seen: Seen,
    rng: random.Random,
    *,
    must_draw_stock: bool = False,
    shaping: bool = True,
    shape_turns: int = 8,
    turns: int | None = None,
) -> World | None:
    """Deal the unseen cards consistently with `seen`; None if the counts disagree.

    `must_draw_stock`: both passed the upcard, so this first draw is from the stock.
    `turns`: the shaping turns of the opponent's hand (default: its turns played,
    at most `shape_turns`).
    """
    unseen = FULL & ~(seen.hand | seen.dead | seen.opp_has)
    opp_unknown = seen.opp_count - seen.opp_has.bit_count()
    pile_unknown = seen.pile_count - len(seen.pile)
    pool = indices(unseen)
    if (
        seen.turn is None
        or opp_unknown < 0
        or pile_unknown < 0
        or len(pool) != opp_unknown + pile_unknown + seen.stock_count
    ):
        return None
    rng.shuffle(pool)
    opp = seen.opp_has
    for i in pool[:opp_unknown]:
        opp |= 1 << i
    rest = pool[opp_unknown:]
    if shaping and rest:
        if turns is None:
            turns = min(_turns_played(seen), shape_turns)
        opp = _shape(opp, seen.opp_has, rest, turns, rng)
        rng.shuffle(rest)
    pile = rest[:pile_unknown] + list(seen.pile)
    stock = rest[pile_unknown:]
    hands = [0, 0]
    hands[seen.me] = seen.hand
    hands[1 - seen.me] = opp
    took = [0, 0]
    took[1 - seen.me] = seen.opp_has
    threw = [0, 0]
    threw[1 - seen.me] = seen.opp_threw
    return World(
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


def _useful(hand: int, card: int) -> bool:
    """Does `card` meld with my cards, or lower my deadwood after my best discard?"""
    if makes_meld(hand, card):
        return True
    eleven = hand | (1 << card)
    return min(deadwood_mask(eleven ^ (1 << c)) for c in indices(hand)) < deadwood_mask(hand)


def candidates(seen: Seen, legal_kinds: set[str], budget: Budget, w: Weights) -> list[Decision]:
    """The choices worth playing out, the normal policy's own choice first."""
    if seen.phase in (OFFER, DRAW):
        if not {"take_upcard", "draw_discard"} & legal_kinds:
            return [("take", 0, False)]
        if seen.phase == DRAW and "draw_stock" not in legal_kinds:
            return [("take", 1, False)]
        first = int(normal_take(seen, seen.top, w))
        if not budget.takes:
            return [("take", first, False)]
        if not first and not _useful(seen.hand, seen.top):
            # a card that neither melds nor lowers my deadwood: taking it only
            # shows the opponent my hand, not worth a search
            return [("take", 0, False)]
        return [("take", first, False), ("take", 1 - first, False)]
    # normal's choice (as `normal_discard` makes it), its ranking computed once
    options = {i: deadwood_mask(seen.hand ^ (1 << i)) for i in indices(seen.hand)}
    options.pop(seen.forbidden, None)
    least = min(options, key=lambda i: (options[i], -VALUE[i], -i))
    ranked = ranked_discards(seen, w)
    knock = should_knock(seen, options[least], w)
    first = ranked[0][1]
    out: list[Decision] = [("discard", least, True) if knock else ("discard", first, False)]
    if options[least] <= seen.knock_limit and "knock" in legal_kinds:
        # knocking and not knocking both get played out, whichever normal chose
        out.append(("discard", first, False) if knock else ("discard", least, True))
    best = ranked[0][0]
    plain = 0
    for score, i in ranked:
        if plain >= budget.discards or score > best + budget.prune:
            break
        if ("discard", i, False) not in out:
            out.append(("discard", i, False))
            plain += 1
    return out


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
        if not knocks(style, theirs, deadwood, w):
            return drawn
    if drawn is not None:
        # nothing fitted in time: the last deal, with a style that fits it if any does
        world = drawn[0]
        theirs = world.seen(1 - seen.me)
        deadwood = deadwood_mask(world.hands[1 - seen.me])
        fits = [n for n in names if not knocks(n, theirs, deadwood, w)]
        drawn = (world, fits[0] if fits else names[0])
    return drawn


@dataclass(slots=True)
class SearchStats:
    """What the last search did (for the benchmark and for curious tests)."""

    playouts: int = 0  # playouts played (the budget's count unless capped)
    worlds: int = 0  # determinisations dealt
    candidates: int = 0
    seconds: float = 0.0
    capped: bool = False  # the safety cap in wall time stopped it


def _round_sizes(n: int, total: int) -> list[int]:
    """Successive halving: the playouts of each round for `n` candidates."""
    # ceil(log2 n), and at least two so that a clear choice may stop after the first
    rounds = max(2, (n - 1).bit_length())
    return [total // rounds + (1 if k < total % rounds else 0) for k in range(rounds)]


def hard_decide(
    seen: Seen,
    legal_kinds: set[str],
    rng: random.Random,
    *,
    budget: Budget,
    weights: Weights = WEIGHTS,
    clock: Callable[[], float] = time.perf_counter,
    stats: SearchStats | None = None,
    start: float | None = None,
) -> Decision:
    """One decision: normal's choice unless the search finds a better one.

    `rng` is used for one draw only (the search's seed), so a decision's play does
    not depend on how much an earlier one searched. `start`: when the move began
    (`clock()` time; default now), for the safety cap.
    """
    start = clock() if start is None else start
    seed = rng.getrandbits(64)
    options = candidates(seen, legal_kinds, budget, weights)
    n = len(options)
    done = dealt = 0
    capped = False
    best = 0
    if n > 1 and budget.playouts > 0:
        search = random.Random(seed)
        must_draw_stock = seen.phase == DRAW and "draw_discard" not in legal_kinds
        me = seen.me
        # values[c][k]: candidate c's result on world k (None: not played there)
        values: list[list[float | None]] = [[] for _ in options]
        world_weights: list[float] = []
        alive = list(range(n))
        sizes = _round_sizes(n, budget.playouts)
        for r, size in enumerate(sizes):
            last = r == len(sizes) - 1
            # the last round spends what the others left (their rounding included)
            left = budget.playouts - done
            worlds = -(-left // len(alive)) if last else max(1, size // len(alive))
            for _ in range(worlds):
                if done >= budget.playouts:
                    break
                drawn = sample_opponent(
                    seen, search, budget, weights, must_draw_stock=must_draw_stock
                )
                if drawn is None:
                    break
                world, style = drawn
                k = dealt
                dealt += 1
                world_weights.append(evidence_weight(seen, world.hands[1 - me], budget.evidence))
                styles = ("normal", style) if me == 0 else (style, "normal")
                playout_seed = search.getrandbits(32)
                for c in range(n):
                    values[c].append(None)
                for c in alive:
                    if done >= budget.playouts:
                        break
                    w = world.copy()
                    playout_rng = random.Random(playout_seed)
                    apply(w, options[c], playout_rng)
                    values[c][k] = rollout(w, styles, playout_rng, weights).value_for(me)
                    done += 1
                if budget.seconds is not None and clock() - start >= budget.seconds:
                    capped = True
                    break
            if capped or last or done >= budget.playouts:
                break
            if _settled(options, alive, values, world_weights, budget):
                break  # normal's choice is clearly best: the rest of the budget is not spent
            if len(alive) <= 2:
                continue  # two left: the last round plays both (unless settled above)
            # the worse half leaves; normal's choice stays to the end
            ranked = sorted(
                alive, key=lambda c: -_adjusted(options, c, values[c], world_weights, budget)
            )
            keep = ranked[: max(1, (len(alive) + 1) // 2)]
            alive = sorted(set(keep) | {0})
            if len(alive) == 1:
                break
        best = _pick(options, alive, values, world_weights, budget)
    if stats is not None:
        stats.playouts = done
        stats.worlds = dealt
        stats.candidates = n
        stats.seconds = clock() - start
        stats.capped = capped
    return options[best]


def _adjusted(
    options: list[Decision],
    c: int,
    vals: list[float | None],
    world_weights: list[float],
    budget: Budget,
) -> float:
    """Candidate c's weighted mean result, a knock counted `knock_margin` worse."""
    total = weight = 0.0
    for v, wt in zip(vals, world_weights, strict=False):
        if v is not None:
            total += wt * v
            weight += wt
    mean = total / weight if weight > 0 else -1e9
    return mean - budget.knock_margin * options[c][2]


def _pick(
    options: list[Decision],
    alive: list[int],
    values: list[list[float | None]],
    world_weights: list[float],
    budget: Budget,
) -> int:
    """Normal's choice (0) unless a candidate still in beats it on the worlds both
    played by more than `budget.confidence` weighted standard errors."""
    best, best_mean = 0, 0.0
    for c in alive:
        if c == 0:
            continue
        paired = _paired(options, c, values, world_weights, budget)
        if paired is None:
            continue
        mean, error = paired
        if mean > best_mean and mean > budget.confidence * error:
            best, best_mean = c, mean
    return best


def _paired(
    options: list[Decision],
    c: int,
    values: list[list[float | None]],
    world_weights: list[float],
    budget: Budget,
) -> tuple[float, float] | None:
    """Candidate c minus normal's choice on the worlds both played: the weighted
    mean difference (the knock margin counted) and its standard error; None with
    fewer than two shared worlds."""
    diffs = [
        (wt, v - b)
        for v, b, wt in zip(values[c], values[0], world_weights, strict=False)
        if v is not None and b is not None
    ]
    total = sum(wt for wt, _ in diffs)
    if len(diffs) < 2 or total <= 0:
        return None
    mean = sum(wt * d for wt, d in diffs) / total
    spread = sum(wt * (d - mean) ** 2 for wt, d in diffs) / total
    size = total * total / sum(wt * wt for wt, _ in diffs)  # effective sample size
    error = (spread / max(1.0, size - 1)) ** 0.5
    # the playouts continue with a plainer player than hard is: waiting
    # is worth about `knock_margin` more than they say
    mean += budget.knock_margin * (options[0][2] - options[c][2])
    return mean, error


def _settled(
    options: list[Decision],
    alive: list[int],
    values: list[list[float | None]],
    world_weights: list[float],
    budget: Budget,
) -> bool:
    """Is every candidate still in worse than normal's choice by more than
    `budget.stop` standard errors? Then more playouts would not change the move."""
    if budget.stop <= 0:
        return False
    for c in alive:
        if c == 0:
            continue
        paired = _paired(options, c, values, world_weights, budget)
        if paired is None or paired[0] + budget.stop * paired[1] >= 0:
            return False
    return True
