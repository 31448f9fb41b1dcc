"""Mistakes that look human (issue 44): how the hand review labels the lower rungs'
decisions, and of which kind the costly ones are.

Plays `--hands` seeded hands of a low rung (`--who`, default rookie and easy) against
normal through the engine (the rung in seat 0 and seat 1 in turn), reviews the
rung's decisions with the coach (`--samples` deals per decision at most, the
server's 800 by default) and prints, per rung: the decisions per label (none,
inaccuracy, mistake, blunder), and the labelled ones by kind, twice:

- by the slip the rung drew at that decision (`LadderBot.slipped`: misread,
  hold_high, early_knock; `none`: its base policy's own choice);
- by what the coach's better move says the decision was: `knocked early` (it knocked,
  playing on was better), `knocked late`, `held high` (it threw a card below 9
  where throwing the 9-K was better), `other discard`, `missed a pickup` (it drew
  from the stock or passed, the pile card was better), `took a card` (the reverse).

Counts, not times: the same seeds give the same figures on any machine (the review's
playouts are seeded from the record). Run it under nice on a shared machine:

    nice -n 10 python benchmarks/bench_mistakes.py --hands 16 --who rookie
    nice -n 10 python benchmarks/bench_mistakes.py --hands 16 --who easy
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hollywood_gin.bots.coach import CoachPolicy, replay, seed_of
from hollywood_gin.bots.ladder import BY_ID
from hollywood_gin.engine.cards import Card
from tests.bots.coach_hands import judge, ladder_hand

LABELS = ("none", "inaccuracy", "mistake", "blunder")


def _value(card: str) -> int:
    return Card.parse(card).value


def shape(entry: dict[str, Any]) -> str:
    """What the coach's better move says a labelled decision was."""
    chosen, best = entry["chosen"], entry["best"]
    ck, bk = chosen["kind"], best["kind"]
    if ck in ("pass", "draw_stock"):
        return "missed a pickup"
    if ck in ("take_upcard", "draw_discard"):
        return "took a card"
    if ck == "knock" and bk == "discard":
        return "knocked early"
    if ck == "discard" and bk == "knock":
        return "knocked late"
    if _value(chosen["card"]) < 9 <= _value(best["card"]):
        return "held high"
    return "other discard"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--who", nargs="+", default=["rookie", "easy"], choices=sorted(BY_ID))
    parser.add_argument("--hands", type=int, default=12)
    parser.add_argument("--samples", type=int, default=CoachPolicy().samples)
    parser.add_argument("--seed", type=int, default=44_000)
    args = parser.parse_args()
    budget = CoachPolicy(samples=args.samples)
    for who in args.who:
        labels: Counter[str] = Counter()
        by_slip: Counter[tuple[str, str]] = Counter()
        by_shape: Counter[tuple[str, str]] = Counter()
        lost = 0.0
        for h in range(args.hands):
            seed = args.seed + h
            record, seat, slips = ladder_hand(who, seed)
            played = replay(record, seat)
            for point in played.points:
                e = judge(point, seed_of(record, seat, point.index), budget)
                label = e["label"] or "none"
                labels[label] += 1
                lost += e["loss"]
                if e["label"] is None:
                    continue
                by_slip[(slips.get(point.index, "none"), label)] += 1
                by_shape[(shape(e), label)] += 1
            print(f"{who}: hand {h + 1}/{args.hands} reviewed; {load()}", flush=True)
        total = sum(labels.values())
        print(
            f"\n{who} vs normal, {args.hands} hands (seed {args.seed}), {total} decisions"
            f" (samples {budget.samples}), {lost / max(1, args.hands):.1f} points lost per"
            f" hand; {load()}"
        )
        print("  per label: " + ", ".join(f"{k} {labels[k]}" for k in LABELS))
        for title, table in (("by slip", by_slip), ("by kind of move", by_shape)):
            print(f"  labelled decisions {title}:")
            for kind in sorted({k for k, _ in table}):
                row = ", ".join(f"{lab} {table[(kind, lab)]}" for lab in LABELS[1:])
                print(f"    {kind:16} {row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
