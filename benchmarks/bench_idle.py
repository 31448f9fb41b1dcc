"""Idle tables off the heap (issue 46, item 4): memory with many stored tables, and the
time to read one back.

Run: `nice -n 10 python -m benchmarks.bench_idle` (quick: `--live 200 --stored 10000`).

Two SQLite files are made: one with `--live` tables played a few moves each through
the real registry (live: just played), and a copy of it with `--stored` more tables
inserted quickly by SQL (each a copy of a played table's rows under a new id, last
active two days ago, nothing due: finished or idle correspondence tables). A fresh
child process opens each file as the server does (the real `SqliteStore`, the
tables assembled with the default idle time, `ownership.start`) and reports its RSS
and how many tables it holds. A third child, on the big file, lets `--reload` live
tables go (its clock moved past the idle time) and reads each back by the path a
socket takes (`Registry.find`), timing each: p50/p99/max.

Every figure is printed with the load average: on a busy machine, rerun it quietly.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

from benchmarks.compat import played_tables

IDLE_SECONDS = 600.0  # the setting's default


async def make_live(path: Path, count: int, moves: int, seed: int) -> None:
    """`count` tables, both seats taken, `moves` legal moves each, into `path`."""
    from hollywood_gin.tables.hub import Hub
    from hollywood_gin.tables.lifecycle import assemble
    from hollywood_gin.tables.sqlite_store import SqliteStore

    rng = random.Random(seed)
    store = SqliteStore(path)
    await store.open()
    registry = assemble(store, Hub(max_tabs_per_seat=5, max_spectators=20), expiry_seconds=1e9)
    await played_tables(registry, count, moves, rng)
    await registry.close()
    await store.close()


def add_stored(path: Path, count: int) -> None:
    """`count` more tables by SQL: copies of the played tables' rows, idle for two days."""
    db = sqlite3.connect(path)
    old = time.time() - 2 * 86400
    templates = [r[0] for r in db.execute("SELECT id FROM tables")]
    db.execute("BEGIN")
    for n in range(count):
        source = templates[n % len(templates)]
        new = f"idle{n:08d}" + source[12:]
        db.execute(
            "INSERT INTO tables (id, options, seats, created, last_active, base_seq)"
            " SELECT ?, options, seats, ?, ?, base_seq FROM tables WHERE id = ?",
            (new, old, old, source),
        )
        db.execute(
            "INSERT INTO events (table_id, seq, entry, at)"
            " SELECT ?, seq, entry, ? FROM events WHERE table_id = ? ORDER BY seq",
            (new, old, source),
        )
    db.execute("COMMIT")
    db.close()


async def open_as_server(path: Path, idle_seconds: float) -> tuple[Any, Any, float]:
    from hollywood_gin.tables.hub import Hub
    from hollywood_gin.tables.lifecycle import assemble
    from hollywood_gin.tables.sqlite_store import SqliteStore

    # The file's opening is timed too: what it reads there is part of a start-up.
    started = time.perf_counter()
    store = SqliteStore(path)
    await store.open()
    registry = assemble(
        store,
        Hub(max_tabs_per_seat=5, max_spectators=20),
        expiry_seconds=1e9,
        idle_seconds=idle_seconds,
    )
    await registry.ownership.start(str(path))
    return registry, store, time.perf_counter() - started


async def child_memory(path: Path) -> dict[str, Any]:
    me = psutil.Process()
    registry, store, seconds = await open_as_server(path, IDLE_SECONDS)
    gc.collect()
    out = {"rss_mib": me.memory_info().rss / 2**20, "held": len(registry), "start_s": seconds}
    await registry.close()
    await store.close()
    return out


async def child_reload(path: Path, count: int) -> dict[str, Any]:
    registry, store, _seconds = await open_as_server(path, IDLE_SECONDS)
    ids = list(registry.tables)[:count]
    idle = registry.idle
    assert idle is not None
    real = registry.clock
    registry.clock = lambda: real() + 2 * IDLE_SECONDS  # every table idle by now
    await registry.presence.tick(wait=True)  # the seats away by now: nothing else due
    idle.sweep()
    registry.clock = real
    let_go = len([i for i in ids if registry.get(i) is None])
    times = []
    for table_id in ids:
        started = time.perf_counter()
        table = await registry.find(table_id)
        times.append((time.perf_counter() - started) * 1000)
        assert table is not None
    times.sort()
    await registry.close()
    await store.close()
    return {
        "reloaded": let_go,
        "p50_ms": statistics.median(times),
        "p99_ms": times[int(len(times) * 0.99) - 1],
        "max_ms": times[-1],
    }


def run_child(*args: str) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "benchmarks.bench_idle", "--child", *args]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--live", type=int, default=1000)
    parser.add_argument("--stored", type=int, default=100_000)
    parser.add_argument("--moves", type=int, default=6)
    parser.add_argument("--reload", type=int, default=500)
    parser.add_argument("--child", nargs="+")
    args = parser.parse_args()
    if args.child:
        kind, path = args.child[0], Path(args.child[1])
        if kind == "memory":
            print(json.dumps(asyncio.run(child_memory(path))))
        else:
            print(json.dumps(asyncio.run(child_reload(path, int(args.child[2])))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        live, both = Path(tmp) / "live.sqlite3", Path(tmp) / "both.sqlite3"
        started = time.perf_counter()
        asyncio.run(make_live(live, args.live, args.moves, seed=1))
        shutil.copy(live, both)
        add_stored(both, args.stored)
        size = both.stat().st_size / 2**20
        print(f"files made in {time.perf_counter() - started:.1f} s ({size:.0f} MiB); {load()}")
        alone = run_child("memory", str(live))
        print(
            f"{args.live} live tables alone: RSS {alone['rss_mib']:.1f} MiB,"
            f" {alone['held']} held, loaded in {alone['start_s']:.2f} s; {load()}"
        )
        many = run_child("memory", str(both))
        print(
            f"{args.live} live + {args.stored} stored: RSS {many['rss_mib']:.1f} MiB,"
            f" {many['held']} held, loaded in {many['start_s']:.2f} s; {load()}"
        )
        print(f"difference: {many['rss_mib'] - alone['rss_mib']:+.1f} MiB; {load()}")
        back = run_child("reload", str(both), str(args.reload))
        print(
            f"reload of {back['reloaded']} tables let go, from a file of"
            f" {args.live + args.stored}: p50 {back['p50_ms']:.2f} ms,"
            f" p99 {back['p99_ms']:.2f} ms, max {back['max_ms']:.2f} ms; {load()}"
        )


if __name__ == "__main__":
    main()
