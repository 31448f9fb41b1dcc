"""The meld solver's machine instructions per call, by commit, under valgrind's callgrind:
a figure the shared machine's load does not move (its CPU time does, by ±20 %).

Run: `python -m benchmarks.bench_solver_instructions 5bed1b1 HEAD`

For each commit and each call (`deadwood` on `bench_engine`'s seeded random and dense
10-card hands, `deadwood_mask` on the same hands as masks), a child process loads that
commit's `hollywood_gin/engine/melds.py` beside this tree's cards (as
`bench_openspiel --baseline` does), calls it on 100 hands to warm CPython's
specialisations, then on all of them through `map`, under
`valgrind --tool=callgrind --collect-atstart=no --toggle-collect=map_next`: only what runs
inside `map`'s steps is counted (the calls, and a few dozen instructions of `map`'s own).
The random hands (not the dense) can be cut to one kind (`--kind none`, `one` or `more`: no rank in
three suits, one rank in exactly three, anything else; three in four random hands
are `none`), to see which path a change moved. Each figure is exact and repeats to
the instruction.
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.bench_engine import dense_hands, random_hands, table
from hollywood_gin.engine.cards import Card

ROOT = Path(__file__).resolve().parent.parent
HANDS = 10_000


def melds_at(rev: str) -> types.ModuleType:
    """`hollywood_gin/engine/melds.py` as it was at `rev`, as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{rev}:hollywood_gin/engine/melds.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    module = types.ModuleType(f"melds_at_{rev}")
    sys.modules[module.__name__] = module  # dataclasses look their module up there
    exec(compile(source, f"{rev}:melds.py", "exec"), module.__dict__)
    return module


def kind_of(hand: list[Card]) -> str:
    """Which of the solver's paths a hand takes: no set rank, one in exactly three suits, more."""
    m = sum(c.bit for c in hand)
    c, d, h, s = m & 8191, m >> 13 & 8191, m >> 26 & 8191, m >> 39
    three = (c & d & (h | s)) | (h & s & (c | d))
    if not three:
        return "none"
    if not three & (three - 1) and not c & d & h & s:
        return "one"
    return "more"


def hands_for(which: str, kind: str | None) -> list[list[Card]]:
    if which == "dense":
        return dense_hands(2_000, 10, seed=2)
    hands = random_hands(HANDS, 10, seed=1)
    if kind:
        picked = [h for h in hands if kind_of(h) == kind]
        hands = (picked * (HANDS // len(picked) + 1))[:HANDS]
    return hands


def child(rev: str, call: str, which: str, kind: str | None) -> None:
    """Run under callgrind: warm up, then every hand through `map` (the counted part)."""
    fn: Callable[[Any], object] = getattr(melds_at(rev), call)
    hands: list[Any] = hands_for(which, kind)
    if call.endswith("_mask"):
        hands = [sum(c.bit for c in h) for h in hands]
    for h in hands[:100]:
        fn(h)
    collections.deque(map(fn, hands), maxlen=0)
    print(f"hands {len(hands)}")


def count(rev: str, call: str, which: str, kind: str | None) -> float:
    """Instructions per call of `call` at `rev` (a child under callgrind)."""
    args = [sys.executable, "-m", "benchmarks.bench_solver_instructions", "--child", rev]
    args += [call, which] + ([kind] if kind else [])
    said = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            "--collect-atstart=no",
            "--toggle-collect=map_next",
            *args,
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    collected = next(line for line in said.stderr.splitlines() if "Collected" in line)
    hands = int(
        next(line for line in said.stdout.splitlines() if line.startswith("hands")).split()[1]
    )
    return int(collected.split()[-1]) / hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("commits", nargs="*", default=["HEAD"])
    parser.add_argument("--kind", choices=["none", "one", "more"])
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        rev, call, which, *kind = args.child
        child(rev, call, which, kind[0] if kind else None)
        return
    rows = []
    for call, which in (("deadwood", "random"), ("deadwood", "dense"), ("deadwood_mask", "random")):
        counts = [count(rev, call, which, args.kind) for rev in args.commits]
        rows.append([f"{call}, {which} 10", *(f"{n:,.0f}" for n in counts)])
    kind = f", only hands of kind {args.kind!r}" if args.kind else ""
    table(
        f"engine/melds.py by commit, machine instructions per call{kind}",
        ["call", *args.commits],
        rows,
    )


if __name__ == "__main__":
    main()
