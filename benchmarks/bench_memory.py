"""Memory per table (no sockets) and per open WebSocket (the real server).

Run: `pip install -e '.[bench]' && python -m benchmarks.bench_memory --quick`
(full: `python -m benchmarks.bench_memory`, 10,000 tables and 1,000 sockets).

Tables: a fresh child process builds N tables through the real `Registry`
(hub, engine, locks; a store that keeps nothing, as SQLite keeps nothing in
this process), seats both players and plays `--moves` legal moves each (6
and 30 by default: early in a hand, and as long as a whole typical hand: 40
hands of the easy computer against itself took 30 actions at the median), so
every table is mid-hand; it reports the RSS growth and, in a second child with
`tracemalloc` on, the traced bytes, each divided by N.

Sockets: the real server (`python -m hollywood_gin`) with a few tables; N idle
spectator sockets open (each gets its first state, then waits); the server's
RSS growth divided by N, with permessage-deflate on and off (the client
offers it, as browsers do).

Each figure is the median of `--repeats` fresh processes.

Seated at several commits: `--only seated --versions 5bed1b1 HEAD --rounds 2` runs
each commit's server (`git archive` of its package) in turn, round after round, so
a busy spell of the shared machine meets each version alike; RSS and traced bytes
per table for each run, with the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import httpx
import orjson
import psutil

from benchmarks.compat import played_tables
from benchmarks.compat import state as state_of
from benchmarks.nullstore import NullStore
from benchmarks.serve import REPO, app_server, export, raise_open_files


async def build_tables(count: int, moves: int, seed: int) -> list[Any]:
    from hollywood_gin.tables.hub import Hub
    from hollywood_gin.tables.lifecycle import assemble

    rng = random.Random(seed)
    hub = Hub(max_tabs_per_seat=5, max_spectators=20)
    registry = assemble(NullStore(), hub, expiry_seconds=86400.0)
    tables = await played_tables(registry, count, moves, rng)
    # Keep the registry alive with its tables: what a running server holds.
    return [registry, *tables]


def child_tables(count: int, moves: int, trace: bool) -> dict[str, Any]:
    """Run in a fresh process: memory growth of building `count` tables."""
    import hollywood_gin.tables.registry  # noqa: F401 - imports are not the tables' cost

    # Warm the engine's caches (meld tables) before the baseline.
    asyncio.run(build_tables(20, moves, seed=1))
    gc.collect()
    me = psutil.Process()
    if trace:
        tracemalloc.start()
    rss0 = me.memory_info().rss
    traced0 = tracemalloc.get_traced_memory()[0] if trace else 0
    keep = asyncio.run(build_tables(count, moves, seed=2))
    gc.collect()
    out: dict[str, Any] = {"count": count, "rss_per_table": (me.memory_info().rss - rss0) / count}
    if trace:
        snapshot = tracemalloc.take_snapshot()
        out["traced_per_table"] = (tracemalloc.get_traced_memory()[0] - traced0) / count
        top = snapshot.statistics("filename")[:6]
        out["top_files"] = [
            (str(s.traceback[0].filename).split("/work/main/")[-1], s.size / count) for s in top
        ]
        out["state_bytes"] = len(orjson.dumps(state_of(keep[1].view(0))))
        out["log_entries"] = len(keep[1].match.log)
    del keep
    return out


def run_child(args: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "benchmarks.bench_memory", "--child", *args]
    out = subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE, check=True, timeout=1800)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


async def socket_cost(base: str, pid: int, count: int, tables: int) -> float:
    """Server RSS growth per socket for `count` idle spectators over `tables` tables."""
    from websockets.asyncio.client import connect

    async with httpx.AsyncClient(base_url=base) as http:
        ids = []
        for _ in range(tables):
            ids.append((await http.post("/api/tables", json={})).json()["table_id"])
            http.cookies.clear()
    ws_base = base.replace("http://", "ws://")
    # One socket first, so what a first connection builds lazily is not counted.
    first = await connect(f"{ws_base}/ws/tables/{ids[0]}", ping_interval=None)
    await first.recv()
    await asyncio.sleep(0.5)
    server = psutil.Process(pid)
    rss0 = server.memory_info().rss
    gate = asyncio.Semaphore(64)

    async def one(i: int) -> Any:
        async with gate:
            ws = await connect(f"{ws_base}/ws/tables/{ids[i % len(ids)]}", ping_interval=None)
            await ws.recv()  # its first state: the socket is fully set up
            return ws

    socks = await asyncio.gather(*(one(i) for i in range(count)))
    await asyncio.sleep(1.0)
    grown = (server.memory_info().rss - rss0) / count
    await asyncio.gather(*(s.close() for s in socks), return_exceptions=True)
    await first.close()
    return float(grown)


async def seated_cost(base: str, pid: int, tables: int, snap: Path | None) -> dict[str, Any]:
    """Server RSS growth per table for `tables` tables with both seats connected (each
    past its first state), and with `--trace` the traced allocations that grew."""
    from websockets.asyncio.client import connect

    async def made(http: httpx.AsyncClient) -> tuple[str, list[str]]:
        body = (await http.post("/api/tables", json={"name": "Ann"})).json()
        http.cookies.clear()
        joined = (await http.post(f"/api/tables/{body['table_id']}/seats", json={})).json()
        http.cookies.clear()
        return body["table_id"], [body["token"], joined["token"]]

    ws_base = base.replace("http://", "ws://")
    gate = asyncio.Semaphore(32)

    async def seat(table_id: str, token: str) -> Any:
        async with gate:
            ws = await connect(f"{ws_base}/ws/tables/{table_id}", ping_interval=None)
            await ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
            while orjson.loads(await ws.recv()).get("you") is None:
                pass
            return ws

    server = psutil.Process(pid)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        # A few tables first, so what the first ones build lazily is not counted.
        warm = [await made(http) for _ in range(20)]
        socks = [await seat(t, k) for t, keys in warm for k in keys]
        await asyncio.sleep(0.5)
        if snap is not None:
            os.kill(pid, signal.SIGUSR1)
            await asyncio.sleep(3.0)
        rss0 = server.memory_info().rss
        ids = [await made(http) for _ in range(tables)]
    socks += await asyncio.gather(*(seat(t, k) for t, keys in ids for k in keys))
    await asyncio.sleep(1.0)
    out: dict[str, Any] = {"rss_per_table": (server.memory_info().rss - rss0) / tables}
    if snap is not None:
        os.kill(pid, signal.SIGUSR1)
        await asyncio.sleep(6.0)
        first = tracemalloc.Snapshot.load(f"{snap}.1")
        second = tracemalloc.Snapshot.load(f"{snap}.2")
        grown = second.compare_to(first, "lineno")
        out["traced_per_table"] = sum(d.size_diff for d in grown) / tables
        out["top_lines"] = [
            (str(d.traceback[0]).split("site-packages/")[-1].split("/work/")[-1],
             d.size_diff / tables, d.count_diff / tables)
            for d in grown[:30]
        ]  # fmt: skip
    await asyncio.gather(*(s.close() for s in socks), return_exceptions=True)
    return out


def serve_traced() -> int:
    """The server with tracemalloc on; SIGUSR1 writes a snapshot to $BENCH_MEMORY_SNAP.N."""
    from hollywood_gin.serve import main as serve

    tracemalloc.start(int(os.environ.get("BENCH_MEMORY_FRAMES", "1")))
    taken = [0]

    def dump(*_: Any) -> None:
        taken[0] += 1
        gc.collect()
        tracemalloc.take_snapshot().dump(f"{os.environ['BENCH_MEMORY_SNAP']}.{taken[0]}")

    signal.signal(signal.SIGUSR1, dump)
    return serve()


def seated_run(tables: int, trace: bool, root: Path = REPO) -> dict[str, Any]:
    """One fresh server (the package in `root`), `tables` tables seated: its figures."""
    with tempfile.TemporaryDirectory() as tmp:
        snap = Path(tmp) / "snap" if trace else None
        env = {"HOLLYWOOD_GIN_WS_PER_MESSAGE_DEFLATE": "false"}
        argv = None
        if snap is not None:
            env["BENCH_MEMORY_SNAP"] = str(snap)
            # The package from `root` (the working directory comes first on the path),
            # this benchmark from here.
            serve = f"import sys; sys.path.append({str(REPO)!r}); " + (
                "from benchmarks.bench_memory import serve_traced; sys.exit(serve_traced())"
            )
            argv = [sys.executable, "-c", serve]
        with app_server(env, root=root, argv=argv) as (base, proc):
            return asyncio.run(seated_cost(base, proc.pid, tables, snap))


def report_versions(args: argparse.Namespace) -> None:
    """Seated tables at each of `--versions`, alternating, round after round."""
    print(f"\nMemory per table, both seats connected: {args.seated} tables, real server")
    print("\n| round | version | RSS per table | traced per table | load average |")
    print("|---:|---|---:|---:|---|")
    with tempfile.TemporaryDirectory(prefix="gin-bench-memory-") as tmp:
        roots = {commit: export(commit, Path(tmp)) for commit in args.versions}
        for round_ in range(1, args.rounds + 1):
            for commit, root in roots.items():
                plain = seated_run(args.seated, trace=False, root=root)
                traced = seated_run(args.seated, trace=True, root=root)
                print(
                    f"| {round_} | {commit} | {plain['rss_per_table'] / 1024:.1f} KB | "
                    f"{traced['traced_per_table'] / 1024:.1f} KB | {load()} |",
                    flush=True,
                )


def report_seated(args: argparse.Namespace) -> None:
    """Tables with both seats connected, on the real server: RSS and traced per table."""
    if args.versions:
        report_versions(args)
        return
    plain = seated_run(args.seated, trace=False)
    traced = seated_run(args.seated, trace=True)
    print(f"\nMemory per table, both seats connected: {args.seated} tables, real server")
    print(f"  RSS growth per table: {plain['rss_per_table']:.0f} B (load average {load()})")
    print(
        f"  (traced server) RSS per table {traced['rss_per_table']:.0f} B, "
        f"traced {traced['traced_per_table']:.0f} B; grown by line, per table:"
    )
    for where, size, count in traced["top_lines"]:
        print(f"  {size:8.0f} B {count:6.1f} blocks  {where}")


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def per_socket(count: int, deflate: bool) -> float:
    env = {"HOLLYWOOD_GIN_WS_PER_MESSAGE_DEFLATE": "true" if deflate else "false"}
    with app_server(env) as (base, proc):
        return asyncio.run(socket_cost(base, proc.pid, count, tables=20))


def report_tables(args: argparse.Namespace) -> None:
    for moves in (int(m) for m in args.moves.split(",")):
        report_tables_after(args, moves)


def report_tables_after(args: argparse.Namespace, moves: int) -> None:
    child = [str(args.tables), str(moves)]
    plain = [run_child([*child, "plain"]) for _ in range(args.repeats)]
    traced = [run_child([*child, "trace"]) for _ in range(args.repeats)]
    rss = statistics.median(r["rss_per_table"] for r in plain)
    tm = statistics.median(r["traced_per_table"] for r in traced)
    print(f"\nMemory per table: {args.tables} tables mid-hand ({moves} moves), one process")
    print("\n| measure | bytes per table | KB per table | goal |")
    print("|---|---:|---:|---|")
    print(f"| RSS growth | {rss:.0f} | {rss / 1024:.1f} | at most 20 KB |")
    print(f"| tracemalloc | {tm:.0f} | {tm / 1024:.1f} | at most 20 KB |")
    example = traced[0]
    print(
        f"\nOne table's seat state: {example['state_bytes']} B of JSON, "
        f"{example['log_entries']} log entries. Traced bytes per table by file:"
    )
    for name, size in example["top_files"]:
        print(f"  {size:8.0f} B  {name}")


def report_sockets(args: argparse.Namespace) -> None:
    sockets = {
        deflate: statistics.median(per_socket(args.sockets, deflate) for _ in range(args.repeats))
        for deflate in (True, False)
    }
    print(f"\nMemory per open socket: {args.sockets} idle spectators, server RSS growth")
    print("\n| permessage-deflate | bytes per socket | KB per socket | goal |")
    print("|---|---:|---:|---|")
    for deflate, size in sockets.items():
        label = "on" if deflate else "off"
        print(f"| {label} | {size:.0f} | {size / 1024:.1f} | at most 70 KB |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument(
        "--moves",
        default="6,30",
        help="legal moves played per table, comma-separated",
    )
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="2,000 tables, 300 sockets")
    parser.add_argument("--only", choices=("tables", "sockets", "seated"), help="one part only")
    parser.add_argument("--seated", type=int, default=1000, help="tables with both seats connected")
    parser.add_argument("--versions", nargs="+", help="seated: these commits, alternating")
    parser.add_argument("--rounds", type=int, default=2, help="seated: rounds of --versions")
    parser.add_argument("--serve-traced", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_traced:
        return serve_traced()
    if args.child is not None:
        count, moves, trace = int(args.child[0]), int(args.child[1]), args.child[2] == "trace"
        print(json.dumps(child_tables(count, moves, trace)))
        return 0
    if args.quick:
        args.tables, args.sockets = 2000, 300
    raise_open_files()
    started = time.perf_counter()
    if args.only in (None, "tables"):
        report_tables(args)
    if args.only in (None, "sockets"):
        report_sockets(args)
    if args.only in (None, "seated"):
        report_seated(args)
    runs = "one run each" if args.versions else f"medians of {args.repeats}"
    print(f"\n({runs}; {time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
