"""Move a host from the SQLite file to PostgreSQL (`hollywood-gin migrate --to URL`).

Every row is copied as stored (tables, their logs, the compacted hands' records, the
set-aside list and the coach's reviews, and the Web Push key kept beside the file)
in one PostgreSQL transaction, so a failed copy leaves the database as empty as it
was. Then both sides are read back and compared: the row counts of each table and,
for every table that loads, its seats and the version its replayed match reaches.
The copy refuses a database that already holds a table, so it can never mix two
sites or overwrite one.

The server must be stopped while it runs (the file is read in one read transaction,
so a running server would only make the copy miss its latest moves): a file a server
holds (`DataFileLock`) is refused, and the copy holds it in turn until it is verified.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

from hollywood_gin.tables.postgres_store import NewerDatabase, PostgresStore, fill_looks
from hollywood_gin.tables.push import key_file
from hollywood_gin.tables.rows import read_log, record_from
from hollywood_gin.tables.sqlite_file import (
    DataFileLock,
    FileInUse,
    open_for_reading,
    read_tables,
)
from hollywood_gin.tables.store import Damaged, TableRecord
from hollywood_gin.tables.table import rebuild_match

# Each copied relation: its columns in both schemas (PostgreSQL's `owner` and
# `owner_epoch` start empty: the first worker to serve a table claims it).
COLUMNS: dict[str, tuple[str, ...]] = {
    "tables": ("id", "options", "seats", "created", "last_active", "base_seq"),
    "events": ("table_id", "seq", "entry"),
    "hands": ("table_id", "number", "record"),
    "set_aside": ("id", "reason", "at"),
    "reviews": ("table_id", "number", "seat", "review"),
}


class MigrationError(RuntimeError):
    """The copy was refused or did not verify; the message says why."""


@dataclass
class Migration:
    """What was copied and checked."""

    rows: dict[str, int] = field(default_factory=dict)
    verified: int = 0  # tables replayed on both sides to the same version
    damaged: dict[str, str] = field(default_factory=dict)  # copied as they are


def _text(value: Any) -> Any:
    # SQLite may hold a TEXT column's value as a blob; PostgreSQL's column is text.
    return value.decode() if isinstance(value, bytes) else value


def _later(row: tuple[Any, ...], column: int, at: Any) -> tuple[Any, ...]:
    """`row` with its `column` raised to `at` when `at` is a later time."""
    value = row[column]
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (value, at))
    if not numbers or at <= value:
        return row
    return (*row[:column], float(at), *row[column + 1 :])


def _read_rows(data_file: Path) -> dict[str, list[tuple[Any, ...]]]:
    db = open_for_reading(data_file)
    try:
        db.execute("BEGIN")  # one snapshot of the whole file
        rows = {}
        for name, columns in COLUMNS.items():
            order = " ORDER BY rowid" if name == "events" else ""
            query = f"SELECT {', '.join(columns)} FROM {name}{order}"  # names from COLUMNS
            rows[name] = [tuple(_text(v) for v in row) for row in db.execute(query)]
        # A table's last activity is its row's or its latest append's (SQLite's
        # `events.at`, schema 6); PostgreSQL keeps it in the row alone.
        appended = dict(
            db.execute(
                "SELECT table_id, MAX(at) FROM events"
                " WHERE typeof(at) IN ('real', 'integer') GROUP BY table_id"
            )
        )
        last_active = COLUMNS["tables"].index("last_active")
        rows["tables"] = [_later(row, last_active, appended.get(row[0])) for row in rows["tables"]]
        return rows
    finally:
        db.close()


def _versions(records: list[TableRecord]) -> tuple[dict[str, tuple[int, int]], dict[str, str]]:
    """Each table's (seats, replayed version); those that do not replay, with why."""
    versions: dict[str, tuple[int, int]] = {}
    damaged: dict[str, str] = {}
    for record in records:
        try:
            _, match = rebuild_match(record)
        except Exception as exc:  # any damage: reported, the rows are copied as they are
            damaged[record.table_id] = f"{type(exc).__name__}: {exc}"
            continue
        versions[record.table_id] = (len(record.seats), match.version)
    return versions, damaged


