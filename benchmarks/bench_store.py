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
  the seq against its own record of each table's last one.

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
        db.execute(LAYOUTS[layout])
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--appends", type=int, default=20_000, help="per run (a fifth alone)")
    parser.add_argument("--repeats", type=int, default=3)
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
