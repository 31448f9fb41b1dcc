"""Duplicate duels with a record of every hand's end, and the paired statistics of
the strength measurements: what `benchmarks/bench_bots.py` measures with, kept here so
that its tests (`tests/bots/test_bench_breakdown.py`) need nothing of `benchmarks/`.

Each deal (a seeded deck order, dealer seat 0) is played twice with the two bots in
swapped seats, so both get the same cards and luck cancels.
"""

from __future__ import annotations

import dataclasses
import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hollywood_gin.bots import Budget
from hollywood_gin.bots.arena import Player, TooLong, play_hand
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import full_deck
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.engine.views import View


class Timed:
    """A player whose `choose` calls are timed (only real choices: >1 legal entry)."""

    def __init__(self, inner: Player, times: list[float]) -> None:
        self.inner = inner
        self.times = times

    def observe(self, view: View) -> None:
        self.inner.observe(view)

    def choose(self, view: View) -> Action:
        start = time.perf_counter()
        action = self.inner.choose(view)
        if len(view.legal) > 1:
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
    knocks: list[int] = field(default_factory=lambda: [0, 0])  # gin included
    undercuts: list[int] = field(default_factory=lambda: [0, 0])  # won as the defender
    deals: list[int] = field(default_factory=list)  # the seed of each entry of points_by_deal
    # one entry a hand (`--report --breakdown`): [deal, A's seat, winner (0: A, 1: B, None),
    # kind, points, knocker (0: A, 1: B, None), the knocker's deadwood, the defender's
    # deadwood before and after lay-offs, stock cards left, actions]
    ends: list[list[Any]] = field(default_factory=list)


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
    table: bool = False,
) -> Tally:
    """`table`: the same two bots play all the deals, as at one table (one pair
    of bots for each seating), so what they remember of earlier hands counts;
    otherwise new bots for every hand."""
    tally = Tally()
    sitting = [(make[0](seed), make[1](seed)) for _ in (0, 1)]
    for d in range(seed, seed + deals):
        deck = full_deck()
        random.Random(d).shuffle(deck)
        points = [0, 0]
        for swap in (0, 1):
            a_bot, b_bot = sitting[swap] if table else (make[0](d), make[1](d))
            a = Timed(a_bot, tally.times[0])
            b = Timed(b_bot, tally.times[1])
            players = (b, a) if swap else (a, b)
            match = Match(options, rng=random.Random(d), deck_orders=[deck], first_dealer=0)
            match.start()
            for bot in (a_bot, b_bot):
                bind = getattr(bot, "bind", None)
                if bind is not None:
                    bind(match)  # OpenSpiel's bot keeps a shadow state of the deal
            tally.hands += 1
            try:
                outcome = play_hand(match, players, max_actions=1000)
            except TooLong:
                tally.stalled += 1
                tally.draws += 1
                continue
            tally.ends.append(hand_end(d, swap, outcome, match))
            if outcome.winner is None:
                tally.draws += 1
                continue
            who = outcome.winner ^ swap  # 0: bot A, 1: bot B
            tally.wins[who] += 1
            points[who] += outcome.points
            if outcome.kind == "undercut":
                tally.undercuts[who] += 1
                tally.knocks[1 - who] += 1
            else:
                tally.knocks[who] += 1
        tally.points_by_deal.append((points[0], points[1]))
        tally.deals.append(d)
        if (d - seed + 1) % 100 == 0:
            print(f"  {d - seed + 1} deals", file=sys.stderr, flush=True)
    return tally


def hand_end(deal: int, swap: int, outcome: Any, match: Match) -> list[Any]:
    """How one hand ended, seen from bot A (see `Tally.ends`)."""
    result = outcome.result
    knocker = None if result.knocker is None else result.knocker ^ swap
    winner = None if outcome.winner is None else outcome.winner ^ swap
    kd = dd = db = None
    if result.knocker is not None:
        kd = result.seats[result.knocker].deadwood_value
        defender = result.seats[1 - result.knocker]
        dd = defender.deadwood_value
        db = dd if defender.before_layoffs is None else defender.before_layoffs
    stock = len(match.hand.stock) if match.hand is not None else None
    return [
        deal,
        swap,
        winner,
        outcome.kind,
        outcome.points,
        knocker,
        kd,
        db,
        dd,
        stock,
        outcome.actions,
    ]


