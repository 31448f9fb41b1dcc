"""A `TableStore` that keeps nothing, for benchmarks of what runs in process.

The real store keeps its rows on disk, not in the server's memory, and costs
its own thread's time: `bench_memory` and `bench_registry` leave it out this way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class NullStore:
    """The `TableStore` calls, keeping nothing (the real store keeps rows on disk)."""

    shared = False

    async def claim(self, table_id: str, owner: str) -> None:
        return None

    async def owners(self, table_ids: Sequence[str]) -> dict[str, int]:
        return {}

    async def open(self) -> None:
        return None

    def forget(self, table_id: str) -> None:
        return None

    async def close(self) -> None:
        return None

    # `keep` optional: the versions before idle tables left memory took none.
    async def load_all(self, keep: Any = None) -> list[Any]:
        return []

    async def create(self, record: Any) -> None:
        return None

    # `epoch` optional: the versions before the stores always took it (bench --versions).
    async def save_seats(self, table_id: str, seats: Sequence[Any], epoch: int = 0) -> None:
        return None

    async def append(
        self,
        table_id: str,
        first_seq: int,
        entries: Sequence[dict[str, Any]],
        now: float,
        epoch: int = 0,
    ) -> None:
        return None

    async def touch(self, table_id: str, now: float) -> None:
        return None

    async def expire(self, before: float, idle_seconds: float | None = None) -> list[str]:
        return []

    async def delete(self, table_id: str) -> None:
        return None

    async def set_aside(self, table_id: str, reason: str) -> None:
        return None

    async def set_aside_tables(self) -> dict[str, str]:
        return {}

    async def compact(self, table_id: str, base: int, hands: dict[int, dict[str, Any]]) -> None:
        return None

    async def hand(self, table_id: str, number: int) -> dict[str, Any] | None:
        return None

    async def drop_compacted(self) -> int:
        return 0

    async def save_review(
        self, table_id: str, number: int, seat: int, review: dict[str, Any]
    ) -> None:
        return None

    async def review(self, table_id: str, number: int, seat: int) -> None:
        return None
