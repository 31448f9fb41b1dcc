"""The coach's cost (issues 24 and 40): seconds per hand review, and the pool's.

Plays `--hands` seeded hands (the normal computer on both seats, through the engine),
then reviews each seat's decisions with the coach's budget (`--samples`, the server's
`HOLLYWOOD_GIN_REVIEW_SAMPLES`, default 800) and prints, per seat-hand (one review):
decisions, playouts, CPU seconds (this process, one core), wall seconds, CPU seconds
per decision and the load average; then the means, and the CPU seconds a 24-decision
hand takes at that rate (the issue's goal: at most 5 s on one core).

`--pool N` computes the same reviews as the server does (`tables/reviews.Reviews`,
N worker processes) and prints each review's wall seconds alone, then two reviews of
different tables side by side (each's wall seconds).

Run it under nice on a shared machine and state the load:

    nice -n 19 python benchmarks/bench_review.py --hands 10
    nice -n 19 python benchmarks/bench_review.py --hands 4 --pool 2
    nice -n 19 python benchmarks/bench_review.py --hands 4 --rollout normal

The budget is counted in playouts (deals per decision, each playing out every
candidate), so the reviews themselves are the same on any machine; only the
seconds depend on it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hollywood_gin.bots import Bot
from hollywood_gin.bots.coach import (
    COACH,
    CoachPolicy,
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


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


class _Shelf:
    """A store of reviews in memory (the pool's figures do not include SQLite)."""

    def __init__(self) -> None:
        self.kept: dict[tuple[str, int, int], object] = {}

    async def review(self, table_id: str, number: int, seat: int) -> object:
        return self.kept.get((table_id, number, seat))

    async def save_review(self, table_id: str, number: int, seat: int, review: object) -> None:
        self.kept[(table_id, number, seat)] = review


async def _through_pool(records: list[dict[str, object]], budget: CoachPolicy, n: int) -> None:
    """Each review through the server's pool alone, then two side by side."""
    from hollywood_gin.tables.reviews import Reviews

    reviews = Reviews(_Shelf(), budget=budget, processes=n)  # type: ignore[arg-type]

    async def one(table: str, record: dict[str, object], seat: int) -> float:
        started = time.perf_counter()
        while not isinstance(
            await reviews.review(table, record, seat, address=table),
            dict,  # type: ignore[arg-type]
        ):
            await asyncio.sleep(0.05)
        return time.perf_counter() - started

    try:
        await one("warm", records[0], 0)  # the pool's processes start
        alone = []
        for h, record in enumerate(records):
            for seat in (0, 1):
                wall = await one(f"alone{h}", record, seat)
                alone.append(wall)
                print(f"pool {n}: hand {h + 1} seat {seat} alone: {wall:5.1f} s wall; {load()}")
        pairs = []
        for h, record in enumerate(records):
            walls = await asyncio.gather(one(f"a{h}", record, 0), one(f"b{h}", record, 1))
            pairs += walls
            print(
                f"pool {n}: hand {h + 1} both seats side by side (two tables):"
                f" {walls[0]:5.1f} s and {walls[1]:5.1f} s wall; {load()}"
            )
        print(
            f"pool {n}: alone mean {statistics.mean(alone):.1f} s, side by side mean"
            f" {statistics.mean(pairs):.1f} s per review; {load()}"
        )
    finally:
        await reviews.close()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--hands", type=int, default=10)
    parser.add_argument("--samples", type=int, default=CoachPolicy().samples)
    parser.add_argument("--rollout", choices=("lean", "normal"), default="lean")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pool", type=int, default=0, help="also through N worker processes")
    parser.add_argument("--labels-out", help="write each decision's label to this JSON file")
    parser.add_argument(
        "--against", help="count the decisions labelled as in this --labels-out file"
    )
    args = parser.parse_args()
    budget = replace(COACH, samples=args.samples, rollout=args.rollout)
    labels: dict[str, str | None] = {}
    rows = []
    records = []
    for h in range(args.hands):
        record = play(args.seed + h)
        records.append(record)
        for seat in (0, 1):
            wall, cpu = time.perf_counter(), time.process_time()
            played = replay(record, seat)
            counts: dict[str, int] = {}
            decisions = [
                judge(point, seed_of(record, seat, point.index), budget, counts)
                for point in played.points
            ]
            review = assemble(record, seat, played, decisions, budget)
            for d in decisions:
                labels[f"{args.seed + h}/{seat}/{d['index']}"] = d["label"]
            cpu = time.process_time() - cpu
            wall = time.perf_counter() - wall
            playouts = counts.get("playouts", 0)
            rows.append((len(decisions), playouts, cpu, wall, review["summary"]))
            s = review["summary"]
            print(
                f"hand {h + 1} seat {seat}: {len(decisions):2d} decisions, {playouts:6d} playouts,"
                f" {cpu:5.1f} s CPU, {wall:5.1f} s wall,"
                f" {cpu / max(1, len(decisions)):.2f} s CPU per decision;"
                f" ?! {s['inaccuracies']} ? {s['mistakes']} ?? {s['blunders']}; {load()}",
                flush=True,
            )
    cpus = [r[2] for r in rows]
    walls = [r[3] for r in rows]
    plays = [r[1] for r in rows]
    per_decision = sum(cpus) / max(1, sum(r[0] for r in rows))
    print(
        f"\n{len(rows)} reviews (samples {budget.samples}, rollout {budget.rollout}):"
        f" CPU s per review mean {statistics.mean(cpus):.1f} max {max(cpus):.1f};"
        f" wall mean {statistics.mean(walls):.1f} max {max(walls):.1f};"
        f" decisions mean {statistics.mean(r[0] for r in rows):.1f};"
        f" playouts mean {statistics.mean(plays):.0f};"
        f" {1e6 * sum(cpus) / max(1, sum(plays)):.0f} µs CPU per playout;"
        f" {per_decision:.2f} s CPU per decision, so {24 * per_decision:.1f} s for a"
        f" 24-decision hand on one core;"
        f" {sum(plays) / max(1, sum(r[0] for r in rows)):.0f} playouts per decision; {load()}"
    )
    if args.labels_out:
        Path(args.labels_out).write_text(json.dumps(labels, indent=0, sort_keys=True))
    if args.against:
        before = json.loads(Path(args.against).read_text())
        shared = [k for k in labels if k in before]
        same = sum(labels[k] == before[k] for k in shared)
        print(f"labels as in {args.against}: {same} of {len(shared)} decisions")
        for k in shared:
            if labels[k] != before[k]:
                print(f"  {k}: {before[k]} then, {labels[k]} now")
    if args.pool:
        asyncio.run(_through_pool(records, budget, args.pool))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
