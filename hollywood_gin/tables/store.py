"""Durable table storage: the `TableStore` protocol and its records.

The stores: `hollywood_gin.tables.sqlite_store` (the default, one process) and
`hollywood_gin.tables.postgres_store` (shared by several workers, docs/scale-out.md); both
write and read their rows with `hollywood_gin.tables.rows`.

What is stored is enough to rebuild every live table after a restart or a
crash: the options, the seats (names, token hashes, computer strength), the
engine's `match.log` (replayed with `Match.replay`) and two timestamps. The
store never sees a token in clear and never decides a rule.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Protocol, runtime_checkable

from hollywood_gin.engine.jsonvalue import JsonObject


@dataclass(eq=False)
class FailureEpisode:
    """A run of failures of one thing (a write, a checkpoint, a sweep) while what it
    needs is away: an operator must see it, in lines that do not repeat with every
    failure (a full disk fails every write until somebody frees space; a database away
    fails a sweep every second), which would bury the one line that matters.

    The run's first failure is logged at `level`. Then, with `every`, at most one line
    every that many seconds, with how many failed since the line before; without,
    none until `succeeded` ends the run ("works again"). `failures`: in this run;
    `count`: since the start (metrics).
    """

    logger: logging.Logger
    what: str
    _: KW_ONLY
    level: int = logging.ERROR
    every: float | None = None
    clock: Callable[[], float] = time.monotonic
    failing: bool = field(default=False, init=False)
    failures: int = field(default=0, init=False)
    count: int = field(default=0, init=False)
    _unsaid: int = field(default=0, init=False)  # failures since the last line
    _said: float = field(default=0.0, init=False)  # when the last line was logged (`every`)

    def failed(self, exc: BaseException) -> None:
        self.count += 1
        self.failures += 1
        if not self.failing:
            self.failing = True
            self._unsaid = 0
            if self.every is None:
                self.logger.log(
                    self.level, "%s failed: %r; further failures are not logged", self.what, exc
                )
            else:
                self._said = self.clock()
                self.logger.log(self.level, "%s failed: %r", self.what, exc)
            return
        self._unsaid += 1
        if self.every is None:
            return
        now = self.clock()
        if now - self._said < self.every:
            return
        self.logger.log(
            self.level,
            "%s failed %d times in the last %.0f s, the last: %r",
            self.what,
            self._unsaid,
            now - self._said,
            exc,
        )
        self._said = now
        self._unsaid = 0

    def succeeded(self) -> None:
        if self.failing:
            self.failing = False
            self.logger.warning("%s works again after %d failures", self.what, self.failures)
            self.failures = 0


@dataclass
class SeatRecord:
    """One taken seat as stored: never the token itself, only its SHA-256."""

    name: str
    token_hash: str
    computer: str | None = None
    # The page language of the player who took the seat (the table's creator at
    # seat 0): the language of the link preview. None in tables stored before.
    lang: str | None = None
    # The seat's latest card order (`Match.orders`): one value, overwritten by each
    # `arrange`, so arranging never makes the stored table grow. None: never arranged.
    order: JsonObject | None = None
    # A program plays this seat (it said so when it sat down: docs/protocol-guide.md "Bots").
    bot: bool = False
    # The creator's seat only: the table refuses bots (created with "bots": false).
    no_bots: bool = False
    # The seat's Web Push subscriptions ({"endpoint", "keys", "lang"}), at most 5.
    push: list[JsonObject] = field(default_factory=list)
    # A table played over days: by when (Unix seconds) the seat must act; None: nothing asked.
    deadline: float | None = None


@dataclass
class TableRecord:
    """Everything needed to rebuild one table."""

    table_id: str
    options: JsonObject
    seats: list[SeatRecord]
    created: float
    last_active: float
    log: list[JsonObject] = field(default_factory=list)
    # The seq of `log[0]`: entries before it were compacted away (`TableStore.compact`).
    base: int = 0
    # A shared store's next look by the clock for the table (`LookStore`), as its last
    # holder wrote it; None: none, or a store that keeps none.
    look: float | None = None


class TableStore(Protocol):
    """The seam for another store (Redis, PostgreSQL) behind the same calls.

    Every method returns once its change is durable, so a caller that awaits
    `append` before broadcasting never shows a player an unrecorded move.
    """

    # Several workers share it: tables are claimed lazily, appends fenced by epoch.
    shared: bool

    async def claim(self, table_id: str, owner: str) -> tuple[int, TableRecord] | None:
        """Become the table's owner: a new epoch and the table; None: no such table."""
        ...

    async def owners(self, table_ids: Sequence[str]) -> dict[str, int]:
        """Each stored table's epoch now; a table gone is left out (the watch)."""
        ...

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    def forget(self, table_id: str) -> None:
        """The table left this worker's memory: what the store keeps for its writes goes."""

    async def load_all(
        self, keep: Callable[[TableRecord], bool] | None = None
    ) -> list[TableRecord]:
        """Every table (`keep`: those it keeps, asked before their logs are read)."""
        ...

    async def create(self, record: TableRecord) -> None: ...

    async def save_seats(self, table_id: str, seats: Sequence[SeatRecord], epoch: int) -> None:
        """Fenced by `epoch`, as `append` is."""
        ...

    def append(
        self,
        table_id: str,
        first_seq: int,
        entries: Sequence[JsonObject],
        now: float,
        epoch: int,
    ) -> Awaitable[None]:
        """Fenced by `epoch` (the writer's claim): raises `NotOwner` when the table is
        no longer its, and then nothing of it is stored. Any awaitable: a coroutine
        (`async def`), or a future (the shared store's, awaited without a task)."""
        ...

    async def touch(self, table_id: str, now: float) -> None: ...

    async def expire(self, before: float, idle_seconds: float | None = None) -> list[str]:
        """Remove tables idle since before `before` (with `idle_seconds`, a shared store
        takes the cut-off from its own clock instead)."""
        ...

    async def delete(self, table_id: str) -> None: ...

    async def set_aside(self, table_id: str, reason: str) -> None:
        """Keep a damaged table out of play and out of expiry, its rows untouched."""
        ...

    async def compact(self, table_id: str, base: int, hands: dict[int, JsonObject]) -> None:
        """The table's log now starts at seq `base` (a snapshot); keep the records of
        the finished hands before it. Loading reads from `base` on."""
        ...

    async def hand(self, table_id: str, number: int) -> JsonObject | None:
        """A finished hand's record kept by `compact`, or None."""
        ...

    async def drop_compacted(self) -> int:
        """Remove the entries before each table's base; return how many went."""
        ...

    async def save_review(self, table_id: str, number: int, seat: int, review: JsonObject) -> None:
        """Keep the coach's review of a finished hand for one seat
        (docs/protocol-guide.md "Hand review"), so a restart does not compute it again;
        gone with its table."""
        ...

    async def review(self, table_id: str, number: int, seat: int) -> JsonObject | None:
        """A kept review, or None."""
        ...

    async def set_aside_tables(self) -> dict[str, str]:
        """Every table set aside, with the reason: `load_all` leaves them out."""
        ...


