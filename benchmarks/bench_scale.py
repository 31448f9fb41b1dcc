"""Scale-out figures (SCALE.md): HAProxy + PostgreSQL + N workers on loopback.

Run: `pip install -e '.[dev,bench]' && python -m benchmarks.bench_scale` (about four
minutes; `--quick` about two). Needs root for the cgroup CPU quota (cgroup v1 `cpu`
or v2), `haproxy` and PostgreSQL's programs (`apt-get install haproxy postgresql`).

1. Scaling: flat-out actions/s with 1, 2 and 4 workers, each capped at 25 % of a
   core by a cgroup CPU quota, through the proxy (goal: >= 1.8x at 2, >= 3.4x at 4).
2. CPU per action of HAProxy + workers + PostgreSQL, against one worker with its
   SQLite file and no proxy, at the same paced load (goal <= 1.35x).
3. Latency at 1,000 paced tables (one action per table per second) through the
   proxy, 2 workers: p50/p99 from sending an action to both seats holding the new
   state (goal p99 <= 50 ms).
4. Tables per worker at 4 workers: max/mean over the real tables of (3) placed by
   HAProxy's hash, and over 4,000 fresh table ids (goal <= 1.25).

The load client is `benchmarks.loadclient`'s, run in this process: it shares the
machine's two cores with everything it measures, so figures near the machine's
limit are the client's as much as the servers'.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil

from benchmarks.loadclient import Stats, Table, connect_all, create_tables, phase
from benchmarks.serve import LOAD_ENV, raise_open_files
from tests.conftest import free_port
from tests.postgres import Cluster, start_cluster
from tests.scale.cluster import Proxy, Worker

QUOTA = 0.25  # of one core, per worker


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --- CPU caps ------------------------------------------------------------------------
class CpuCap:
    """A cgroup with a CFS quota of `share` of one core (v1 `cpu` or v2)."""

    def __init__(self, name: str, share: float) -> None:
        self.path: Path | None = None
        v1 = Path("/sys/fs/cgroup/cpu")
        v2 = Path("/sys/fs/cgroup")
        try:
            if (v1 / "cpu.cfs_quota_us").exists():
                self.path = v1 / name
                self.path.mkdir(exist_ok=True)
                (self.path / "cpu.cfs_period_us").write_text("100000")
                (self.path / "cpu.cfs_quota_us").write_text(str(int(share * 100000)))
            elif (v2 / "cgroup.controllers").exists():
                self.path = v2 / name
                self.path.mkdir(exist_ok=True)
                (self.path / "cpu.max").write_text(f"{int(share * 100000)} 100000")
        except OSError as exc:
            say(f"no cgroup CPU quota ({exc}): workers run uncapped")
            self.path = None

    def add(self, pid: int) -> bool:
        if self.path is None:
            return False
        (self.path / "cgroup.procs").write_text(str(pid))
        return True

    def remove(self) -> None:
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.rmdir()


class TreeMeter:
    """CPU seconds of whole process trees (PostgreSQL forks a process per connection)."""

    def __init__(self, roots: dict[str, int]) -> None:
        self.roots = {name: psutil.Process(pid) for name, pid in roots.items()}

    def _times(self) -> dict[str, dict[int, float]]:
        out: dict[str, dict[int, float]] = {}
        for name, root in self.roots.items():
            procs = {}
            for p in [root, *root.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    procs[p.pid] = sum(p.cpu_times()[:2])
            out[name] = procs
        return out

    def start(self) -> None:
        self.marks = self._times()
        self.began = time.perf_counter()

    def stop(self) -> dict[str, float]:
        now = self._times()
        out = {"seconds": time.perf_counter() - self.began}
        for name, procs in now.items():
            before = self.marks.get(name, {})
            out[name] = sum(t - before.get(pid, 0.0) for pid, t in procs.items())
        return out


# --- the set-up ----------------------------------------------------------------------
class Setup:
    def __init__(self, root: Path, pg: Cluster | None, names: list[str], cap: float | None):
        self.root = root
        self.pg = pg
        url = ""
        if pg is not None:
            url = pg.url.rsplit("/", 1)[0] + "/" + (dbname := f"b{secrets.token_hex(4)}")
            pg.run(
                str(pg.bindir / "createdb"),
                "-h",
                "127.0.0.1",
                "-p",
                str(pg.port),
                "-U",
                "gin",
                dbname,
            )
        self.workers = [Worker(n, free_port(), url, root / f"{n}.log") for n in names]
        self.caps: list[CpuCap] = []
        self.capped = False
        env = dict(LOAD_ENV)
        for w in self.workers:
            w.start(env)
            if cap is not None:
                c = CpuCap(f"gin-bench-{os.getpid()}-{w.name}", cap)
                self.caps.append(c)
                assert w.proc is not None
                self.capped = c.add(w.proc.pid) or self.capped
        self.proxy: Proxy | None = None
        if pg is not None:
            self.proxy = Proxy(free_port(), root, self.workers, tables_per_hour=10_000_000)
            self.proxy.log.write_text("")
            self.proxy.start()

    @property
    def base(self) -> str:
        return self.proxy.base if self.proxy else self.workers[0].base

    def meter(self) -> TreeMeter:
        roots = {w.name: w.proc.pid for w in self.workers if w.proc is not None}
        if self.proxy is not None and self.proxy.proc is not None:
            roots["haproxy"] = self.proxy.proc.pid
        if self.pg is not None:
            pid = int((self.pg.data / "postmaster.pid").read_text().split()[0])
            roots["postgres"] = pid
        return TreeMeter(roots)

    def close(self) -> None:
        if self.proxy is not None:
            self.proxy.stop()
        for w in self.workers:
            w.stop()
        for c in self.caps:
            c.remove()


@contextlib.contextmanager
def setup(root: Path, pg: Cluster | None, names: list[str], cap: float | None) -> Iterator[Setup]:
    s = Setup(root, pg, names, cap)
    try:
        yield s
    finally:
        s.close()


async def load(
    base: str, count: int, seconds: float, period: float | None, meter: TreeMeter | None = None
) -> dict[str, Any]:
    """`count` tables through `base`, played for `seconds` (flat out when no period)."""
    stats = Stats()
    made = await create_tables(base, count)
    ws = base.replace("http://", "ws://")
    tables = [Table(t, stats) for t, _, _ in made]
    plans = [
        (table, [(f"{ws}/ws/tables/{t}", 0, a), (f"{ws}/ws/tables/{t}", 1, b)])
        for table, (t, a, b) in zip(tables, made, strict=True)
    ]
    readers = await connect_all(plans)  # type: ignore[arg-type]

    class NoMeter:
        def start(self) -> dict[str, float]:
            return {"wall": time.perf_counter()}

        def stop(self, marks: dict[str, float]) -> dict[str, float]:
            return {"seconds": time.perf_counter() - marks["wall"], "client_cpu": 0.0}

    # A short warm-up, then the measured phase.
    await phase("warm-up", tables, stats, NoMeter(), mode="app", seconds=2.0, period=period)  # type: ignore[arg-type]
    if meter is not None:
        meter.start()
    result = await phase(
        "measured", tables, stats, NoMeter(), mode="app", seconds=seconds, period=period
    )  # type: ignore[arg-type]
    if meter is not None:
        result["cpu"] = meter.stop()
    for t in tables:
        t.closing = True
    await asyncio.gather(*(s.ws.close() for t in tables for s in t.socks()), return_exceptions=True)
    for r in readers:
        r.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    result["table_ids"] = [t for t, _, _ in made]
    return result


def _child(conn: Any, args: tuple[Any, ...]) -> None:
    conn.send(asyncio.run(load(*args)))
    conn.close()


def load_apart(
    base: str, count: int, seconds: float, period: float | None, meter: TreeMeter | None = None
) -> dict[str, Any]:
    """`load` in a process of its own, so the client's loop is not this one's."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, (base, count, seconds, period, meter)))
    proc.start()
    result: dict[str, Any] = parent.recv()
    proc.join(30)
    return result


