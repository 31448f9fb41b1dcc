"""`MemoryStore`: the `TableStore` protocol in memory, for tests (same behaviour as
the SQLite store, nothing durable). It runs the store tests beside SQLite and
PostgreSQL (`tests/tables/stores.py`) and backs registries built by the dozen."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from hollywood_gin.tables.rows import gap_error
from hollywood_gin.tables.store import SeatRecord, SingleOwner, TableRecord

__all__ = ["MemoryStore"]


class MemoryStore(SingleOwner):
    """In-memory store: same behaviour, nothing durable."""

    def __init__(self) -> None:
        super().__init__()
        self.records: dict[str, TableRecord] = {}
        self.aside: dict[str, str] = {}
        self.hands: dict[tuple[str, int], dict[str, Any]] = {}
        self.reviews: dict[tuple[str, int, int], dict[str, Any]] = {}
        self.commits = 0

    async def open(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def claim(self, table_id: str, owner: str) -> tuple[int, TableRecord] | None:
        record = self.records.get(table_id) if table_id not in self.aside else None
        return self._claimed(copy.deepcopy(record))

    async def owners(self, table_ids: Sequence[str]) -> dict[str, int]:
        return self._owners(table_ids, self.records.__contains__)

    async def load_all(
        self, keep: Callable[[TableRecord], bool] | None = None
    ) -> list[TableRecord]:
        return [
            copy.deepcopy(r)
            for t, r in self.records.items()
            if t not in self.aside and (keep is None or keep(r))
        ]

    async def create(self, record: TableRecord) -> None:
        self.records[record.table_id] = copy.deepcopy(record)
        self.commits += 1

    async def save_seats(self, table_id: str, seats: Sequence[SeatRecord], epoch: int) -> None:
        self._fence(table_id, epoch)
        self.records[table_id].seats = copy.deepcopy(list(seats))
        self.commits += 1

    async def append(
        self,
        table_id: str,
        first_seq: int,
        entries: Sequence[dict[str, Any]],
        now: float,
        epoch: int,
    ) -> None:
        self._fence(table_id, epoch)
        record = self.records[table_id]
        last = record.base + len(record.log) - 1
        if last + 1 != first_seq:
            raise gap_error(table_id, last, first_seq)
        record.log.extend(copy.deepcopy(list(entries)))
        record.last_active = now
        self.commits += 1

    async def touch(self, table_id: str, now: float) -> None:
        if table_id in self.records:
            self.records[table_id].last_active = now

    async def expire(self, before: float, idle_seconds: float | None = None) -> list[str]:
        gone = [
            t for t, r in self.records.items() if r.last_active < before and t not in self.aside
        ]
        for table_id in gone:
            del self.records[table_id]
        self.reviews = {k: r for k, r in self.reviews.items() if k[0] not in gone}
        return gone

    async def delete(self, table_id: str) -> None:
        self.records.pop(table_id, None)
        self.hands = {k: h for k, h in self.hands.items() if k[0] != table_id}
        self.reviews = {k: r for k, r in self.reviews.items() if k[0] != table_id}

    async def set_aside(self, table_id: str, reason: str) -> None:
        self.aside[table_id] = reason

    async def set_aside_tables(self) -> dict[str, str]:
        return dict(self.aside)

    async def compact(self, table_id: str, base: int, hands: dict[int, dict[str, Any]]) -> None:
        record = self.records[table_id]
        del record.log[: base - record.base]
        record.base = base
        self.hands.update({(table_id, n): copy.deepcopy(h) for n, h in hands.items()})
        self.commits += 1

    async def hand(self, table_id: str, number: int) -> dict[str, Any] | None:
        return copy.deepcopy(self.hands.get((table_id, number)))

    async def drop_compacted(self) -> int:
        return 0  # `compact` dropped them already

    async def save_review(
        self, table_id: str, number: int, seat: int, review: dict[str, Any]
    ) -> None:
        if table_id in self.records:
            self.reviews[table_id, number, seat] = copy.deepcopy(review)

    async def review(self, table_id: str, number: int, seat: int) -> dict[str, Any] | None:
        return copy.deepcopy(self.reviews.get((table_id, number, seat)))
