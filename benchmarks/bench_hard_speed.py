"""How long hard thinks per move: wall time, CPU time and playouts per second.

    python benchmarks/bench_hard_speed.py --deals 20 --seed 910000 --opponent eager

Hard (its default `Budget`, or `--playouts N`) plays duplicate deals against a pool
style through `Match`; every real choice (more than one legal action) is timed by
the wall clock and by the process's CPU clock. On a shared machine the wall time
includes waiting for a core; the CPU time is what the move costs a quiet core, so
both are printed, with the load average at the start and the end.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bot_pool import STYLES
from hollywood_gin.bots import Bot, Budget
from hollywood_gin.bots.arena import play_hand
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import full_deck
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.engine.views import View


class Clocked:
    """Hard, with each real choice's wall and CPU time and playouts recorded."""

    def __init__(self, bot: Bot, rows: list[tuple[float, float, int, str]]) -> None:
        self.bot = bot
        self.rows = rows

    def observe(self, view: View) -> None:
        self.bot.observe(view)

    def choose(self, view: View) -> Action:
        self.bot.last_search.playouts = 0
        wall, cpu = time.perf_counter(), time.process_time()
        action = self.bot.choose(view)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if len(view.legal) > 1:
            phase = view.hand.phase if view.hand else "-"
            self.rows.append((wall, cpu, self.bot.last_search.playouts, phase))
        return action


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--seed", type=int, default=910000)
    ap.add_argument("--opponent", default="eager")
    ap.add_argument("--scoring", default="game")
    ap.add_argument("--playouts", type=int, default=Budget().playouts)
    ap.add_argument(
        "--hard-budget", default="", help="other Budget fields, e.g. looks=2,look_takes=2"
    )
    args = ap.parse_args()
    budget = Budget(playouts=args.playouts)
    for item in filter(None, args.hard_budget.split(",")):
        name, value = item.split("=")
        kind = type(getattr(budget, name))
        budget = dataclasses.replace(budget, **{name: kind(float(value))})
    rows: list[tuple[float, float, int, str]] = []
    load0 = os.getloadavg()
    for d in range(args.seed, args.seed + args.deals):
        deck = full_deck()
        random.Random(d).shuffle(deck)
        for swap in (0, 1):
            hard = Clocked(Bot("hard", random.Random(d), budget=budget), rows)
            other = STYLES[args.opponent](random.Random(d + 1))
            players = (other, hard) if swap else (hard, other)
            match = Match(
                Options("standard", args.scoring, 100),
                rng=random.Random(d),
                deck_orders=[deck],
                first_dealer=0,
            )
            match.start()
            for p in players:
                bind = getattr(p, "bind", None)
                if bind is not None:
                    bind(match)
            play_hand(match, players, max_actions=1000)  # type: ignore[arg-type]
    load1 = os.getloadavg()
    searched = [r for r in rows if r[2] > 0]
    cpu = sum(r[1] for r in searched)

    def ms(values: list[float]) -> str:
        return f"{1000 * sum(values) / len(values):.0f} / {1000 * max(values):.0f}"

    print(
        f"# hard, {args.playouts} playouts a decision {args.hard_budget}, "
        f"vs {args.opponent}, {args.deals} deals"
    )
    print(f"# load average {load0[0]:.1f} at the start, {load1[0]:.1f} at the end (1 min)")
    print("| moves (real choices) | searched | wall ms mean / max | CPU ms mean / max |")
    print("|---|---|---|---|")
    walls, cpus = [r[0] for r in rows], [r[1] for r in rows]
    print(f"| {len(rows)} | {len(searched)} | {ms(walls)} | {ms(cpus)} |")
    if searched:
        rate = sum(r[2] for r in searched) / cpu
        print(f"playouts per CPU second (searched moves, search and all): {rate:.0f}")
        for phase in sorted({r[3] for r in searched}):
            some = [r[1] for r in searched if r[3] == phase]
            print(f"  {phase}: {len(some)} searched, CPU ms mean / max {ms(some)}")


if __name__ == "__main__":
    main()
