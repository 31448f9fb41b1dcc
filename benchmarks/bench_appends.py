"""The SQLite store's cost per append at a fixed group-commit size, by thread.

Run: `python -m benchmarks.bench_appends --versions 4e6493b HEAD --sizes 1,4,16`

What a move pays for its durability, apart from the rules and the web layer: the
real `SqliteStore` (its worker thread, group commit and checkpointer) on a fresh
file, on uvloop as the server runs it. T tables (default 100) are made; then each
round hands the store K appends of one log entry to K different tables at once
(`asyncio.gather`, so they go into one group commit: K appends per commit) and
waits for them. Printed per version and K: CPU µs per append of the event loop's
thread and of the other threads (the store's writer, the WAL checkpointer), read
from /proc (Linux; a clock tick is 10 ms, so take enough rounds), and the mean
appends per commit; `--null` adds the same driver on a store that keeps nothing
(what the driver itself costs). `--callgrind` counts instructions instead (each
run under valgrind's callgrind, counting only while the rounds run: a figure the
machine's load does not move; system calls' kernel time is not in it).

The server's batches are as large as the moves that arrive during one commit:
one or two on a quiet machine at a moderate pace, tens flat out on a busy one.
The fixed cost of a commit (the hand-off to the thread and back, the transaction,
the WAL frames) is shared by its K appends, so both ends are worth measuring.
`--versions A B ...` runs each commit's package (`git archive`), alternating
versions within each round.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.serve import REPO, export

ENTRY = {"event": "action", "seat": 0, "action": {"kind": "discard", "card": "7h"}}


def thread_ticks() -> dict[int, int]:
    """Clock ticks (user + system) of each thread of this process."""
    out: dict[int, int] = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(tid)] = int(fields[11]) + int(fields[12])
    return out


def control(on: bool) -> None:
    """Counting on or off, when running under callgrind."""
    subprocess.run(
        ["callgrind_control", "-i", "on" if on else "off", str(os.getpid())],
        check=True,
        capture_output=True,
    )


async def measure(args: argparse.Namespace) -> dict[str, float]:
    """One run, in the `hollywood_gin` found first on sys.path."""
    from hollywood_gin.tables.sqlite_store import SqliteStore
    from hollywood_gin.tables.store import SeatRecord, TableRecord

    folder = tempfile.TemporaryDirectory(prefix="gin-bench-appends-")
    store: Any
    if args.null:
        from benchmarks.nullstore import NullStore

        store = NullStore()
    else:
        store = SqliteStore(Path(folder.name) / "t.sqlite3")
    await store.open()
    seats = [SeatRecord("Ann", "a" * 64), SeatRecord("Bob", "b" * 64, None)]
    ids = [os.urandom(16).hex() for _ in range(args.tables)]
    for table_id in ids:
        now = time.time()
        record = TableRecord(table_id, {"rules": "standard"}, seats, now, now, [{"event": "start"}])
        await store.create(record)
    seqs = dict.fromkeys(ids, 1)
    # The epoch of a table this process made (`store.FIRST_EPOCH`; older versions took none).
    epoch = 1

    async def one(table_id: str) -> None:
        seq = seqs[table_id]
        seqs[table_id] = seq + 1
        await store.append(table_id, seq, [ENTRY], time.time(), epoch)

    turn = 0

    async def rounds(count: int) -> None:
        nonlocal turn
        for _ in range(count):
            batch = [ids[(turn + i) % len(ids)] for i in range(args.size)]
            turn += args.size
            await asyncio.gather(*(one(t) for t in batch))

    await rounds(20)
    if args.callgrind_child:
        control(True)
    commits = getattr(store, "commits", 0)
    before = thread_ticks()
    await rounds(args.rounds)
    after = thread_ticks()
    if args.callgrind_child:
        control(False)
    commits = getattr(store, "commits", 0) - commits
    await store.close()
    folder.cleanup()
    appends = args.rounds * args.size
    tick = os.sysconf("SC_CLK_TCK")
    loop = os.getpid()  # on Linux the main thread's id is the process id
    others = sum(t - before.get(tid, 0) for tid, t in after.items() if tid != loop)
    return {
        "loop_us": (after[loop] - before[loop]) / tick / appends * 1e6,
        "other_us": others / tick / appends * 1e6,
        "per_commit": appends / commits if commits else 0.0,
    }


def instructions(out_prefix: str, appends: int) -> tuple[float, float]:
    """Instructions per append of the loop's thread and of the others, from the dumps."""
    loop = other = 0
    for path in Path(out_prefix).parent.glob(Path(out_prefix).name + ".*"):
        total = 0
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("totals:"):
                total = int(line.split()[1])
                break
        if path.name.endswith("-01"):
            loop += total
        else:
            other += total
    return loop / appends, other / appends


