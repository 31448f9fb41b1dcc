"""One move's server work stage by stage, counted in instructions (valgrind's callgrind):
`bench_stages`' driver and stages, a figure the machine's load does not move.

Run: `python -m benchmarks.bench_stage_instructions 13afddc . --tables 20 --rounds 30`

For each commit (its package from `git archive`, as `bench_versions` does; `.` is the
working tree) `bench_stages`' driver (this tree's) plays T tables one at a time, with a
store that keeps nothing, under `valgrind --tool=callgrind --instr-atstart=no
--collect-atstart=no`: deals, table ids and secrets seeded, `PYTHONHASHSEED=0`, so
every version plays the same moves; the server's collector thresholds
(`hollywood_gin.serve.GC_THRESHOLDS`) for the warm-up and the collector off while
counting (a collection lands on whichever stage crosses the threshold, a different
one from version to version). After one warm-up round, counting is toggled
by callgrind's client requests (from a small C library built here with the system's
`valgrind/callgrind.h`).

One run per stage: counting is on only while that stage's function runs, and off
again while a stage called from it runs (so each figure is the stage's own, as
`bench_stages`' are), and one run with counting on throughout but for the load
client's choice of moves (the total). Only `bench_stages`' stages that are plain
functions are counted apart; the coroutines (the frame's parse, the lock, section
and store hand-off) and the event loop are "the rest". The toggles' own cost (a
stage that does nothing, alone and with a stage inside it) is counted first and
taken off each call. `--extra name=module:Owner.attr` adds stages (to look inside
one); `--stages` counts only some.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

_C = """
#include <valgrind/callgrind.h>
void gin_instrument(void) { CALLGRIND_START_INSTRUMENTATION; }
void gin_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
void gin_dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); CALLGRIND_ZERO_STATS; }
"""


def build(folder: Path) -> Path:
    src = folder / "gin_cg.c"
    lib = folder / "gin_cg.so"
    src.write_text(_C)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return lib


class Toggles:
    """Counting on only while the `target` stage runs, exclusive of the stages it
    calls (`target` "all": while anything but the client's choice runs)."""

    def __init__(self, lib: Any, target: str) -> None:
        self.lib = lib
        self.target = target
        self.stack = [""]
        self.on = False
        self.calls = 0
        self.nested = 0  # stages entered while counting the target
        self.counting = target == "noop"  # else from `begin` on

    def wanted(self) -> bool:
        if not self.counting:
            return False
        if self.target == "all":
            return "client" not in self.stack
        return self.stack[-1] == self.target

    def _set(self) -> None:
        want = self.wanted()
        if want != self.on:
            self.lib.gin_toggle()
            self.on = want

    def timed(self, name: str, fn: Any) -> Any:
        me = self

        def run(*args: Any, **kwargs: Any) -> Any:
            if me.counting and name == me.target:
                me.calls += 1
            elif me.on and me.target != "all":
                me.nested += 1
            me.stack.append(name)
            me._set()
            try:
                return fn(*args, **kwargs)
            finally:
                me.stack.pop()
                me._set()

        return run

    def begin(self) -> None:
        """Counting from here (`all`: on at once)."""
        self.calls = self.nested = 0
        self.counting = True
        self._set()


def seed_secrets(seed: int) -> None:
    import secrets

    rng = random.Random(seed)
    secrets.token_bytes = lambda n=32: rng.randbytes(n)  # type: ignore[assignment]
    secrets.token_urlsafe = (  # type: ignore[assignment]
        lambda n=32: rng.randbytes(n).hex()[: n + n // 3]
    )
    secrets.token_hex = lambda n=32: rng.randbytes(n).hex()  # type: ignore[assignment]


def extra_stages(args: argparse.Namespace) -> list[tuple[str, str, str | None, str]]:
    """`--extra name=module:Owner.attr,...`: more stages (plain functions), to look inside one."""
    out = []
    for item in filter(None, (args.extra or "").split(",")):
        name, _, where = item.partition("=")
        module, _, path = where.partition(":")
        owner, _, attr = path.rpartition(".")
        out.append((name, module, owner or None, attr))
    return out


def inside(args: argparse.Namespace) -> int:
    """Under valgrind: play, counting the stage `args.target` after the warm-up."""
    import asyncio
    import gc
    import importlib
    import inspect

    from benchmarks import bench_stages

    lib = ctypes.CDLL(args.lib)
    lib.gin_dump.argtypes = [ctypes.c_char_p]
    seed_secrets(7)
    lib.gin_instrument()
    # The toggles' own cost: a stage that does nothing, counted alone and with a stage
    # inside it.
    cal = Toggles(lib, "noop")
    noop = cal.timed("noop", lambda: None)
    inner = cal.timed("inner", lambda: None)
    outer = cal.timed("noop", lambda: inner())
    for _ in range(200):
        noop()
    lib.gin_dump(b"alone")
    for _ in range(200):
        outer()
    lib.gin_dump(b"nested")
    toggles = Toggles(lib, args.target)
    for stage, module_name, owner_name, attr in [*bench_stages.STAGES, *extra_stages(args)]:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        owner = module if owner_name is None else getattr(module, owner_name, None)
        if owner is None or not hasattr(owner, attr):
            continue
        fn = getattr(owner, attr)
        if inspect.iscoroutinefunction(fn):
            continue
        setattr(owner, attr, toggles.timed(stage, fn))
        if owner_name is None:
            hub = importlib.import_module("hollywood_gin.tables.hub")
            if getattr(hub, attr, None) is not None:
                setattr(hub, attr, getattr(owner, attr))
    bench_stages.next_actions = toggles.timed("client", bench_stages.next_actions)
    started = False

    class StartAfterWarmUp:
        """`play` clears the stage clock after its warm-up round: count from there."""

        def __init__(self) -> None:
            object.__setattr__(self, "clock", bench_stages.CLOCK)

        def clear(self) -> None:
            nonlocal started
            self.clock.clear()
            started = True
            # No collections while counting: a collection's cost lands on whichever
            # stage allocates when the threshold is crossed, which moves from stage to
            # stage between versions (kept out of every figure, in both versions).
            gc.disable()
            toggles.begin()

        def __getattr__(self, name: str) -> Any:
            return getattr(self.clock, name)

        def __setattr__(self, name: str, value: Any) -> None:
            setattr(self.clock, name, value)

    bench_stages.CLOCK = StartAfterWarmUp()  # type: ignore[assignment]
    try:  # the server's collector thresholds (`hollywood_gin.serve`), where it has them
        from hollywood_gin.serve import GC_THRESHOLDS

        gc.set_threshold(*GC_THRESHOLDS)
    except ImportError:
        pass
    actions, _ = asyncio.run(bench_stages.play("none", args.tables, args.rounds, 0, staged=True))
    if toggles.on:
        lib.gin_toggle()
    lib.gin_dump(b"counted")
    assert started
    info = {"actions": actions, "calls": toggles.calls, "nested": toggles.nested}
    Path(args.meta).write_text(repr(info))
    return 0


def total(dump: Path) -> int:
    m = re.search(r"^(?:summary|totals): (\d+)", dump.read_text(), re.M)
    assert m, dump
    return int(m.group(1))


def run_one(root: Path, args: argparse.Namespace, lib: Path, out: Path, target: str) -> float:
    """Instructions per action of `target` (less the toggles' own)."""
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = "0"
    here = Path(__file__).resolve().parent.parent
    # The version's package first, this tree's benchmarks after it.
    env["PYTHONPATH"] = f"{root}{os.pathsep}{here}"
    folder = out / re.sub(r"\W+", "-", target)
    folder.mkdir()
    meta = folder / "meta.txt"
    argv = [
        "valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
        "--compress-strings=no", f"--callgrind-out-file={folder}/cg.out",
        sys.executable, "-m", "benchmarks.bench_stage_instructions", "--inside",
        "--lib", str(lib), "--meta", str(meta), "--target", target,
        "--tables", str(args.tables), "--rounds", str(args.rounds),
        "--extra", args.extra or "",
    ]  # fmt: skip
    subprocess.run(argv, cwd=folder, env=env, check=True, stderr=subprocess.DEVNULL)
    info = eval(meta.read_text())  # our own repr of plain values
    dumps = sorted(folder.glob("cg.out.*"), key=lambda p: int(p.name.rsplit(".", 1)[1]))
    alone, nested, counted = (total(d) for d in dumps[-3:])
    per_call = alone / 200
    per_nested = nested / 200 - per_call
    cost = counted - info["calls"] * per_call - info["nested"] * per_nested
    return float(cost / info["actions"])


def count(root: Path, args: argparse.Namespace, lib: Path, out: Path) -> dict[str, float]:
    from benchmarks import bench_stages

    stages = ["all", *dict.fromkeys(stage for stage, *_ in bench_stages.STAGES)]
    if args.stages:
        stages = ["all", *args.stages.split(";")]
    stages += [name for name, *_ in extra_stages(args)]
    skip = {
        "frame parse and validation",
        "action to engine, errors",
        "lock, section task, settle",
        "store hand-off",
    }
    result: dict[str, float] = {}
    for stage in stages:
        if stage in skip:  # coroutines (the parse's `Session.handle` too): in the rest
            continue
        result[stage] = run_one(root, args, lib, out, stage)
        print(f"  {stage}: {result[stage]:,.0f}", file=sys.stderr)
    every = result.pop("all")
    result["the rest (coroutines: parse, lock, section, store; loop)"] = every - sum(
        result.values()
    )
    result["all (less the client's choice)"] = every
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("commits", nargs="*", default=["."])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument(
        "--stages", help="stage names to count, separated by ; (default: every plain one)"
    )
    parser.add_argument(
        "--extra",
        help="more stages inside the others, name=module:Owner.attr, comma-separated",
    )
    parser.add_argument("--keep", help="a folder to keep callgrind's files in")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--lib", help=argparse.SUPPRESS)
    parser.add_argument("--meta", help=argparse.SUPPRESS)
    parser.add_argument("--target", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        return inside(args)
    from benchmarks.serve import export

    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="gin-stage-instr-") as tmp:
        if args.keep:
            tmp = args.keep
        lib = build(Path(tmp))
        for commit in args.commits:
            root = Path(".").resolve() if commit == "." else export(commit, Path(tmp))
            out = Path(tmp) / f"out-{len(results)}"
            out.mkdir()
            results[commit] = count(root, args, lib, out)
            print(f"{commit}: {results[commit]}", file=sys.stderr)
    stages = list(dict.fromkeys(k for r in results.values() for k in r))
    print(f"\n{args.tables} tables, {args.rounds} actions each; instructions per action\n")
    print("| stage | " + " | ".join(results) + " |")
    print("|---|" + "---:|" * len(results))
    for stage in stages:
        cells = " | ".join(f"{r.get(stage, 0):,.0f}" for r in results.values())
        print(f"| {stage} | {cells} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
