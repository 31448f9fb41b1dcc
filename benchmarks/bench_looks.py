"""What the clocks of tables nobody holds cost in PostgreSQL mode
(docs/architecture.md "Deadlines nobody holds", `hollywood_gin.tables.looks`).

Run (a quiet machine; about a minute):

    python -m benchmarks.bench_looks --rows 100000 --moves 400

A throwaway cluster (`fsync` on, `pg_stat_statements`). Printed, each line with
`os.getloadavg()`:

- the sweep's query (`PostgresStore.due_looks`) on a `tables` of `--rows` rows, a
  third of them played over days with a look ahead, a few (`--due`) due with
  nobody holding them: its plan (EXPLAIN ANALYZE, BUFFERS) and its time;
- per move of a table played over days, and of a live table, made by one worker's
  registry (`--moves` each, two seats of one worker playing): the statements the
  cluster ran by kind (`pg_stat_statements` calls over moves) and their execution
  time, the look writes (`UPDATE tables SET next_look`) against the move's own
  append, the WAL bytes of each, and the worker's time a move; then the
  correspondence moves again with no look written, to see what the writes cost the
  append (the moves follow each other at once here, so a look write in the
  background can hold the row the next append waits for: in play, moves of one
  table are seconds apart). Each look write is also a commit of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg

from benchmarks.bench_scale import load_average, start_profiled_cluster
from hollywood_gin.engine.actions import parse_action
from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.lifecycle import assemble
from hollywood_gin.tables.postgres_store import PostgresStore
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.table import Table
from tests.e2e.test_socket_play import choose
from tests.wire import wire


def say(text: str) -> None:
    print(f"{text}  [load {load_average()}]", flush=True)


async def fill(url: str, rows: int, due: int) -> None:
    """`rows` tables, a third with a look ahead, `due` due and held by nobody, a few
    due and held (their holder live: not the sweep's)."""
    store = PostgresStore(url, owner="fill")
    await store.open()
    await store.close()
    now = time.time()
    rng = random.Random(7)
    con = await asyncpg.connect(url)
    try:
        records = []
        for i in range(rows):
            look: float | None = None
            owner: str | None = None
            if i < due:
                look = now - 60 - i
            elif i < due + 20:
                look, owner = now - 5, "live"
            elif i % 3 == 0:
                look = now + rng.uniform(60, 86400 * 3)
                owner = "live" if i % 2 else None
            records.append(
                (f"{i:022d}", '{"move_days": 1}', "[]", now - 100, now - 100, look, owner)
            )
        await con.copy_records_to_table(
            "tables",
            records=records,
            columns=["id", "options", "seats", "created", "last_active", "next_look", "owner"],
        )
        await con.execute("ANALYZE tables")
    finally:
        await con.close()


async def sweep_query(url: str, rows: int, due: int) -> None:
    await fill(url, rows, due)
    store = PostgresStore(url, owner="sweeper")
    await store.open()
    con = await asyncpg.connect(url)
    try:
        now = time.time()
        plan = await con.fetch(
            "EXPLAIN (ANALYZE, BUFFERS) SELECT id, owner_epoch FROM tables t"
            " WHERE next_look <= $1 AND (owner IS NULL OR next_look <= $2)"
            " AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE s.id = t.id)"
            " ORDER BY next_look LIMIT $3",
            now,
            now - 90,
            100,
        )
        print("\n".join(r[0] for r in plan))
        took = []
        for _ in range(50):
            began = time.perf_counter()
            found = await store.due_looks(now, now - 90, 100)
            took.append(time.perf_counter() - began)
        took.sort()
        say(
            f"sweep query on {rows} rows: {len(found)} due found (of {due} unheld);"
            f" median {took[len(took) // 2] * 1e3:.2f} ms, max {took[-1] * 1e3:.2f} ms"
            " (round trip included)"
        )
    finally:
        await con.close()
        await store.close()


async def play(registry: Registry, table: Table, moves: int, rng: random.Random) -> int:
    made = 0
    while made < moves:
        seat = next((s for s in (0, 1) if table.match.playable(s)), None)
        if seat is None:
            return made
        view = wire(table.view(seat))
        await registry.act(table, seat, parse_action(choose(view, rng)), view["version"])
        made += 1
    return made


async def statements(url: str) -> list[dict[str, Any]]:
    con = await asyncpg.connect(url)
    try:
        rows = await con.fetch(
            "SELECT query, calls, total_exec_time, wal_bytes FROM pg_stat_statements"
            " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " ORDER BY calls DESC"
        )
    finally:
        await con.close()
    return [dict(r) for r in rows]


async def per_move(
    url: str, options: dict[str, Any], moves: int, label: str, looks: bool = True
) -> None:
    store = PostgresStore(url, owner="bench")
    await store.open()
    registry = assemble(
        store,
        Hub(max_tabs_per_seat=5, max_spectators=20),
        expiry_seconds=86400.0,
        computer_delay=0.0,
    )
    registry.presence.start()
    if not looks:  # the same moves with no look written: what the writes cost the append
        registry.presence.looked = None
    rng = random.Random(3)
    con = await asyncpg.connect(url)
    try:
        await con.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        await con.execute("SELECT pg_stat_statements_reset()")
        made = 0
        began = time.perf_counter()
        while made < moves:
            table, _ = await registry.create(options, "Ann")
            await registry.join(table.id, "Bob")
            made += await play(registry, table, moves - made, rng)
        took = time.perf_counter() - began
        stored = getattr(registry.ownership, "stored", None)
        if stored is not None:
            await stored.close(30.0)
        rows = await statements(url)
    finally:
        await con.close()
        await registry.close()
        await store.close()
    writes = 0 if stored is None else stored.writes
    say(
        f"{label}: {made} moves, {writes} look writes, {took / made * 1e3:.2f} ms a move"
        " (made one after the other,"
        " creating the tables included)"
    )
    for r in rows:
        query = " ".join(str(r["query"]).split())
        if "pg_stat_statements" in query or r["calls"] < made / 20:
            continue
        print(
            f"  {r['calls'] / made:5.2f}/move  {r['total_exec_time'] / r['calls'] * 1e3:7.1f} µs"
            f"  {int(r['wal_bytes']) / r['calls']:7.0f} WAL B  {query[:110]}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--due", type=int, default=5)
    parser.add_argument("--moves", type=int, default=400)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-looks-"))
    root.chmod(0o755)  # the cluster may run as the `postgres` user
    cluster = start_profiled_cluster(root / "pg")
    try:
        base = cluster.url.rsplit("/", 1)[0]

        async def run() -> None:
            con = await asyncpg.connect(cluster.url)
            try:
                for name in ("sweep", "days", "nolooks", "live"):
                    await con.execute(f"CREATE DATABASE {name}")
            finally:
                await con.close()
            await sweep_query(f"{base}/sweep", args.rows, args.due)
            await per_move(f"{base}/days", {"move_days": 1}, args.moves, "correspondence")
            await per_move(
                f"{base}/nolooks",
                {"move_days": 1},
                args.moves,
                "correspondence, no look written",
                looks=False,
            )
            await per_move(f"{base}/live", {}, args.moves, "live")

        asyncio.run(run())
    finally:
        cluster.stop("fast")
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
