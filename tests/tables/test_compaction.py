"""Logs stay one hand long: a snapshot at each deal, the hands before it compacted.

Start-up (a replay) and memory per table then do not grow with a table's age, and
nothing a player can see or ask for changes: views, versions, the sheet, and the
record of every finished hand.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.engine.actions import parse_action
from hollywood_gin.engine.events import Deal, Event, Snapshot
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.tables.errors import UnknownHand
from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.lifecycle import assemble
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.table import Table
from tests.e2e.test_socket_play import choose
from tests.wire import playable, wire


def views(match: Match) -> bytes:
    return orjson.dumps([match.view(0).wire(), match.view(1).wire(), match.view(None).wire()])


def mover(match: Match) -> int | None:
    return next((s for s in (0, 1) if playable(wire(match.view(s))["legal"])), None)


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    rules=st.sampled_from(["standard", "straight", "oklahoma"]),
    scoring=st.sampled_from(["hand", "game", "hollywood"]),
)
def test_a_compacted_log_replays_to_the_same_match(seed: int, rules: str, scoring: str) -> None:
    rng = random.Random(seed)
    options = Options(rules, scoring, 100)
    live = Match(options, rng=random.Random(seed))
    live.start()
    full: list[Event] = list(live.log)  # what an uncompacted store would hold
    records: dict[int, dict[str, Any]] = {}
    for step in range(600):
        seat = mover(live)
        if seat is None:
            break
        before = len(live.log)
        live.apply(seat, parse_action(choose(wire(live.view(seat)), rng)))
        full += live.log[before:]
        cut, dropped = live.compaction()
        if dropped:
            records.update(dropped)
            assert live.compact() == cut
        # Never more than the hand being played (a hand is as long as its moves).
        assert sum(1 for e in live.log if isinstance(e, Deal)) == 1
        if step % 7 == 0:
            replayed = Match.replay(options, live.log)
            assert views(replayed) == views(live)
            assert replayed.log == live.log
    # The full log rebuilds the same match as the compacted one.
    assert views(Match.replay(options, full)) == views(live)
    # Every finished hand's record: compacted ones as kept, the others from the match.
    uncompacted = Match.replay(options, full)
    for n, record in records.items():
        assert record == uncompacted.hand_record(n)


def test_a_compacted_snapshot_that_lies_is_refused() -> None:
    options = Options("standard", "game", 100)
    live = Match(options, rng=random.Random(3))
    live.start()
    snapshot = live.log[1]
    assert isinstance(snapshot, Snapshot)
    forged = [dataclasses.replace(snapshot, version=snapshot.version + 5), *live.log[2:]]
    replayed = Match.replay(options, forged)  # a leading snapshot is the starting point
    assert replayed.version == live.version + 5
    # In the middle of a log, a snapshot must be what the hands before it left.
    middle = [live.log[0], *forged]
    try:
        Match.replay(options, middle)
    except Exception as exc:
        assert "snapshot" in str(exc)
    else:
        raise AssertionError("a forged snapshot was accepted")


async def play(registry: Registry, table: Table, actions: int, rng: random.Random) -> None:
    for _ in range(actions):
        seat = mover(table.match)
        if seat is None:
            return
        view = wire(table.view(seat))
        await registry.act(table, seat, parse_action(choose(view, rng)), view["version"])


@pytest.mark.anyio
async def test_a_long_lived_table_keeps_one_hand_of_log_and_restarts_the_same(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.sqlite3"

    def registry_on(store: SqliteStore) -> Registry:
        return assemble(store, Hub(max_tabs_per_seat=5, max_spectators=5), expiry_seconds=1e9)

    store = SqliteStore(path)
    await store.open()
    registry = registry_on(store)
    table, _ = await registry.create({"scoring": "hollywood"}, "Ann")
    await registry.join(table.id, "Bob")
    rng = random.Random(15)
    await play(registry, table, 1500, rng)
    hand = wire(table.match.view(None))["hand"]["number"]
    assert hand >= 8 and registry.writer.ledger(table).base > 0
    assert sum(1 for e in table.match.log if isinstance(e, Deal)) == 1
    first = await registry.hand_record(table.id, 1)  # compacted: from the store
    assert first["number"] == 1 and first["actions"]
    before = views(table.match)
    dropped = await store.drop_compacted()
    assert dropped > 0
    await registry.close()
    await store.close()
    with sqlite3.connect(path) as db:
        (events,) = db.execute("SELECT COUNT(*) FROM events").fetchone()
    assert events == len(table.match.log)

    store = SqliteStore(path)
    await store.open()
    again = registry_on(store)
    assert await again.load() == 1
    rebuilt = again.get(table.id)
    assert rebuilt is not None and views(rebuilt.match) == before
    assert await again.hand_record(table.id, 1) == first
    await play(again, rebuilt, 200, rng)  # and play goes on, stored as before
    after = views(rebuilt.match)
    await again.close()
    await store.close()

    store = SqliteStore(path)
    await store.open()
    third = registry_on(store)
    await third.load()
    rebuilt = third.get(table.id)
    assert rebuilt is not None and views(rebuilt.match) == after
    await third.close()
    await store.close()


@pytest.mark.anyio
async def test_a_hand_record_damaged_while_serving_answers_unknown_hand(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Not a 500: the record cannot be read, that is said (and logged); the table plays on."""
    path = tmp_path / "t.sqlite3"

    caplog.set_level(logging.ERROR, "hollywood_gin")
    store = SqliteStore(path)
    await store.open()
    registry = assemble(store, Hub(max_tabs_per_seat=5, max_spectators=5), expiry_seconds=1e9)
    table, _ = await registry.create({"scoring": "hollywood"}, "Ann")
    await registry.join(table.id, "Bob")
    rng = random.Random(15)
    while registry.writer.ledger(table).base == 0:
        await play(registry, table, 50, rng)
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE hands SET record = 'oops' WHERE table_id = ? AND number = 1", (table.id,)
        )
    with pytest.raises(UnknownHand):
        await registry.hand_record(table.id, 1)
    await play(registry, table, 5, rng)
    await registry.close()
    await store.close()
    assert any("hand 1" in r.getMessage() for r in caplog.records)
