"""Think time per move of each rung of the computer ladder (`bots/ladder.py`).

Each rung plays seeded hands against normal (the arena's deals, both seats), and
every choice it makes is timed, wall and CPU, in this one process (as one worker
of the server's pool). A move at a table takes the longer of its think time and
the bot delay (`bot_delay_seconds`, 0.8 s: the computer thinks during it,
`tables/computer.py`), so the table shows both: the think time, and the move's
time under the delay. Prints mean and p95 per rung with the load average.

    python -m benchmarks.bench_ladder_think                    # 6 deals a rung
    python -m benchmarks.bench_ladder_think --deals 20 --seed 1820000 --delay 0.8

The searching rungs count their budget in playouts, so a busy machine changes the
times, not the moves: read the figures beside the load average printed with them.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from hollywood_gin.bots import Bot
from hollywood_gin.bots.arena import deal_deck
from hollywood_gin.bots.ladder import LADDER
from hollywood_gin.engine.actions import MATCH_KINDS
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options


def timed_hands(rung: str, deals: int, seed: int) -> tuple[list[float], list[float]]:
    """(wall, CPU) seconds of each choice of `rung` over `deals` deals, both seats."""
    wall: list[float] = []
    cpu: list[float] = []
    for d in range(seed, seed + deals):
        for mine in (0, 1):
            match = Match(Options(), rng=random.Random(d), deck_orders=[deal_deck(d)])
            match.start()
            bots: list[Bot] = [Bot("normal", random.Random(d)), Bot("normal", random.Random(d))]
            bots[mine] = next(p for p in LADDER if p.id == rung).bot(random.Random(d + 1))
            for _ in range(400):
                hand = match.hand
                if hand is None or hand.phase == "over":
                    break
                for s in (0, 1):
                    bots[s].observe(match.view(s))
                seat = next((s for s in (0, 1) if match.playable(s)), None)
                if seat is None:
                    break
                view = match.view(seat)
                legal = [a for a in view.legal if a.kind not in MATCH_KINDS]
                if seat == mine and len(legal) > 1:
                    began, began_cpu = time.perf_counter(), time.process_time()
                    action = bots[seat].choose(view)
                    wall.append(time.perf_counter() - began)
                    cpu.append(time.process_time() - began_cpu)
                else:
                    action = bots[seat].choose(view)
                match.apply(seat, action)
    return wall, cpu


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1820000)
    parser.add_argument("--delay", type=float, default=0.8, help="the bot delay, seconds")
    parser.add_argument("--rungs", default=",".join(p.id for p in LADDER))
    args = parser.parse_args(argv)
    print(f"{args.deals} deals a rung (both seats) against normal; delay {args.delay} s")
    print(
        f"{'rung':9} {'choices':>7}  {'think mean':>10} {'p95':>7} {'CPU mean':>9} {'p95':>7}"
        f"  {'move mean':>9} {'p95':>7}   load average"
    )
    for rung in args.rungs.split(","):
        wall, cpu = timed_hands(rung, args.deals, args.seed)
        moves = [max(args.delay, t) for t in wall]
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        print(
            f"{rung:9} {len(wall):7d}"
            f"  {statistics.fmean(wall) * 1000:8.0f}ms {p95(wall) * 1000:5.0f}ms"
            f" {statistics.fmean(cpu) * 1000:7.0f}ms {p95(cpu) * 1000:5.0f}ms"
            f"  {statistics.fmean(moves):8.2f}s {p95(moves):6.2f}s   {load}"
        )


if __name__ == "__main__":
    main()