def share(by_deal: list[tuple[int, int]]) -> float:
    a = sum(x for x, _ in by_deal)
    b = sum(y for _, y in by_deal)
    return a / (a + b) if a + b else 0.5


def paired_interval(
    first: list[tuple[int, int]], second: list[tuple[int, int]], rng: random.Random
) -> tuple[float, float, float]:
    """Share of `first` minus share of `second`, both on the same deals (entry k
    of each is deal k), with a 95% bootstrap interval resampling the deals."""
    n = len(first)
    diffs = []
    for _ in range(1000):
        picks = [rng.randrange(n) for _ in range(n)]
        diffs.append(share([first[k] for k in picks]) - share([second[k] for k in picks]))
    diffs.sort()
    return share(first) - share(second), diffs[25], diffs[974]


def pool_report(
    records: list[dict[str, Any]],
    pairs: list[tuple[str, str]],
    groups: list[list[str]] | None = None,
) -> None:
    """The table of every label against every style, then the paired differences
    (`pairs`: (better, worse) labels) on the deals both played, per style and pooled
    over each of `groups` (styles whose deals are resampled together)."""
    rng = random.Random(12345)
    print(
        "| A vs style | hands | A points share | 95% CI | A knocks / undercuts "
        "| B knocks / undercuts | think ms A mean/max |"
    )
    print("|---" * 7 + "|")
    for r in records:
        by_deal = [(x, y) for x, y in r["points"]]
        lo, hi = share_interval(by_deal, rng)
        h = max(1, r["hands"])
        print(
            f"| {r['label']} vs {r['b']} | {r['hands']} | {share(by_deal):.1%} "
            f"| {lo:.1%}–{hi:.1%} | {r['knocks'][0] / h:.0%} / {r['undercuts'][0] / h:.0%} "
            f"| {r['knocks'][1] / h:.0%} / {r['undercuts'][1] / h:.0%} | {r['think_ms'][0]} |"
        )
    if not pairs:
        return
    print()
    print("| paired: A − B, same deals | style | hands | share A − share B | 95% CI |")
    print("|---" * 5 + "|")
    for better, worse in pairs:
        for r in records:
            if r["label"] != better:
                continue
            for q in records:
                if q["label"] != worse or q["b"] != r["b"]:
                    continue
                mine = dict(zip(r["deals"], r["points"], strict=True))
                theirs = dict(zip(q["deals"], q["points"], strict=True))
                common = sorted(set(mine) & set(theirs))
                if not common:
                    continue
                first = [(mine[d][0], mine[d][1]) for d in common]
                second = [(theirs[d][0], theirs[d][1]) for d in common]
                diff, lo, hi = paired_interval(first, second, rng)
                print(
                    f"| {better} − {worse} | {r['b']} | {2 * len(common)} "
                    f"| {100 * diff:+.1f} | {100 * lo:+.1f} to {100 * hi:+.1f} |"
                )
        for group in groups or []:
            first, second = [], []
            for style in group:
                mine = _by_deal(records, better, style)
                theirs = _by_deal(records, worse, style)
                for d in sorted(set(mine) & set(theirs)):
                    first.append(mine[d])
                    second.append(theirs[d])
            if first:
                diff, lo, hi = paired_interval(first, second, rng)
                print(
                    f"| {better} − {worse} | {'+'.join(group)} | {2 * len(first)} "
                    f"| {100 * diff:+.1f} | {100 * lo:+.1f} to {100 * hi:+.1f} |"
                )


def _by_deal(records: list[dict[str, Any]], label: str, style: str) -> dict[int, tuple[int, int]]:
    """One label's points (A, B) by deal against one style."""
    for r in records:
        if r["label"] == label and r["b"] == style:
            return {d: (p[0], p[1]) for d, p in zip(r["deals"], r["points"], strict=True)}
    return {}


def budget_field(budget: Budget, item: str) -> Budget:
    """`budget` with one field set from `name=value` (`styles=normal:0.4/eager:0.6`)."""
    name, value = item.split("=")
    if name == "styles":
        pairs = (part.split(":") for part in value.split("/"))
        return dataclasses.replace(budget, styles=tuple((n, float(x)) for n, x in pairs))
    current = getattr(budget, name)
    kind = float if current is None else type(current)  # None: an optional number
    return dataclasses.replace(budget, **{name: kind(float(value))})
