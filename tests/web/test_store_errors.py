"""A store that cannot write (a full disk): the socket gets `server_error`, HTTP a JSON 503.

The write error is SQLite's own, injected by a trigger on the real file.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hollywood_gin.main import create_app
from tests.tables.helpers import exchange, make_settings, of_type, snapshot
from tests.tables.test_store_faults import accept_writes, refuse_writes
from tests.web.test_ws import new_table, seat_socket, table_of


def test_a_full_disk_answers_server_error_and_loses_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "hollywood_gin")
    settings = make_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        table_id, _token0, token1 = new_table(client)
        table = table_of(client, table_id)
        with seat_socket(client, table_id, token1) as (ws, state):
            before = snapshot(table)
            refuse_writes(settings.data_file)
            for _ in range(3):
                frames = exchange(
                    ws, {"type": "action", "version": state["version"], "action": {"kind": "pass"}}
                )
                errors = of_type(frames, "error")
                assert [e["code"] for e in errors] == ["server_error"]
                assert of_type(frames, "state") == []
                assert snapshot(table) == before
            r = client.post("/api/tables", json={"name": "Cy"})
            assert r.status_code == 503
            assert r.json()["error"] == "server_error" and r.json()["message"]
            accept_writes(settings.data_file)
            # The client resends the same move; now it is stored and happens.
            frames = exchange(
                ws, {"type": "action", "version": state["version"], "action": {"kind": "pass"}}
            )
            assert of_type(frames, "error") == []
            assert of_type(frames, "state")[-1]["version"] == state["version"] + 1
    failed = [r for r in caplog.records if "storing a change failed" in r.getMessage()]
    assert len(failed) == 1
    # No traceback per failure: the one line is the whole report.
    assert all(r.exc_info is None for r in caplog.records if r.levelno >= logging.ERROR)
