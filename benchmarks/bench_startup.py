"""Start-up with many long-lived tables: how long `open` + `load` take, and the memory.

Run: `pip install -e '.[dev]' && nice python -m benchmarks.bench_startup`

Builds a data file of `--tables` tables (default 10,000), each with the history
of `--hands` finished hands (default 12) and a hand under way, then starts the
store and the registry on it as the server does (`SqliteStore.open`,
`Registry.load`) and prints the wall-clock seconds, the process's resident
memory before and after, and the file's size.

Every table replays the same history (one match played by a quick player with
a fixed seed), so the file takes seconds to build: copies of one log, which is
all the start-up can tell apart anyway.

`--layout full`: each table's whole log, as a store without compaction keeps it
(and as a file written before schema 3 holds it). `--layout compacted`: the log
from the last hand's snapshot on, as schema 3 keeps it once the sweep ran. With
code from before schema 3, only `full` exists (no snapshots): run this file from
that checkout for the "before" figure.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import secrets
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from benchmarks.compat import legal as legal_of
from benchmarks.compat import state as state_of
from hollywood_gin.engine.actions import parse_action
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.lifecycle import assemble
from hollywood_gin.tables.sqlite_store import SqliteStore
from tests.e2e.test_socket_play import choose

OPTIONS = {"rules": "standard", "scoring": "game", "target": 250}


def rss() -> int:
    """Resident bytes of this process (Linux: /proc/self/statm)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def history(hands: int, seed: int) -> list[dict[str, Any]]:
    """The log of `hands` finished hands and 20 moves of the next, by a quick player."""
    rng = random.Random(seed)
    match = Match(Options.from_dict(OPTIONS), rng=random.Random(seed))
    match.start()
    moves_in_hand = 0
    while True:
        number = match.hand.number if match.hand is not None else 0
        if number > hands:
            if match.status != "playing" or moves_in_hand == 20:
                return list(match.log)
            moves_in_hand += 1
        seat = next(s for s in (0, 1) if legal_of(match.view(s)))
        match.apply(seat, parse_action(choose(state_of(match.view(seat)), rng)))


def compacted(log: list[dict[str, Any]]) -> tuple[int, list[dict[str, Any]]]:
    """(base, entries) from the last snapshot on; the full log without snapshots."""
    snapshots = [i for i, e in enumerate(log) if e.get("event") == "snapshot"]
    if not snapshots:
        raise SystemExit("this checkout writes no snapshots: only --layout full exists")
    return snapshots[-1], log[snapshots[-1] :]


async def build(path: Path, tables: int, base: int, log: list[dict[str, Any]]) -> None:
    store = SqliteStore(path)
    await store.open()  # the schema of this checkout
    await store.close()
    db = sqlite3.connect(path)
    columns = {row[1] for row in db.execute("PRAGMA table_info(tables)")}
    options = orjson.dumps(OPTIONS).decode()
    seats = orjson.dumps(
        [{"name": n, "token_hash": secrets.token_hex(32)} for n in ("Ann", "Bob")]
    ).decode()
    entries = [orjson.dumps(e).decode() for e in log]
    db.execute("BEGIN")
    for t in range(tables):
        table_id = secrets.token_urlsafe(16)
        row = [table_id, options, seats, "{}", 1000.0 + t, 2000.0 + t]
        if "base_seq" in columns:
            db.execute("INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?, ?)", [*row, base])
        else:
            db.execute("INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?)", row)
        db.executemany(
            "INSERT INTO events (table_id, seq, entry) VALUES (?, ?, ?)",
            [(table_id, base + i, e) for i, e in enumerate(entries)],
        )
    db.execute("COMMIT")
    db.close()


async def start(path: Path) -> tuple[float, int, int]:
    """Seconds to open and load, tables loaded, and the resident bytes after."""
    began = time.perf_counter()
    store = SqliteStore(path)
    await store.open()
    registry = assemble(store, Hub(max_tabs_per_seat=5, max_spectators=5), expiry_seconds=1e12)
    loaded = await registry.load()
    took = time.perf_counter() - began
    gc.collect()
    resident = rss()
    await registry.close()
    await store.close()
    return took, loaded, resident


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--hands", type=int, default=12)
    parser.add_argument("--layout", choices=["full", "compacted"], default="compacted")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    log = history(args.hands, args.seed)
    base, entries = compacted(log) if args.layout == "compacted" else (0, log)
    print(
        f"{args.tables} tables, {args.hands} finished hands each: {len(log)} log entries"
        f" in full, {len(entries)} stored per table ({args.layout})"
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tables.sqlite3"
        asyncio.run(build(path, args.tables, base, entries))
        size = path.stat().st_size
        before = rss()
        took, loaded, after = asyncio.run(start(path))
    print(f"data file: {size / 2**20:.1f} MiB")
    print(f"start-up (open + load of {loaded} tables): {took:.2f} s")
    print(
        f"resident memory: {before / 2**20:.0f} MiB before, {after / 2**20:.0f} MiB after"
        f" ({(after - before) / max(loaded, 1) / 1024:.1f} KiB per table)"
    )


if __name__ == "__main__":
    main()
