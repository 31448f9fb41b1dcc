"""The stores every store test runs against, with the same test functions.

`postgres` is a fresh database in a throwaway cluster (`tests/postgres.py`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TypeVar

import pytest

from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.store import SeatRecord, TableRecord, TableStore
from tests.postgres import Cluster, pg_url, postgres
from tests.tables.memory_store import MemoryStore

__all__ = ["Cluster", "make_store", "opened", "pg_url", "postgres", "record", "store_kind"]

S = TypeVar("S", bound=TableStore)


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def store_kind(request: pytest.FixtureRequest) -> str:
    """The kind of store; for PostgreSQL, "postgres " and the database's URL."""
    kind: str = request.param
    if kind == "postgres":
        return "postgres " + str(request.getfixturevalue("pg_url"))
    return kind


def make_store(kind: str, path: Path) -> TableStore:
    if kind.startswith("postgres "):
        from hollywood_gin.tables.postgres_store import PostgresStore

        return PostgresStore(kind.split(" ", 1)[1], owner="test")
    return SqliteStore(path) if kind == "sqlite" else MemoryStore()


@contextlib.asynccontextmanager
async def opened(store: S) -> AsyncIterator[S]:
    """`store`, open for the block and closed after it (a failing test's too)."""
    await store.open()
    try:
        yield store
    finally:
        await store.close()


def record(table_id: str, last_active: float = 100.0) -> TableRecord:
    """A table as the store tests store it: Ann seated, the log's start entry only."""
    return TableRecord(
        table_id=table_id,
        options={"rules": "standard", "scoring": "hand", "target": 100},
        seats=[SeatRecord("Ann", "a" * 64)],
        created=50.0,
        last_active=last_active,
        log=[{"event": "start"}],
    )
