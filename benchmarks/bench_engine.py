"""Meld solver speed, cold (no cache shared between hands).

Run: `pip install -e '.[dev]' && python -m benchmarks.bench_engine`

Prints µs per call of `deadwood()` on seeded random and dense 10-card hands,
of `best_discards()` / `discard_deadwoods()` on 11-card hands, the same for the
brute-force reference of `tests/engine/test_melds.py` (on fewer hands: it is
slow), the ratios, and µs per random-play hand of the engine's `Match`.
Each figure is the median of 3 repetitions, in CPU time.

`python -m benchmarks.bench_engine --versions 7c43207 HEAD` instead compares
the solver as it was at those commits (what each optimisation bought).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

from benchmarks.compat import legal as legal_of
from hollywood_gin.engine import layoffs, melds
from hollywood_gin.engine.actions import parse_action
from hollywood_gin.engine.cards import CARDS, Card

REPEATS = 3


def random_hands(count: int, size: int, seed: int) -> list[list[Card]]:
    """`count` hands of `size` cards dealt from a full deck."""
    rng = random.Random(seed)
    return [rng.sample(CARDS, size) for _ in range(count)]


def dense_hands(count: int, size: int, seed: int) -> list[list[Card]]:
    """Hands drawn from 3-5 adjacent ranks x 3-4 suits: sets and runs overlap heavily."""
    rng = random.Random(seed)
    out: list[list[Card]] = []
    while len(out) < count:
        width = rng.randint(3, 5)
        low = rng.randint(0, 13 - width)
        suits = rng.sample(range(4), rng.randint(3, 4))
        pool = [CARDS[s * 13 + r] for r in range(low, low + width) for s in suits]
        if len(pool) >= size:
            out.append(rng.sample(pool, size))
    return out


def once(fn: Callable[[Any], object], inputs: Sequence[Any]) -> float:
    """Mean µs per call of fn over all inputs, in CPU time of this process: the
    machine is shared, and CPU time leaves out the time other processes hold it."""
    start = time.process_time()
    for x in inputs:
        fn(x)
    return (time.process_time() - start) / len(inputs) * 1e6


def us_per_call(fn: Callable[[Any], object], inputs: Sequence[Any]) -> float:
    """Median over REPEATS of `once`."""
    return statistics.median(once(fn, inputs) for _ in range(REPEATS))


def us_per_call_pair(
    a: Callable[[Any], object],
    a_inputs: Sequence[Any],
    b: Callable[[Any], object],
    b_inputs: Sequence[Any],
) -> tuple[float, float]:
    """Medians for two functions, measured in turn, so a busy spell hits both alike."""
    runs = [(once(a, a_inputs), once(b, b_inputs)) for _ in range(REPEATS)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        cells = [f"{c:.2f}" if isinstance(c, float) else str(c) for c in row]
        print("| " + " | ".join(cells) + " |")


def _build_dfs_melds() -> list[list[int]]:
    """Per card index, the melds (52-bit masks) whose lowest card it is: runs of 3-5
    starting at it, sets of its rank with no lower suit."""
    out: list[list[int]] = [[] for _ in range(52)]
    for i in range(52):
        suit, r = divmod(i, 13)
        for length in (3, 4, 5):
            if r + length <= 13:
                out[i].append(((1 << length) - 1) << i)
        higher = [s * 13 + r for s in range(suit + 1, 4)]
        for k in (2, 3):
            for others in combinations(higher, k):
                mask = 1 << i
                for j in others:
                    mask |= 1 << j
                out[i].append(mask)
    return out


_DFS_MELDS = _build_dfs_melds()
_VALUE = [min(i % 13 + 1, 10) for i in range(52)]


def dfs_deadwood(cards: Sequence[Card]) -> int:
    """The alternative the task suggested, for comparison: depth-first over the
    lowest remaining card (deadwood, or in one of its melds that fit), with a memo
    dict inside the call. Exact, but slower than the suit tables."""
    memo: dict[int, int] = {}

    def least(m: int) -> int:
        if not m:
            return 0
        known = memo.get(m)
        if known is not None:
            return known
        low = m & -m
        i = low.bit_length() - 1
        best = _VALUE[i] + least(m ^ low)
        for meld in _DFS_MELDS[i]:
            if meld & m == meld:
                v = least(m ^ meld)
                if v < best:
                    best = v
        memo[m] = best
        return best

    mask = 0
    for c in cards:
        mask |= 1 << c.index
    return least(mask)


def dfs_best_discards(cards: Sequence[Card]) -> list[tuple[Card, int]]:
    after = [(c, dfs_deadwood([x for x in cards if x is not c])) for c in cards]
    best = min(v for _, v in after)
    return sorted((c, v) for c, v in after if v == best)


def bench_solver() -> None:
    from tests.engine.test_melds import reference_best_discards, reference_deadwood

    r10 = random_hands(10_000, 10, seed=1)
    d10 = dense_hands(2_000, 10, seed=2)
    r11 = random_hands(10_000, 11, seed=3)
    d11 = dense_hands(2_000, 11, seed=4)
    few = 200  # the brute force takes milliseconds per hand
    for hands in (r10[:few], d10[:few]):
        assert all(dfs_deadwood(h) == melds.deadwood(h) for h in hands)
    rows = []
    for name, hands, fast, dfs, ref in (
        ("deadwood, random 10", r10, melds.deadwood, dfs_deadwood, reference_deadwood),
        ("deadwood, dense 10", d10, melds.deadwood, dfs_deadwood, reference_deadwood),
        (
            "best_discards, random 11",
            r11,
            melds.best_discards,
            dfs_best_discards,
            reference_best_discards,
        ),
        (
            "best_discards, dense 11",
            d11,
            melds.best_discards,
            dfs_best_discards,
            reference_best_discards,
        ),
        ("discard_deadwoods, random 11", r11, melds.discard_deadwoods, None, None),
        ("discard_deadwoods, dense 11", d11, melds.discard_deadwoods, None, None),
    ):
        ours = us_per_call(fast, hands)
        row: list[object] = [name, len(hands), ours]
        for other in (dfs, ref):
            if other is None:
                row += ["", ""]
            else:
                them = us_per_call(other, hands if other is dfs else hands[:few])
                row += [them, f"{them / ours:.0f}x"]
        rows.append(row)
    table(
        "Meld solver, µs per call (CPU time, median of 3); brute force on the first 200 hands",
        ["call", "hands", "solver µs", "DFS+memo µs", "ratio", "brute force µs", "ratio"],
        rows,
    )
    bench_layoffs()


def bench_layoffs() -> None:
    """lay_off once per knock: the knocker's best arrangement, the defender's 10 cards."""
    rng = random.Random(5)
    cases = []
    while len(cases) < 2_000:
        deck = rng.sample(CARDS, 20)
        knocker_melds, _ = melds.arrange(deck[:10])
        if knocker_melds:
            cases.append((knocker_melds, deck[10:]))
    per = us_per_call(lambda case: layoffs.lay_off(*case), cases)
    table(
        "lay_off, µs per call (CPU time, median of 3)",
        ["case", "cases", "µs"],
        [("random deal, knocker has a meld", len(cases), per)],
    )


def random_play_hand(seed: int) -> int:
    """Play one hand of random legal actions with the engine's Match; return the actions."""
    from hollywood_gin.engine.match import Match
    from hollywood_gin.engine.options import Options

    rng = random.Random(seed)
    # game scoring: a hand with no knock ends as a draw when the stock is down to two
    match = Match(Options(scoring="game"), rng=rng)
    match.start()
    actions = 0
    while match.status == "playing" and actions < 1_000:
        for seat in (0, 1):
            legal = legal_of(match.view(seat))
            if legal:
                match.apply(seat, parse_action(rng.choice(legal)))
                actions += 1
                break
        else:
            break  # nobody can act: the hand is over
    return actions


