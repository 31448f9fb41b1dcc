"""Rows: a store's records as table rows and back (SQLite and PostgreSQL alike).

The JSON columns (options, seats, log entries, hands, reviews) are written with
orjson and read back checked: what cannot be read as it was written raises
`Damaged` naming the part (the stores then set that table aside).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.tables.store import Damaged, SeatRecord, TableRecord


def seats_json(seats: Sequence[SeatRecord]) -> bytes:
    return orjson.dumps(
        [
            {"name": s.name, "token_hash": s.token_hash, "computer": s.computer}
            | ({"lang": s.lang} if s.lang is not None else {})
            | ({"order": s.order} if s.order is not None else {})
            | ({"bot": True} if s.bot else {})
            | ({"no_bots": True} if s.no_bots else {})
            | ({"push": s.push} if s.push else {})
            | ({"deadline": s.deadline} if s.deadline is not None else {})
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
        push = s.get("push", [])
        if not isinstance(push, list) or not all(isinstance(p, dict) for p in push):
            push = []  # only where notifications go: never a reason to lose the table
        deadline = s.get("deadline")
        if isinstance(deadline, bool) or not isinstance(deadline, int | float | None):
            raise Damaged("seats: a deadline is not a time")
        out.append(
            SeatRecord(
                name=name,
                token_hash=token_hash,
                computer=computer,
                lang=lang,
                order=order,
                bot=bot,
                no_bots=no_bots,
                push=push,
                deadline=None if deadline is None else float(deadline),
            )
        )
    return out


def first_look(
    options: bytes | str, seats: bytes | str, now: float, seconds_per_day: float
) -> float | None:
    """The next look by the clock a holder of stored seats (a table played over days)
    would keep: each seat's "deadline soon" moment (a quarter of its time left) while
    that is ahead, else its deadline while that is ahead; the earliest, or None. A
    soon moment already past counts as told (`Presence.told_before` reads the look so:
    a deadline as the look says its "deadline soon" was told). Seats or options that
    cannot be read have none (a claim sets such a table aside)."""
    try:
        days = orjson.loads(options).get("move_days")
        deadlines = [s.deadline for s in _seats_from(seats) if s.deadline is not None]
    except (Damaged, orjson.JSONDecodeError, AttributeError):
        return None
    quarter = days * seconds_per_day / 4 if isinstance(days, int | float) else None
    looks = []
    for deadline in deadlines:
        if deadline <= now:
            continue
        soon = None if quarter is None else deadline - quarter
        looks.append(soon if soon is not None and soon > now else deadline)
    return min(looks, default=None)


def _object(raw: bytes | str, what: str) -> JsonObject:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise Damaged(f"{what}: not JSON") from None
    if not isinstance(value, dict):
        raise Damaged(f"{what}: not a JSON object")
    return value


def record_from(row: tuple[Any, ...]) -> TableRecord:
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


def table_row(record: TableRecord) -> tuple[str, str, str, float, float, int]:
    """A record's `tables` row as `record_from` reads it back (without its log)."""
    return (
        record.table_id,
        orjson.dumps(record.options).decode(),
        seats_json(record.seats).decode(),
        record.created,
        record.last_active,
        record.base,
    )


def entry_rows(
    table_id: str, first_seq: int, entries: Iterable[JsonObject]
) -> list[tuple[str, int, str]]:
    """The `events` rows (table_id, seq, entry) of log entries from `first_seq` on."""
    return [
        (table_id, seq, orjson.dumps(entry).decode())
        for seq, entry in enumerate(entries, start=first_seq)
    ]


def active_at(record: TableRecord, at: object) -> None:
    """An entry's append time (SQLite's `events.at`) into the record's last activity:
    the later of its row's `last_active` and its entries' times. NULL (an entry of an
    older file, or written at creation) or anything not a time leaves it as it is."""
    if isinstance(at, int | float) and not isinstance(at, bool) and at > record.last_active:
        record.last_active = float(at)


def add_entry(record: TableRecord, seq: int, entry: bytes | str) -> None:
    """One stored entry onto the record's log; `Damaged` at a gap or an unreadable entry."""
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise Damaged(f"log: a seq that is not an integer ({type(seq).__name__})")
    expected = record.base + len(record.log)
    if seq != expected:
        raise Damaged(f"log: seq {seq} where {expected} belongs")
    record.log.append(_object(entry, f"log entry {seq}"))


def read_log(record: TableRecord, events: Iterable[tuple[int, bytes | str]]) -> None:
    """The table's stored entries (seq, entry) from its base on, in seq order."""
    for seq, entry in events:
        add_entry(record, seq, entry)
    check_log(record)


def check_log(record: TableRecord) -> None:
    """`Damaged` when the log a record was read with cannot be its whole log: a table
    compacted at `base_seq` keeps the entry there, so an empty log above 0 lost it."""
    if not record.log and record.base > 0:
        raise Damaged(f"log: base_seq {record.base} beyond the log (no entry there)")


def _check_table_id(table_id: object) -> None:
    if not isinstance(table_id, str) or not table_id or "\x00" in table_id:
        raise Damaged(f"id: not a table id ({type(table_id).__name__})")


def gap_error(table_id: str, last: int, first_seq: int) -> RuntimeError:
    """An append refused: a log is gap-free, the next seq is one past the last stored."""
    return RuntimeError(f"log of {table_id} ends at {last}, not {first_seq - 1}")


def hand_rows(table_id: str, hands: dict[int, JsonObject]) -> list[tuple[str, int, str]]:
    """The `hands` rows (table_id, number, record) that `compact` keeps."""
    return [(table_id, number, orjson.dumps(hand).decode()) for number, hand in hands.items()]


def review_row(
    table_id: str, number: int, seat: int, review: JsonObject
) -> tuple[str, int, int, str]:
    """The `reviews` row (table_id, number, seat, review) of one seat's hand review."""
    return (table_id, number, seat, orjson.dumps(review).decode())


def review_from(raw: bytes | str, number: int) -> JsonObject | None:
    """A stored review, read back; None when it cannot be read (it is computed again)."""
    try:
        return _object(raw, f"review of hand {number}")
    except Damaged:
        return None


def hand_from(raw: bytes | str, number: int) -> JsonObject:
    """A stored hand record, read back; `Damaged` when it is not a JSON object."""
    if not isinstance(raw, bytes | str):
        raise Damaged(f"hand {number}: not JSON text ({type(raw).__name__})")
    return _object(raw, f"hand {number}")
