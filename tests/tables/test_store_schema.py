"""A data file written by a newer schema is refused, untouched, with a clear message."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from hollywood_gin.tables.sqlite_file import SCHEMA_VERSION, NewerSchema
from hollywood_gin.tables.sqlite_store import SqliteStore
from tests.conftest import run_gin


def newer_file(path: Path) -> bytes:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE tables (id TEXT PRIMARY KEY, future TEXT)")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    return hashlib.sha256(path.read_bytes()).digest()


@pytest.mark.anyio
async def test_the_store_refuses_a_newer_file_and_leaves_it_untouched(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    digest = newer_file(path)

    store = SqliteStore(path)
    with pytest.raises(NewerSchema) as refused:
        await store.open()
    assert "newer" in str(refused.value) and str(SCHEMA_VERSION + 1) in str(refused.value)
    assert hashlib.sha256(path.read_bytes()).digest() == digest
    assert not Path(f"{path}-wal").exists()


def test_the_server_will_not_start_on_a_newer_file(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    digest = newer_file(path)
    env = {**os.environ, "HOLLYWOOD_GIN_DATA_FILE": str(path), "HOLLYWOOD_GIN_PORT": "1"}
    done = run_gin(env=env)
    assert done.returncode == 2
    assert "written by a newer Hollywood Gin" in done.stderr
    assert "Traceback" not in done.stderr
    assert hashlib.sha256(path.read_bytes()).digest() == digest
