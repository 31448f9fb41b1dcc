"""Stores that fail on purpose, for the tests of what the tables do when storing fails.

- `FailingStore`: the memory store, whose calls named in `failing` raise `OSError`
  (as a full disk makes a real store's do).
- `refuse_writes` / `accept_writes`: a real SQLite file whose new rows SQLite itself
  refuses (a trigger), as it does on a full disk; the store's own code runs unchanged.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hollywood_gin.tables.store import SeatRecord
from tests.tables.memory_store import MemoryStore

DISK_FULL = "database or disk is full"


class FailingStore(MemoryStore):
    """The memory store; each call named in `failing` raises OSError("disk full")."""

    def __init__(self) -> None:
        super().__init__()
        self.failing: set[str] = set()

    def _fail_if(self, call: str) -> None:
        if call in self.failing:
            raise OSError("disk full")

    async def save_seats(self, table_id: str, seats: Sequence[SeatRecord], epoch: int) -> None:
        self._fail_if("save_seats")
        await super().save_seats(table_id, seats, epoch)

    async def append(
        self, table_id: str, first_seq: int, entries: Sequence[Any], now: float, epoch: int
    ) -> None:
        self._fail_if("append")
        await super().append(table_id, first_seq, entries, now, epoch)


def refuse_writes(
    path: Path,
    tables: Sequence[str] = ("events", "tables"),
    *,
    when: str = "",
    message: str = DISK_FULL,
) -> None:
    """From now on SQLite refuses every new row of `tables` (those matching `when`, an
    SQL condition on NEW, if given) with `message`, as a full disk would."""
    condition = f" WHEN {when}" if when else ""
    with sqlite3.connect(path) as db:
        for table in tables:
            db.execute(
                f"CREATE TRIGGER full_{table} BEFORE INSERT ON {table}{condition}"
                f" BEGIN SELECT RAISE(ABORT, '{message}'); END"
            )


def accept_writes(path: Path) -> None:
    """Undo `refuse_writes`."""
    with sqlite3.connect(path) as db:
        for table in ("events", "tables"):
            db.execute(f"DROP TRIGGER IF EXISTS full_{table}")
