"""The coach: what each decision of a seat in a finished hand was worth
(docs/protocol-guide.md "Hand review").

`replay(record, seat)` replays hand `record` (the body of `GET
/api/tables/{id}/hands/{n}`) with the engine and, at each decision of `seat`
(the upcard offer, each draw, each discard, where a discard with a legal knock
is one decision over all of them), builds what that seat knew then with the
computer's own memory (`knowledge.BotMemory`, fed the seat's views and nothing
else). Then, in batches of playouts (`step`, one job of the worker pool each), it
deals the unseen cards at random in agreement with that knowledge (the opponent
holds the cards it was seen to take; the rest of its hand, the pile cards not
seen and the stock come from the unseen cards), plays every candidate action
out to the end of the hand with the normal policy on both sides, and averages
the seat's points for the hand (won positive, lost negative) over the deals.
Every candidate meets the same deals and the same playout randomness (common
random numbers), so their difference is measured, not their luck; the deals are
seeded from the record (its salt), the seat and the action's index, so a hand
gives the same review wherever and however often it is computed. `entry` makes
a decision's part of the review once its playouts are done and `assemble` the
review (`tables/reviews.py` runs them).

The candidates: the chosen action and every other choice of an offer or a draw;
at a discard, the chosen card, normal's choice, normal's next best few
(`CoachBudget.discards`), the least-deadwood discard, and, where a knock is
legal, the knock that leaves the least deadwood (and the chosen knock). The
gin and undercut risk of a knock is in its expected value, not a rule.

The budget is counted in playouts (`CoachBudget.samples` deals per decision at
most), never in wall time, so a slow machine takes longer but says the same. Fewer
playouts where the answer is plain: after `CoachBudget.least` deals, a candidate
clearly behind the leader stops being played out, and a decision stops once its
label is clear (no threshold within the interval of its loss). Action kinds the
coach does not know are skipped (never a decision); one the engine refuses ends
the replay there, and the decisions before it are reviewed.

The simulator is the search's (`playout.World`, the rules of one hand on masks;
`tests/bots/test_coach.py` checks it against the engine), and so is its lean
rollout (`lean.rollout`, held equal to the pinned `coach_playouts.lean_policy`). The coach's own
sampling and playout policies are pinned in `coach_playouts`, apart from the
hard search's tunable ones, so that tuning the search never changes a stored review.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hollywood_gin.bots.coach_playouts import POLICIES, play_out, sample_world
from hollywood_gin.bots.knowledge import BotMemory, Seen
from hollywood_gin.bots.lean import rollout
from hollywood_gin.bots.playout import Decision
from hollywood_gin.bots.policy import VALUE, WEIGHTS, indices, normal_discard, ranked_discards
from hollywood_gin.engine.actions import PLAY_KINDS, Action, parse_action
from hollywood_gin.engine.cards import CARDS, Card, mask_of, parse_cards
from hollywood_gin.engine.errors import RuleError
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.melds import deadwood_mask
from hollywood_gin.engine.options import Options

# The version of the coach's method: a stored review of another version is computed again.
# 2: the search's rollout, candidates leaving once clearly behind, the interval stop rule.
COACH_VERSION = 2

OFFER, DRAW, DISCARD, OVER = "upcard_offer", "draw", "discard", "over"
DECISION_KINDS = ("take_upcard", "pass", "draw_stock", "draw_discard", "discard", "knock")

# (least loss, label), largest first (docs/protocol-guide.md "Hand review").
LABELS: tuple[tuple[float, str], ...] = ((15.0, "blunder"), (8.0, "mistake"), (3.0, "inaccuracy"))


@dataclass(frozen=True, slots=True)
class CoachBudget:
    """How much the coach plays out: counted in playouts, never in time."""

    samples: int = 800  # sampled deals per decision at most (each plays out every candidate)
    batch: int = 100  # deals between two looks at whether the label is clear
    sure: float = 2.0  # clear: every label threshold this many standard errors away
    drop: float = 3.0  # an option this many standard errors below the leader leaves
    # Deals before any option leaves or the label is called clear: a hand's points have
    # heavy tails (a gin, an undercut), and fewer deals underestimate the error.
    least: int = 200
    discards: int = 3  # plain discards tried besides the chosen one and normal's choice
    # The playout policy of both seats: "lean" is normal's knock and wall rules and its
    # take margin on a plain deadwood count (about 30 times cheaper: a full hand review
    # in seconds, not minutes); "normal" is the whole normal policy.
    # "lean" plays on the search's own rollout (`lean.rollout`: the same moves, remembered
    # by hand, about 1.7 times faster).
    rollout: str = "lean"
    shape_turns: int = 8  # the opponent's sampled hand plays at most this many of its turns


def label_for(loss: float) -> str | None:
    for least, name in LABELS:
        if loss >= least:
            return name
    return None


# -- the hand's decisions ----------------------------------------------------------


class RecordDeals:
    """The record's deck and reshuffles, as the engine's dealer (`Deals`)."""

    def __init__(self, record: Mapping[str, Any]) -> None:
        self._deck = parse_cards(record["deck"])
        self._salt = str(record["salt"])
        self._dealer = int(record["dealer"])
        self._reshuffles = [parse_cards(r["stock"]) for r in record.get("reshuffles") or ()]

    def first_dealer(self) -> int:
        return self._dealer

    def deal(
        self, number: int, dealer: int, fair: tuple[bytes, Sequence[bytes | None]] | None = None
    ) -> tuple[list[Card], str]:
        return list(self._deck), self._salt

    def secret(self, number: int) -> bytes | None:
        return None  # the record's deck is dealt as it is

    def reshuffle(self, number: int, under: list[Card]) -> list[Card]:
        if not self._reshuffles:
            raise RuleError("the record lacks a reshuffle here")
        return self._reshuffles.pop(0)


@dataclass(slots=True)
class Point:
    """One decision of the seat: where it was, what it knew, what was open, what it did."""

    index: int
    phase: str
    seen: Seen
    legal: tuple[Action, ...]
    chosen: Action


@dataclass(slots=True)
class Replay:
    """A hand replayed for one seat: its decisions and the luck of both seats."""

    points: list[Point]
    start_deadwood: list[int]
    stock_gain: list[int]
    stock_draws: list[int]


def _least(mask: int, forbidden: int = -1) -> int:
    """The least deadwood of a hand: of ten cards, or of eleven after the best discard."""
    if mask.bit_count() <= 10:
        return deadwood_mask(mask)
    return min(deadwood_mask(mask ^ (1 << i)) for i in indices(mask) if i != forbidden)


def replay(record: Mapping[str, Any], seat: int) -> Replay:
    """Replay the hand; note each decision of `seat` with what it knew then.

    :raises RuleError: the record's options or deal cannot be played.
    """
    options = Options.from_dict(record["options"])
    match = Match(options, dealer=RecordDeals(record))
    match.start()
    hand = match.hand
    assert hand is not None
    memory = BotMemory()
    memory.observe(match.view(seat))
    out = Replay(
        points=[],
        start_deadwood=[deadwood_mask(mask_of(hand.cards[s])) for s in (0, 1)],
        stock_gain=[0, 0],
        stock_draws=[0, 0],
    )
    for index, entry in enumerate(record.get("actions") or ()):
        wire = entry.get("action") if isinstance(entry, Mapping) else None
        kind = wire.get("kind") if isinstance(wire, Mapping) else None
        who = entry.get("seat") if isinstance(entry, Mapping) else None
        if kind not in PLAY_KINDS or who not in (0, 1):
            # Not a move of the hand's play (a kind the coach does not know): skipped.
            if kind in PLAY_KINDS or not _try_apply(match, who, wire):
                continue
            memory.observe(match.view(seat))
            if hand.phase == OVER:
                break
            continue
        try:
            action = parse_action(wire)
        except RuleError:
            break
        before = _least(mask_of(hand.cards[who]))
        # A move the clock or a stand-in made for the seat is not the player's
        # decision: it is played, never judged (the replay labels it as made for them).
        mine = entry.get("by") is None
        if who == seat and kind in DECISION_KINDS and mine:
            view = match.view(seat)
            seen = memory.seen(view)
            if seen is not None and view.legal:
                out.points.append(Point(index, hand.phase, seen, view.legal, action))
        try:
            match.apply(who, action)
        except RuleError:
            break
        if kind == "draw_stock":
            after = _least(mask_of(hand.cards[who]))
            out.stock_gain[who] += before - after
            out.stock_draws[who] += 1
        memory.observe(match.view(seat))
        if hand.phase == OVER:
            break
    return out


def _try_apply(match: Match, who: object, wire: object) -> bool:
    """An action of a kind the coach does not know: applied if the engine knows it."""
    if who not in (0, 1):
        return False
    try:
        match.apply(int(who), parse_action(wire))
    except (RuleError, TypeError, ValueError):
        return False
    return True


# -- the candidates and their worth ------------------------------------------------


def _decision_of(action: Action) -> Decision:
    if action.kind in ("take_upcard", "draw_discard"):
        return ("take", 1, False)
    if action.kind in ("pass", "draw_stock"):
        return ("take", 0, False)
    assert action.card is not None
    return ("discard", action.card.index, action.kind == "knock")


def _action_json(d: Decision, phase: str) -> dict[str, Any]:
    if d[0] == "take":
        kinds = ("pass", "take_upcard") if phase == OFFER else ("draw_stock", "draw_discard")
        return {"kind": kinds[d[1]]}
    return {"kind": "knock" if d[2] else "discard", "card": str(CARDS[d[1]])}


def candidates(point: Point, budget: CoachBudget) -> list[Decision]:
    """The choices played out, the chosen one first."""
    chosen = _decision_of(point.chosen)
    out = [chosen]
    legal = [_decision_of(a) for a in point.legal if a.kind in DECISION_KINDS]
    if point.phase != DISCARD:
        out += [d for d in dict.fromkeys(legal) if d != chosen]
        return out
    seen = point.seen
    plain = {d[1] for d in legal if not d[2]}
    knocks = {d[1] for d in legal if d[2]}
    wanted: list[Decision] = []
    card, knock = normal_discard(seen)
    wanted.append(("discard", card, knock and card in knocks))
    wanted += [("discard", i, False) for _, i in ranked_discards(seen)[: budget.discards + 1]]
    left = {i: deadwood_mask(seen.hand ^ (1 << i)) for i in plain}
    if left:
        least = min(left, key=lambda i: (left[i], -VALUE[i], -i))
        wanted.append(("discard", least, False))
        if knocks:
            best_knock = min(knocks, key=lambda i: (left.get(i, 99), -VALUE[i], -i))
            wanted.append(("discard", best_knock, True))
    for d in wanted:
        ok = d[1] in (knocks if d[2] else plain)
        if ok and d not in out:
            out.append(d)
    return out


def seed_of(record: Mapping[str, Any], seat: int, index: int) -> int:
    """The deals of one decision: from the record's salt and deck, the seat, the index."""
    text = f"{record.get('salt')}|{','.join(map(str, record.get('deck') or ()))}|{seat}|{index}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