def spread(counts: Counter[str], workers: int) -> float:
    values = [counts.get(f"w{i}", 0) for i in range(1, workers + 1)]
    return max(values) / statistics.mean(values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter phases, fewer tables")
    parser.add_argument(
        "--quota", type=float, default=QUOTA, help="each worker's share of a core (0.25)"
    )
    parser.add_argument(
        "--scaling-only", action="store_true", help="only the 1/2/4-worker throughput"
    )
    args = parser.parse_args()
    quota = args.quota
    raise_open_files()
    flat_seconds = 5.0 if args.quick else 10.0
    paced_seconds = 8.0 if args.quick else 15.0
    paced_tables = 1000
    root = Path(tempfile.mkdtemp(prefix="gin-bench-scale-"))
    root.chmod(0o755)
    say(f"PostgreSQL in {root} (fsync on, synchronous_commit on)")
    pg = start_cluster(root / "pg", fsync=True)
    figures: dict[str, Any] = {}
    try:
        # 1. Scaling with capped workers.
        rates = {}
        for n in (1, 2, 4):
            names = [f"w{i}" for i in range(1, n + 1)]
            with setup(root, pg, names, quota) as s:
                result = load_apart(s.base, 24 * n, flat_seconds, None)
                rates[n] = result["per_second"]
                say(
                    f"{n} worker(s) at {quota:.0%} of a core{'' if s.capped else ' (UNCAPPED)'}: "
                    f"{rates[n]:.0f} actions/s, p50 {result['p50_ms']:.1f} ms"
                )
                figures["capped"] = s.capped
        figures["scaling"] = {n: rates[n] / rates[1] for n in rates}
        figures["rates"] = rates
        if args.scaling_only:
            for n in rates:
                print(f"| {n} worker(s) at {quota:.0%} of a core | {rates[n]:.0f}/s | "
                      f"{figures['scaling'][n]:.2f} |")  # fmt: skip
            return 0

        # 2. CPU per action: 2 workers + proxy + PostgreSQL, against one direct worker.
        per_action = {}
        for label, pgc, names in (("direct", None, ["w1"]), ("scaled", pg, ["w1", "w2"])):
            with setup(root, pgc, names, None) as s:
                result = load_apart(s.base, 200, paced_seconds, 0.5, s.meter())
                cpu = result["cpu"]
                total = sum(v for k, v in cpu.items() if k != "seconds")
                per_action[label] = total / result["actions"] * 1e6
                parts = ", ".join(
                    f"{k} {v / result['actions'] * 1e6:.0f}"
                    for k, v in cpu.items()
                    if k != "seconds"
                )
                say(
                    f"CPU per action, {label}: {per_action[label]:.0f} µs ({parts}); "
                    f"{result['per_second']:.0f} actions/s"
                )
        figures["cpu_per_action_us"] = per_action
        figures["cpu_ratio"] = per_action["scaled"] / per_action["direct"]

        # 3 and 4. 1,000 paced tables through the proxy; then where HAProxy put tables.
        with setup(root, pg, ["w1", "w2"], None) as s:
            result = load_apart(s.base, paced_tables, paced_seconds, 1.0)
            figures["paced"] = {
                k: result[k] for k in ("per_second", "p50_ms", "p99_ms", "max_ms", "timeouts")
            }
            say(
                f"{paced_tables} paced tables via the proxy, 2 workers: "
                f"{result['per_second']:.0f} actions/s, p50 {result['p50_ms']:.1f} ms, "
                f"p99 {result['p99_ms']:.1f} ms, max {result['max_ms']:.0f} ms"
            )
        with setup(root, pg, ["w1", "w2", "w3", "w4"], None) as s:
            assert s.proxy is not None
            made = asyncio.run(create_tables(s.base, paced_tables))
            with httpx.Client(base_url=s.base, timeout=10) as http:
                for table_id, _, _ in made:
                    http.get(f"/api/tables/{table_id}")
                fresh = [secrets.token_urlsafe(16) for _ in range(4000)]
                for table_id in fresh:
                    http.get(f"/api/tables/{table_id}")
            time.sleep(0.5)
            placed = dict(s.proxy.requests())
            real = Counter(placed[t[:8]] for t, _, _ in made)
            ids = Counter(placed[t[:8]] for t in fresh)
            figures["spread_real"] = spread(real, 4)
            figures["spread_ids"] = spread(ids, 4)
            say(
                f"tables per worker at 4 workers: {dict(sorted(real.items()))} "
                f"(max/mean {figures['spread_real']:.2f}); 4,000 fresh ids: "
                f"{dict(sorted(ids.items()))} (max/mean {figures['spread_ids']:.2f})"
            )
    finally:
        pg.stop("fast")
        shutil.rmtree(root, ignore_errors=True)

    print()
    print("| figure | goal | measured |")
    print("|---|---|---|")
    cap = "" if figures.get("capped") else " (uncapped: no cgroup)"
    print(f"| actions/s, 1 worker at {quota:.0%} of a core{cap} | | {figures['rates'][1]:.0f} |")
    print(f"| 2 workers / 1 | >= 1.8 | {figures['scaling'][2]:.2f} ({figures['rates'][2]:.0f}/s) |")
    print(f"| 4 workers / 1 | >= 3.4 | {figures['scaling'][4]:.2f} ({figures['rates'][4]:.0f}/s) |")
    cpa = figures["cpu_per_action_us"]
    print(
        f"| CPU per action, proxy + 2 workers + PostgreSQL / one direct worker | <= 1.35 "
        f"| {figures['cpu_ratio']:.2f} ({cpa['scaled']:.0f} / {cpa['direct']:.0f} µs) |"
    )
    paced = figures["paced"]
    print(
        f"| p99, {paced_tables} paced tables through the proxy | <= 50 ms | "
        f"{paced['p99_ms']:.1f} ms (p50 {paced['p50_ms']:.1f}) |"
    )
    print(
        f"| tables per worker max/mean, 4 workers | <= 1.25 | {figures['spread_real']:.2f} "
        f"({paced_tables} tables); {figures['spread_ids']:.2f} (4,000 ids) |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
