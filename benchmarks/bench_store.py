"""The events table's two layouts, SQL alone: why schema 2 appends at the end.

Run: `pip install -e '.[dev]' && python -m benchmarks.bench_store`

On a fresh SQLite file in WAL mode with `synchronous=NORMAL` (as `SqliteStore`
sets it up), T tables (default 100) each get appends of one event, in
transactions of 1 or 40 appends to as many different tables (what a group
commit holds when 40 tables move at once), `executemany` for the events and
for `last_active`, a passive checkpoint every 25 commits (as the store's
checkpointer would, beside the writer). Printed: CPU µs per append, and the
WAL's size at the end, for each layout:

- `v1`: `events` WITHOUT ROWID, primary key (table_id, seq): each table's
  events together, so each append writes into its own table's leaf page;
- `v2` (today's): a rowid table, each append at its end; the store checks
  the seq against its own record of each table's last one;
- `v2 + index`: the same with an index on (table_id, seq), which the store
  does not have: what it would cost each append.

Then, on a file of `--big` events (default 1,000,000, over 2,000 tables),
the two look-ups by table that schema 2 answers with a scan of all events:
every table's last seq (the store's `open`) and deleting 10 tables' events
(an expiry sweep), with and without that index; wall-clock ms, one run each.

Each figure is the median of `--repeats` runs in this process.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import orjson

LAYOUTS = {
    "v1": "CREATE TABLE events (table_id TEXT NOT NULL, seq INTEGER NOT NULL,"
    " entry TEXT NOT NULL, PRIMARY KEY (table_id, seq)) WITHOUT ROWID",
    "v2": "CREATE TABLE events (table_id TEXT NOT NULL, seq INTEGER NOT NULL, entry TEXT NOT NULL)",
}
# Not used by the store: what an index for the look-ups by table would cost.
LAYOUTS["v2 + index"] = LAYOUTS["v2"] + "; CREATE INDEX events_table ON events(table_id, seq)"


def run(layout: str, per_commit: int, tables: int, appends: int, seed: int) -> tuple[float, int]:
    """(CPU µs per append, WAL bytes at the end) of one run on a fresh file."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="gin-bench-store-") as tmp:
        path = Path(tmp) / "t.sqlite3"
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
        db.execute(
            "CREATE TABLE tables (id TEXT PRIMARY KEY, options TEXT, seats TEXT, hooks TEXT,"
            " created REAL, last_active REAL)"
        )
        db.executescript(LAYOUTS[layout])
        ids = [secrets.token_urlsafe(16) for _ in range(tables)]
        db.executemany(
            "INSERT INTO tables VALUES (?, '{}', '[]', '{}', 0.0, 0.0)", [(i,) for i in ids]
        )
        checkpointer = sqlite3.connect(path, isolation_level=None)
        seq = dict.fromkeys(ids, 0)
        entry = orjson.dumps({"event": "action", "seat": 0, "action": {"kind": "draw_stock"}})
        text = entry.decode()
        done = commits = 0
        start = time.process_time()
        while done < appends:
            batch = rng.sample(ids, per_commit)
            rows = [(i, seq[i], text) for i in batch]
            for i in batch:
                seq[i] += 1
            db.execute("BEGIN")
            db.executemany("INSERT INTO events VALUES (?, ?, ?)", rows)
            now = time.time()
            db.executemany(
                "UPDATE tables SET last_active = ? WHERE id = ?", [(now, i) for i in batch]
            )
            db.execute("COMMIT")
            commits += 1
            done += per_commit
            if commits % 25 == 0:
                checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        cpu = time.process_time() - start
        wal = os.path.getsize(f"{path}-wal")
        checkpointer.close()
        db.close()
    return cpu / done * 1e6, wal


def lookups(layout: str, events: int, tables: int) -> tuple[float, float]:
    """(ms for every table's last seq, ms to delete 10 tables' events) on a big file."""
    with tempfile.TemporaryDirectory(prefix="gin-bench-store-") as tmp:
        db = sqlite3.connect(Path(tmp) / "big.sqlite3", isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(LAYOUTS[layout])
        ids = [secrets.token_urlsafe(16) for _ in range(tables)]
        text = '{"event":"action","seat":0,"action":{"kind":"draw_stock"}}'
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO events VALUES (?, ?, ?)",
            ((ids[i % tables], i // tables, text) for i in range(events)),
        )
        db.execute("COMMIT")
        start = time.perf_counter()
        db.execute("SELECT table_id, MAX(seq) FROM events GROUP BY table_id").fetchall()
        scan = time.perf_counter() - start
        db.execute("CREATE TEMP TABLE gone (id TEXT PRIMARY KEY)")
        db.executemany("INSERT INTO gone VALUES (?)", [(i,) for i in ids[:10]])
        start = time.perf_counter()
        db.execute("BEGIN")
        db.execute("DELETE FROM events WHERE table_id IN (SELECT id FROM gone)")
        db.execute("COMMIT")
        delete = time.perf_counter() - start
        db.close()
    return scan * 1000, delete * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--appends", type=int, default=20_000, help="per run (a fifth alone)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--big", type=int, default=1_000_000, help="events of the big file")
    args = parser.parse_args()
    print(f"\nSQL alone, {args.tables} tables; CPU µs per append, median of {args.repeats}\n")
    print("| appends per commit | layout | µs per append | WAL at the end |")
    print("|---:|---|---:|---:|")
    for per_commit in (1, 40):
        count = args.appends if per_commit > 1 else args.appends // 5
        for layout in LAYOUTS:
            runs = [
                run(layout, per_commit, args.tables, count, seed) for seed in range(args.repeats)
            ]
            cost = statistics.median(r[0] for r in runs)
            wal = statistics.median(r[1] for r in runs)
            print(f"| {per_commit} | {layout} | {cost:.1f} | {wal / 1024:.0f} KB |")
    print(f"\nLook-ups by table, {args.big} events over 2000 tables; wall-clock ms, one run\n")
    print("| layout | every table's last seq | delete 10 tables' events |")
    print("|---|---:|---:|")
    for layout in ("v2", "v2 + index"):
        scan, delete = lookups(layout, args.big, 2000)
        print(f"| {layout} | {scan:.0f} | {delete:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