@dataclass(slots=True)
class Tally:
    """A decision's playouts so far: resumable batches of deals (`step`)."""

    seed: int
    options: list[Decision] = field(default_factory=list)
    # The options still played out: the chosen one (0) always, the others until they
    # are clearly worse than the leader (then they cannot be the best).
    alive: list[int] = field(default_factory=list)
    # values[j][k]: option j's points on deal k, for the deals played while it was alive
    values: list[list[int]] = field(default_factory=list)
    rng_state: object = None  # the deals' random state after the last batch
    done: int = 0  # deals played
    finished: bool = False

    def means(self) -> list[float]:
        return [sum(v) / len(v) if v else 0.0 for v in self.values]

    def playouts(self) -> int:
        return sum(len(v) for v in self.values)


def _paired(a: list[int], b: list[int]) -> tuple[float, float]:
    """The mean of a - b over their shared deals (the first ones) and its standard error."""
    n = min(len(a), len(b))
    if n < 2:
        return 0.0, float("inf")
    total = squares = 0.0
    for x, y in zip(a, b, strict=False):
        d = x - y
        total += d
        squares += d * d
    mean = total / n
    spread = max(0.0, squares / n - mean * mean)
    return mean, (spread / (n - 1)) ** 0.5


def step(point: Point, tally: Tally, budget: CoachBudget) -> Tally:
    """Play one batch of `budget.batch` deals for every option still in (the first call
    finds the options): each deal plays out every option with the same playout
    randomness (common random numbers), so their differences are measured, not their
    luck, and the deals do not depend on which options are still in. After each batch
    an option worse than the leader by `budget.drop` standard errors leaves (it cannot
    be the best; the chosen one stays). `tally.finished` once the best option's loss
    against the chosen one is clear of every label's threshold by `budget.sure`
    standard errors (more deals would not flip its label), the budget is spent, or no
    deal agrees with what the seat knew; so decisions close to a threshold get the
    whole budget."""
    if not tally.options:
        tally.options = candidates(point, budget)
        tally.alive = list(range(len(tally.options)))
        tally.values = [[] for _ in tally.options]
    rng = random.Random()
    if tally.rng_state is None:
        rng.seed(tally.seed)
    else:
        rng.setstate(tally.rng_state)  # type: ignore[arg-type]
    seen = point.seen
    me = seen.me
    legal_kinds = {a.kind for a in point.legal}
    must_draw_stock = point.phase == DRAW and "draw_discard" not in legal_kinds
    options, alive, values = tally.options, tally.alive, tally.values
    policy = POLICIES[budget.rollout]
    for _ in range(min(budget.batch, budget.samples - tally.done)):
        world = sample_world(
            seen, rng, must_draw_stock=must_draw_stock, shape_turns=budget.shape_turns
        )
        if world is None:
            tally.finished = True  # the counts disagree: nothing to deal
            break
        seed = rng.getrandbits(32)
        for j in alive:
            w = world.copy()
            playout_rng = random.Random(seed)
            w.apply(options[j], playout_rng)
            if policy is None:
                # the search's own rollout: the lean policy's moves, remembered by hand
                end = rollout(w, ("normal", "normal"), playout_rng, WEIGHTS)
            else:
                end = play_out(w, policy, playout_rng)
            values[j].append(end.value_for(me))
        tally.done += 1
    tally.rng_state = rng.getstate()
    if tally.done < budget.least and tally.done < budget.samples and not tally.finished:
        return tally
    if len(alive) > 1:
        means = tally.means()
        leader = max(alive, key=lambda j: means[j])
        for j in list(alive):
            if j in (0, leader):
                continue
            mean, error = _paired(values[j], values[leader])
            if mean + budget.drop * error < 0:
                alive.remove(j)
    if len(options) == 1 or tally.done >= budget.samples or _clear(tally, budget.sure):
        tally.finished = True
    return tally


