"""The ladder's ratings: an Elo per rung, measured by the arena on duplicate deals.

`measure` plays the pairings of `pairings()` (each rung against the next, and
against the rung three above) with `arena.duplicate`, and `fit` turns each
pairing's share of the points into an Elo difference (400 log10(p / (1 - p))),
solved by least squares weighted by the deals, with `normal` (the arena's
reference bot `normal`) fixed at `ANCHOR`. Intervals: a seeded bootstrap over
each pairing's deals, refitted. `write` stores it all in `ratings.json` beside
this module, which `GET /api/computers` reads (`load`).

The one command: `hollywood-gin ratings` (docs/bots.md "The ladder").
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hollywood_gin.bots.arena import duplicate
from hollywood_gin.bots.arena_result import ArenaResult
from hollywood_gin.bots.ladder import LADDER

PATH = Path(__file__).with_name("ratings.json")
ANCHOR = ("normal", 1500.0)  # the arena's reference bot `normal` keeps this Elo
FRESH_SEED = 910_000  # deals no test or document uses (the ladder's own)
CLIP = 0.02  # a share is clipped to [CLIP, 1 - CLIP] before it becomes an Elo gap


def pairings(levels: int = len(LADDER)) -> list[tuple[int, int]]:
    """(lower, higher) levels: a round robin of the rungs that do not search (their
    moves are cheap), and each searching rung against its neighbours and the rungs
    three apart (the ladder's promise: each takes most points from three below)."""
    out = []
    for low in range(1, levels + 1):
        for high in range(low + 1, levels + 1):
            if not (searches(low) or searches(high)) or high - low in (1, 3):
                out.append((low, high))
    return out


def searches(level: int) -> bool:
    return LADDER[level - 1].base == "hard"


def measure(
    deals: int,
    search_deals: int,
    seed: int = FRESH_SEED,
    *,
    jobs: int = 1,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> list[tuple[int, int, ArenaResult]]:
    """Play every pairing: `deals` duplicate deals, or `search_deals` when a
    searching rung (base hard) plays, from deal `seed` on."""
    out = []
    for low, high in pairings():
        n = search_deals if searches(low) or searches(high) else deals
        began = time.process_time()
        a, b = LADDER[high - 1].id, LADDER[low - 1].id
        result = duplicate(f"computer:{a}", f"computer:{b}", n, seed, jobs=jobs)
        lo, hi = result.points_interval()
        log(
            f"{a} (L{high}) vs {b} (L{low}): {n} deals, points {result.points_share():.1%}"
            f" ({lo:.1%}-{hi:.1%}), {time.process_time() - began:.0f} s CPU here,"
            f" load {os.getloadavg()[0]:.1f}"
        )
        out.append((high, low, result))
    return out


def _gap(a: int, b: int) -> float:
    p = a / (a + b) if a + b else 0.5
    p = min(1 - CLIP, max(CLIP, p))
    return 400 * math.log10(p / (1 - p))


def fit(games: Sequence[tuple[int, int, int, int, int]], levels: int) -> list[float]:
    """Elo per level (index 0: level 1) from (high, low, high's points, low's points,
    deals), by weighted least squares with the anchor fixed."""
    anchor = next(p.level for p in LADDER if p.id == ANCHOR[0])
    free = [lv for lv in range(1, levels + 1) if lv != anchor]
    index = {lv: k for k, lv in enumerate(free)}
    n = len(free)
    m = [[0.0] * (n + 1) for _ in range(n)]  # normal equations, augmented
    for high, low, ph, pl, w in games:
        d = _gap(ph, pl)
        # d ~ R[high] - R[low]; the anchor's R is a constant
        coef = {high: 1.0, low: -1.0}
        const = d - sum(c * ANCHOR[1] for lv, c in coef.items() if lv == anchor)
        for lv1, c1 in coef.items():
            if lv1 == anchor:
                continue
            row = index[lv1]
            for lv2, c2 in coef.items():
                if lv2 != anchor:
                    m[row][index[lv2]] += w * c1 * c2
            m[row][n] += w * c1 * const
    x = _solve(m)
    out = []
    for lv in range(1, levels + 1):
        out.append(ANCHOR[1] if lv == anchor else x[index[lv]])
    return out


def _solve(m: list[list[float]]) -> list[float]:
    """Gaussian elimination with partial pivoting (a few unknowns)."""
    n = len(m)
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-12:
            raise ValueError("the pairings do not connect every rung")
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    return [m[r][n] / m[r][r] for r in range(n)]


def _totals(result: ArenaResult, picks: Sequence[int]) -> tuple[int, int]:
    return sum(result.points[k][0] for k in picks), sum(result.points[k][1] for k in picks)


def ratings(
    played: Sequence[tuple[int, int, ArenaResult]], rounds: int = 400
) -> tuple[list[float], list[tuple[float, float]]]:
    """Each level's Elo and its 95 % interval (a seeded bootstrap over the deals)."""
    levels = len(LADDER)

    def games(pick: Callable[[ArenaResult], Sequence[int]]) -> list[tuple[int, int, int, int, int]]:
        out = []
        for high, low, r in played:
            ks = pick(r)
            a, b = _totals(r, ks)
            out.append((high, low, a, b, len(ks)))
        return out

    point = fit(games(lambda r: range(r.deals)), levels)
    rng = random.Random(levels)
    samples: list[list[float]] = []
    for _ in range(rounds):
        samples.append(fit(games(lambda r: rng.choices(range(r.deals), k=r.deals)), levels))
    intervals = []
    for lv in range(levels):
        xs = sorted(s[lv] for s in samples)
        intervals.append((xs[int(0.025 * rounds)], xs[int(0.975 * rounds) - 1]))
    return point, intervals


def write(
    played: Sequence[tuple[int, int, ArenaResult]],
    command: str,
    seed: int,
    path: Path = PATH,
) -> dict[str, Any]:
    point, intervals = ratings(played)
    data: dict[str, Any] = {
        "command": command,
        "seed": seed,
        "anchor": {"id": ANCHOR[0], "elo": ANCHOR[1]},
        "load": round(os.getloadavg()[0], 1),
        "ratings": [
            {
                "id": p.id,
                "level": p.level,
                "elo": round(point[p.level - 1]),
                "elo_ci": [round(intervals[p.level - 1][0]), round(intervals[p.level - 1][1])],
            }
            for p in LADDER
        ],
        "pairings": [
            # `result`: what `hollywood-gin arena computer:A computer:B --json` prints
            {"a": LADDER[high - 1].id, "b": LADDER[low - 1].id, "result": r.to_json()}
            for high, low, r in played
        ],
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return data


def load(path: Path = PATH) -> dict[str, int]:
    """Each computer id's published Elo (empty: no ratings file)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {r["id"]: int(r["elo"]) for r in data.get("ratings", [])}
