"""`hollywood-gin check` and `backup`: what a host runs, in process."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from hollywood_gin.cli import main
from tests.tables.test_store_damage import DAMAGE, make_tables
from tests.tables.test_store_schema import newer_file


@pytest.fixture
def data_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "tables.sqlite3"
    monkeypatch.setenv("HOLLYWOOD_GIN_DATA_FILE", str(path))
    return path


def test_check_passes_a_sound_file_and_names_a_damaged_table(
    data_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check"]) == 0  # no file yet
    ids = asyncio.run(make_tables(data_file))
    assert main(["check"]) == 0
    assert "tables: 3 load, 0 damaged" in capsys.readouterr().out
    with sqlite3.connect(data_file) as db:
        db.execute(DAMAGE["a log no match can follow"], {"id": ids[1]})
    before = data_file.read_bytes()
    assert main(["check"]) == 1
    out = capsys.readouterr().out
    assert f"table {ids[1][:8]}: damaged" in out and "tables: 2 load, 1 damaged" in out
    assert ids[1] not in out
    assert data_file.read_bytes() == before  # a check changes nothing


def test_check_refuses_a_newer_file_and_bad_settings(
    data_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    newer_file(data_file)
    assert main(["check"]) == 2
    assert "newer Hollywood Gin" in capsys.readouterr().err
    monkeypatch.setenv("HOLLYWOOD_GIN_PORT", "eighty")
    assert main(["check"]) == 2
    assert "HOLLYWOOD_GIN_PORT" in capsys.readouterr().err


def test_backup_refuses_to_overwrite_the_data_file(data_file: Path) -> None:
    asyncio.run(make_tables(data_file))
    assert main(["backup", str(data_file)]) == 2
    assert main(["backup", str(data_file.parent / "missing" / "copy.sqlite3")]) == 0
    with sqlite3.connect(data_file.parent / "missing" / "copy.sqlite3") as db:
        assert db.execute("SELECT COUNT(*) FROM tables").fetchone() == (3,)
