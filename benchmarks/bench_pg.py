"""PostgreSQL's cost per append, the store alone (issue 30): where the fenced statement's
time goes, and what a gathering delay and the pool's reset change.

Run: `pip install -e '.[dev,bench,postgres]' && python -m benchmarks.bench_pg` (about a
minute: 4 variants of `--seconds` each, plus set-up). Needs PostgreSQL's programs
(`apt-get install postgresql`), like the scale tests.

A throwaway cluster (`fsync` on, `synchronous_commit = on`, `pg_stat_statements`
loaded), `--tables` tables (200), each appending one action-sized entry every
`--period` seconds (0.5: 400 appends/s in all, bench_scale's paced load) through one
`PostgresStore`, as one worker's registry would. For each variant: PostgreSQL's CPU
per append (every process of the cluster, from /proc), this process's, appends per
commit, and the latency of an append (from the call to its acknowledgement); then
`pg_stat_statements` (calls, execution and planning time, WAL per call) and
`EXPLAIN (ANALYZE, BUFFERS)` of the fenced append for batches of 1 and 8. Then the
cost of one commit alone: `--commits` appends of one entry made one after another
(a batch of one, as at low load), PostgreSQL's CPU per commit, for the statement
before and now, with and without the reset on release.

Variants, alternated: `before` (the statement before issue 30, asyncpg's reset query
on every release, no delay), `no reset`, `no reset, one update` (today's statement), and
that with a gathering delay of 1 and 2 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg

from benchmarks.bench_scale import ProcMeter, load_average, start_profiled_cluster
from hollywood_gin.tables import postgres_appends
from hollywood_gin.tables.postgres_appends import FENCED_APPEND
from hollywood_gin.tables.postgres_store import PostgresStore
from hollywood_gin.tables.store import FIRST_EPOCH, SeatRecord, TableRecord

# The fenced append before issue 30: `FOR UPDATE` of each table's row, then an update
# of it (two writes of the row per append).
BEFORE_APPEND = """
WITH batch AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::integer[], $4::double precision[])
        WITH ORDINALITY AS b(table_id, epoch, first_seq, now, i)
),
claimed AS (
    SELECT b.i, b.table_id, b.first_seq, b.now, t.owner_epoch = b.epoch AS owned
    FROM batch b JOIN tables t ON t.id = b.table_id
    FOR UPDATE OF t
),
ends AS (
    SELECT c.i, (SELECT coalesce(max(e.seq), -1) FROM events e WHERE e.table_id = c.table_id)
        AS last
    FROM claimed c WHERE c.owned
),
ok AS (
    SELECT c.* FROM claimed c JOIN ends USING (i) WHERE ends.last + 1 = c.first_seq
),
written AS (
    INSERT INTO events (table_id, seq, entry)
    SELECT ok.table_id, r.seq, r.entry
    FROM unnest($5::bigint[], $6::integer[], $7::text[]) AS r(i, seq, entry)
    JOIN ok ON ok.i = r.i
),
touched AS (
    UPDATE tables t SET last_active = greatest(t.last_active, m.now)
    FROM (SELECT table_id, max(now) AS now FROM ok GROUP BY table_id) m
    WHERE t.id = m.table_id
)
SELECT b.i, c.owned, ends.last, ok.i IS NOT NULL AS written
FROM batch b
LEFT JOIN claimed c USING (i)
LEFT JOIN ends USING (i)
LEFT JOIN ok USING (i)
"""

ENTRY = {"event": "action", "seat": 0, "action": {"kind": "draw", "source": "stock"}}


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q / 100))] if ordered else 0.0


def bench_table(table_id: str) -> TableRecord:
    """A new Hollywood table with both seats taken and its `start` logged (the
    benchmarks' tables; bench_commit uses it too)."""
    now = time.time()
    return TableRecord(
        table_id=table_id,
        options={"rules": "standard", "scoring": "hollywood", "target": 100},
        seats=[SeatRecord("a", "0" * 64), SeatRecord("b", "1" * 64)],
        created=now,
        last_active=now,
        log=[{"event": "start"}],
    )


async def variant(
    url: str,
    pg_pid: int,
    label: str,
    reset: bool,
    gather: float,
    statement: str,
    args: argparse.Namespace,
) -> dict[str, Any]:
    postgres_appends.FENCED_APPEND = statement
    store = PostgresStore(url, owner="bench", gather_seconds=gather)
    await store.open()
    if reset:  # asyncpg's own reset on every release (what the store did before)
        store.pool._reset = None
    ids = [f"bench{secrets.token_hex(4)}{i:05d}" for i in range(args.tables)]
    for table_id in ids:
        await store.create(bench_table(table_id))
    async with store.pool.acquire() as con:
        await con.execute("SELECT pg_stat_statements_reset()")
    latencies: list[float] = []
    seqs = dict.fromkeys(ids, 1)

    async def drive(index: int, table_id: str, began: float, deadline: float) -> None:
        next_at = began + args.period * index / len(ids)
        while True:
            now = time.perf_counter()
            if next_at > now:
                await asyncio.sleep(next_at - now)
            next_at = max(next_at + args.period, time.perf_counter())
            if time.perf_counter() >= deadline:
                return
            sent = time.perf_counter()
            await store.append(table_id, seqs[table_id], [ENTRY], time.time(), FIRST_EPOCH)
            seqs[table_id] += 1
            latencies.append(time.perf_counter() - sent)

    # Warm-up, then the measured window.
    began = time.perf_counter()
    await asyncio.gather(*(drive(i, t, began, began + 2.0) for i, t in enumerate(ids)))
    latencies.clear()
    commits, writes = store.commits, store.writes
    meter = ProcMeter({"postgres": pg_pid})
    meter.start()
    cpu0 = time.process_time()
    began = time.perf_counter()
    await asyncio.gather(*(drive(i, t, began, began + args.seconds) for i, t in enumerate(ids)))
    own = time.process_time() - cpu0
    cpu = meter.stop()
    appends = len(latencies)
    async with store.pool.acquire() as con:
        rows = await con.fetch(
            "SELECT query, calls, plans, total_exec_time, total_plan_time, rows, wal_bytes"
            " FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 8"
        )
    await store.close()
    return {
        "label": label,
        "appends": appends,
        "per_second": appends / cpu["seconds"],
        "pg_us": cpu["postgres"] / appends * 1e6,
        "worker_us": own / appends * 1e6,
        "per_commit": (store.writes - writes) / max(1, store.commits - commits),
        "p50_ms": percentile(latencies, 50) * 1000,
        "p99_ms": percentile(latencies, 99) * 1000,
        "statements": [
            {
                "query": " ".join(r["query"].split())[:70],
                "calls": r["calls"],
                "plans": r["plans"],
                "exec_us": r["total_exec_time"] * 1000 / max(1, r["calls"]),
                "plan_us": r["total_plan_time"] * 1000 / max(1, r["calls"]),
                "rows": r["rows"],
                "wal_bytes": int(r["wal_bytes"]) / max(1, r["calls"]),
            }
            for r in rows
        ],
    }


async def per_commit(url: str, pg_pid: int, statement: str, reset: bool, commits: int) -> float:
    """PostgreSQL's CPU µs per commit of one append (a batch of one), commits made one
    after another through a pool as the store makes them: what a commit costs whatever
    the load (at low load, a batch is one append)."""
    postgres_appends.FENCED_APPEND = statement
    store = PostgresStore(url, owner="bench")
    await store.open()
    if reset:
        store.pool._reset = None
    table_id = f"commit{secrets.token_hex(4)}"
    await store.create(
        TableRecord(
            table_id=table_id,
            options={"rules": "standard", "scoring": "hollywood", "target": 100},
            seats=[SeatRecord("a", "0" * 64), SeatRecord("b", "1" * 64)],
            created=time.time(),
            last_active=time.time(),
            log=[{"event": "start"}],
        )
    )
    for seq in range(1, 51):  # warm-up: the statement prepared, the plan settled
        await store.append(table_id, seq, [ENTRY], time.time(), FIRST_EPOCH)
    meter = ProcMeter({"postgres": pg_pid})
    meter.start()
    for seq in range(51, 51 + commits):
        await store.append(table_id, seq, [ENTRY], time.time(), FIRST_EPOCH)
    cpu = meter.stop()
    await store.close()
    return cpu["postgres"] / commits * 1e6


async def explain(url: str, batch: int) -> str:
    """EXPLAIN ANALYZE of one fenced append of `batch` tables (rolled back)."""
    con = await asyncpg.connect(url)
    try:
        ids = [r["id"] for r in await con.fetch("SELECT id FROM tables LIMIT $1", batch)]
        ends = {
            r["table_id"]: r["top"]
            for r in await con.fetch(
                "SELECT table_id, max(seq) AS top FROM events WHERE table_id = ANY($1::text[])"
                " GROUP BY table_id",
                ids,
            )
        }
        epochs = {
            r["id"]: r["owner_epoch"]
            for r in await con.fetch("SELECT id, owner_epoch FROM tables WHERE id = ANY($1)", ids)
        }
        entry = json.dumps(ENTRY)
        params = [
            ids,
            [epochs[t] for t in ids],
            [ends[t] + 1 for t in ids],
            [time.time()] * len(ids),
            list(range(1, len(ids) + 1)),
            [ends[t] + 1 for t in ids],
            [entry] * len(ids),
        ]
        async with con.transaction():
            plan = await con.fetch(
                "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + postgres_appends.FENCED_APPEND, *params
            )
            raise _Rollback
    except _Rollback:
        pass
    finally:
        await con.close()
    return "\n".join(r[0] for r in plan)


class _Rollback(Exception):
    pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--period", type=float, default=0.5, help="seconds between appends")
    parser.add_argument("--seconds", type=float, default=10.0, help="each measured window")
    parser.add_argument("--rounds", type=int, default=1, help="alternations of the variants")
    parser.add_argument(
        "--commits", type=int, default=1000, help="commits of one append, per variant"
    )
    parser.add_argument(
        "--gathers",
        default="",
        help="only today's statement at these gathering delays, in ms (e.g. 0,1,2,5,10):"
        " appends per commit, CPU and latency for each, alternated; no per-commit part",
    )
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gin-bench-pg-"))
    root.chmod(0o755)
    cluster = start_profiled_cluster(root / "pg")
    variants = [
        ("before", True, 0.0, BEFORE_APPEND),
        ("no reset", False, 0.0, BEFORE_APPEND),
        ("no reset, one update", False, 0.0, FENCED_APPEND),
        ("+ gather 1 ms", False, 0.001, FENCED_APPEND),
        ("+ gather 2 ms", False, 0.002, FENCED_APPEND),
    ]
    if args.gathers:
        variants = [
            (f"gather {ms:g} ms", False, ms / 1000, FENCED_APPEND)
            for ms in (float(v) for v in args.gathers.split(","))
        ]
    results: dict[str, list[dict[str, Any]]] = {}
    single: dict[str, list[float]] = {}
    try:

        async def run() -> None:
            con = await asyncpg.connect(cluster.url)
            await con.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            await con.close()
            pid = int((cluster.data / "postmaster.pid").read_text().split()[0])
            for _ in range(args.rounds):
                for label, reset, gather, statement in variants:
                    r = await variant(cluster.url, pid, label, reset, gather, statement, args)
                    results.setdefault(label, []).append(r)
                    say(
                        f"{label:<24} {r['per_second']:5.0f} appends/s, PostgreSQL"
                        f" {r['pg_us']:4.0f} µs/append, this process {r['worker_us']:4.0f},"
                        f" {r['per_commit']:.2f} per commit, p50 {r['p50_ms']:.2f} ms,"
                        f" p99 {r['p99_ms']:.2f} ms; load average {load_average()}"
                    )
            for _ in range(0 if args.gathers else args.rounds):
                for label, statement, reset in (
                    ("before", BEFORE_APPEND, True),
                    ("no reset", BEFORE_APPEND, False),
                    ("no reset, one update", FENCED_APPEND, False),
                ):
                    us = await per_commit(cluster.url, pid, statement, reset, args.commits)
                    single.setdefault(label, []).append(us)
                    say(f"one append per commit, {label}: PostgreSQL {us:.0f} µs per commit")
            for statement in (BEFORE_APPEND, FENCED_APPEND):
                postgres_appends.FENCED_APPEND = statement
                for batch in (1, 8):
                    say(f"\n{'before' if statement is BEFORE_APPEND else 'now'}, batch {batch}:")
                    say(await explain(cluster.url, batch))

        asyncio.run(run())
    finally:
        cluster.stop("fast")
        shutil.rmtree(root, ignore_errors=True)
    print(
        f"\n{args.tables} tables, one append each every {args.period:g} s,"
        f" {args.seconds:g} s windows x {args.rounds}; load average now {load_average()}"
    )
    print("| variant | PostgreSQL µs/append | store process µs/append | appends/commit |"
          " p50 ms | p99 ms |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for label, runs in results.items():

        def med(key: str, runs: list[dict[str, Any]] = runs) -> float:
            return statistics.median(r[key] for r in runs)

        print(
            f"| {label} | {med('pg_us'):.0f} | {med('worker_us'):.0f} |"
            f" {med('per_commit'):.2f} | {med('p50_ms'):.2f} | {med('p99_ms'):.2f} |"
        )
    print("\nPostgreSQL's CPU per commit of one append, commits one after another (median):")
    for label, values in single.items():
        print(f"- {label}: {statistics.median(values):.0f} µs")
    print("\npg_stat_statements, last round of each variant (per call):")
    for label, runs in results.items():
        print(f"- {label}:")
        for st in runs[-1]["statements"]:
            print(
                f"  {st['calls']:6d} calls ({st['plans']} planned)  exec {st['exec_us']:7.1f} µs"
                f"  plan {st['plan_us']:6.1f} µs  WAL {st['wal_bytes']:6.0f} B  {st['query']}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
