"""Meld solver speed, cold (no cache shared between hands).

Run: `pip install -e '.[dev]' && python -m benchmarks.bench_engine`

Prints µs per call of `deadwood()` on seeded random and dense 10-card hands,
of `best_discards()` / `discard_deadwoods()` on 11-card hands, the same for the
brute-force reference of `tests/engine/test_melds.py` (on fewer hands: it is
slow), the ratios, and µs per random-play hand of the engine's `Match`.
Each figure is the median of 3 repetitions, in CPU time.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from app.engine import melds
from app.engine.cards import CARDS, Card

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


def bench_solver() -> None:
    from tests.engine.test_melds import reference_best_discards, reference_deadwood

    r10 = random_hands(10_000, 10, seed=1)
    d10 = dense_hands(2_000, 10, seed=2)
    r11 = random_hands(10_000, 11, seed=3)
    d11 = dense_hands(2_000, 11, seed=4)
    few = 200  # the brute force takes milliseconds per dense hand
    rows = []
    for name, hands, fast, ref in (
        ("deadwood, random 10", r10, melds.deadwood, reference_deadwood),
        ("deadwood, dense 10", d10, melds.deadwood, reference_deadwood),
        ("best_discards, random 11", r11, melds.best_discards, reference_best_discards),
        ("best_discards, dense 11", d11, melds.best_discards, reference_best_discards),
    ):
        ours = us_per_call(fast, hands)
        brute = us_per_call(ref, hands[:few])
        rows.append((name, len(hands), ours, brute, f"{brute / ours:.0f}x"))
    rows.append(
        (
            "discard_deadwoods, random 11",
            len(r11),
            us_per_call(melds.discard_deadwoods, r11),
            "",
            "",
        )
    )
    rows.append(
        ("discard_deadwoods, dense 11", len(d11), us_per_call(melds.discard_deadwoods, d11), "", "")
    )
    table(
        "Meld solver, µs per call (median of 3), brute force on the first 200 hands",
        ["call", "hands", "solver µs", "brute force µs", "speed-up"],
        rows,
    )


def random_play_hand(seed: int) -> int:
    """Play one hand of random legal actions with the engine's Match; return the actions."""
    from app.engine.match import Match, Options

    rng = random.Random(seed)
    # game scoring: a hand with no knock ends as a draw when the stock is down to two
    match = Match(Options(scoring="game"), rng=rng)
    match.start()
    actions = 0
    while match.status == "playing" and actions < 1_000:
        for seat in (0, 1):
            legal = match.legal(seat)
            if legal:
                match.apply(seat, rng.choice(legal))
                actions += 1
                break
        else:
            break  # nobody can act: the hand is over
    return actions


def bench_match() -> None:
    try:
        import app.engine.match  # noqa: F401
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


def main() -> None:
    bench_solver()
    bench_match()


if __name__ == "__main__":
    main()
