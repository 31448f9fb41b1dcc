"""The move path in process: the registry, the hub, the engine and the store, no sockets.

Run: `pip install -e '.[dev]' && python -m benchmarks.bench_registry`

T tables (default 100) in one event loop play random legal moves through
`Registry.act`, as the load client of `bench_server` does (a knock half the
time it is offered; Next hand and New match when due). Each table has its two
seats' connections and, on every tenth table, a spectator's; their outboxes
are emptied after each move, and each table lets the others move after each
of its own (as on the server, the tables' moves interleave), so every action
costs what it costs on the server: `apply`, the commit, one view and one
orjson encoding per connected seat. No socket, no frame, no pydantic: what
is left of an action's server CPU once the WebSocket traffic is taken out.

Two stores: `none` (an append that keeps nothing: the engine and the hub
alone) and `sqlite` (the real `SqliteStore` on a temporary file, its group
commits in its worker thread). Printed per store: CPU µs per action of the
whole process and of the event loop's thread alone (from /proc, Linux), and
the mean appends per commit. Each figure is the median (and the least) of
`--repeats` fresh processes: on a shared machine the least is the run that
other jobs disturbed least.

`--versions A B ...` runs the same in the app as it was at each commit (`git
archive` into a temporary folder), alternating the versions in each round, so
a busy spell of the shared machine slows them alike. `--trees FOLDER ...` adds
folders that hold an `app` package as they are (e.g. the engine built with
mypyc, `benchmarks/build_mypyc.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.compat import next_actions
from benchmarks.nullstore import NullStore
from benchmarks.serve import REPO, export


def thread_cpu() -> dict[int, float]:
    """CPU seconds of each thread of this process (Linux /proc; empty elsewhere)."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(tid)] = (int(fields[11]) + int(fields[12])) / tick
    return out


async def play(store_kind: str, tables: int, actions: int, seed: int) -> dict[str, float]:
    """One run, in the `app` found first on sys.path."""
    from hollywood_gin.tables.hub import Connection, Hub
    from hollywood_gin.tables.lifecycle import assemble

    try:
        from hollywood_gin.engine.actions import parse_action
    except ImportError:  # a version from before typed actions: `act` took the wire dict

        def parse_action(action: Any) -> Any:
            return action

    from hollywood_gin.tables.sqlite_store import SqliteStore

    folder = tempfile.TemporaryDirectory(prefix="gin-bench-registry-")
    store = SqliteStore(Path(folder.name) / "t.sqlite3") if store_kind == "sqlite" else NullStore()
    await store.open()
    hub = Hub(max_tabs_per_seat=5, max_spectators=20)
    registry = assemble(store, hub, expiry_seconds=1e9, rng=random.Random(seed))
    rng = random.Random(seed + 1)
    made = []
    for i in range(tables):
        table, _ = await registry.create({"rules": "standard", "scoring": "hollywood"}, "Ann")
        await registry.join(table.id, "Bob")
        conns = [Connection(0), Connection(1)] + ([Connection(None)] if i % 10 == 0 else [])
        for conn in conns:
            hub.attach(table, conn)
        made.append((table, conns))

    acted = 0

    async def drive(table: Any, conns: list[Any], count: int) -> None:
        nonlocal acted
        for _ in range(count):
            chosen = next_actions(table, rng)
            for seat, action in chosen:
                await registry.act(table, seat, parse_action(action), table.match.version)
            acted += len(chosen)
            for conn in conns:
                conn._frames.clear()  # what each socket's writer task would take
            # Let the other tables move, as the server's sockets do: without this a store
            # that never waits would let one table play all its moves in a row, with
            # everything it touches in the CPU's caches (about 20 µs less per action).
            await asyncio.sleep(0)

    per_table = actions // tables
    gc.collect()
    gc.freeze()
    loop_thread = os.getpid()  # on Linux the main thread's id is the process id
    before_threads = thread_cpu()
    before = time.process_time()
    commits = getattr(store, "commits", 0)
    await asyncio.gather(*(drive(t, c, per_table) for t, c in made))
    cpu = time.process_time() - before
    after_threads = thread_cpu()
    done = acted
    commits = getattr(store, "commits", 0) - commits
    await store.close()
    folder.cleanup()
    loop_cpu = after_threads.get(loop_thread, 0.0) - before_threads.get(loop_thread, 0.0)
    return {
        "us_per_action": cpu / done * 1e6,
        "loop_us_per_action": loop_cpu / done * 1e6 if after_threads else float("nan"),
        "appends_per_commit": done / commits if commits and store_kind == "sqlite" else 0.0,
    }


def child(args: argparse.Namespace) -> int:
    import hollywood_gin

    figures = asyncio.run(play(args.store, args.tables, args.actions, args.seed))
    result: dict[str, Any] = dict(figures)
    result["app"] = str(Path(hollywood_gin.__file__).parent)
    print(json.dumps(result))
    return 0


def run_child(root: Path, store: str, args: argparse.Namespace) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=f"{root}{os.pathsep}{REPO}")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.bench_registry",
            "--child",
            "--store",
            store,
            "--tables",
            str(args.tables),
            "--actions",
            str(args.actions),
        ],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--actions", type=int, default=20_000, help="in all, per run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--stores", default="none,sqlite")
    parser.add_argument("--versions", nargs="*", metavar="COMMIT")
    parser.add_argument(
        "--trees",
        nargs="*",
        metavar="FOLDER",
        help="folders holding an `app` package to compare (e.g. one built with mypyc)",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--store", default="none", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    with tempfile.TemporaryDirectory(prefix="gin-bench-versions-") as tmp:
        roots = {"this tree": REPO}
        if args.versions or args.trees:
            roots = {commit: export(commit, Path(tmp)) for commit in args.versions or []}
            roots.update({folder: Path(folder).resolve() for folder in args.trees or []})
        stores = args.stores.split(",")
        results: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for round_number in range(args.repeats):
            for name, root in roots.items():
                for store in stores:
                    result = run_child(root, store, args)
                    results.setdefault((name, store), []).append(result)
                    print(
                        f"  round {round_number + 1} {name} {store}: "
                        f"{result['us_per_action']:.1f} µs/action (app of {result['app']})",
                        file=sys.stderr,
                        flush=True,
                    )
    print(
        f"\nRegistry path in process: {args.tables} tables, {args.actions} actions per run, "
        f"median (least) of {args.repeats} processes; CPU µs per action\n"
    )
    print("| version | store | process µs (least) | event loop µs (least) | appends per commit |")
    print("|---|---|---:|---:|---:|")
    for (name, store), runs in results.items():
        whole = [r["us_per_action"] for r in runs]
        loop = [r["loop_us_per_action"] for r in runs]
        per_commit = statistics.median(r["appends_per_commit"] for r in runs)
        print(
            f"| {name} | {store} | {statistics.median(whole):.1f} ({min(whole):.1f}) | "
            f"{statistics.median(loop):.1f} ({min(loop):.1f}) | "
            + (f"{per_commit:.1f} |" if store == "sqlite" else "|")
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
