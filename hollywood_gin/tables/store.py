"""Durable table storage: the `TableStore` protocol and its records.

The stores: `hollywood_gin.tables.sqlite_store` (the default, one process) and
`hollywood_gin.tables.postgres_store` (shared by several workers, SCALE.md).

What is stored is enough to rebuild every live table after a restart or a
crash: the options, the seats (names, token hashes, computer strength), the
engine's `match.log` (replayed with `Match.replay`) and two timestamps. The
store never sees a token in clear and never decides a rule.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import orjson

from hollywood_gin.engine.jsonvalue import JsonObject

T = TypeVar("T")

log = logging.getLogger("hollywood_gin.store")


class FailureEpisode:
    """Log a run of failures once, when it starts, and once more when it ends.

    A full disk fails every write until somebody frees space: one traceback per
    write (or per second) would bury the one line that matters.
    """

    def __init__(self, logger: logging.Logger, what: str) -> None:
        self.logger = logger
        self.what = what
        self.failing = False
        self.failures = 0

    def failed(self, exc: BaseException) -> None:
        self.failures += 1
        if not self.failing:
            self.failing = True
            self.logger.error("%s failed: %r; further failures are not logged", self.what, exc)

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
    # A program plays this seat (it said so when it sat down: PROTOCOL.md "Bots").
    bot: bool = False
    # The creator's seat only: the table refuses bots (created with "bots": false).
    no_bots: bool = False


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

    async def load_all(self) -> list[TableRecord]: ...

    async def create(self, record: TableRecord) -> None: ...

    async def save_seats(self, table_id: str, seats: Sequence[SeatRecord], epoch: int) -> None:
        """Fenced by `epoch`, as `append` is."""
        ...

    async def append(
        self,
        table_id: str,
        first_seq: int,
        entries: Sequence[JsonObject],
        now: float,
        epoch: int,
    ) -> None:
        """Fenced by `epoch` (the writer's claim): raises `NotOwner` when the table is
        no longer its, and then nothing of it is stored."""
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
        """Keep the coach's review of a finished hand for one seat (PROTOCOL.md "Hand
        review"), so a restart does not compute it again; gone with its table."""
        ...

    async def review(self, table_id: str, number: int, seat: int) -> JsonObject | None:
        """A kept review, or None."""
        ...

    async def set_aside_tables(self) -> dict[str, str]:
        """Every table set aside, with the reason: `load_all` leaves them out."""
        ...


class Damaged(ValueError):
    """A stored table that cannot be read back as it was written."""


class NotOwner(RuntimeError):
    """A fenced write refused: another worker has claimed the table since (SCALE.md)."""


# The epoch of a table its creator holds; each claim adds one.
FIRST_EPOCH = 1


def _seats_json(seats: Sequence[SeatRecord]) -> bytes:
    return orjson.dumps(
        [
            {"name": s.name, "token_hash": s.token_hash, "computer": s.computer}
            | ({"lang": s.lang} if s.lang is not None else {})
            | ({"order": s.order} if s.order is not None else {})
            | ({"bot": True} if s.bot else {})
            | ({"no_bots": True} if s.no_bots else {})
            for s in seats
        ]
    )


def _seats_from(raw: bytes | str) -> list[SeatRecord]:
    seats = orjson.loads(raw)
    if not isinstance(seats, list) or len(seats) > 2:
        raise Damaged("seats: not a list of at most two seats")
    out = []
    for s in seats:
        if not isinstance(s, dict):
            raise Damaged("seats: a seat is not an object")
        name, token_hash, computer = s.get("name"), s.get("token_hash"), s.get("computer")
        if not isinstance(name, str) or not isinstance(token_hash, str):
            raise Damaged("seats: a seat lacks its name or token hash")
        if computer is not None and not isinstance(computer, str):
            raise Damaged("seats: a computer strength is not text")
        lang = s.get("lang")
        if lang is not None and not isinstance(lang, str):
            raise Damaged("seats: a language is not text")
        order = s.get("order")
        if not isinstance(order, dict):
            order = None  # only how the cards are shown: never a reason to lose the table
        bot, no_bots = s.get("bot", False), s.get("no_bots", False)
        if not isinstance(bot, bool) or not isinstance(no_bots, bool):
            raise Damaged("seats: a bot mark is not true or false")
        out.append(
            SeatRecord(
                name=name,
                token_hash=token_hash,
                computer=computer,
                lang=lang,
                order=order,
                bot=bot,
                no_bots=no_bots,
            )
        )
    return out


def _object(raw: bytes | str, what: str) -> JsonObject:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise Damaged(f"{what}: not JSON") from None
    if not isinstance(value, dict):
        raise Damaged(f"{what}: not a JSON object")
    return value


def _record_from(row: tuple[Any, ...]) -> TableRecord:
    """One `tables` row as a record; `Damaged` names what cannot be read."""
    table_id, options, seats, created, last_active, base = row
    _check_table_id(table_id)
    if isinstance(base, bool) or not isinstance(base, int) or base < 0:
        raise Damaged("base_seq: not a seq")
    for what, stamp in (("created", created), ("last_active", last_active)):
        if isinstance(stamp, bool) or not isinstance(stamp, int | float):
            raise Damaged(f"{what}: not a time")
    try:
        seat_records = _seats_from(seats)
    except orjson.JSONDecodeError:
        raise Damaged("seats: not JSON") from None
    return TableRecord(
        table_id=table_id,
        options=_object(options, "options"),
        seats=seat_records,
        created=float(created),
        last_active=float(last_active),
        base=base,
    )


def _table_row(record: TableRecord) -> tuple[str, str, str, float, float, int]:
    """A record's `tables` row as `_record_from` reads it back (without its log)."""
    return (
        record.table_id,
        orjson.dumps(record.options).decode(),
        _seats_json(record.seats).decode(),
        record.created,
        record.last_active,
        record.base,
    )


def _entry_rows(
    table_id: str, first_seq: int, entries: Iterable[JsonObject]
) -> list[tuple[str, int, str]]:
    """The `events` rows (table_id, seq, entry) of log entries from `first_seq` on."""
    return [
        (table_id, seq, orjson.dumps(entry).decode())
        for seq, entry in enumerate(entries, start=first_seq)
    ]


def _add_entry(record: TableRecord, seq: int, entry: bytes | str) -> None:
    """One stored entry onto the record's log; `Damaged` at a gap or an unreadable entry."""
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise Damaged(f"log: a seq that is not an integer ({type(seq).__name__})")
    expected = record.base + len(record.log)
    if seq != expected:
        raise Damaged(f"log: seq {seq} where {expected} belongs")
    record.log.append(_object(entry, f"log entry {seq}"))


def _read_log(record: TableRecord, events: Iterable[tuple[int, bytes | str]]) -> None:
    """The table's stored entries (seq, entry) from its base on, in seq order."""
    for seq, entry in events:
        _add_entry(record, seq, entry)
    _check_log(record)


def _check_log(record: TableRecord) -> None:
    """`Damaged` when the log a record was read with cannot be its whole log: a table
    compacted at `base_seq` keeps the entry there, so an empty log above 0 lost it."""
    if not record.log and record.base > 0:
        raise Damaged(f"log: base_seq {record.base} beyond the log (no entry there)")


def _check_table_id(table_id: object) -> None:
    if not isinstance(table_id, str) or not table_id or "\x00" in table_id:
        raise Damaged(f"id: not a table id ({type(table_id).__name__})")


def _gap(table_id: str, last: int, first_seq: int) -> RuntimeError:
    """An append refused: a log is gap-free, the next seq is one past the last stored."""
    return RuntimeError(f"log of {table_id} ends at {last}, not {first_seq - 1}")


def _hand_rows(table_id: str, hands: dict[int, JsonObject]) -> list[tuple[str, int, str]]:
    """The `hands` rows (table_id, number, record) that `compact` keeps."""
    return [(table_id, number, orjson.dumps(hand).decode()) for number, hand in hands.items()]


def _review_row(
    table_id: str, number: int, seat: int, review: JsonObject
) -> tuple[str, int, int, str]:
    """The `reviews` row (table_id, number, seat, review) of one seat's hand review."""
    return (table_id, number, seat, orjson.dumps(review).decode())


def _review_from(raw: bytes | str, number: int) -> JsonObject | None:
    """A stored review, read back; None when it cannot be read (it is computed again)."""
    try:
        return _object(raw, f"review of hand {number}")
    except Damaged:
        return None


def _hand_from(raw: bytes | str, number: int) -> JsonObject:
    """A stored hand record, read back; `Damaged` when it is not a JSON object."""
    if not isinstance(raw, bytes | str):
        raise Damaged(f"hand {number}: not JSON text ({type(raw).__name__})")
    return _object(raw, f"hand {number}")


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

    def _owners(self, table_ids: Sequence[str], stored: Callable[[str], bool]) -> dict[str, int]:
        return {t: self._epoch(t) for t in table_ids if stored(t)}
