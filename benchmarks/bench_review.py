"""The coach's cost (issue 24): time per hand review, in one process, as a worker of
the computer's pool computes it.

Plays `--hands` seeded hands (the normal computer on both seats, through the engine),
then reviews each seat's decisions with the coach's budget (`--samples`, the server's
`HOLLYWOOD_GIN_REVIEW_SAMPLES`, default 800) and prints, per seat-hand (one review):
decisions, playouts, CPU seconds (this process) and wall seconds, mean and max; and how
many labels each review gave. Run it under nice on a shared machine and state the load:

    nice -n 19 python benchmarks/bench_review.py --hands 10
    nice -n 19 python benchmarks/bench_review.py --hands 10 --samples 200
    nice -n 19 python benchmarks/bench_review.py --hands 4 --rollout normal

The budget is counted in playouts (deals per decision, each playing out every
candidate), so the reviews themselves are the same on any machine; only the
seconds depend on it.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hollywood_gin.bots import Bot
from hollywood_gin.bots.coach import (
    CoachBudget,
    assemble,
    replay,
    seed_of,
)
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from tests.bots.coach_hands import judge


def play(seed: int) -> dict[str, object]:
    """One hand of the normal computer against itself; its record."""
    match = Match(Options(), rng=random.Random(seed), first_dealer=seed % 2)
    match.start()
    bots = [Bot("normal", random.Random(seed * 2)), Bot("normal", random.Random(seed * 2 + 1))]
    while match.status == "playing":
        for s in (0, 1):
            bots[s].observe(match.view(s))
        seat = next(s for s in (0, 1) if match.legal(s))
        match.apply(seat, bots[seat].choose(match.view(seat)))
    record = match.hand_record(1)
    assert record is not None
    return record


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--hands", type=int, default=10)
    parser.add_argument("--samples", type=int, default=CoachBudget().samples)
    parser.add_argument("--rollout", choices=("lean", "normal"), default="lean")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    budget = CoachBudget(samples=args.samples, rollout=args.rollout)
    rows = []
    for h in range(args.hands):
        record = play(args.seed + h)
        for seat in (0, 1):
            wall, cpu = time.perf_counter(), time.process_time()
            played = replay(record, seat)
            counts: dict[str, int] = {}
            decisions = [
                judge(point, seed_of(record, seat, point.index), budget, counts)
                for point in played.points
            ]
            review = assemble(record, seat, played, decisions, budget)
            cpu = time.process_time() - cpu
            wall = time.perf_counter() - wall
            playouts = counts.get("playouts", 0)
            rows.append((len(decisions), playouts, cpu, wall, review["summary"]))
            s = review["summary"]
            print(
                f"hand {h + 1} seat {seat}: {len(decisions):2d} decisions, {playouts:6d} playouts,"
                f" {cpu:5.1f} s CPU, {wall:5.1f} s wall;"
                f" ?! {s['inaccuracies']} ? {s['mistakes']} ?? {s['blunders']}",
                flush=True,
            )
    cpus = [r[2] for r in rows]
    walls = [r[3] for r in rows]
    plays = [r[1] for r in rows]
    load = os.getloadavg()
    print(
        f"\n{len(rows)} reviews (samples {budget.samples}, rollout {budget.rollout}):"
        f" CPU s per review mean {statistics.mean(cpus):.1f} max {max(cpus):.1f};"
        f" wall mean {statistics.mean(walls):.1f} max {max(walls):.1f};"
        f" playouts mean {statistics.mean(plays):.0f};"
        f" {1e6 * sum(cpus) / max(1, sum(plays)):.0f} µs CPU per playout;"
        f" load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
