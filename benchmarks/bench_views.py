"""The engine's `Match.view` per call, by kind of view, at several commits in one run.

Run: `python -m benchmarks.bench_views main HEAD --rounds 5` (or no commits: this tree).

Each version (the package as it was at that commit, from `git archive`) runs in a
child process of its own; the versions alternate round by round, so a busy spell of
the shared machine slows them alike. A child plays `--matches` matches of seeded
random legal moves (the same moves in every version: the engine's own `legal`,
knocking half the time a knock is offered) and after every action asks each seat's
view and the spectator's, as the hub does after a change, timing each call by
kind (the thread's CPU time, `thread_time_ns`, less the clock's own cost):

- `mover after a draw`: the seat that just drew (eleven cards: its best discard, the
  grouping of the ten it keeps, each knock's deadwood in `legal`);
- `mover after a discard`: the seat that just discarded (ten cards);
- `the other seat`: the seat whose cards did not change;
- `spectator`; and `again`: the mover's view asked a second time at the same version.

Printed per version: the median and the mean of each kind over all its calls in
all rounds, in µs, and each round's median of the first kind. The garbage collector
is off while timing (collected between matches), so its pauses do not land on
whichever call happens to allocate.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KINDS = (
    "mover after a draw",
    "mover after a discard",
    "the other seat",
    "spectator",
    "again",
)


def child(matches: int, seed: int) -> dict[str, list[int]]:
    """Play seeded random matches and time every view (ns), by kind."""
    from hollywood_gin.engine.match import Match
    from hollywood_gin.engine.options import Options

    timings: dict[str, list[int]] = defaultdict(list)
    # The thread's CPU time, not the wall clock: a busy machine's preemption is not
    # counted; the clock's own cost (a timed call that does nothing) is taken off.
    clock = time.thread_time_ns
    gc.disable()
    idle = []
    for _ in range(20_000):
        began = clock()
        idle.append(clock() - began)
    own = statistics.median(idle)
    for n in range(matches):
        rng = random.Random(seed * 100_003 + n)
        match = Match(Options(rules="standard", scoring="hollywood"), rng=random.Random(n))
        match.start()
        for _ in range(400):
            if match.status == "match_over":
                break
            if match.status == "hand_over":
                match.apply(0, match.legal(0)[0])
                match.apply(1, match.legal(1)[0])
                continue
            hand = match.hand
            assert hand is not None and hand.turn is not None
            seat = hand.turn
            legal = match.legal(seat)
            knocks = [a for a in legal if a.kind == "knock"]
            others = [a for a in legal if a.kind != "knock"]
            action = rng.choice(knocks if knocks and rng.random() < 0.5 else others)
            match.apply(seat, action)
            mover = (
                "mover after a draw"
                if action.kind in ("draw_stock", "draw_discard", "take_upcard")
                else "mover after a discard"
            )
            for who in (0, 1, None):
                began = clock()
                match.view(who)
                took = clock() - began - own
                kind = mover if who == seat else "spectator" if who is None else "the other seat"
                timings[kind].append(took)
            began = clock()
            match.view(seat)
            timings["again"].append(clock() - began - own)
        gc.collect()
    gc.enable()
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("commits", nargs="*", help="none: this tree only")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--matches", type=int, default=20, help="matches per round")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        import hollywood_gin

        found: dict[str, object] = {**child(args.matches, int(args.child))}
        found["package"] = hollywood_gin.__file__
        json.dump(found, sys.stdout)
        return 0
    from benchmarks.serve import export

    all_of: dict[str, dict[str, list[int]]] = {}
    medians: dict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="gin-bench-views-") as tmp:
        roots = {c: export(c, Path(tmp)) for c in args.commits} or {"this tree": REPO}
        for name in roots:
            all_of[name] = defaultdict(list)
        for r in range(args.rounds):
            for name, root in roots.items():
                env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{REPO}"}
                cmd = [sys.executable, "-m", "benchmarks.bench_views", "--child", str(r)]
                cmd += ["--matches", str(args.matches)]
                # Run from the version's folder: `-m` puts the working folder first
                # on the path, ahead of PYTHONPATH.
                out = subprocess.run(
                    cmd, cwd=root, env=env, check=True, capture_output=True, timeout=900
                ).stdout
                found = json.loads(out)
                package = found.pop("package")
                assert package.startswith(str(root)), (package, root)
                for kind, ns in found.items():
                    all_of[name][kind].extend(ns)
                medians[name].append(statistics.median(found[KINDS[0]]) / 1000)
    print(
        f"\n`Match.view` µs per call, {args.rounds} rounds of {args.matches} matches per "
        "version, the versions alternating; median / mean over all calls\n"
    )
    print("| version | " + " | ".join(KINDS) + f" | {KINDS[0]}: each round's median |")
    print("|---|" + "---:|" * len(KINDS) + "---|")
    for name, kinds in all_of.items():
        cells = []
        for kind in KINDS:
            ns = kinds[kind]
            cells.append(f"{statistics.median(ns) / 1000:.1f} / {statistics.mean(ns) / 1000:.1f}")
        rounds = ", ".join(f"{m:.1f}" for m in medians[name])
        print(f"| {name} | " + " | ".join(cells) + f" | {rounds} |")
    counts = {k: len(v) for k, v in next(iter(all_of.values())).items()}
    print(f"\ncalls per version: {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
