"""Every way `serve` cannot start says so in one line, never a traceback (issue 45):
the line `check` prints for the same cause, exit 2 for a bad setting or an unusable
data file, 1 for a store out of reach. And a SIGHUP ends the server as SIGTERM does,
gracefully: every socket is closed with 1012.

Each case runs the real command in a subprocess, in a folder of its own (no `.env`),
with this tree on the path.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.conftest import REPO, closed_port, run_gin, running_server


def clean_env(tmp_path: Path, **settings: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HOLLYWOOD_GIN_", "PG")) and k != "PYTHONPATH"
    }
    env["PYTHONPATH"] = str(REPO)
    env["HOME"] = str(tmp_path)  # no ~/.pgpass
    env["HOLLYWOOD_GIN_DATA_FILE"] = str(tmp_path / "data" / "tables.sqlite3")
    env.update({f"HOLLYWOOD_GIN_{k.upper()}": v for k, v in settings.items()})
    return env


def gin(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_gin(*args, cwd=tmp_path, env=env, timeout=120)


def refused_in_one_line(tmp_path: Path, env: dict[str, str], code: int, *words: str) -> str:
    """`serve` exits `code` with one line on stderr; `check` exits the same and prints
    that line. The line (without the program's name)."""
    served = gin(tmp_path, env, "serve")
    assert served.returncode == code, served.stderr
    lines = served.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in served.stderr, served.stderr
    assert served.stdout == ""
    line = lines[0].removeprefix("hollywood-gin: ")
    for word in words:
        assert word in line
    checked = gin(tmp_path, env, "check")
    assert checked.returncode == code, checked.stdout + checked.stderr
    said = [
        x.removeprefix("hollywood-gin: ") for x in (checked.stdout + checked.stderr).splitlines()
    ]
    assert line in said, said
    assert "Traceback" not in checked.stdout + checked.stderr
    return line


def test_no_postgres_driver_is_one_line(tmp_path: Path) -> None:
    # An install without the postgres extra: asyncpg cannot be imported.
    blocker = tmp_path / "blocker" / "asyncpg"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'asyncpg'\", name='asyncpg')\n"
    )
    env = clean_env(tmp_path, database_url="postgresql://gin@127.0.0.1:5432/gin")
    env["PYTHONPATH"] = f"{blocker.parent}{os.pathsep}{REPO}"
    line = refused_in_one_line(tmp_path, env, 1, "postgres extra")
    assert "pip install 'hollywood-gin[postgres]'" in line


def test_unreachable_postgres_is_one_line_with_the_password_hidden(tmp_path: Path) -> None:
    with closed_port() as port:  # nothing listens there
        url = f"postgresql://gin:Sekret-77@127.0.0.1:{port}/gin"
        env = clean_env(tmp_path, database_url=url)
        line = refused_in_one_line(tmp_path, env, 1, "unreachable", "gin:***@127.0.0.1")
    # The exception's name whole (the log's redaction once cut it: `Connecti…`).
    assert "Error" in line and "…" not in line
    assert "Sekret-77" not in line


def test_a_bad_setting_is_one_line(tmp_path: Path) -> None:
    env = clean_env(tmp_path, max_spectators="lots")
    refused_in_one_line(tmp_path, env, 2, "HOLLYWOOD_GIN_MAX_SPECTATORS")


def test_a_data_file_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("a file, not a folder\n")
    env = clean_env(tmp_path, data_file=str(tmp_path / "plain" / "tables.sqlite3"))
    refused_in_one_line(tmp_path, env, 2, "cannot be made", "is not a folder")
    env = clean_env(tmp_path, data_file=str(tmp_path))
    refused_in_one_line(tmp_path, env, 2, "is a folder")


def test_migrate_to_another_database_is_one_line(tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    served = gin(tmp_path, env, "migrate", "--to", "mysql://x")
    assert served.returncode == 2
    assert served.stderr.splitlines() == [
        "hollywood-gin: migrate: --to must be a postgresql:// URL, not mysql://x"
    ]


def test_sighup_ends_the_server_gracefully(tmp_path: Path) -> None:
    with running_server(tmp_path / "t.sqlite3") as (base, proc):
        table = httpx.post(base + "/api/tables", json={"name": "Ann"}, timeout=5).json()
        url = base.replace("http", "ws") + f"/ws/tables/{table['table_id']}"
        with connect(url, open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "token": table["token"]}))
            assert json.loads(ws.recv(timeout=10))["type"] == "state"
            proc.send_signal(signal.SIGHUP)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=20)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        # As after SIGTERM: uvicorn ends by the signal it handled (not SIGHUP's 129).
        assert proc.wait(timeout=30) == -signal.SIGTERM


def test_a_store_failing_in_the_lifespan_logs_no_traceback(tmp_path: Path) -> None:
    # Past every check before the start: the folder is fine, the file new, but SQLite
    # cannot make its write-ahead log (a folder stands in its place).
    (tmp_path / "data" / "tables.sqlite3-wal").mkdir(parents=True)
    served = gin(tmp_path, clean_env(tmp_path), "serve")
    assert served.returncode == 1
    assert "Traceback" not in served.stderr and 'File "' not in served.stderr
    errors = [line for line in served.stderr.splitlines() if " ERROR " in line]
    assert len(errors) == 2, served.stderr
    assert errors[0].endswith("uvicorn.error: sqlite3.OperationalError: disk I/O error")
    assert errors[1].endswith("Application startup failed. Exiting.")


def test_a_port_in_use_is_one_error_line_and_exit_1(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        served = gin(tmp_path, clean_env(tmp_path, port=port), "serve")
    assert served.returncode == 1
    assert "Traceback" not in served.stderr
    errors = [line for line in served.stderr.splitlines() if " ERROR " in line]
    assert len(errors) == 1 and "address already in use" in errors[0], served.stderr
