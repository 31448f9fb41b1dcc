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
to its search: diagnostics of what better guessing could gain
(`tests/bots/oracle.py`). The duels and their statistics are `tests/bots/duels.py`.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bot_pool import POOL, STYLES
from hollywood_gin.bots import Bot, Budget
from hollywood_gin.bots.arena import Player, RandomPlayer
from hollywood_gin.engine.options import Options
from tests.bots.duels import (
    Tally,
    budget_field,
    duel,
    pool_report,
    share_interval,
    wilson,
)


def maker(name: str, budget: Budget, *, pool: bool = False) -> Callable[[int], Player]:
    """Seat A's strength, or (`pool`) an opponent of `bot_pool.STYLES`."""
    if name == "random":
        return lambda d: RandomPlayer(random.Random(d))
    if name in ("oracle", "oracle_dw"):  # diagnostics: tests/bots/oracle.py
        from tests.bots.oracle import OracleHard

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
        "(diagnostics, tests/bots/oracle.py)",
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
