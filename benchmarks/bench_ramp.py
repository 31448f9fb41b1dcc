"""The ramp gap: the server's heap after a ramp of tables against the same tables opened at once.

After `bench_capacity --steps 4000,6000,8000` the server held ~60 MiB more and used
~0.1 more of the core than with `--steps 8000` alone. `serve.tune_gc` freezes whatever
survives each collection; a reference cycle that becomes garbage after it was frozen is
never collected. This runs the server (its app, protocols, collector policy and clock:
`serve.Server`, `tune_gc`) in a process of its own, plays `bench_capacity`'s load at
human pace against it (its `--drive` load generator, another process), and at each
step's hold prints what the server measured of itself: its CPU seconds a move, RSS, the
frozen objects (`gc.get_freeze_count`), the young collections and their pauses. After
the last step, the tables still playing, it collects the whole heap unfrozen: what
that frees is what the policy left frozen (cycles no young collection would free), by
type, with that full collection's pause.

`--modes ramp,once` runs both shapes, alternating, `--rounds` times: `--steps` as a
ramp, and its last step opened at once (CPU seconds are compared within one run).

    python -m benchmarks.bench_ramp --steps 500,1000,2000 --hold 30 --settle 5
    python -m benchmarks.bench_ramp --steps 50,100 --hold 5 --settle 2 --rounds 1   # a check
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.serve import LOAD_ENV, REPO, free_port, raise_open_files


def rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def written() -> int:
    """Bytes this process has passed to write system calls (its frames, the store)."""
    with open("/proc/self/io") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("wchar"))


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q / 100))]


class Pauses:
    """Each collection's generation and seconds (a `gc.callbacks` hook, first in the
    list: it sees a collection before `serve.freeze_survivors` does)."""

    def __init__(self) -> None:
        self.started = 0.0
        self.seen: list[tuple[int, float]] = []
        gc.callbacks.insert(0, self.hook)

    def hook(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
        else:
            self.seen.append((info["generation"], time.perf_counter() - self.started))

    def take(self) -> list[tuple[int, float]]:
        seen, self.seen = self.seen, []
        return seen


def probe() -> dict[str, Any]:
    """The next young collection, then the heap unfrozen and collected whole: the
    objects that collection freed (counted before and after it, by type: `gc.collect`'s
    own count misses cycles a generator's finalizer breaks) are what the policy left
    frozen; with that collection's pause."""
    gc.collect(0)
    frozen = gc.get_freeze_count()
    gc.unfreeze()
    kinds = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
    walked = sum(kinds.values())
    start = time.perf_counter()
    gc.collect()
    seconds = time.perf_counter() - start
    gc.unfreeze()  # `freeze_survivors` froze what it kept
    fell = kinds.copy()
    fell.subtract(type(o).__qualname__ for o in gc.get_objects())
    fell = +fell  # the types that fell
    # A full collection untracks the tuples and dicts that hold only untracked
    # values (they stay, uncounted): not counted as freed.
    for kept in ("tuple", "dict"):
        fell.pop(kept, None)
    gc.freeze()
    return {
        "frozen": frozen,
        "walked": walked,
        "garbage": sum(fell.values()),
        "full_ms": seconds * 1000,
        "garbage_kinds": fell.most_common(15),
        "kinds": kinds.most_common(40),
    }


async def serve_one(steps: list[int], hold: float, settle: float) -> list[dict[str, Any]]:
    """A server in this process under the server's policy; the load from another."""
    from hollywood_gin.config import Settings
    from hollywood_gin.main import create_app
    from hollywood_gin.serve import Server, tune_gc, uvicorn_config

    port = free_port()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gin-bench-ramp-") as tmp:
        os.environ.update(LOAD_ENV)
        os.environ.update(
            {
                "HOLLYWOOD_GIN_HOST": "127.0.0.1",
                "HOLLYWOOD_GIN_PORT": str(port),
                "HOLLYWOOD_GIN_DATA_FILE": str(Path(tmp) / "tables.sqlite3"),
            }
        )
        settings = Settings.from_env()
        app = create_app(settings)
        tune_gc()
        server = Server(uvicorn_config(settings, app), gc_seconds=settings.gc_seconds)
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        pauses = Pauses()
        cmd = [sys.executable, "-m", "benchmarks.bench_capacity", "--drive"]
        cmd += [f"http://127.0.0.1:{port}", "--steps", ",".join(map(str, steps))]
        cmd += ["--hold", str(hold), "--settle", str(settle)]
        driver = await asyncio.create_subprocess_exec(*cmd, cwd=REPO, stdout=subprocess.PIPE)
        assert driver.stdout is not None
        cpu = 0.0
        wrote = 0
        began = time.perf_counter()
        try:
            while line := (await driver.stdout.readline()).decode():
                word, _, rest = line.strip().partition(" ")
                if word == "start":
                    pauses.take()
                    cpu = time.process_time()
                    wrote = written()
                    continue
                if word != "end":
                    continue
                spent = time.process_time() - cpu
                seen = pauses.take()
                young = [s * 1000 for g, s in seen if g == 0]
                load = json.loads(rest)
                row = {
                    "tables": load["tables"],
                    "moves": load["moves"],
                    "p99_ms": load["p99_ms"],
                    "errors": load["errors"],
                    "cpu_us_move": spent / max(1, load["moves"]) * 1e6,
                    "bytes_move": (written() - wrote) / max(1, load["moves"]),
                    "rss_mib": rss_mib(),
                    "frozen": gc.get_freeze_count(),
                    "young": len(young),
                    "older": len(seen) - len(young),
                    "pause_p50_ms": pct(young, 50),
                    "pause_p99_ms": pct(young, 99),
                    "pause_max_ms": max(young, default=float("nan")),
                    "seconds": time.perf_counter() - began,
                    "load": os.getloadavg(),
                }
                rows.append(row)
                if row["tables"] == steps[-1]:
                    row.update(probe())
                    break
        finally:
            with contextlib.suppress(ProcessLookupError):  # it ends after its last step
                driver.terminate()
            await driver.wait()
            server.should_exit = True
            await serving
    return rows


def one(steps: list[int], hold: float, settle: float) -> int:
    import uvicorn

    raise_open_files()
    loop_factory = uvicorn.Config(app=None).get_loop_factory()
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        rows = runner.run(serve_one(steps, hold, settle))
    print(json.dumps(rows), flush=True)
    return 0


def mean_age(rows: list[dict[str, Any]], hold: float) -> float:
    """The ramp's tables' mean seconds of play at its last hold's start (a step's
    tables counted from the end of the step before)."""
    last = rows[-1]["seconds"] - hold
    opened, ages, before = 0, 0.0, 0.0
    for row in rows:
        ages += (row["tables"] - opened) * (last - before)
        opened, before = row["tables"], row["seconds"]
    return ages / max(1, opened)


def line(mode: str, row: dict[str, Any]) -> str:
    load = " ".join(f"{x:.1f}" for x in row["load"])
    return (
        f"| {mode} | {row['tables']:,} | {row['moves']:,} | {row['p99_ms']:.0f} | "
        f"{row['cpu_us_move']:.0f} | {row['bytes_move']:,.0f} | {row['rss_mib']:.0f} | "
        f"{row['frozen']:,} | "
        f"{row['young']} / {row['older']} | {row['pause_p50_ms']:.1f} / "
        f"{row['pause_p99_ms']:.1f} / {row['pause_max_ms']:.1f} | {row['seconds']:.0f} | {load} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="500,1000,2000", help="the ramp's tables per step")
    parser.add_argument("--hold", type=float, default=30.0)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--modes", default="ramp,once")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--kinds", type=Path, help="the heap's types after each run, as JSON")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    steps = sorted({int(s) for s in args.steps.split(",")})
    if args.one:
        return one([int(s) for s in args.one.split(",")], args.hold, args.settle)
    print(
        "| mode | tables | moves | p99 ms | server CPU µs a move | bytes written a move | "
        "RSS MiB | frozen | "
        "young / older collections | young pause p50 / p99 / max ms | s since start | load |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    kinds: dict[str, Any] = {}
    for round_ in range(args.rounds):
        ramped = args.settle
        for mode in args.modes.split(","):
            shape = steps if mode == "ramp" else steps[-1:]
            # "aged": opened at once, then played as long as the ramp's tables had
            # on average before its last hold (the ramp first in `--modes`).
            settle = ramped if mode == "aged" else args.settle
            cmd = [sys.executable, "-m", "benchmarks.bench_ramp", "--one"]
            cmd += [",".join(map(str, shape)), "--hold", str(args.hold)]
            cmd += ["--settle", f"{settle:.0f}"]
            out = subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE, text=True, check=True)
            rows = json.loads(out.stdout.strip().splitlines()[-1])
            for row in rows:
                print(line(mode, row), flush=True)
            last = rows[-1]
            if mode == "ramp":
                ramped = mean_age(rows, args.hold)
                print(f"  ramp: its tables had played {ramped:.0f} s on average", flush=True)
            print(
                f"  {mode}, after the last step: {last['garbage']:,} objects of garbage "
                f"frozen, by type {last['garbage_kinds'][:8]}; the full collection walked "
                f"{last['walked']:,} objects in {last['full_ms']:.0f} ms",
                flush=True,
            )
            kinds[f"{mode}-{round_}"] = last["kinds"]
    if args.kinds:
        args.kinds.write_text(json.dumps(kinds, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
