"""Computer opponent strength and speed: duplicate deals through the real engine.

Each deal (a seeded deck order, dealer seat 0) is played twice with the two
bots in swapped seats, so both get the same cards and luck cancels. Prints,
per pairing: hands won (of the hands not drawn) with a 95% Wilson interval,
the share of all points with a 95% bootstrap interval over deals, points per
hand, and thinking time per move (mean, max).

    python benchmarks/bench_bots.py                       # 1000 deals = 2000 hands each
    python benchmarks/bench_bots.py --deals 200 --hard-deals 100 --hard-samples 40
    python benchmarks/bench_bots.py --pairs hard-normal --hard-seconds 0.4
    python benchmarks/bench_bots.py --jobs 2       # the deals split over two processes

The hard bot at its real budget (0.4 s a move) needs hours for 2000 hands on
a shared 2-core machine; `--hard-samples N` with `--hard-seconds 0` gives it a
fixed sample budget instead (deterministic, and said so in the table).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.bots import Bot, Budget
from app.bots.arena import Player, RandomPlayer, TooLong, play_hand
from app.engine.cards import full_deck
from app.engine.match import Match, Options


class Timed:
    """A player whose `choose` calls are timed (only real choices: >1 legal entry)."""

    def __init__(self, inner: Player, times: list[float]) -> None:
        self.inner = inner
        self.times = times

    def observe(self, view: Mapping[str, Any]) -> None:
        self.inner.observe(view)

    def choose(self, view: Mapping[str, Any]) -> dict[str, Any]:
        start = time.perf_counter()
        action = self.inner.choose(view)
        if len(view["legal"]) > 1:
            self.times.append(time.perf_counter() - start)
        return action


@dataclass
class Tally:
    hands: int = 0
    draws: int = 0
    stalled: int = 0  # `hand` scoring: neither side can ever knock (counted as draws)
    wins: list[int] = field(default_factory=lambda: [0, 0])
    points_by_deal: list[tuple[int, int]] = field(default_factory=list)
    times: list[list[float]] = field(default_factory=lambda: [[], []])


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return (0.0, 0.0)
    z = 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def share_interval(by_deal: list[tuple[int, int]], rng: random.Random) -> tuple[float, float]:
    """95% bootstrap interval of A's share of all points, resampling deals."""
    shares = []
    n = len(by_deal)
    for _ in range(1000):
        a = b = 0
        for _ in range(n):
            x, y = by_deal[rng.randrange(n)]
            a += x
            b += y
        shares.append(a / (a + b) if a + b else 0.5)
    shares.sort()
    return shares[25], shares[974]


def duel(
    make: tuple[Callable[[int], Player], Callable[[int], Player]],
    deals: int,
    options: Options,
    seed: int,
) -> Tally:
    tally = Tally()
    for d in range(seed, seed + deals):
        deck = full_deck()
        random.Random(d).shuffle(deck)
        points = [0, 0]
        for swap in (0, 1):
            a = Timed(make[0](d), tally.times[0])
            b = Timed(make[1](d), tally.times[1])
            players = (b, a) if swap else (a, b)
            match = Match(options, rng=random.Random(d), deck_orders=[deck], first_dealer=0)
            match.start()
            tally.hands += 1
            try:
                outcome = play_hand(match, players, max_actions=1000)
            except TooLong:
                tally.stalled += 1
                tally.draws += 1
                continue
            if outcome.winner is None:
                tally.draws += 1
                continue
            who = outcome.winner ^ swap  # 0: bot A, 1: bot B
            tally.wins[who] += 1
            points[who] += outcome.points
        tally.points_by_deal.append((points[0], points[1]))
        if (d - seed + 1) % 100 == 0:
            print(f"  {d - seed + 1} deals", file=sys.stderr, flush=True)
    return tally


def maker(name: str, budget: Budget) -> Callable[[int], Player]:
    if name == "random":
        return lambda d: RandomPlayer(random.Random(d))
    return lambda d: Bot(name, random.Random(d * 7919 + 1), budget=budget)


def duel_part(job: tuple[str, str, int, int, Options, Budget]) -> Tally:
    """One process's share of a pairing (`--jobs`): deals `seed`..`seed + deals - 1`."""
    a, b, deals, seed, options, budget = job
    return duel((maker(a, budget), maker(b, budget)), deals, options, seed)


def merged(parts: list[Tally]) -> Tally:
    t = Tally()
    for p in parts:
        t.hands += p.hands
        t.draws += p.draws
        t.stalled += p.stalled
        t.wins = [t.wins[0] + p.wins[0], t.wins[1] + p.wins[1]]
        t.points_by_deal += p.points_by_deal
        t.times = [t.times[0] + p.times[0], t.times[1] + p.times[1]]
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=1000, help="deals per pairing (2 hands each)")
    ap.add_argument("--hard-deals", type=int, default=None, help="deals for pairings with hard")
    ap.add_argument("--hard-samples", type=int, default=400)
    ap.add_argument("--hard-seconds", type=float, default=0.4, help="0: no time limit")
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--scoring", default="hand")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pairs", default="easy-random,normal-easy,hard-normal")
    ap.add_argument(
        "--jobs", type=int, default=1, help="processes, each playing a slice of the deals"
    )
    args = ap.parse_args()
    options = Options(args.rules, args.scoring, 100)
    budget = Budget(samples=args.hard_samples, seconds=args.hard_seconds or None)

    print(
        f"# rules={args.rules} scoring={args.scoring}; hard budget: "
        f"{args.hard_samples} deals per move"
        + (f", at most {args.hard_seconds} s" if args.hard_seconds else ", no time limit")
    )
    header = (
        "| A vs B | hands | draws (stalled) | A wins (of decided) | 95% CI "
        "| A points share | 95% CI | points/hand A / B "
        "| think ms A mean/max | think ms B mean/max |"
    )
    print(header)
    print("|---" * 10 + "|")
    rng = random.Random(12345)
    for pair in args.pairs.split(","):
        a, b = pair.split("-")
        deals = args.hard_deals if "hard" in (a, b) and args.hard_deals else args.deals
        start = time.perf_counter()
        if args.jobs > 1:
            cuts = [deals * k // args.jobs for k in range(args.jobs + 1)]
            jobs = [
                (a, b, cuts[k + 1] - cuts[k], args.seed + cuts[k], options, budget)
                for k in range(args.jobs)
            ]
            with multiprocessing.Pool(args.jobs) as pool:
                t = merged(pool.map(duel_part, jobs))
        else:
            t = duel((maker(a, budget), maker(b, budget)), deals, options, args.seed)
        decided = t.wins[0] + t.wins[1]
        lo, hi = wilson(t.wins[0], decided)
        pa = sum(x for x, _ in t.points_by_deal)
        pb = sum(y for _, y in t.points_by_deal)
        slo, shi = share_interval(t.points_by_deal, rng)

        def ms(times: list[float]) -> str:
            if not times:
                return "-"
            return f"{1000 * sum(times) / len(times):.2f} / {1000 * max(times):.1f}"

        print(
            f"| {a} vs {b} | {t.hands} | {t.draws} ({t.stalled}) "
            f"| {t.wins[0] / max(1, decided):.1%} "
            f"| {lo:.1%}–{hi:.1%} | {pa / max(1, pa + pb):.1%} | {slo:.1%}–{shi:.1%} "
            f"| {pa / t.hands:.1f} / {pb / t.hands:.1f} | {ms(t.times[0])} | {ms(t.times[1])} |",
            flush=True,
        )
        print(f"<!-- {pair}: {time.perf_counter() - start:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()