def _clear(tally: Tally, sure: float) -> bool:
    """Is the loss clear of every label threshold? The loss is the largest of the
    other options' differences from the chosen one: its interval runs from the largest
    lower end to the largest upper end of theirs (each `sure` standard errors wide),
    and no threshold may fall in it (so a chosen option ahead by luck is not clear)."""
    others = [j for j in tally.alive if j != 0]
    if not others:
        return True  # every other option is clearly worse than the chosen one
    if tally.done < 2:
        return False
    low = high = -float("inf")
    for j in others:
        mean, error = _paired(tally.values[j], tally.values[0])
        low = max(low, mean - sure * error)
        high = max(high, mean + sure * error)
    return not any(low <= least <= high for least, _ in LABELS)


def _r(x: float) -> float:
    return round(x + 0.0, 1) + 0.0  # no -0.0


def entry(point: Point, tally: Tally) -> dict[str, Any]:
    """The review's entry for a decision whose playouts are done."""
    options, means = tally.options, tally.means()
    best = max(tally.alive, key=lambda j: (round(means[j], 1), j == 0))
    chosen_value, best_value = _r(means[0]), _r(means[best])
    loss = _r(max(0.0, best_value - chosen_value))
    return {
        "index": point.index,
        "phase": point.phase,
        "chosen": _action_json(options[0], point.phase),
        "best": _action_json(options[best], point.phase),
        "expected": {"chosen": chosen_value, "best": best_value},
        "loss": loss,
        "label": label_for(loss),
        # Every choice played out, priced: "Find the better move" offers these and
        # says what the reader's pick would have cost.
        "options": [
            {**_action_json(o, point.phase), "expected": _r(means[j])}
            for j, o in enumerate(options)
            if tally.values[j]
        ],
    }


def assemble(
    record: Mapping[str, Any],
    seat: int,
    played: Replay,
    decisions: Sequence[dict[str, Any]],
    budget: CoachBudget,
) -> dict[str, Any]:
    """The review's body (docs/protocol-guide.md "Hand review") from its judged decisions."""
    counts = {"inaccuracy": 0, "mistake": 0, "blunder": 0}
    total = 0.0
    for d in decisions:
        if d["label"] is not None:
            counts[d["label"]] += 1
        total += d["loss"]
    return {
        "hand": record.get("number"),
        "seat": seat,
        "decisions": list(decisions),
        "summary": {
            "decisions": len(decisions),
            "loss": _r(total),
            "inaccuracies": counts["inaccuracy"],
            "mistakes": counts["mistake"],
            "blunders": counts["blunder"],
            # The luck of the hand, per seat: the deal's deadwood, and how much the
            # stock's cards lowered it (least deadwood before each draw minus after).
            "luck": {
                "start_deadwood": played.start_deadwood,
                "stock_gain": played.stock_gain,
                "stock_draws": played.stock_draws,
            },
        },
        "coach": {"version": COACH_VERSION, "samples": budget.samples},
    }
