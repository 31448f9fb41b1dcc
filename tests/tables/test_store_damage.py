"""A damaged table in the store is reported and set aside; every other table loads.

Each kind of damage is made on a real SQLite file, the way a bad disk, a bad
hand edit or a bug would leave it, then the server's own start-up path runs.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hollywood_gin.engine.actions import parse_action
from hollywood_gin.main import create_app
from hollywood_gin.tables.lifecycle import expire
from hollywood_gin.tables.sqlite_store import SqliteStore
from tests.tables.helpers import make_settings, registry_on, two_seats

# Damage kind -> SQL run on the file; `:id` is the damaged table, its log has 3 entries
# (start, deal, seat 1's pass).
DAMAGE = {
    "options not JSON": "UPDATE tables SET options = '{\"rules\": ' WHERE id = :id",
    "options not an object": "UPDATE tables SET options = '[1, 2]' WHERE id = :id",
    "options unreadable": 'UPDATE tables SET options = \'{"rules": "poker"}\' WHERE id = :id',
    "seats not JSON": "UPDATE tables SET seats = 'Ann and Bob' WHERE id = :id",
    "seats of the wrong shape": "UPDATE tables SET seats = '[{\"name\": 3}]' WHERE id = :id",
    "a time that is no time": "UPDATE tables SET created = 'yesterday' WHERE id = :id",
    "a log entry not JSON": "UPDATE events SET entry = '{\"ev' WHERE table_id = :id AND seq = 1",
    "a gap in the log": "DELETE FROM events WHERE table_id = :id AND seq = 1",
    # (A repeat in the log, two rows for one seq, cannot be stored since schema 7: the
    # events' primary key. An older file's is set aside at the migration: test_store_lock.)
    "a log entry lacking its fields": 'UPDATE events SET entry = \'{"event": "action"}\''
    " WHERE table_id = :id AND seq = 2",
    "a log no match can follow": "UPDATE events SET entry ="
    ' \'{"event": "action", "seat": 0, "action": {"kind": "pass"}}\''
    " WHERE table_id = :id AND seq = 2",
    "an unknown computer strength": "UPDATE tables SET seats = json_set(seats, '$[1].computer',"
    " 'godlike') WHERE id = :id",
    # These once stopped start-up, crashed `check` or loaded silently.
    "a seq that is text": "UPDATE events SET seq = 'one' WHERE table_id = :id AND seq = 1",
    "a seq that is a blob": "UPDATE events SET seq = x'01' WHERE table_id = :id AND seq = 2",
    "base_seq beyond the log": "UPDATE tables SET base_seq = 50 WHERE id = :id",
    "a hand record not JSON": "INSERT INTO hands VALUES (:id, 1, '{\"kind\": ')",
    "a hand record that is a number": "INSERT INTO hands VALUES (:id, 1, 7)",
}


async def make_tables(path: Path) -> list[str]:
    """Three tables, each with seat 1's pass stored; returns their ids."""
    store = SqliteStore(path)
    await store.open()
    registry = registry_on(store)
    ids = []
    for _ in range(3):
        table = await two_seats(registry)
        await registry.act(table, 1, parse_action({"kind": "pass"}), 1)
        ids.append(table.id)
    await registry.close()
    await store.close()
    return ids


async def start_up(path: Path) -> tuple[int, dict[str, str]]:
    """The server's start-up on the file: how many tables load, and which are set aside."""
    store = SqliteStore(path)
    await store.open()
    try:
        return await registry_on(store).load(), await store.set_aside_tables()
    finally:
        await store.close()


