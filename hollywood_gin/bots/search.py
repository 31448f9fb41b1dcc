"""The hard policy: determinised search of every decision, from the seat's view only.

Every decision with more than one sensible choice is searched: the upcard
offer and the draw (take the pile card or not, when the card melds or lowers
my deadwood), which card to throw (normal's choice, the next plain discards
of normal's ranking within `Budget.prune` of its best, and knocking when the
rules allow it), and so knock or play on. Normal's own choice is always
candidate 0.

Each candidate is played out on *worlds*: deals of the cards I have not seen,
consistent with everything seen, each with an opponent style and weighted by
how likely the opponent's observed choices were (`worlds.sample_opponent`,
`worlds.evidence_weight`). A *playout* plays one candidate out to the end of
the hand in the lean simulator (`lean.rollout`: me with normal's knock rule,
the opponent with its style's). The candidates meet the same worlds (common
random numbers) in rounds of *successive halving*: each round spends its share
of the playouts evenly on the candidates still in, then the worse half leaves
(normal's choice always stays).
Hard leaves normal's choice only for a candidate better on the shared worlds by
more than `Budget.confidence` standard errors, a knock by the knock margin
points more (the playouts continue with a plainer player than hard, which
undervalues playing on): the weighted mean over the worlds of each world's
style's margin (`Budget.margin`: `knock_margin`, or `eager_margin` in a world
whose opponent is eager).

The budget is work, not time: exactly `Budget.playouts` playouts per searched
decision, from a seed drawn from the bot's rng, so the same seed and view give
the same move however loaded the machine is. `Budget.seconds` is only a safety
cap that a quiet machine never reaches.

The budget's fields are in `budget.Budget`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from hollywood_gin.bots.budget import Budget
from hollywood_gin.bots.evaluate import Dealt, Strategy, Trial
from hollywood_gin.bots.evaluate import candidates as evaluated
from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.lean import rollout
from hollywood_gin.bots.playout import Decision, World
from hollywood_gin.bots.policy import WEIGHTS, Weights
from hollywood_gin.bots.worlds import evidence_weight, sample_opponent
from hollywood_gin.engine.vocabulary import PHASES

OFFER, DRAW, DISCARD, OVER = PHASES


def strategy(budget: Budget, w: Weights = WEIGHTS) -> Strategy:
    """Hard's candidates (`evaluate.candidates`): both choices of a useful pile card,
    normal's next best `budget.discards` plain discards within `budget.prune`."""
    return Strategy(weights=w, takes=budget.takes, discards=budget.discards, prune=budget.prune)


def candidates(seen: Seen, legal_kinds: set[str], budget: Budget, w: Weights) -> list[Decision]:
    """The choices worth playing out, the normal policy's own choice first."""
    return evaluated(seen, legal_kinds, strategy(budget, w))


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
    trial = Trial(options)
    capped = False
    best = 0
    if n > 1 and budget.playouts > 0:
        search = random.Random(seed)
        must_draw_stock = seen.phase == DRAW and "draw_discard" not in legal_kinds
        me = seen.me

        def deal() -> Dealt | None:
            drawn = sample_opponent(seen, search, budget, weights, must_draw_stock=must_draw_stock)
            if drawn is None:
                return None
            world, style = drawn
            styles = ("normal", style) if me == 0 else (style, "normal")
            theirs = budget.opp_looks if style != "eager" else 0
            looks = (budget.looks, theirs) if me == 0 else (theirs, budget.looks)
            look_takes = (budget.look_takes, 0) if me == 0 else (0, budget.look_takes)

            def playout(w: World, playout_rng: random.Random) -> float:
                return rollout(
                    w, styles, playout_rng, weights, looks, look_takes, budget.look_width
                ).value_for(me)

            return Dealt(
                world,
                # the playouts' seed comes after the world's weight and margin are known
                seed=search.getrandbits(32),
                playout=playout,
                weight=evidence_weight(seen, world.hands[1 - me], budget.evidence),
                margin=budget.margin(style),
            )

        def halt() -> bool:
            nonlocal capped
            capped = budget.seconds is not None and clock() - start >= budget.seconds
            return capped

        sizes = _round_sizes(n, budget.playouts)
        for r, size in enumerate(sizes):
            last = r == len(sizes) - 1
            # the last round spends what the others left (their rounding included)
            left = budget.playouts - trial.playouts
            alive = len(trial.alive)
            worlds = -(-left // alive) if last else max(1, size // alive)
            trial.play(worlds, deal, cap=budget.playouts, halt=halt)
            if capped or last or trial.playouts >= budget.playouts:
                break
            if trial.settled(budget.stop):
                break  # normal's choice is clearly best: the rest of the budget is not spent
            if len(trial.alive) <= 2:
                continue  # two left: the last round plays both (unless settled above)
            trial.halve()  # the worse half leaves; normal's choice stays to the end
            if len(trial.alive) == 1:
                break
        best = trial.pick(budget.confidence)
    if stats is not None:
        stats.playouts = trial.playouts
        stats.worlds = trial.worlds
        stats.candidates = n
        stats.seconds = clock() - start
        stats.capped = capped
    return options[best]
