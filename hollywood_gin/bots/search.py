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
from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.lean import rollout
from hollywood_gin.bots.playout import Decision, apply
from hollywood_gin.bots.policy import (
    VALUE,
    WEIGHTS,
    Weights,
    indices,
    makes_meld,
    normal_take,
    ranked_discards,
    should_knock,
)
from hollywood_gin.bots.worlds import evidence_weight, sample_opponent
from hollywood_gin.engine.melds import deadwood_mask
from hollywood_gin.engine.vocabulary import PHASES

OFFER, DRAW, DISCARD, OVER = PHASES


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
        # the knock margin of each world's opponent style (`Budget.margin`)
        margins: list[float] = []
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
                margins.append(budget.margin(style))
                styles = ("normal", style) if me == 0 else (style, "normal")
                theirs = budget.opp_looks if style != "eager" else 0
                looks = (budget.looks, theirs) if me == 0 else (theirs, budget.looks)
                look_takes = (budget.look_takes, 0) if me == 0 else (0, budget.look_takes)
                playout_seed = search.getrandbits(32)
                for c in range(n):
                    values[c].append(None)
                for c in alive:
                    if done >= budget.playouts:
                        break
                    w = world.copy()
                    playout_rng = random.Random(playout_seed)
                    apply(w, options[c], playout_rng)
                    values[c][k] = rollout(
                        w, styles, playout_rng, weights, looks, look_takes, budget.look_width
                    ).value_for(me)
                    done += 1
                if budget.seconds is not None and clock() - start >= budget.seconds:
                    capped = True
                    break
            if capped or last or done >= budget.playouts:
                break
            if _settled(options, alive, values, world_weights, margins, budget):
                break  # normal's choice is clearly best: the rest of the budget is not spent
            if len(alive) <= 2:
                continue  # two left: the last round plays both (unless settled above)
            # the worse half leaves; normal's choice stays to the end
            ranked = sorted(
                alive,
                key=lambda c: -_adjusted(options, c, values[c], world_weights, margins),
            )
            keep = ranked[: max(1, (len(alive) + 1) // 2)]
            alive = sorted(set(keep) | {0})
            if len(alive) == 1:
                break
        best = _pick(options, alive, values, world_weights, margins, budget)
    if stats is not None:
        stats.playouts = done
        stats.worlds = dealt
        stats.candidates = n
        stats.seconds = clock() - start
        stats.capped = capped
    return options[best]


def _mean_margin(pairs: list[tuple[float, float]]) -> float:
    """The weighted mean of the knock margins of (weight, margin) pairs; one
    margin for every world (every style's the same) is that margin exactly."""
    first = pairs[0][1] if pairs else 0.0
    if all(m == first for _, m in pairs):
        return first
    total = sum(wt for wt, _ in pairs)
    if total <= 0:
        return sum(m for _, m in pairs) / len(pairs)
    return sum(wt * m for wt, m in pairs) / total


def _adjusted(
    options: list[Decision],
    c: int,
    vals: list[float | None],
    world_weights: list[float],
    margins: list[float],
) -> float:
    """Candidate c's weighted mean result, a knock counted the knock margin worse
    (the weighted mean of the margins of the worlds it played)."""
    total = weight = 0.0
    played: list[tuple[float, float]] = []
    for v, wt, m in zip(vals, world_weights, margins, strict=False):
        if v is not None:
            total += wt * v
            weight += wt
            played.append((wt, m))
    mean = total / weight if weight > 0 else -1e9
    return mean - _mean_margin(played) * options[c][2]


def _pick(
    options: list[Decision],
    alive: list[int],
    values: list[list[float | None]],
    world_weights: list[float],
    margins: list[float],
    budget: Budget,
) -> int:
    """Normal's choice (0) unless a candidate still in beats it on the worlds both
    played by more than `budget.confidence` weighted standard errors."""
    best, best_mean = 0, 0.0
    for c in alive:
        if c == 0:
            continue
        paired = _paired(options, c, values, world_weights, margins)
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
    margins: list[float],
) -> tuple[float, float] | None:
    """Candidate c minus normal's choice on the worlds both played: the weighted
    mean difference (the knock margin counted: the weighted mean of those worlds'
    margins) and its standard error; None with fewer than two shared worlds."""
    shared = [
        (wt, v - b, m)
        for v, b, wt, m in zip(values[c], values[0], world_weights, margins, strict=False)
        if v is not None and b is not None
    ]
    diffs = [(wt, d) for wt, d, _ in shared]
    total = sum(wt for wt, _ in diffs)
    if len(diffs) < 2 or total <= 0:
        return None
    mean = sum(wt * d for wt, d in diffs) / total
    spread = sum(wt * (d - mean) ** 2 for wt, d in diffs) / total
    size = total * total / sum(wt * wt for wt, _ in diffs)  # effective sample size
    error = (spread / max(1.0, size - 1)) ** 0.5
    # the playouts continue with a plainer player than hard is: waiting
    # is worth about the knock margin more than they say (the margin is a
    # correction, not a draw: it does not enter the standard error)
    if options[0][2] != options[c][2]:
        mean += _mean_margin([(wt, m) for wt, _, m in shared]) * (options[0][2] - options[c][2])
    return mean, error


def _settled(
    options: list[Decision],
    alive: list[int],
    values: list[list[float | None]],
    world_weights: list[float],
    margins: list[float],
    budget: Budget,
) -> bool:
    """Is every candidate still in worse than normal's choice by more than
    `budget.stop` standard errors? Then more playouts would not change the move."""
    if budget.stop <= 0:
        return False
    for c in alive:
        if c == 0:
            continue
        paired = _paired(options, c, values, world_weights, margins)
        if paired is None or paired[0] + budget.stop * paired[1] >= 0:
            return False
    return True
