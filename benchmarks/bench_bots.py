"""Computer opponent strength and speed: duplicate deals through the real engine.

Each deal (a seeded deck order, dealer seat 0) is played twice with the two
bots in swapped seats, so both get the same cards and luck cancels. Prints,
per pairing: hands won (of the hands not drawn) with a 95% Wilson interval,
the share of all points with a 95% bootstrap interval over deals, points per
hand, and thinking time per move (mean, max).

    python benchmarks/bench_bots.py                       # 1000 deals = 2000 hands each
    python benchmarks/bench_bots.py --deals 200 --hard-deals 100 --hard-playouts 120
    python benchmarks/bench_bots.py --pairs hard-normal --hard-seconds 0
    python benchmarks/bench_bots.py --jobs 2       # the deals split over two processes
    python benchmarks/bench_bots.py --pool --opponents openspiel,eager --scoring game

Hard's budget is a count of playouts per decision (`--hard-playouts`, default
`Budget().playouts`), so its moves do not depend on the machine's load;
`--hard-seconds 0` also lifts the safety cap in wall time, which a loaded shared
machine can reach (the figures in docs/bots.md are taken so). The `openspiel`
opponent (OpenSpiel's SimpleGinRummyBot, the `bench` extra) plays only walled
scorings (`--scoring game` or `hollywood`). The strengths `oracle` and
`oracle_dw` are hard with the opponent's real hand (or only its deadwood) shown
to its search: diagnostics of what better guessing could gain (`oracle.py`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bot_pool import POOL, STYLES
from hollywood_gin.bots import Bot, Budget
from hollywood_gin.bots.arena import Player, RandomPlayer, TooLong, play_hand
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


def maker(name: str, budget: Budget, *, pool: bool = False) -> Callable[[int], Player]:
    """Seat A's strength, or (`pool`) an opponent of `bot_pool.STYLES`."""
    if name == "random":
        return lambda d: RandomPlayer(random.Random(d))
    if name in ("oracle", "oracle_dw"):  # diagnostics: benchmarks/oracle.py
        from benchmarks.oracle import OracleHard

        kind = "hand" if name == "oracle" else "deadwood"
        return lambda d: OracleHard(random.Random(d * 7919 + 1), budget, kind)
    if pool:
        style = STYLES[name]
        return lambda d: style(random.Random(d * 7919 + 2))
    return lambda d: Bot(name, random.Random(d * 7919 + 1), budget=budget)


def duel_part(job: tuple[str, str, int, int, Options, Budget, bool, bool]) -> Tally:
    """One process's share of a pairing (`--jobs`): deals `seed`..`seed + deals - 1`."""
    a, b, deals, seed, options, budget, pool, table = job
    return duel((maker(a, budget), maker(b, budget, pool=pool)), deals, options, seed, table)


def merged(parts: list[Tally]) -> Tally:
    t = Tally()
    for p in parts:
        t.hands += p.hands
        t.draws += p.draws
        t.stalled += p.stalled
        t.wins = [t.wins[0] + p.wins[0], t.wins[1] + p.wins[1]]
        t.points_by_deal += p.points_by_deal
        t.times = [t.times[0] + p.times[0], t.times[1] + p.times[1]]
        t.knocks = [t.knocks[0] + p.knocks[0], t.knocks[1] + p.knocks[1]]
        t.undercuts = [t.undercuts[0] + p.undercuts[0], t.undercuts[1] + p.undercuts[1]]
        t.deals += p.deals
        t.ends += p.ends
    return t