@pytest.mark.anyio
@pytest.mark.parametrize("kind", sorted(DAMAGE))
async def test_a_damaged_table_is_set_aside_and_the_others_play_on(
    kind: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "hollywood_gin")
    path = tmp_path / "t.sqlite3"
    first, damaged, last = await make_tables(path)
    with sqlite3.connect(path) as db:
        db.execute(DAMAGE[kind], {"id": damaged})
        rows_before = db.execute("SELECT * FROM tables WHERE id = ?", (damaged,)).fetchall()
    caplog.clear()

    store = SqliteStore(path)
    await store.open()
    registry = registry_on(store)
    loaded = await registry.load()
    aside = await store.set_aside_tables()
    # The others play on, stored as before.
    for table_id in (first, last):
        table = registry.get(table_id)
        assert table is not None
        await registry.act(table, 0, parse_action({"kind": "take_upcard"}), 2)
    # Far in the future: expiry removes every idle table but the one set aside.
    gone = await expire(registry, now=10**12)
    await registry.close()
    await store.close()
    # A second start-up leaves it aside without reading it again.
    again, _ = await start_up(path)
    assert loaded == 2 and list(aside) == [damaged] and aside[damaged]
    assert sorted(gone) == sorted([first, last]) and again == 0
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT * FROM tables WHERE id = ?", (damaged,)).fetchall() == rows_before
        assert (
            db.execute("SELECT COUNT(*) FROM events WHERE table_id = ?", (damaged,)).fetchone()[0]
            >= 2
        )
    reports = [r for r in caplog.records if damaged[:8] in r.getMessage()]
    assert len(reports) == 1 and reports[0].levelno == logging.ERROR
    assert "set aside" in reports[0].getMessage()
    # Only the short id reaches the log.
    assert all(damaged not in r.getMessage() for r in caplog.records)


def test_the_server_starts_with_a_damaged_table_in_its_file(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    good, damaged, _ = asyncio.run(make_tables(settings.data_file))
    with sqlite3.connect(settings.data_file) as db:
        db.execute(DAMAGE["a log entry not JSON"], {"id": damaged})
    with TestClient(create_app(settings)) as client:
        assert client.get("/healthz").status_code == 200
        assert client.get(f"/api/tables/{good}").status_code == 200
        assert client.get(f"/api/tables/{damaged}").status_code == 404


@pytest.mark.anyio
async def test_a_row_without_a_table_id_is_set_aside_under_its_row(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    _first, damaged, _last = await make_tables(path)
    with sqlite3.connect(path) as db:
        (rowid,) = db.execute("SELECT rowid FROM tables WHERE id = ?", (damaged,)).fetchone()
        db.execute("UPDATE tables SET id = NULL WHERE id = ?", (damaged,))

    loaded, aside = await start_up(path)
    again, _ = await start_up(path)
    assert loaded == 2 and again == 2
    assert list(aside) == [f"(no id, row {rowid})"]


@pytest.mark.anyio
async def test_a_started_table_whose_events_are_gone_is_set_aside(tmp_path: Path) -> None:
    """Compacted (base_seq above 0) and every event lost: not a table waiting for its
    second player, which is what it would load as."""
    path = tmp_path / "t.sqlite3"
    _first, damaged, _last = await make_tables(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE tables SET base_seq = 2 WHERE id = ?", (damaged,))
        db.execute("DELETE FROM events WHERE table_id = ?", (damaged,))

    loaded, aside = await start_up(path)
    assert loaded == 2 and "beyond the log" in aside[damaged]


def test_check_reports_every_new_kind_and_never_crashes(tmp_path: Path) -> None:
    from hollywood_gin.cli import main as command

    settings = make_settings(tmp_path)
    ids = asyncio.run(make_tables(settings.data_file))
    with sqlite3.connect(settings.data_file) as db:
        db.execute(DAMAGE["a seq that is text"], {"id": ids[0]})
        db.execute(DAMAGE["a hand record not JSON"], {"id": ids[1]})
        db.execute("UPDATE tables SET id = NULL WHERE id = ?", (ids[2],))
    import os

    env = {"HOLLYWOOD_GIN_DATA_FILE": str(settings.data_file)}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        assert command(["check"]) == 1
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
