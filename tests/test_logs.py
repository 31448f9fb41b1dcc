"""The server's log: one line per table event, with time and level; no secret in any line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from hollywood_gin.logs import redact
from tests.conftest import REPO, serving

TEXT_LINE = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARNING|ERROR|CRITICAL) "
)


def serve_and_play(tmp_path: Path, log_format: str) -> tuple[str, list[str]]:
    """Run the server, create, join, visit the seat link, open a socket; return its log."""
    env = {
        **os.environ,
        "HOLLYWOOD_GIN_DATA_FILE": str(tmp_path / "t.sqlite3"),
        "HOLLYWOOD_GIN_LOG_LEVEL": "info",
        "HOLLYWOOD_GIN_LOG_FORMAT": log_format,
    }
    log = tmp_path / "server.log"

    def start(port: int) -> subprocess.Popen[bytes]:
        # A fresh log each start: one that could not bind its port is not this one's.
        with log.open("w") as out:
            return subprocess.Popen(
                [sys.executable, "-m", "hollywood_gin"],
                cwd=REPO,
                env={**env, "HOLLYWOOD_GIN_PORT": str(port)},
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    secrets: list[str] = []
    with serving(start) as (base, _proc):
        r = httpx.post(base + "/api/tables", json={"name": "Ann"}, timeout=5).json()
        table_id, token = r["table_id"], r["token"]
        token1 = httpx.post(f"{base}/api/tables/{table_id}/seats", json={}, timeout=5).json()[
            "token"
        ]
        httpx.get(f"{base}/t/{table_id}/seat/{token}", timeout=5)
        httpx.post(f"{base}/t/{table_id}/seat/{token}", timeout=5)
        httpx.get(f"{base}/t/{table_id}", timeout=5)
        with connect(base.replace("http://", "ws://") + f"/ws/tables/{table_id}") as ws:
            ws.send(json.dumps({"type": "hello", "token": token1}))
            ws.recv(timeout=5)
        secrets = [table_id, token, token1]
    text = log.read_text()
    for secret in secrets:
        assert secret not in text
    return secrets[0], [line for line in text.splitlines() if line.strip()]


def test_text_lines_have_time_and_level_and_no_secret(tmp_path: Path) -> None:
    table_id, lines = serve_and_play(tmp_path, "text")
    assert lines and all(TEXT_LINE.match(line) for line in lines), lines
    short = table_id[:8]
    assert any(f"table {short} created" in line and " INFO " in line for line in lines)
    assert any(f"table {short} seat 1 taken" in line for line in lines)
    assert any("loaded 0 live tables" in line for line in lines)
    # The access log is there, its paths without the token and with short ids.
    assert any(f'"GET /t/{short}…/seat/… HTTP/1.1" 200' in line for line in lines)
    assert any(f'"POST /t/{short}…/seat/… HTTP/1.1" 303' in line for line in lines)


def test_json_lines_for_machines(tmp_path: Path) -> None:
    table_id, lines = serve_and_play(tmp_path, "json")
    records = [json.loads(line) for line in lines]
    assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
    created = [r for r in records if r["message"].startswith(f"table {table_id[:8]} created")]
    assert len(created) == 1 and created[0]["level"] == "INFO"
    assert created[0]["logger"] == "hollywood_gin.tables"


@pytest.mark.parametrize(
    "text",
    [
        "GET /t/abcdefghijklmnopqrstuv/seat/{token}",
        "log of abcdefghijKLMNOPQRSTUV ends at 3",
        "GET /ws/tables/abcdefghijklmnopqrstuv",
        "GET /t/abcdefghijklmnopqrstuv?lang=en&token={token}",
    ],
)
def test_redact_keeps_no_id_whole_and_no_token_at_all(text: str) -> None:
    token = "T0k3n-" + "x" * 37
    clean = redact(text.format(token=token))
    assert "abcdefgh" in clean and "ijklmnopqrstuv" not in clean.lower()
    assert "T0k3n" not in clean


def test_json_access_lines_carry_the_request_fields_redacted(tmp_path: Path) -> None:
    table_id, lines = serve_and_play(tmp_path, "json")
    records = [json.loads(line) for line in lines]
    access = [r for r in records if r["logger"] == "hollywood_gin.access"]
    seat = [r for r in access if r["path"].startswith(f"/t/{table_id[:8]}…/seat/")]
    assert {r["method"] for r in seat} == {"GET", "POST"}, seat
    posted = next(r for r in seat if r["method"] == "POST")
    assert posted["status"] == 303 and posted["path"] == f"/t/{table_id[:8]}…/seat/…"
    assert all(isinstance(r["duration_ms"], float) and r["duration_ms"] >= 0 for r in access)
    # uvicorn's coloured copy of each message is unredacted: it never reaches a line.
    assert not any("color_message" in r for r in records)


@pytest.mark.parametrize(
    "name",
    [
        "ConnectionRefusedError",
        "InvalidCatalogNameError",
        "ResourceWarningException",
        "PendingDeprecationWarning",
    ],
)
def test_redact_leaves_exception_names_whole(name: str) -> None:
    # `Connecti…: [Errno 111]` said nothing; the name is no secret.
    line = f"store unreachable ({name}: [Errno 111] Connect call failed)"
    assert redact(line) == line
    assert redact("id abcdefghijKLMNOPQRSTUV") == "id abcdefgh…"  # ids still cut
