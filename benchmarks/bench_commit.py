"""Where one commit's PostgreSQL CPU goes (issue 30): the fenced append taken apart.

Run: `python -m benchmarks.bench_commit` (about a minute). A throwaway cluster as
`bench_pg`'s (`fsync` on, `synchronous_commit = on`); one connection, as a pool's,
makes `--calls` calls one after another of each probe, the probes alternated over
`--rounds` rounds; for each, the CPU per call of the connection's backend (user and
kernel, from /proc/<pid>/stat) and of the whole cluster (every PostgreSQL process):

- `round trip`: `SELECT 1`, no transaction to commit: the protocol and the wake-ups;
- `tiny commit`: a one-row update of a table's `last_active`: a commit and its WAL flush;
- `fenced append`: the store's statement (`postgres_appends.FENCED_APPEND`) for one
  append of one entry, as at low load;
- `the same, three CTEs (before)`: the statement as it was before this change;
- `fenced append, 8 per commit`: eight tables' appends in one statement, per append;
- `no flush` (a measurement, never a setting of the store): the fenced append with
  `synchronous_commit = off` for this connection alone, so the WAL writer flushes
  later: how much of the commit is the wait for the disk.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg

from benchmarks.bench_pg import bench_table
from benchmarks.bench_scale import ProcMeter, load_average, start_profiled_cluster
from hollywood_gin.tables.postgres_appends import FENCED_APPEND
from hollywood_gin.tables.postgres_store import PostgresStore
from hollywood_gin.tables.store import FIRST_EPOCH

TICK = os.sysconf("SC_CLK_TCK")

# The fenced append as it was before (issue 30, this session): the batch in a CTE of
# its own, the log's end in another, every batch row joined back for the answer.
THREE_CTES = """
WITH batch AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::integer[], $4::double precision[])
        WITH ORDINALITY AS b(table_id, epoch, first_seq, now, i)
),
owned AS (
    UPDATE tables t SET last_active = greatest(t.last_active, b.now)
    FROM batch b
    WHERE t.id = b.table_id AND t.owner_epoch = b.epoch
    RETURNING b.i, b.table_id, b.first_seq
),
ends AS (
    SELECT o.i, o.table_id, o.first_seq,
        (SELECT coalesce(max(e.seq), -1) FROM events e WHERE e.table_id = o.table_id) AS last
    FROM owned o
),
written AS (
    INSERT INTO events (table_id, seq, entry)
    SELECT ends.table_id, r.seq, r.entry
    FROM unnest($5::bigint[], $6::integer[], $7::text[]) AS r(i, seq, entry)
    JOIN ends ON ends.i = r.i
    WHERE ends.last + 1 = ends.first_seq
)
SELECT b.i, ends.i IS NOT NULL AS owned, ends.last,
    coalesce(ends.last + 1 = ends.first_seq, false) AS written
FROM batch b
LEFT JOIN ends USING (i)
"""

ENTRY = json.dumps({"event": "action", "seat": 0, "action": {"kind": "draw", "source": "stock"}})


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def backend_cpu(pid: int) -> tuple[float, float]:
    """The backend's user and kernel CPU seconds so far."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        raw = f.read()
    fields = raw[raw.rindex(b")") + 2 :].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


async def main_async(args: argparse.Namespace, url: str, postmaster: int) -> int:
    store = PostgresStore(url, owner="bench")
    await store.open()
    ids = [f"c{i}" for i in range(8)]
    for table_id in ids:
        await store.create(bench_table(table_id))
    await store.close()
    settings = {"synchronous_commit": "on", "application_name": "bench"}
    con = await asyncpg.connect(url, server_settings=settings)
    lazy = await asyncpg.connect(url, server_settings={**settings, "synchronous_commit": "off"})
    pids = {
        id(c): int(await c.fetchval("SELECT pg_backend_pid()")) for c in (con, lazy)
    }  # fmt: skip
    seqs = dict.fromkeys(ids, 1)

    def append(
        c: asyncpg.Connection, tables: list[str], statement: str = FENCED_APPEND
    ) -> Callable[[], Awaitable[object]]:
        async def call() -> object:
            firsts = [seqs[t] for t in tables]
            for t in tables:
                seqs[t] += 1
            n = len(tables)
            return await c.fetch(
                statement, tables, [FIRST_EPOCH] * n, firsts, [time.time()] * n,
                list(range(1, n + 1)), firsts, [ENTRY] * n,
            )  # fmt: skip

        return call

    probes: list[tuple[str, asyncpg.Connection, Callable[[], Awaitable[object]], int]] = [
        ("round trip (SELECT 1)", con, lambda: con.fetchval("SELECT 1"), 1),
        (
            "tiny commit (one-row UPDATE)",
            con,
            lambda: con.execute("UPDATE tables SET last_active = $2 WHERE id = $1", "c0", 1.0),
            1,
        ),
        ("fenced append, 1 per commit", con, append(con, ["c1"]), 1),
        ("the same, three CTEs (before)", con, append(con, ["c3"], THREE_CTES), 1),
        ("fenced append, 8 per commit", con, append(con, ids), 8),
        ("no flush: fenced append, 1 (measurement only)", lazy, append(lazy, ["c2"]), 1),
        ("no flush: three CTEs (before)", lazy, append(lazy, ["c4"], THREE_CTES), 1),
    ]
    results: dict[str, list[tuple[float, float, float, float]]] = {}
    for _ in range(args.rounds):
        for label, c, call, per in probes:
            for _ in range(20):  # warm: the statement prepared, the plan generic
                await call()
            pid = pids[id(c)]
            meter = ProcMeter({"postgres": postmaster})
            user0, sys0 = backend_cpu(pid)
            meter.start()
            began = time.perf_counter()
            for _ in range(args.calls):
                await call()
            wall = time.perf_counter() - began
            cluster = meter.stop()["postgres"]
            user1, sys1 = backend_cpu(pid)
            n = args.calls * per
            row = (
                (user1 - user0) / n * 1e6,
                (sys1 - sys0) / n * 1e6,
                cluster / n * 1e6,
                wall / args.calls * 1e6,
            )
            results.setdefault(label, []).append(row)
            say(
                f"{label}: backend user {row[0]:.0f} + kernel {row[1]:.0f} µs, cluster"
                f" {row[2]:.0f} µs per {'append' if per > 1 else 'call'}; {row[3]:.0f} µs a call;"
                f" load average {load_average()}"
            )
    await con.close()
    await lazy.close()
    med = statistics.median
    print()
    print(
        f"PostgreSQL CPU per call, {args.calls} calls one after another per probe, {args.rounds}"
        " rounds alternated, medians:"
    )
    print("| probe | backend user µs | backend kernel µs | whole cluster µs | wall µs per call |")
    print("|---|---|---|---|---|")
    for label, rows in results.items():
        cells = " | ".join(f"{med([r[k] for r in rows]):.0f}" for k in range(4))
        print(f"| {label} | {cells} |")
    print(f"load average after: {load_average()}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls per probe and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--setting", action="append", default=[], help="a postgresql.conf line for the cluster"
    )
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gin-bench-commit-"))
    root.chmod(0o755)
    cluster = start_profiled_cluster(root / "pg", args.setting)
    say(f"load average before: {load_average()}")
    try:
        postmaster = int((cluster.data / "postmaster.pid").read_text().split()[0])
        return asyncio.run(main_async(args, cluster.url, postmaster))
    finally:
        cluster.stop("fast")
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
