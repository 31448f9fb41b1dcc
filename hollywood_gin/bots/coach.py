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
(`CoachPolicy.discards`), the least-deadwood discard, and, where a knock is
legal, the knock that leaves the least deadwood (and the chosen knock). The
gin and undercut risk of a knock is in its expected value, not a rule.

The budget is counted in playouts (`CoachPolicy.samples` deals per decision at
most), never in wall time, so a slow machine takes longer but says the same. Fewer
playouts where the answer is plain: after `CoachPolicy.drop_from` deals, a
candidate clearly behind the leader stops being played out, and after
`CoachPolicy.least` a decision stops once its label is clear (no threshold within
the interval of its loss). Action kinds the
coach does not know are skipped (never a decision); one the engine refuses ends
the replay there, and the decisions before it are reviewed.

The evaluator is the search's (`evaluate`: the candidates, the paired playout
loop and its statistics), and so are the simulator (`playout.World`, the rules of
one hand on masks; `tests/bots/test_coach.py` checks it against the engine), the
deals (`worlds.sample_world`) and the rollout (`lean.rollout`). What the coach
asks of them is one frozen value, `COACH` (a `CoachPolicy`): the rollout's
players and weights, the deals' shaping, the budget, the stop rules and the
label thresholds, with the version a stored review is kept under. Tuning the
search changes none of it; a change of the shared code that moves a review is
caught by `tests/bots/test_coach.py` (the pinned review), and then the version
goes up.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hollywood_gin.bots.evaluate import (
    Dealt,
    Playout,
    Strategy,
    Trial,
    candidates,
    least_discard,
)
from hollywood_gin.bots.knowledge import BotMemory, Seen
from hollywood_gin.bots.lean import rollout
from hollywood_gin.bots.playout import Decision, World, normal_policy, play_out
from hollywood_gin.bots.policy import Weights
from hollywood_gin.bots.worlds import sample_world
from hollywood_gin.engine.actions import PLAY_KINDS, Action, parse_action
from hollywood_gin.engine.cards import CARDS, Card, mask_of, parse_cards
from hollywood_gin.engine.errors import RuleError
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.melds import deadwood_mask
from hollywood_gin.engine.options import Options

OFFER, DRAW, DISCARD, OVER = "upcard_offer", "draw", "discard", "over"
DECISION_KINDS = ("take_upcard", "pass", "draw_stock", "draw_discard", "discard", "knock")

# (least loss, label), largest first (docs/protocol-guide.md "Hand review").
LABELS: tuple[tuple[float, str], ...] = ((15.0, "blunder"), (8.0, "mistake"), (3.0, "inaccuracy"))

# The normal policy's weights, pinned for the coach's playouts: retuning normal
# (`policy.WEIGHTS`) must not change a stored review.
PINNED_WEIGHTS = Weights(
    danger=1.2,
    danger_base=0.0,
    take_margin=2.0,
    knock_bonus=5.0,
    wall_knock=5,
    early=6.0,
    late=2.0,
    opp_penalty=5.0,
    hold=1.0,
    hold_turns=8.0,
    gin_until=0,
)


@dataclass(frozen=True, slots=True)
class CoachPolicy:
    """Everything the coach's judgement depends on besides the hand: a stored review
    is kept under `version` (and `samples`), so a change here that moves any review
    raises the version. The budget is counted in playouts, never in time."""

    # The version of the coach's method: a stored review of another version is
    # computed again. 2: the search's rollout, candidates leaving once clearly behind,
    # the interval stop rule. 3: the search's candidates and deals (`evaluate`): a
    # tie for the least deadwood goes to the first card in index order, as in the
    # playouts (a knock's card, the least-deadwood discard). 4: looks every 25 deals,
    # options leave from 50 deals, the label is called from 150 (about a quarter
    # fewer playouts; the labels of version 2 on bench_review's six hands and of the
    # fixed hands unchanged).
    version: int = 4
    samples: int = 800  # sampled deals per decision at most (each plays out every candidate)
    batch: int = 25  # deals between two looks at the options and the label
    sure: float = 2.0  # clear: every label threshold this many standard errors away
    drop: float = 3.0  # an option this many standard errors below the leader leaves
    drop_from: int = 50  # deals before any option leaves
    # Deals before the label is called clear: a hand's points have heavy tails (a
    # gin, an undercut), and fewer deals underestimate the error (called from 100,
    # an inaccuracy of bench_review's, 3.1 points on 800 deals, looked clear at 0).
    least: int = 150
    discards: int = 3  # plain discards tried besides the chosen one and normal's choice
    # The playout policy of both seats: "lean" is the search's rollout (`lean.rollout`:
    # normal's knock and wall rules and its take margin on a plain deadwood count,
    # about 30 times cheaper than "normal", the whole normal policy).
    rollout: str = "lean"
    styles: tuple[str, str] = ("normal", "normal")  # each seat's knock rule in "lean"
    weights: Weights = PINNED_WEIGHTS  # normal's, for the candidates and both seats
    shape_turns: int = 8  # the opponent's sampled hand plays at most this many of its turns
    # a deal giving the opponent gin after its plain discard is dealt again, this
    # many deals at most (it would have gone out)
    deals: int = 8
    labels: tuple[tuple[float, str], ...] = LABELS

    def strategy(self) -> Strategy:
        """The candidates (`evaluate.candidates`): both choices at an offer or a draw,
        normal's choice, its next best `discards`, the least-deadwood discard, and
        the knock and the play-on where a knock is legal."""
        return Strategy(
            weights=self.weights,
            takes=True,
            useless_takes=True,
            discards=self.discards,
            least=True,
        )