@runtime_checkable
class LookStore(Protocol):
    """A shared store's part in the clocks of tables no worker holds in memory
    (docs/architecture.md "Deadlines nobody holds"): each table's next look by the
    clock, kept by its holder, and found again by any worker when it falls due."""

    async def claim_at(
        self, table_id: str, owner: str, epoch: int
    ) -> tuple[int, TableRecord] | None:
        """`claim`, only while the table's epoch is still `epoch`: of the workers that
        read one epoch, one claims; None for the others (and for no such table)."""
        ...

    async def save_look(
        self, table_id: str, epoch: int, look: float | None, *, release: bool = False
    ) -> bool:
        """The table's next look (Unix seconds; None: nothing due), fenced by `epoch`;
        `release`: nobody holds it any more. False: the epoch moved on."""
        ...

    async def due_looks(self, now: float, stale: float, limit: int) -> list[tuple[str, int]]:
        """(table, epoch) of the tables whose look is due by `now` and that nobody holds,
        or whose holder let the look pass unhandled since `stale`; the earliest first."""
        ...

    async def claim_due(
        self, now: float, stale: float, limit: int, owner: str, mine: Sequence[str]
    ) -> list[tuple[int, TableRecord]]:
        """Claim for `owner` at most `limit` of the tables `due_looks` finds, earliest
        first, passing over those another claim is taking this moment (so workers
        sweeping at once take disjoint ones) and those of `owner` in `mine` (held or
        being claimed there); each (its new epoch, its record)."""
        ...

    async def leave(self, owner: str) -> int:
        """Nobody holds `owner`'s tables any more (a clean shut-down); how many."""
        ...


class Damaged(ValueError):
    """A stored table that cannot be read back as it was written."""


class NotOwner(RuntimeError):
    """A fenced write refused: another worker has claimed the table since
    (docs/architecture.md "One owner per table")."""


# The epoch of a table its creator holds; each claim adds one.
FIRST_EPOCH = 1


class SingleOwner:
    """Claim, fence and owners for a store one process writes (SQLite, tests' memory).

    Epochs live in memory: every write is fenced by one, as a shared store's are,
    and a claim still bumps one and refuses the writes of the epoch before it, so
    the shared ownership's paths can be tested on them.
    """

    shared = False

    def __init__(self) -> None:
        self._epochs: dict[str, int] = {}

    def _epoch(self, table_id: str) -> int:
        return self._epochs.get(table_id, FIRST_EPOCH)

    def _fence(self, table_id: str, epoch: int) -> None:
        if epoch != self._epoch(table_id):
            raise NotOwner(f"table {table_id[:8]} was claimed at epoch {self._epoch(table_id)}")

    def _claimed(self, record: TableRecord | None) -> tuple[int, TableRecord] | None:
        if record is None:
            return None
        epoch = self._epochs[record.table_id] = self._epoch(record.table_id) + 1
        return epoch, record

    def forget(self, table_id: str) -> None:
        return None  # epochs stay: a claim after a reload must fence the one before

    def _owners(self, table_ids: Sequence[str], stored: Callable[[str], bool]) -> dict[str, int]:
        return {t: self._epoch(t) for t in table_ids if stored(t)}