def bench_match() -> None:
    try:
        import hollywood_gin.engine.match  # noqa: F401
    except ImportError:
        print("\napp/engine/match.py is not there yet: no per-hand figure")
        return
    seeds = range(200)
    actions = [random_play_hand(s) for s in seeds]
    per_hand = us_per_call(random_play_hand, seeds)
    table(
        "Random-play hands with Match (legal + apply each step), median of 3",
        ["hands", "actions per hand (mean)", "µs per hand", "µs per action"],
        [(len(seeds), statistics.mean(actions), per_hand, per_hand / statistics.mean(actions))],
    )


def bench_versions(commits: Sequence[str]) -> None:
    """The same figures for `hollywood_gin/engine/melds.py` as it was at each commit, in turn."""
    versions = []
    with tempfile.TemporaryDirectory() as folder:
        for commit in commits:
            source = subprocess.run(
                ["git", "show", f"{commit}:hollywood_gin/engine/melds.py"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            path = Path(folder) / f"melds_{len(versions)}.py"
            path.write_text(source)
            spec = importlib.util.spec_from_file_location(path.stem, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # dataclasses look their module up there
            spec.loader.exec_module(module)
            versions.append(module)
    r10 = random_hands(10_000, 10, seed=1)
    d10 = dense_hands(2_000, 10, seed=2)
    r11 = random_hands(10_000, 11, seed=3)
    d11 = dense_hands(2_000, 11, seed=4)
    rows = []
    for call, name, hands in (
        ("deadwood", "random 10", r10),
        ("deadwood", "dense 10", d10),
        ("best_discards", "random 11", r11),
        ("best_discards", "dense 11", d11),
        ("discard_deadwoods", "random 11", r11),
        ("discard_deadwoods", "dense 11", d11),
    ):
        runs = [[once(getattr(v, call), hands) for v in versions] for _ in range(REPEATS)]
        rows.append(
            [f"{call}, {name}"]
            + [statistics.median(r[i] for r in runs) for i in range(len(versions))]
        )
    table(
        "engine/melds.py by commit, µs per call (CPU time, median of 3, measured in turn)",
        ["call", *commits],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--versions",
        nargs="+",
        metavar="COMMIT",
        help="instead, compare the solver as it was at these commits",
    )
    args = parser.parse_args()
    if args.versions:
        bench_versions(args.versions)
        return
    bench_solver()
    bench_match()


if __name__ == "__main__":
    main()