COACH = CoachPolicy()
COACH_VERSION = COACH.version


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


def _least(mask: int) -> int:
    """The least deadwood of a hand: of ten cards, or of eleven after the best discard."""
    if mask.bit_count() <= 10:
        return deadwood_mask(mask)
    return least_discard(mask)[1]


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


def options_of(point: Point, policy: CoachPolicy) -> list[Decision]:
    """The choices played out (`evaluate.candidates`, those legal), the chosen one first."""
    chosen = _decision_of(point.chosen)
    legal = {_decision_of(a) for a in point.legal if a.kind in DECISION_KINDS}
    kinds: set[str] = {a.kind for a in point.legal}
    out = [chosen]
    for d in candidates(point.seen, kinds, policy.strategy()):
        if d in legal and d not in out:
            out.append(d)
    return out


def seed_of(record: Mapping[str, Any], seat: int, index: int) -> int:
    """The deals of one decision: from the record's salt and deck, the seat, the index."""
    text = f"{record.get('salt')}|{','.join(map(str, record.get('deck') or ()))}|{seat}|{index}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


@dataclass(slots=True)
class Tally:
    """A decision's playouts so far, resumable in batches of deals (`step`): the
    paired trial of its options (the chosen one is option 0) and the deals' state."""

    seed: int
    trial: Trial | None = None
    rng_state: object = None  # the deals' random state after the last batch
    finished: bool = False

    @property
    def done(self) -> int:
        """Deals played."""
        return 0 if self.trial is None else self.trial.worlds

    def playouts(self) -> int:
        return 0 if self.trial is None else self.trial.playouts


def _playout(seen: Seen, policy: CoachPolicy) -> Playout:
    """Both seats play `policy`'s rollout to the hand's end: the seat's points."""
    me = seen.me
    if policy.rollout == "lean":
        styles, weights = policy.styles, policy.weights

        def lean(w: World, rng: random.Random) -> float:
            return rollout(w, styles, rng, weights).value_for(me)

        return lean
    normal = normal_policy(policy.weights)

    def whole(w: World, rng: random.Random) -> float:
        return play_out(w, (normal, normal), rng).value_for(me)

    return whole


def step(point: Point, tally: Tally, policy: CoachPolicy = COACH) -> Tally:
    """Play one batch of `policy.batch` deals for every option still in (the first call
    finds the options): each deal plays out every option with the same playout
    randomness (common random numbers, `evaluate.Trial`), so their differences are
    measured, not their luck, and the deals do not depend on which options are still
    in. After each batch from `policy.drop_from` deals on, an option worse than the
    leader by `policy.drop` standard errors leaves (it cannot be the best; the chosen
    one stays). `tally.finished` once
    the best option's loss against the chosen one is clear of every label's threshold
    by `policy.sure` standard errors (more deals would not flip its label), the budget
    is spent, or no deal agrees with what the seat knew; so decisions close to a
    threshold get the whole budget."""
    if tally.trial is None:
        tally.trial = Trial(options_of(point, policy))
    trial = tally.trial
    rng = random.Random()
    if tally.rng_state is None:
        rng.seed(tally.seed)
    else:
        rng.setstate(tally.rng_state)  # type: ignore[arg-type]
    seen = point.seen
    legal_kinds = {a.kind for a in point.legal}
    must_draw_stock = point.phase == DRAW and "draw_discard" not in legal_kinds
    playout = _playout(seen, policy)

    def deal() -> Dealt | None:
        world = sample_world(
            seen,
            rng,
            must_draw_stock=must_draw_stock,
            shape_turns=policy.shape_turns,
            deals=policy.deals,
        )
        if world is None:
            return None
        return Dealt(world, seed=rng.getrandbits(32), playout=playout)

    if not trial.play(min(policy.batch, policy.samples - trial.worlds), deal):
        tally.finished = True  # the counts disagree: nothing to deal
    tally.rng_state = rng.getstate()
    done = trial.worlds
    if done >= min(policy.drop_from, policy.least, policy.samples) or tally.finished:
        trial.drop(policy.drop)
    if done < policy.least and done < policy.samples and not tally.finished:
        return tally
    thresholds = [least for least, _ in policy.labels]
    if len(trial.options) == 1 or done >= policy.samples or trial.clear_of(thresholds, policy.sure):
        tally.finished = True
    return tally


def _r(x: float) -> float:
    return round(x + 0.0, 1) + 0.0  # no -0.0


def entry(point: Point, tally: Tally) -> dict[str, Any]:
    """The review's entry for a decision whose playouts are done."""
    trial = tally.trial
    assert trial is not None
    options = trial.options
    means = [trial.mean(j) for j in range(len(options))]
    best = max(trial.alive, key=lambda j: (round(means[j], 1), j == 0))
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
            if any(v is not None for v in trial.values[j])
        ],
    }


def assemble(
    record: Mapping[str, Any],
    seat: int,
    played: Replay,
    decisions: Sequence[dict[str, Any]],
    policy: CoachPolicy = COACH,
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
        "coach": {"version": policy.version, "samples": policy.samples},
    }
