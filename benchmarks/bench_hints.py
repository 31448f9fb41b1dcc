"""How long a hint takes: the coach's hint (`bots/hints.py`) over many positions.

Plays seeded hands (normal against normal, the arena's deals), and at every
`--every`-th decision of either seat asks for the hint that seat would get, from
that seat's memory of its own views, in this one process (one core, as a worker
of the server's pool). Prints the wall and the CPU time of each kind of decision
and over all (mean, p95, max) with the load average, and the hint budget.

    python -m benchmarks.bench_hints                       # 40 deals, about 130 hints
    python -m benchmarks.bench_hints --deals 100 --seed 1800000 --every 2
    nice -n 10 python -m benchmarks.bench_hints --samples 400   # another budget

The budget is counted in playouts, so a busy machine changes the times, not the
hints: compare the figures with the load average printed beside them (2 s is the
promise; docs/bots.md "Hint latency").
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from dataclasses import replace

from hollywood_gin.bots import Bot
from hollywood_gin.bots.arena import deal_deck
from hollywood_gin.bots.hints import HINT_BUDGET, hint, point_now
from hollywood_gin.bots.knowledge import BotMemory
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options


def positions(deals: int, seed: int, every: int) -> list[tuple[str, object, int]]:
    """(phase, point, seed) of every `every`-th decision of seeded normal-vs-normal hands."""
    out: list[tuple[str, object, int]] = []
    count = 0
    for d in range(seed, seed + deals):
        match = Match(Options(), rng=random.Random(d), deck_orders=[deal_deck(d)], first_dealer=0)
        match.start()
        bots = [Bot("normal", random.Random(d * 2 + s)) for s in (0, 1)]
        memories = [BotMemory(), BotMemory()]
        for _ in range(400):
            hand = match.hand
            if hand is None or hand.phase == "over":
                break
            for s in (0, 1):
                view = match.view(s)
                bots[s].observe(view)
                memories[s].observe(view)
            seat = next((s for s in (0, 1) if match.playable(s)), None)
            if seat is None:
                break
            view = match.view(seat)
            seen = memories[seat].seen(view)
            point = None if seen is None else point_now(seen, hand.phase, view.legal)
            if point is not None:
                count += 1
                if count % every == 0:
                    out.append((hand.phase, point, d * 1000 + count))
            match.apply(seat, bots[seat].choose(view))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1800000)
    parser.add_argument("--every", type=int, default=4, help="time every n-th decision")
    parser.add_argument("--samples", type=int, default=HINT_BUDGET.samples)
    args = parser.parse_args(argv)
    budget = replace(HINT_BUDGET, samples=args.samples, batch=args.samples, least=args.samples)
    found = positions(args.deals, args.seed, args.every)
    by_phase: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    load_before = os.getloadavg()
    for phase, point, seed in found:
        began, began_cpu = time.perf_counter(), time.process_time()
        hint(point, seed, budget)  # type: ignore[arg-type]
        by_phase.setdefault(phase, []).append(time.perf_counter() - began)
        cpu.setdefault(phase, []).append(time.process_time() - began_cpu)
    load_after = os.getloadavg()
    every = [t for times in by_phase.values() for t in times]
    every_cpu = [t for times in cpu.values() for t in times]

    def row(name: str, times: list[float]) -> str:
        times = sorted(times)
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        return (
            f"{name:14} {len(times):5d} hints  mean {statistics.fmean(times) * 1000:6.0f} ms"
            f"  p95 {p95 * 1000:6.0f} ms  max {times[-1] * 1000:6.0f} ms"
        )

    print(f"hint budget: {budget.samples} deals per hint, every candidate on each")
    print("wall time:")
    for phase, times in sorted(by_phase.items()):
        print(row(phase, times))
    print(row("all", every))
    print("CPU time (what one idle core would take):")
    for phase, times in sorted(cpu.items()):
        print(row(phase, times))
    print(row("all", every_cpu))
    before = " ".join(f"{x:.2f}" for x in load_before)
    after = " ".join(f"{x:.2f}" for x in load_after)
    print(f"load average before {before}, after {after} ({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
