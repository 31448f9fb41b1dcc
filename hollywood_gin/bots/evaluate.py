"""The evaluator shared by the hard search and the coach: which choices of a decision
are played out (`candidates`), and the paired playout loop that prices them.

A decision's candidates meet the same *worlds* (deals of the unseen cards, see
`worlds`), and on each world every candidate still in plays out with the same
playout randomness (common random numbers), so the difference of two candidates
is measured on shared luck, not theirs apart (`Trial.play`). The statistics read
those differences in pairs (`Trial.paired`), and the rules built on them say when
a candidate may leave or the answer is settled; each caller keeps its own budget
(`budget.Budget` for hard, `coach.CoachPolicy` for the coach).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.playout import Decision, World
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
from hollywood_gin.engine.melds import deadwood_mask, discard_least
from hollywood_gin.engine.vocabulary import PHASES

OFFER, DRAW, DISCARD, OVER = PHASES


def least_discard(hand: int, forbidden: int = -1) -> tuple[int, int]:
    """The discard of an eleven-card hand that leaves the least deadwood, and that
    deadwood, from one solve: the higher card on a tie, the first in index order
    among equals; `forbidden` may not be thrown."""
    kept = discard_least(hand)  # the playouts' hot path: read the solve's list directly
    best, best_score, least = -1, 1e9, 99
    mask = hand
    while mask:
        low = mask & -mask
        mask ^= low
        i = low.bit_length() - 1
        if i == forbidden:
            continue
        d = kept[i]
        if d < least:
            least = d
        score = d - 0.01 * VALUE[i]
        if score < best_score:
            best, best_score = i, score
    return best, least


def least_after_taking(hand: int, top: int) -> int:
    """The least deadwood of ten cards after taking `top` into `hand` and throwing
    another card (one solve)."""
    kept = discard_least(hand | (1 << top))
    least = 99
    mask = hand
    while mask:
        low = mask & -mask
        mask ^= low
        d = kept[low.bit_length() - 1]
        if d < least:
            least = d
    return least


# -- the candidates --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Strategy:
    """Which choices of a decision `candidates` plays out."""

    weights: Weights = WEIGHTS  # normal's, whose choice is always the first candidate
    takes: bool = True  # at the upcard offer and the draw, both choices
    # ... even taking a card that neither melds nor lowers the deadwood (it only
    # shows the opponent my hand: hard does not search it, the coach judges it)
    useless_takes: bool = False
    discards: int = 3  # plain discards of normal's ranking besides its choice
    prune: float = float("inf")  # ... only those within this much of normal's best score
    least: bool = False  # the plain discard leaving the least deadwood too


def useful(hand: int, card: int) -> bool:
    """Does `card` meld with my cards, or lower my deadwood after my best discard?"""
    if makes_meld(hand, card):
        return True
    eleven = hand | (1 << card)
    return min(deadwood_mask(eleven ^ (1 << c)) for c in indices(hand)) < deadwood_mask(hand)


def candidates(seen: Seen, legal: set[str], strategy: Strategy) -> list[Decision]:
    """The choices worth playing out at `seen` (`legal`: the action kinds open),
    normal's own choice first: at the offer and the draw the other choice too; at a
    discard knocking and playing on when a knock is legal (the least deadwood's
    knock, or normal's best plain discard), normal's next best plain discards, and
    with `strategy.least` the plain discard leaving the least deadwood."""
    w = strategy.weights
    if seen.phase in (OFFER, DRAW):
        if not {"take_upcard", "draw_discard"} & legal:
            return [("take", 0, False)]
        if seen.phase == DRAW and "draw_stock" not in legal:
            return [("take", 1, False)]
        first = int(normal_take(seen, seen.top, w))
        if not strategy.takes:
            return [("take", first, False)]
        if not first and not strategy.useless_takes and not useful(seen.hand, seen.top):
            return [("take", 0, False)]
        return [("take", first, False), ("take", 1 - first, False)]
    least_card, least = least_discard(seen.hand, seen.forbidden)
    ranked = ranked_discards(seen, w)
    if should_knock(seen, least, w):
        out: list[Decision] = [("discard", normal_discard(seen, w)[0], True)]
        knock = True
    else:
        out, knock = [("discard", ranked[0][1], False)], False
    if least <= seen.knock_limit and "knock" in legal:
        # knocking and not knocking both get played out, whichever normal chose
        out.append(("discard", ranked[0][1], False) if knock else ("discard", least_card, True))
    best = ranked[0][0]
    plain = 0
    for score, i in ranked:
        if plain >= strategy.discards or score > best + strategy.prune:
            break
        if ("discard", i, False) not in out:
            out.append(("discard", i, False))
            plain += 1
    if strategy.least and ("discard", least_card, False) not in out:
        out.append(("discard", least_card, False))
    return out


# -- the paired playouts -----------------------------------------------------------


# Play a candidate's world (the candidate applied) to the end: my points there.
Playout = Callable[[World, random.Random], float]


@dataclass(slots=True)
class Dealt:
    """One world to play every candidate on: `seed` seeds each playout's randomness
    (the same for every candidate), `playout` plays them (its players may depend on
    the world), `weight` is the world's likelihood and `margin` what a knock must
    beat playing on by in this world."""

    world: World
    seed: int
    playout: Playout
    weight: float = 1.0
    margin: float = 0.0


@dataclass(slots=True)
class Trial:
    """Candidates played out on shared worlds: `values[c][k]` is candidate c's
    result on world k (None where it was not played)."""

    options: list[Decision]
    alive: list[int] = field(default_factory=list)  # the candidates still played out
    values: list[list[float | None]] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)  # each world's
    margins: list[float] = field(default_factory=list)  # each world's
    playouts: int = 0

    def __post_init__(self) -> None:
        if not self.alive:
            self.alive = list(range(len(self.options)))
        if not self.values:
            self.values = [[] for _ in self.options]

    @property
    def worlds(self) -> int:
        return len(self.weights)

    def play(
        self,
        count: int,
        deal: Callable[[], Dealt | None],
        *,
        cap: int | None = None,
        halt: Callable[[], bool] | None = None,
    ) -> bool:
        """Deal up to `count` worlds and play every candidate still in on each, all
        from the world's seed; at most `cap` playouts in all (the last world may be
        played by only the first candidates still in). `halt` is asked after each
        world (the search's safety cap in time): True stops. False when `deal` found
        no world (what was seen does not add up), else True."""
        options, values, alive = self.options, self.values, self.alive
        for _ in range(count):
            if cap is not None and self.playouts >= cap:
                break
            dealt = deal()
            if dealt is None:
                return False
            self.weights.append(dealt.weight)
            self.margins.append(dealt.margin)
            for v in values:
                v.append(None)
            world, seed, playout = dealt.world, dealt.seed, dealt.playout
            k = len(self.weights) - 1
            for c in alive:
                if cap is not None and self.playouts >= cap:
                    break
                w = world.copy()
                rng = random.Random(seed)
                w.apply(options[c], rng)
                values[c][k] = playout(w, rng)
                self.playouts += 1
            if halt is not None and halt():
                break
        return True

    def mean(self, c: int) -> float:
        """Candidate c's weighted mean result, a knock counted the knock margin worse
        (the weighted mean of the margins of the worlds it played)."""
        total = weight = 0.0
        played: list[tuple[float, float]] = []
        for v, wt, m in zip(self.values[c], self.weights, self.margins, strict=False):
            if v is not None:
                total += wt * v
                weight += wt
                played.append((wt, m))
        mean = total / weight if weight > 0 else -1e9
        return mean - mean_margin(played) * self.options[c][2]

    def paired(self, c: int, base: int = 0) -> tuple[float, float] | None:
        """Candidate c minus candidate `base` on the worlds both played: the weighted
        mean difference (a knock's margin counted: the weighted mean of those worlds'
        margins) and its standard error; None with fewer than two shared worlds."""
        shared = [
            (wt, v - b, m)
            for v, b, wt, m in zip(
                self.values[c], self.values[base], self.weights, self.margins, strict=False
            )
            if v is not None and b is not None
        ]
        total = sum(wt for wt, _, _ in shared)
        if len(shared) < 2 or total <= 0:
            return None
        mean = sum(wt * d for wt, d, _ in shared) / total
        spread = sum(wt * (d - mean) ** 2 for wt, d, _ in shared) / total
        size = total * total / sum(wt * wt for wt, _, _ in shared)  # effective sample size
        error = (spread / max(1.0, size - 1)) ** 0.5
        # the playouts continue with a plainer player than hard is: waiting is worth
        # about the knock margin more than they say (a correction, not a draw: it does
        # not enter the standard error)
        knocks = self.options[base][2] - self.options[c][2]
        if knocks:
            mean += mean_margin([(wt, m) for wt, _, m in shared]) * knocks
        return mean, error

    # -- the rules read on the pairs --------------------------------------------------

    def settled(self, z: float) -> bool:
        """Is every candidate still in worse than candidate 0 by more than `z`
        standard errors? Then more playouts would not change the choice."""
        if z <= 0:
            return False
        for c in self.alive:
            if c == 0:
                continue
            paired = self.paired(c)
            if paired is None or paired[0] + z * paired[1] >= 0:
                return False
        return True

    def halve(self) -> None:
        """Successive halving: the worse half leaves (candidate 0 stays)."""
        ranked = sorted(self.alive, key=lambda c: -self.mean(c))
        keep = ranked[: max(1, (len(self.alive) + 1) // 2)]
        self.alive = sorted(set(keep) | {0})

    def drop(self, z: float) -> None:
        """Candidates worse than the leader by `z` standard errors leave (they cannot
        be the best; candidate 0 stays)."""
        if len(self.alive) <= 1:
            return
        means = {c: self.mean(c) for c in self.alive}
        leader = max(self.alive, key=lambda c: means[c])
        for c in list(self.alive):
            if c in (0, leader):
                continue
            paired = self.paired(c, leader)
            if paired is not None and paired[0] + z * paired[1] < 0:
                self.alive.remove(c)

    def clear_of(self, points: Sequence[float], z: float) -> bool:
        """Is the loss of candidate 0 (the largest of the others' differences from
        it) clear of every one of `points`? Its interval runs from the largest lower
        end to the largest upper end of theirs (each `z` standard errors wide), and
        no point may fall in it (so a candidate 0 ahead by luck is not clear)."""
        others = [c for c in self.alive if c != 0]
        if not others:
            return True  # every other candidate is clearly worse than candidate 0
        low = high = -float("inf")
        for c in others:
            paired = self.paired(c)
            if paired is None:
                return False
            mean, error = paired
            low = max(low, mean - z * error)
            high = max(high, mean + z * error)
        return not any(low <= p <= high for p in points)

    def pick(self, z: float) -> int:
        """Candidate 0 unless one still in beats it on the worlds both played by more
        than `z` standard errors (then the one ahead by most)."""
        best, best_mean = 0, 0.0
        for c in self.alive:
            if c == 0:
                continue
            paired = self.paired(c)
            if paired is None:
                continue
            mean, error = paired
            if mean > best_mean and mean > z * error:
                best, best_mean = c, mean
        return best


def mean_margin(pairs: list[tuple[float, float]]) -> float:
    """The weighted mean of the knock margins of (weight, margin) pairs; one margin
    for every world (every style's the same) is that margin exactly."""
    first = pairs[0][1] if pairs else 0.0
    if all(m == first for _, m in pairs):
        return first
    total = sum(wt for wt, _ in pairs)
    if total <= 0:
        return sum(m for _, m in pairs) / len(pairs)
    return sum(wt * m for wt, m in pairs) / total