def run_child(root: Path, size: int, args: argparse.Namespace, null: bool) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=f"{root}{os.pathsep}{REPO}")
    cmd = [
        sys.executable, "-m", "benchmarks.bench_appends", "--child",
        "--size", str(size), "--rounds", str(max(1, args.appends // size)),
        "--tables", str(args.tables),
    ] + (["--null"] if null else [])  # fmt: skip
    if not args.callgrind:
        out = subprocess.run(cmd, cwd=root, env=env, check=True, capture_output=True, text=True)
        result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
        return result
    with tempfile.TemporaryDirectory(prefix="gin-bench-appends-cg-") as tmp:
        prefix = f"{tmp}/cg"
        valgrind = [
            "valgrind", "--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes",
            f"--callgrind-out-file={prefix}.%p",
        ]  # fmt: skip
        out = subprocess.run(
            [*valgrind, *cmd, "--callgrind-child"],
            cwd=root,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        result = json.loads(out.stdout.strip().splitlines()[-1])
        appends = max(1, args.appends // size) * size
        result["loop_us"], result["other_us"] = instructions(prefix, appends)
        return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--versions", nargs="*", metavar="COMMIT")
    parser.add_argument("--sizes", default="1,4,16", help="appends per commit")
    parser.add_argument("--appends", type=int, default=16_000, help="per run")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--null", action="store_true", help="also the driver alone")
    parser.add_argument("--callgrind", action="store_true", help="instructions, not CPU time")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--callgrind-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=1000, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        import uvloop

        print(json.dumps(uvloop.run(measure(args))))
        return 0
    unit = "instructions" if args.callgrind else "CPU µs"
    with tempfile.TemporaryDirectory(prefix="gin-bench-appends-v-") as tmp:
        roots = {"this tree": REPO}
        if args.versions:
            roots = {commit: export(commit, Path(tmp)) for commit in args.versions}
        kinds = [(name, root, False) for name, root in roots.items()]
        if args.null:
            kinds.append(("no store", REPO, True))
        sizes = [int(s) for s in args.sizes.split(",")]
        results: dict[tuple[str, int], list[dict[str, Any]]] = {}
        for repeat in range(args.repeats):
            for size in sizes:
                for name, root, null in kinds:
                    result = run_child(root, size, args, null)
                    results.setdefault((name, size), []).append(result)
                    print(
                        f"  round {repeat + 1} K={size} {name}: loop {result['loop_us']:,.1f},"
                        f" other threads {result['other_us']:,.1f} {unit} per append",
                        file=sys.stderr,
                        flush=True,
                    )
    print(
        f"\nThe SQLite store, commits of K appends, {args.tables} tables; {unit} per append,"
        f" median of {args.repeats} runs (load average {os.getloadavg()[0]:.1f} at the end)\n"
    )
    print("| K | version | event loop | other threads | all | appends per commit |")
    print("|---:|---|---:|---:|---:|---:|")
    for (name, size), runs in results.items():
        loop = statistics.median(r["loop_us"] for r in runs)
        other = statistics.median(r["other_us"] for r in runs)
        both = statistics.median(r["loop_us"] + r["other_us"] for r in runs)
        per = statistics.median(r["per_commit"] for r in runs)
        print(f"| {size} | {name} | {loop:,.1f} | {other:,.1f} | {both:,.1f} | {per:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
