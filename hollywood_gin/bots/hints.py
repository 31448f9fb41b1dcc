"""A hint in a practice game: the hand review's coach, asked about the decision open now.

At a table with the computer a person may ask what the coach makes of the move in
front of them (docs/protocol-guide.md "Hints"). The answer is the review's own
method (`coach.step` and `coach.entry`, the candidates and their playouts) applied
to the seat's present decision instead of a past one, from what that seat knows
only: `seen` comes from the seat's own views (`knowledge.BotMemory`), exactly as
the computer's and a bot's over the wire, so a hint can never tell a hidden card.

A hint must come within 2 s on one core, so its work is bounded in playouts
(`HINT_BUDGET`), never in time: the same position and seed give the same hint on
any machine, only sooner or later. It runs in a worker process (`tables/hints.py`).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

from hollywood_gin.bots.coach import (
    COACH,
    DECISION_KINDS,
    CoachPolicy,
    Point,
    Tally,
    entry,
    step,
)
from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.policy import normal_discard
from hollywood_gin.engine.actions import Action, parse_action
from hollywood_gin.engine.cards import CARDS
from hollywood_gin.engine.jsonvalue import JsonObject

# Playouts a hint may spend: every candidate meets the same `samples` deals. 300
# deals of about 5 candidates take about 0.25 s of CPU on average and under 0.7 s at
# worst (benchmarks/bench_hints.py), leaving room under 2 s for a busy core. Fewer deals than a
# review widen the error of each figure to about +-1.5 points, enough to rank the
# choices a hint shows and never a claim of a label. No early stop (`least` =
# `samples`): every choice shown is priced on all the deals.
HINT_BUDGET = replace(COACH, samples=300, batch=300, least=300, discards=3)


def point_now(seen: Seen, phase: str, legal: tuple[Action, ...]) -> Point | None:
    """The decision open to the seat now, as the coach's `Point` (None: no decision of
    the kinds the coach prices is open). Its `chosen` is normal's move, the
    reference the coach keeps among the candidates."""
    open_ = tuple(a for a in legal if a.kind in DECISION_KINDS)
    if not open_:
        return None
    chosen = open_[0]
    if phase == "discard":
        card, knock = normal_discard(seen)
        kind = "knock" if knock else "discard"
        wanted = [a for a in open_ if a.kind == kind and a.card == CARDS[card]]
        plain = [a for a in open_ if a.kind == "discard"]
        chosen = (wanted or plain or [chosen])[0]
    return Point(index=-1, phase=phase, seen=seen, legal=open_, chosen=chosen)


def seed_for(table_id: str, seat: int, version: int) -> int:
    """The hint's deals: from the table, the seat and the state's version, so asking
    again (another tab, a reload) gives the same hint."""
    text = f"hint|{table_id}|{seat}|{version}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _wire(option: dict[str, Any]) -> JsonObject:
    """A coach's option (`{"kind", "card"}`) as the action a client sends."""
    body: dict[str, Any] = {"kind": option["kind"]}
    if option["kind"] == "knock":
        body["discard"] = option["card"]
    elif "card" in option:
        body["card"] = option["card"]
    return parse_action(body).to_dict()


def hint(point: Point, seed: int, budget: CoachPolicy = HINT_BUDGET) -> JsonObject:
    """The hint's body (`best` and `choices`, best first, each with its expected points
    for the hand, as in the review). CPU-bound: call it in a worker."""
    tally = Tally(seed=seed)
    while not tally.finished:
        step(point, tally, budget)
    judged = entry(point, tally)
    choices = [
        {"action": _wire(o), "expected": o["expected"]}
        for o in sorted(judged["options"], key=lambda o: -float(o["expected"]))
    ]
    best = _wire(judged["best"])
    # The coach's best first even where a rounding tie put another beside it.
    choices.sort(key=lambda c: c["action"] != best)
    return {"best": best, "choices": choices}