def run(
    a: str,
    b: str,
    deals: int,
    seed: int,
    options: Options,
    budget: Budget,
    jobs: int,
    pool: bool,
    table: bool = False,
) -> Tally:
    """A (a strength) against B (a strength, or a pool style) on deals `seed`.. onward."""
    if jobs > 1:
        cuts = [deals * k // jobs for k in range(jobs + 1)]
        parts = [
            (a, b, cuts[k + 1] - cuts[k], seed + cuts[k], options, budget, pool, table)
            for k in range(jobs)
        ]
        with multiprocessing.Pool(jobs) as workers:
            return merged(workers.map(duel_part, parts))
    return duel((maker(a, budget), maker(b, budget, pool=pool)), deals, options, seed, table)


def ms(times: list[float]) -> str:
    if not times:
        return "-"
    return f"{1000 * sum(times) / len(times):.2f} / {1000 * max(times):.1f}"


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


# -- the pool: every strength against every style, saved and reported -----------------


def record(a: str, b: str, t: Tally, label: str, seconds: float) -> dict[str, Any]:
    return {
        "a": a,
        "b": b,
        "label": label or a,
        "hands": t.hands,
        "draws": t.draws,
        "wins": t.wins,
        "knocks": t.knocks,
        "undercuts": t.undercuts,
        "deals": t.deals,
        "points": t.points_by_deal,
        "think_ms": [ms(t.times[0]), ms(t.times[1])],
        "seconds": round(seconds),
        "ends": t.ends,
    }


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


def _mean(xs: list[float]) -> str:
    return f"{sum(xs) / len(xs):.1f}" if xs else "-"


def breakdown(records: list[dict[str, Any]]) -> None:
    """How the hands ended, from A's side (files saved with per-hand `ends`): the share
    of hands and the points per hand (of all hands) each way of ending brings A (+) or
    costs it (-), and the deadwood and stock behind the knocks."""
    ways = [
        ("A gin", lambda e: e[5] == 0 and e[3] == "gin"),
        ("A knock won", lambda e: e[5] == 0 and e[3] == "knock"),
        ("A undercut", lambda e: e[5] == 0 and e[3] == "undercut"),
        ("B gin", lambda e: e[5] == 1 and e[3] == "gin"),
        ("B knock won", lambda e: e[5] == 1 and e[3] == "knock"),
        ("B undercut", lambda e: e[5] == 1 and e[3] == "undercut"),
        ("draw", lambda e: e[2] is None),
    ]
    print("| A vs style | hands | " + " | ".join(f"{w}: % / pts" for w, _ in ways) + " |")
    print("|---" * (2 + len(ways)) + "|")
    for r in records:
        ends = r.get("ends") or []
        if not ends:
            continue
        n = len(ends)
        cells = []
        for _, test in ways:
            hit = [e for e in ends if test(e)]
            pts = sum(e[4] if e[2] == 0 else -e[4] for e in hit if e[2] is not None)
            cells.append(f"{len(hit) / n:.1%} / {pts / n:+.2f}")
        print(f"| {r['label']} vs {r['b']} | {n} | " + " | ".join(cells) + " |")
    print()
    print(
        "| A vs style | A knock deadwood | stock left at A's knocks | A's deadwood (before "
        "lay-offs) when B knocks | ... when B knock-wins | stock left at B's knocks "
        "| A undercut of A's knocks | A's points lost per B knock-win |"
    )
    print("|---" * 8 + "|")
    for r in records:
        ends = r.get("ends") or []
        if not ends:
            continue
        mine = [e for e in ends if e[5] == 0]
        theirs = [e for e in ends if e[5] == 1]
        won = [e for e in theirs if e[3] == "knock"]
        cut = [e for e in mine if e[3] == "undercut"]
        print(
            f"| {r['label']} vs {r['b']} | {_mean([e[6] for e in mine])} "
            f"| {_mean([e[9] for e in mine])} | {_mean([e[7] for e in theirs])} "
            f"| {_mean([e[7] for e in won])} | {_mean([e[9] for e in theirs])} "
            f"| {len(cut) / max(1, len(mine)):.0%} | {_mean([e[4] for e in won])} |"
        )


def load(paths: list[str]) -> list[dict[str, Any]]:
    """Saved results; runs of the same label against the same style on other
    deals are joined into one (a deal played twice counts once, the last)."""
    joined: dict[tuple[str, str], dict[str, Any]] = {}
    for path in paths:
        for line in Path(path).read_text().splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            key = (r["label"], r["b"])
            if key not in joined:
                joined[key] = r
                continue
            j = joined[key]
            by_deal = dict(zip(j["deals"], j["points"], strict=True))
            by_deal.update(zip(r["deals"], r["points"], strict=True))
            j["deals"], j["points"] = list(by_deal), list(by_deal.values())
            for name in ("hands", "draws", "seconds"):
                j[name] += r[name]
            for name in ("wins", "knocks", "undercuts"):
                j[name] = [x + y for x, y in zip(j[name], r[name], strict=True)]
            j["think_ms"] = [f"{j['think_ms'][0]}; {r['think_ms'][0]}", j["think_ms"][1]]
            dealt = {e[0] for e in r.get("ends", [])}
            j["ends"] = [e for e in j.get("ends", []) if e[0] not in dealt] + r.get("ends", [])
    return list(joined.values())


def budget_field(budget: Budget, item: str) -> Budget:
    """`budget` with one field set from `name=value` (`styles=normal:0.4/eager:0.6`)."""
    name, value = item.split("=")
    if name == "styles":
        pairs = (part.split(":") for part in value.split("/"))
        return dataclasses.replace(budget, styles=tuple((n, float(x)) for n, x in pairs))
    current = getattr(budget, name)
    kind = float if current is None else type(current)  # None: an optional number
    return dataclasses.replace(budget, **{name: kind(float(value))})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=1000, help="deals per pairing (2 hands each)")
    ap.add_argument("--hard-deals", type=int, default=None, help="deals for pairings with hard")
    ap.add_argument("--hard-playouts", type=int, default=Budget().playouts)
    ap.add_argument(
        "--hard-seconds", type=float, default=Budget().seconds or 0, help="0: no safety cap"
    )
    ap.add_argument(
        "--hard-budget",
        default="",
        help="other Budget fields for hard, e.g. discards=0,takes=0,confidence=1.5",
    )
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--scoring", default="hand")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pairs", default="easy-random,normal-easy,hard-normal")
    ap.add_argument(
        "--jobs", type=int, default=1, help="processes, each playing a slice of the deals"
    )
    ap.add_argument(
        "--pool",
        action="store_true",
        help="every strength of --strengths against every style of --opponents",
    )
    ap.add_argument(
        "--table",
        action="store_true",
        help="the same bots play all the deals, remembering earlier hands (as at one table)",
    )
    ap.add_argument(
        "--strengths",
        default="easy,normal,hard",
        help="also oracle, oracle_dw: hard shown the opponent's hand / deadwood "
        "(diagnostics, benchmarks/oracle.py)",
    )
    ap.add_argument("--opponents", default=",".join(POOL))
    ap.add_argument("--label", default="", help="the name of seat A in saved results")
    ap.add_argument(
        "--save", default=None, help="append each pool result to this file (JSON lines)"
    )
    ap.add_argument(
        "--report",
        nargs="*",
        default=None,
        help="print the pool table from saved files (no play)",
    )
    ap.add_argument(
        "--breakdown",
        action="store_true",
        help="with --report: how the hands ended (files saved with per-hand ends)",
    )
    ap.add_argument(
        "--compare",
        default="hard>normal,normal>easy",
        help="paired differences to report, better>worse labels",
    )
    ap.add_argument(
        "--pooled",
        default="",
        help="with --compare: also pooled over styles, e.g. openspiel+eager,normal+gin",
    )
    args = ap.parse_args()
    options = Options(args.rules, args.scoring, 100)
    budget = Budget(playouts=args.hard_playouts, seconds=args.hard_seconds or None)
    for item in filter(None, args.hard_budget.split(",")):
        budget = budget_field(budget, item)
    compare = [(x, y) for x, y in (c.split(">") for c in args.compare.split(",") if ">" in c)]
    if args.report is not None:
        loaded = load(args.report)
        groups = [g.split("+") for g in args.pooled.split(",") if g]
        pool_report(loaded, compare, groups)
        if args.breakdown:
            print()
            breakdown(loaded)
        return

    print(
        f"# rules={args.rules} scoring={args.scoring} seed={args.seed}; hard budget: "
        f"{args.hard_playouts} playouts a decision {args.hard_budget}"
        + (f", safety cap {args.hard_seconds} s" if args.hard_seconds else ", no safety cap")
    )
    if args.pool:
        records = []
        for b in args.opponents.split(","):
            for a in args.strengths.split(","):
                deals = args.hard_deals if a == "hard" and args.hard_deals else args.deals
                start = time.perf_counter()
                t = run(a, b, deals, args.seed, options, budget, args.jobs, True, args.table)
                label = args.label if args.label and a == "hard" else a
                records.append(record(a, b, t, label, time.perf_counter() - start))
                if args.save:
                    with open(args.save, "a") as out:
                        out.write(json.dumps(records[-1]) + "\n")
                print(f"<!-- {label} vs {b}: {records[-1]['seconds']} s -->", flush=True)
        pool_report(records, compare)
        return

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
        t = run(a, b, deals, args.seed, options, budget, args.jobs, False)
        decided = t.wins[0] + t.wins[1]
        lo, hi = wilson(t.wins[0], decided)
        pa = sum(x for x, _ in t.points_by_deal)
        pb = sum(y for _, y in t.points_by_deal)
        slo, shi = share_interval(t.points_by_deal, rng)
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
