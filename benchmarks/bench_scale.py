"""Scale-out figures (docs/scale-out.md "Proof"): HAProxy + PostgreSQL + N workers on loopback.

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
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx

from benchmarks.loadclient import Stats, Table, connect_all, create_tables, phase
from benchmarks.serve import LOAD_ENV, raise_open_files
from tests.conftest import free_port
from tests.postgres import Cluster, pg_bin, start_cluster
from tests.scale.cluster import Proxy, Worker

QUOTA = 0.25  # of one core, per worker


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def start_profiled_cluster(root: Path, settings: Sequence[str] = ()) -> Cluster:
    """A throwaway cluster as `start_cluster(fsync=True)` makes it, with
    `pg_stat_statements` loaded (planning time tracked too), and `settings`
    (postgresql.conf lines)."""
    bindir = pg_bin()
    if bindir is None:
        raise SystemExit("PostgreSQL's programs are not installed (apt-get install postgresql)")
    cluster = Cluster(bindir, root, free_port())
    cluster.init(fsync=True)
    with (cluster.data / "postgresql.conf").open("a") as f:
        f.write(
            "shared_preload_libraries = 'pg_stat_statements'\n"
            "pg_stat_statements.track_planning = on\n"
        )
        f.writelines(f"{line}\n" for line in settings)
    cluster.start()
    cluster.create_database()
    return cluster


async def statements(url: str, reset: bool = False) -> list[dict[str, Any]]:
    """The cluster's statements by total time (`pg_stat_statements`), or reset them."""
    import asyncpg

    con = await asyncpg.connect(url)
    try:
        await con.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        if reset:
            await con.execute("SELECT pg_stat_statements_reset()")
            return []
        rows = await con.fetch(
            "SELECT query, calls, total_exec_time, total_plan_time, wal_bytes"
            " FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 8"
        )
    finally:
        await con.close()
    return [dict(r) for r in rows]


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


TICK = os.sysconf("SC_CLK_TCK")


def proc_stats() -> dict[int, tuple[int, float, float]]:
    """Every process now: pid -> (parent pid, own CPU seconds, reaped children's CPU
    seconds), from /proc/<pid>/stat (utime + stime; cutime + cstime)."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                raw = f.read()
        except OSError:  # gone meanwhile
            continue
        # The command name may hold spaces and parentheses: split after the last ')'.
        fields = raw[raw.rindex(b")") + 2 :].split()
        ppid = int(fields[1])
        utime, stime, cutime, cstime = (int(v) for v in fields[11:15])
        out[int(entry)] = (ppid, (utime + stime) / TICK, (cutime + cstime) / TICK)
    return out


def pg_role(pid: int, postmaster: int) -> str:
    """What a PostgreSQL process is, from its title (`postgres: walwriter`, `postgres:
    gin b1234 127.0.0.1(5678) idle`): the postmaster (with the backends it reaped),
    the backends, or the auxiliary process's name."""
    if pid == postmaster:
        return "postmaster"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            title = f.read().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return "gone"
    role = title.removeprefix("postgres: ")
    for aux in ("walwriter", "checkpointer", "background writer", "autovacuum"):
        if role.startswith(aux):
            return aux.split()[-1]
    return "backends" if role.startswith("gin ") else "other"


