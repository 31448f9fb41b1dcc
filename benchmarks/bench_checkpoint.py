"""CPU per append of the SQLite store's writes and of its WAL checkpoints, by cadence.

Run: `python -m benchmarks.bench_checkpoint` (about a minute; prints the load average).

A fresh file of the store's schema holds `--tables` tables of `--events` events each;
then appends come as a server at `--rate` appends a second would make them, in
commits of `--batch` appends to as many different tables (one multi-row `INSERT`, as
`BatchWriter` makes it), `--seconds` of them, in simulated time (the clock is the
appends' count, so the machine's load changes the CPU figures only, not the work).
Each variant is the store's own `Checkpointer`, called on this thread:

- `copy 1 s`: a PASSIVE checkpoint every second (the store before `sync_seconds`);
- `sync 1 s, copy 5 s`: the WAL synced every second, a checkpoint every five (now).

Printed per append: the CPU of the writes and of the checkpointer (`process_time`:
user and system, so the fdatasyncs' own CPU too, not their wait), and the WAL frames a
checkpoint found. The variants alternate, `--repeats` rounds.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import sqlite3
import tempfile
import time
from pathlib import Path

import orjson

from hollywood_gin.tables.sqlite_batch import _INSERTS, CHUNK
from hollywood_gin.tables.sqlite_checkpoint import Checkpointer
from hollywood_gin.tables.sqlite_file import SCHEMA

# A move's entry as the server writes it (a real file's are 17 to 452 bytes, 67 on average).
ENTRY = orjson.dumps(
    {"kind": "move", "seat": 1, "action": {"type": "discard", "card": "QS"}, "v": 12}
).decode()


def make(path: Path, tables: int, events: int) -> list[str]:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)
    ids = [secrets.token_urlsafe(16) for _ in range(tables)]
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO tables (id, options, seats, created, last_active)"
        " VALUES (?, '{}', '[]', 0, 0)",
        [(i,) for i in ids],
    )
    for seq in range(events):
        db.executemany(_INSERTS[1], [(i, seq, ENTRY, 1.0) for i in ids])
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return ids


def run(
    path: Path,
    ids: list[str],
    seqs: dict[str, int],
    args: argparse.Namespace,
    copy_every: float,
    sync_every: float | None,
) -> tuple[float, float, float]:
    """CPU µs per append of the writes, of the checkpointer; WAL frames per append."""
    db = sqlite3.connect(path, isolation_level=None, cached_statements=256)
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    commits = 0
    wal = Checkpointer(path, copy_every, sync_every, commits=lambda: commits)
    wal.connect()
    rng = random.Random(1)
    appends = int(args.rate * args.seconds)
    tick = wal.sync_seconds
    next_tick, next_copy = tick, copy_every
    writes = checkpoints = 0.0
    frames = done = 0
    while done < appends:
        values: list[object] = []
        for table_id in rng.sample(ids, args.batch):
            values += (table_id, seqs[table_id], ENTRY, 2.0)
            seqs[table_id] += 1
        t = time.process_time()
        db.execute(_INSERTS[args.batch], values)
        writes += time.process_time() - t
        commits += 1
        done += args.batch
        now = done / args.rate  # simulated seconds
        if now >= next_tick:
            next_tick += tick
            t = time.process_time()
            if now >= next_copy - 1e-9:
                next_copy += copy_every
                frames += wal.checkpoint()[1]
            else:
                wal.sync()
            checkpoints += time.process_time() - t
    db.close()
    return writes / done * 1e6, checkpoints / done * 1e6, frames / done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=8000)
    parser.add_argument("--events", type=int, default=40, help="events a table first")
    parser.add_argument("--rate", type=float, default=2900, help="appends a second")
    parser.add_argument("--batch", type=int, default=16, help="appends a commit")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    assert 1 <= args.batch <= CHUNK
    variants = {"copy 1 s": (1.0, None), "sync 1 s, copy 5 s": (5.0, 1.0)}
    with tempfile.TemporaryDirectory(prefix="gin-bench-ckpt-") as tmp:
        path = Path(tmp) / "tables.sqlite3"
        ids = make(path, args.tables, args.events)
        seqs = dict.fromkeys(ids, args.events)
        print(
            f"{args.tables:,} tables, {args.rate:,.0f} appends/s in commits of {args.batch}, "
            f"{args.seconds:g} s a run; load average {os.getloadavg()}"
        )
        for n in range(args.repeats):
            for name, (copy_every, sync_every) in variants.items():
                writes, checkpointer, frames = run(path, ids, seqs, args, copy_every, sync_every)
                print(
                    f"  {name:<20} writes {writes:5.1f} µs an append, checkpointer"
                    f" {checkpointer:4.1f} µs an append, WAL frames {frames:.2f} an append"
                    f" (round {n + 1}; load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