async def _stored_records(con: Any) -> list[TableRecord]:
    """The tables as PostgreSQL now holds them, read without claiming any."""
    aside = {r["id"] for r in await con.fetch("SELECT id FROM set_aside")}
    records = []
    for row in await con.fetch(
        "SELECT id, options, seats, created, last_active, base_seq FROM tables ORDER BY created"
    ):
        if row["id"] in aside:
            continue
        events = await con.fetch(
            "SELECT seq, entry FROM events WHERE table_id = $1 AND seq >= $2 ORDER BY seq",
            row["id"],
            row["base_seq"],
        )
        try:
            record = record_from(tuple(row))
            read_log(record, events)
        except Damaged:
            continue  # compared below as missing
        records.append(record)
    return records


async def migrate(data_file: Path, url: str) -> Migration:
    """Copy the SQLite file at `data_file` into the empty PostgreSQL database at `url`.
    Refused while a server holds the file (it would go on writing moves the copy misses);
    held meanwhile, so no server starts on it until the copy is verified."""
    if not data_file.exists():
        raise MigrationError(f"cannot read {data_file}: no such data file")
    try:
        lock = DataFileLock.acquire(
            data_file, "migrates", "stop it first (the copy must see the file's last move)"
        )
    except (FileInUse, OSError) as exc:
        raise MigrationError(str(exc)) from exc
    with lock:
        return await _migrate(data_file, url)


async def _migrate(data_file: Path, url: str) -> Migration:
    try:
        rows = _read_rows(data_file)
        db = open_for_reading(data_file)
        try:
            records, unreadable = read_tables(db)
        finally:
            db.close()
    except (OSError, sqlite3.Error, RuntimeError) as exc:
        raise MigrationError(f"cannot read {data_file}: {exc}") from exc
    before, damaged = _versions(records)
    damaged.update(unreadable)

    store = PostgresStore(url, pool_size=1)
    try:
        await store.open()  # makes the schema when it is not there yet
    except (OSError, asyncpg.PostgresError, TimeoutError, NewerDatabase) as exc:
        raise MigrationError(f"cannot open the database: {exc}") from exc
    try:
        async with store.pool.acquire() as con:
            held = {
                name: int(await con.fetchval(f"SELECT count(*) FROM {name}"))  # names: COLUMNS
                for name in COLUMNS
            }
            if any(held.values()):
                listed = ", ".join(f"{n} {c}" for n, c in held.items() if c)
                raise MigrationError(
                    f"the database is not empty ({listed} rows): the copy never overwrites"
                    " or mixes sites; give it a new, empty database"
                )
            async with con.transaction():
                for name, columns in COLUMNS.items():
                    await con.copy_records_to_table(name, records=rows[name], columns=columns)
                copied = {
                    name: int(await con.fetchval(f"SELECT count(*) FROM {name}"))
                    for name in COLUMNS
                }
                # The VAPID key beside the file goes too: the browsers' subscriptions
                # are bound to it (docs/protocol-guide.md "Notifications").
                key = key_file(data_file)
                if key.exists():
                    await con.execute(
                        "INSERT INTO site_secrets (name, value) VALUES ($1, $2)"
                        " ON CONFLICT DO NOTHING",
                        "vapid_private_key",
                        key.read_text().strip(),
                    )
                # The copied deadlines' clocks: a worker's sweep finds them, nobody
                # holding the tables yet (docs/architecture.md "Deadlines nobody holds").
                await fill_looks(con)
                wrong = [n for n in COLUMNS if copied[n] != len(rows[n])]
                if wrong:  # the transaction is rolled back by the raise
                    raise MigrationError(f"row counts differ after the copy: {wrong}")
                after, _ = _versions(await _stored_records(con))
                if after != before:
                    differ = sorted(set(after.items()) ^ set(before.items()))
                    names = ", ".join(t[:8] for t, _ in differ[:5])
                    raise MigrationError(f"tables differ after the copy: {names}")
    finally:
        await store.close()
    return Migration(rows=copied, verified=len(before), damaged=damaged)