class ProcMeter:
    """CPU seconds of whole process trees, from /proc/<pid>/stat.

    A tree's CPU is its live processes' own time plus what they reaped of children
    that ended (cutime + cstime): a PostgreSQL backend or computer process that ends
    during the window is counted, and one alive at both ends is its own difference.
    """

    def __init__(self, roots: dict[str, int], commits: Callable[[], int] | None = None) -> None:
        self.roots = roots
        # The database's commits so far (pg_stat_database), for commits per action.
        self.commits = commits

    def _tree_cpu(self) -> dict[str, float]:
        stats = proc_stats()
        children: dict[int, list[int]] = {}
        for pid, (ppid, _own, _reaped) in stats.items():
            children.setdefault(ppid, []).append(pid)
        out = {}
        for name, root in self.roots.items():
            total, todo = 0.0, [root]
            while todo:
                pid = todo.pop()
                if pid in stats:
                    total += stats[pid][1] + stats[pid][2]
                    if name == "postgres":  # and by PostgreSQL process, in `pg:` parts
                        part = f"pg:{pg_role(pid, root)}"
                        out[part] = out.get(part, 0.0) + stats[pid][1] + stats[pid][2]
                todo.extend(children.get(pid, ()))
            out[name] = total
        return out

    def start(self) -> None:
        self.counting = self._count_events() if os.environ.get("GIN_BENCH_PERF") else {}
        self.marks = self._tree_cpu()
        self.began = time.perf_counter()
        self.commits_at = self.commits() if self.commits else 0

    def stop(self) -> dict[str, float]:
        now = self._tree_cpu()
        out = {"seconds": time.perf_counter() - self.began}
        for name, cpu in now.items():
            out[name] = cpu - self.marks.get(name, 0.0)
        if self.commits:
            out["commits"] = self.commits() - self.commits_at
        out.update(self._counted())
        return out

    # With GIN_BENCH_PERF=1: system calls and context switches by part (`perf stat` on
    # the kernel's tracepoints: counts, the same on a loaded machine), as `sys:NAME`
    # and `cs:NAME`. PostgreSQL: the processes alive at the start (its backends).
    def _count_events(self) -> dict[str, tuple[subprocess.Popen[bytes], Path]]:
        stats = proc_stats()
        children: dict[int, list[int]] = {}
        for pid, (ppid, _own, _reaped) in stats.items():
            children.setdefault(ppid, []).append(pid)
        out = {}
        # GIN_BENCH_PERF=2: each system call by name too (`sysx:PART:NAME`).
        each = os.environ.get("GIN_BENCH_PERF") == "2"
        events = "syscalls:sys_enter_*" if each else "raw_syscalls:sys_enter"
        events += ",sched:sched_switch"
        for name, root in self.roots.items():
            pids, todo = [], [root]
            while todo:
                pid = todo.pop()
                pids.append(pid)
                todo.extend(children.get(pid, ()))
            part = "workers" if name.startswith("w") else name
            path = Path(tempfile.mkstemp(prefix=f"perf-{name}-")[1])
            proc = subprocess.Popen(
                ["perf", "stat", "-x", ",", "-o", str(path), "-e",
                 events, "-p", ",".join(map(str, pids))],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            out[f"{part}/{name}"] = (proc, path)
        time.sleep(3.0 if each else 0.3)  # attached (hundreds of tracepoints take seconds)
        return out

    def _counted(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for key, (proc, path) in self.counting.items():
            part = key.split("/")[0]
            proc.send_signal(2)
            proc.wait(120)
            for line in path.read_text().splitlines():
                fields = line.split(",")
                if len(fields) > 2 and fields[0].strip().isdigit():
                    kind = "sys" if "sys_enter" in fields[2] else "cs"
                    out[f"{kind}:{part}"] = out.get(f"{kind}:{part}", 0.0) + int(fields[0])
                    if fields[2].startswith("syscalls:sys_enter_") and int(fields[0]):
                        key = f"sysx:{part}:{fields[2].removeprefix('syscalls:sys_enter_')}"
                        out[key] = out.get(key, 0.0) + int(fields[0])
            path.unlink()
        return out


def commit_counter(pg: Cluster, url: str) -> Callable[[], int]:
    """The commits of `url`'s database so far (psql: the meter runs in the client's
    process, whose loop must not be borrowed)."""
    dbname = url.rsplit("/", 1)[1]
    query = f"SELECT xact_commit FROM pg_stat_database WHERE datname = '{dbname}'"

    def count() -> int:
        out = subprocess.run(
            [str(pg.bindir / "psql"), "-h", "127.0.0.1", "-p", str(pg.port), "-U", "gin",
             "-d", dbname, "-Atc", "SELECT pg_stat_clear_snapshot(); " + query],
            capture_output=True, text=True, check=True, timeout=30,
        )  # fmt: skip
        return int(out.stdout.split()[-1])

    return count


# --- the set-up ----------------------------------------------------------------------
class Setup:
    def __init__(
        self,
        root: Path,
        pg: Cluster | None,
        names: list[str],
        cap: float | None,
        tree: Path | None = None,
        extra: dict[str, str] | None = None,
    ):
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
        self.url = url
        self.workers = [Worker(n, free_port(), url, root / f"{n}.log") for n in names]
        if tree is not None:
            for w in self.workers:
                w.tree = tree
        self.caps: list[CpuCap] = []
        self.capped = False
        env = dict(LOAD_ENV)
        # `haproxy.NAME=VALUE`: a line `NAME VALUE` in HAProxy's global section.
        extra = dict(extra or {})
        # `pg.NAME=VALUE`: a PostgreSQL setting for this set-up (ALTER SYSTEM, reloaded;
        # reset when the set-up closes), for settings that need no restart.
        self.pg_settings = {
            k.removeprefix("pg."): extra.pop(k) for k in list(extra) if k.startswith("pg.")
        }
        if pg is not None and self.pg_settings:
            alter_system(pg, self.pg_settings)
        proxy_globals = tuple(
            f"{k.removeprefix('haproxy.')} {extra.pop(k)}"
            for k in list(extra)
            if k.startswith("haproxy.")
        )
        # `haproxyd.NAME=VALUE` (`,` for a space in VALUE): a line of its `defaults`.
        proxy_defaults = tuple(
            f"{k.removeprefix('haproxyd.')} {extra.pop(k).replace(',', ' ')}"
            for k in list(extra)
            if k.startswith("haproxyd.")
        )
        env.update(extra)
        for w in self.workers:
            w.start(env)
            if cap is not None:
                c = CpuCap(f"gin-bench-{os.getpid()}-{w.name}", cap)
                self.caps.append(c)
                assert w.proc is not None
                self.capped = c.add(w.proc.pid) or self.capped
        self.proxy: Proxy | None = None
        if pg is not None:
            self.proxy = Proxy(
                free_port(),
                root,
                self.workers,
                tables_per_hour=10_000_000,
                globals=proxy_globals,
                defaults=proxy_defaults,
            )
            self.proxy.log.write_text("")
            self.proxy.start()

    @property
    def base(self) -> str:
        return self.proxy.base if self.proxy else self.workers[0].base

    def meter(self) -> ProcMeter:
        roots = {w.name: w.proc.pid for w in self.workers if w.proc is not None}
        if self.proxy is not None and self.proxy.proc is not None:
            roots["haproxy"] = self.proxy.proc.pid
        if self.pg is not None:
            pid = int((self.pg.data / "postmaster.pid").read_text().split()[0])
            roots["postgres"] = pid
            return ProcMeter(roots, commit_counter(self.pg, self.url))
        return ProcMeter(roots)

    def close(self) -> None:
        if self.proxy is not None:
            self.proxy.stop()
        for w in self.workers:
            w.stop()
        for c in self.caps:
            c.remove()
        if self.pg is not None and self.pg_settings:
            alter_system(self.pg, dict.fromkeys(self.pg_settings))


def alter_system(pg: Cluster, settings: dict[str, str | None]) -> None:
    """Set (or, for None, reset) cluster settings and reload them (psql; one `-c` each:
    ALTER SYSTEM refuses to run inside the transaction of a multi-statement `-c`)."""
    commands: list[str] = []
    for name, value in settings.items():
        sql = (
            f"ALTER SYSTEM RESET {name}"
            if value is None
            else f"ALTER SYSTEM SET {name} = '{value}'"
        )
        commands += ["-c", sql]
    pg.run(
        str(pg.bindir / "psql"), "-h", "127.0.0.1", "-p", str(pg.port), "-U", "gin", "-d", "gin",
        "-At", *commands, "-c", "SELECT pg_reload_conf()",
    )  # fmt: skip
    time.sleep(0.5)  # the postmaster's children take the reload on their next wake


@contextlib.contextmanager
def setup(
    root: Path,
    pg: Cluster | None,
    names: list[str],
    cap: float | None,
    tree: Path | None = None,
    extra: dict[str, str] | None = None,
) -> Iterator[Setup]:
    s = Setup(root, pg, names, cap, tree, extra)
    try:
        yield s
    finally:
        s.close()


async def load(
    base: str, count: int, seconds: float, period: float | None, meter: ProcMeter | None = None
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
    base: str, count: int, seconds: float, period: float | None, meter: ProcMeter | None = None
) -> dict[str, Any]:
    """`load` in a process of its own, so the client's loop is not this one's."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, (base, count, seconds, period, meter)))
    proc.start()
    while not parent.poll(1.0):
        if not proc.is_alive():  # the client failed (its traceback is above)
            raise RuntimeError(f"the load client ended with {proc.exitcode}")
    result: dict[str, Any] = parent.recv()
    proc.join(30)
    return result


def spread(counts: Counter[str], workers: int) -> float:
    values = [counts.get(f"w{i}", 0) for i in range(1, workers + 1)]
    return max(values) / statistics.mean(values)


def load_average() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def per_action(cpu: dict[str, float], actions: int) -> dict[str, float]:
    """µs of CPU per action by part (workers summed), and the total."""
    parts: dict[str, float] = {}
    for name, seconds in cpu.items():
        if name in ("seconds", "commits") or ":" in name:
            continue
        part = "workers" if name.startswith("w") else name
        parts[part] = parts.get(part, 0.0) + seconds / actions * 1e6
    parts["total"] = sum(parts.values())
    return parts


def by_process(cpu: dict[str, float], per: float) -> dict[str, float]:
    """µs of CPU by process (each worker, HAProxy, each kind of PostgreSQL process) per
    `per` (actions, or seconds for an idle window)."""
    return {
        name: seconds / per * 1e6
        for name, seconds in cpu.items()
        if name not in ("seconds", "commits", "postgres")
        and not name.startswith(("sys:", "cs:", "sysx:"))  # counts, not CPU
    }


def idle_cpu(s: Setup, seconds: float) -> dict[str, float]:
    """Every process's CPU over `seconds` with nothing asked of the set-up: its fixed
    cost (health checks, the ownership watch, timers), µs per second."""
    meter = s.meter()
    meter.start()
    time.sleep(seconds)
    cpu = meter.stop()
    return by_process(cpu, cpu["seconds"])


def print_breakdown(title: str, rows: list[tuple[str, dict[str, float]]], unit: str) -> None:
    names = sorted({k for _, r in rows for k in r}, key=lambda k: (k.startswith("pg:"), k))
    print(title)
    print(f"| set-up | {' | '.join(k.removeprefix('pg:') for k in names)} | total {unit} |")
    print("|---" * (len(names) + 2) + "|")
    for label, r in rows:
        cells = " | ".join(f"{r[k]:.0f}" if k in r else "" for k in names)
        print(f"| {label} | {cells} | {sum(r.values()):.0f} |")


def cpu_mode(
    root: Path,
    pg: Cluster,
    seconds: float,
    tables: int,
    period: float,
    paced_tables: int = 1000,
    idle_seconds: float = 0.0,
) -> int:
    """CPU per action over every process at 1, 2 and 4 workers through the proxy, and of
    one direct worker (SQLite, no proxy), at the same paced load; then p99 at 1,000 tables
    paced at one action per table every 5 s through the proxy with 2 workers. With
    `idle_seconds`, each set-up's CPU with no load first (its fixed cost per second)."""
    say(f"load average before: {load_average()}")
    rows = []
    idles: list[tuple[str, dict[str, float]]] = []
    profile: list[dict[str, Any]] = []
    for n in (0, 1, 2, 4):  # 0: one direct worker, its SQLite file, no proxy
        names = [f"w{i}" for i in range(1, max(n, 1) + 1)]
        with setup(root, pg if n else None, names, None) as s:
            if idle_seconds:
                idles.append((f"{n} workers" if n else "direct", idle_cpu(s, idle_seconds)))
            if n == 2:
                asyncio.run(statements(pg.url, reset=True))
            result = load_apart(s.base, tables, seconds, period, s.meter())
            if n == 2:
                profile = asyncio.run(statements(pg.url))
        parts = per_action(result["cpu"], result["actions"])
        rows.append((n, result, parts))
        say(
            f"{f'{n} worker(s)' if n else 'direct worker'}: {result['per_second']:.0f} actions/s,"
            f" CPU per action {parts['total']:.0f} µs (workers {parts['workers']:.0f},"
            f" PostgreSQL {parts.get('postgres', 0):.0f}, HAProxy {parts.get('haproxy', 0):.0f});"
            f" p99 {result['p99_ms']:.1f} ms; load average {load_average()}"
        )
    paced_period = 5.0
    paced: dict[str, Any] = {}
    if paced_tables:
        with setup(root, pg, ["w1", "w2"], None) as s:
            paced = load_apart(s.base, paced_tables, max(seconds, 30.0), paced_period, s.meter())
        paced["parts"] = per_action(paced["cpu"], paced["actions"])
        say(
            f"{paced_tables} tables, one action each every {paced_period:.0f} s, 2 workers: "
            f"{paced['per_second']:.0f} actions/s, p50 {paced['p50_ms']:.1f} ms, p99 "
            f"{paced['p99_ms']:.1f} ms, max {paced['max_ms']:.0f} ms; load average "
            f"{load_average()}"
        )
    direct = rows[0][2]["total"]
    one = rows[1][2]["total"]
    print()
    print(
        f"CPU seconds per action summed over every process (HAProxy, workers, PostgreSQL"
        f" backends, from /proc), {tables} tables paced at one action per table every"
        f" {period:g} s, {seconds:g} s measured:"
    )
    print("| set-up | actions/s | CPU µs/action | / 1 worker | / direct | workers µs |"
          " PostgreSQL µs | HAProxy µs | p50 ms | p99 ms |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n, result, parts in rows:
        label = f"{n} worker{'s' if n > 1 else ''} + proxy + PostgreSQL" if n else "1 direct worker"
        print(
            f"| {label} | {result['per_second']:.0f} | {parts['total']:.0f} |"
            f" {parts['total'] / one:.2f} | {parts['total'] / direct:.2f} |"
            f" {parts['workers']:.0f} | {parts.get('postgres', 0):.0f} |"
            f" {parts.get('haproxy', 0):.0f} | {result['p50_ms']:.1f} | {result['p99_ms']:.1f} |"
        )
    print()
    print_breakdown(
        "CPU µs per action by process (pg: PostgreSQL's processes; backends: the"
        " workers' connections):",
        [
            (f"{n} workers" if n else "direct", by_process(r["cpu"], r["actions"]))
            for n, r, _ in rows
        ],
        "µs/action",
    )
    if idles:
        print()
        print_breakdown(
            f"At idle (no tables, {idle_seconds:g} s), CPU µs per second by process:",
            idles,
            "µs/s",
        )
    print()
    scaled = [p["total"] for n, _, p in rows if n]
    print(
        f"max/min over 1, 2, 4 workers: {max(scaled) / min(scaled):.2f} (goal <= 1.10);"
        f" 2 workers / direct: {rows[2][2]['total'] / direct:.2f} (goal <= 1.35)"
    )
    if paced:
        print()
        print(
            f"p99 at {paced_tables} tables, one action per table every {paced_period:g} s,"
            f" through the proxy, 2 workers: {paced['p99_ms']:.1f} ms (goal <= 50 ms; p50"
            f" {paced['p50_ms']:.1f} ms, max {paced['max_ms']:.0f} ms,"
            f" {paced['per_second']:.0f} actions/s, {paced['parts']['total']:.0f} µs CPU per"
            " action)"
        )
    print()
    print("PostgreSQL's statements in the 2-worker run (pg_stat_statements, per call):")
    for st in profile:
        calls = max(1, st["calls"])
        query = " ".join(st["query"].split())[:60]
        print(
            f"  {st['calls']:7d} calls  exec {st['total_exec_time'] * 1000 / calls:7.1f} µs"
            f"  plan {st['total_plan_time'] * 1000 / calls:6.1f} µs"
            f"  WAL {int(st['wal_bytes']) / calls:6.0f} B  {query}"
        )
    print(f"load average after: {load_average()}")
    return 0


def compare_mode(
    root: Path,
    pg: Cluster,
    args: argparse.Namespace,
    variants: list[tuple[str, Path | None, dict[str, str]]],
) -> int:
    """Per round: one direct worker (SQLite, no proxy), then each variant with
    `--workers` workers through the proxy, at the same paced load; the ratio to the
    direct worker of the same round. PostgreSQL's CPU by process, and actions per commit
    (pg_stat_database's commits in the measured window)."""
    say(f"load average before: {load_average()}")
    runs: dict[str, list[dict[str, Any]]] = {}
    plan: list[tuple[str, Path | None, dict[str, str]]] = [("direct", None, {}), *variants]
    for r in range(args.rounds):
        direct = 0.0
        for label, tree, settings in plan:
            extra = dict(settings)  # `workers=N`: this variant's own count of workers
            n = 0 if label == "direct" else int(extra.pop("workers", args.workers))
            names = [f"w{i}" for i in range(1, max(n, 1) + 1)]
            with setup(root, pg if n else None, names, None, tree, extra) as s:
                result = load_apart(s.base, args.tables, args.seconds, args.period, s.meter())
            cpu, actions = result["cpu"], result["actions"]
            parts = per_action(cpu, actions)
            if label == "direct":
                direct = parts["total"]
            run = {
                "total": parts["total"],
                "ratio": parts["total"] / direct,
                "workers": parts["workers"],
                "postgres": parts.get("postgres", 0.0),
                "haproxy": parts.get("haproxy", 0.0),
                "per_commit": actions / cpu["commits"] if cpu.get("commits") else 0.0,
                "p50": result["p50_ms"],
                "p99": result["p99_ms"],
                "rate": result["per_second"],
                "load": os.getloadavg()[0],
            }
            for name, seconds in cpu.items():
                if name.startswith("pg:"):
                    run[name] = seconds / actions * 1e6
                elif name.startswith(("sys:", "cs:", "sysx:")):  # counts per action
                    run[name] = seconds / actions
            runs.setdefault(label, []).append(run)
            pgs = ", ".join(f"{k[3:]} {v:.0f}" for k, v in run.items() if k.startswith("pg:"))
            say(
                f"round {r + 1}, {label}: {run['rate']:.0f} actions/s, {run['total']:.0f} µs per"
                f" action ({run['ratio']:.2f}x direct; workers {run['workers']:.0f}, PostgreSQL"
                f" {run['postgres']:.0f} [{pgs}], HAProxy {run['haproxy']:.0f});"
                f" {run['per_commit']:.2f} actions per commit; p50 {run['p50']:.1f} ms, p99"
                f" {run['p99']:.1f} ms; load average {load_average()}"
            )
    med = statistics.median
    print()
    print(
        f"CPU µs per action over every process, {args.tables} tables paced at one action per"
        f" table every {args.period:g} s, {args.seconds:g} s measured, {args.rounds} rounds"
        f" alternated, medians (load average at the end of each run: "
        f"{min(r['load'] for v in runs.values() for r in v):.1f} to"
        f" {max(r['load'] for v in runs.values() for r in v):.1f}):"
    )
    roles = sorted({k for v in runs.values() for r in v for k in r if k.startswith("pg:")})
    head = " | ".join(k[3:] for k in roles)
    print(f"| set-up | µs/action | / direct (same round) | workers | PostgreSQL | {head} |"
          " HAProxy | actions/commit | p50 ms | p99 ms |")  # fmt: skip
    print("|---" * (10 + len(roles)) + "|")
    for label, rs in runs.items():
        cells = " | ".join(f"{med([r.get(k, 0.0) for r in rs]):.0f}" for k in roles)
        print(
            f"| {label} | {med([r['total'] for r in rs]):.0f} |"
            f" {med([r['ratio'] for r in rs]):.2f} ({min(r['ratio'] for r in rs):.2f}–"
            f"{max(r['ratio'] for r in rs):.2f}) | {med([r['workers'] for r in rs]):.0f} |"
            f" {med([r['postgres'] for r in rs]):.0f} | {cells} |"
            f" {med([r['haproxy'] for r in rs]):.0f} | {med([r['per_commit'] for r in rs]):.2f} |"
            f" {med([r['p50'] for r in rs]):.1f} | {med([r['p99'] for r in rs]):.1f} |"
        )
    counts = sorted(
        {k for v in runs.values() for r in v for k in r if k.startswith(("sys:", "cs:"))}
    )
    if counts:
        print()
        print("System calls (sys) and context switches (cs) per action by part, medians"
              " (perf stat on the kernel's tracepoints):")  # fmt: skip
        print(f"| set-up | {' | '.join(counts)} |")
        print("|---" * (len(counts) + 1) + "|")
        for label, rs in runs.items():
            cells = " | ".join(f"{med([r.get(k, 0.0) for r in rs]):.1f}" for k in counts)
            print(f"| {label} | {cells} |")
    each = sorted({k for v in runs.values() for r in v for k in r if k.startswith("sysx:")})
    if each:
        top = sorted(
            each, key=lambda k: -max(med([r.get(k, 0.0) for r in rs]) for rs in runs.values())
        )
        top = sorted(top[:16])
        print()
        print("System calls per action by part and name (the 16 most frequent), medians:")
        print(f"| set-up | {' | '.join(k.removeprefix('sysx:') for k in top)} |")
        print("|---" * (len(top) + 1) + "|")
        for label, rs in runs.items():
            cells = " | ".join(f"{med([r.get(k, 0.0) for r in rs]):.2f}" for k in top)
            print(f"| {label} | {cells} |")
    print(f"load average after: {load_average()}")
    return 0


def parse_variant(text: str) -> tuple[str, Path | None, dict[str, str]]:
    """`LABEL[@TREE] [NAME=VALUE ...]`: a set-up's name, the checkout its workers run
    (default: this one) and settings for them."""
    head, *settings = text.split()
    label, _, tree = head.partition("@")
    return label, Path(tree) if tree else None, dict(kv.split("=", 1) for kv in settings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter phases, fewer tables")
    parser.add_argument(
        "--quota", type=float, default=QUOTA, help="each worker's share of a core (0.25)"
    )
    parser.add_argument(
        "--scaling-only", action="store_true", help="only the 1/2/4-worker throughput"
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="only CPU per action over every process at 1, 2, 4 workers, and p99 at"
        " 1,000 tables paced every 5 s (issue 30; about 4 min with the defaults)",
    )
    parser.add_argument(
        "--seconds", type=float, default=20.0, help="--cpu: each measured phase (20)"
    )
    parser.add_argument("--tables", type=int, default=200, help="--cpu: paced tables (200)")
    parser.add_argument(
        "--idle",
        type=float,
        default=0.0,
        help="--cpu: first measure each set-up this many seconds with no load (0: not)",
    )
    parser.add_argument(
        "--paced-tables",
        type=int,
        default=1000,
        help="--cpu: tables of the p99 run (1000; 0: no such run)",
    )
    parser.add_argument(
        "--period", type=float, default=0.5, help="--cpu: seconds between a table's actions (0.5)"
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="compare instead: 'LABEL[@TREE] [NAME=VALUE ...]' (repeat); each round runs one"
        " direct worker, then each variant with --workers workers through the proxy; NAME:"
        " the workers' settings, haproxy.NAME for a line of HAProxy's global section"
        " (haproxyd.NAME of its defaults; `,` for a space in the value),"
        " pg.NAME for a PostgreSQL setting that needs no restart (ALTER SYSTEM), or"
        " workers=N for this variant's count of workers (default --workers)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="--variant: rounds (3)")
    parser.add_argument("--workers", type=int, default=2, help="--variant: workers (2)")
    args = parser.parse_args()
    quota = args.quota
    raise_open_files()
    flat_seconds = 5.0 if args.quick else 10.0
    paced_seconds = 8.0 if args.quick else 15.0
    paced_tables = 1000
    root = Path(tempfile.mkdtemp(prefix="gin-bench-scale-"))
    root.chmod(0o755)
    say(f"PostgreSQL in {root} (fsync on, synchronous_commit on)")
    profiled = args.cpu or args.variant
    pg = start_profiled_cluster(root / "pg") if profiled else start_cluster(root / "pg", fsync=True)
    figures: dict[str, Any] = {}
    try:
        if args.variant:
            return compare_mode(root, pg, args, [parse_variant(v) for v in args.variant])
        if args.cpu:
            return cpu_mode(
                root, pg, args.seconds, args.tables, args.period, args.paced_tables, args.idle
            )
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
        if os.environ.get("GIN_SCALE_KEEP"):  # to read the workers' and HAProxy's logs
            say(f"logs kept in {root}")
        else:
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
