"""One server per SQLite data file, with real processes: a second `serve` on a file a
server holds stops with one line and a non-zero exit while the first goes on serving;
a server killed with `kill -9` leaves no lock that stops the next; `migrate` refuses a
file a server holds. (Two servers on one file used to run side by side and fork a
table's log.)"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
from pathlib import Path

import httpx

from tests.conftest import free_port, run_gin, running_server


def second(data_file: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m hollywood_gin ARGS` on the same data file, in a process of its own."""
    env = {
        **os.environ,
        "HOLLYWOOD_GIN_DATA_FILE": str(data_file),
        "HOLLYWOOD_GIN_PORT": str(free_port()),
        "HOLLYWOOD_GIN_LOG_LEVEL": "warning",
    }
    return run_gin(*args, env=env, timeout=120)


def new_table(base: str) -> str:
    made = httpx.post(base + "/api/tables", json={"computer": "easy"}, timeout=10)
    assert made.status_code in (200, 201), made.text
    return str(made.json()["table_id"])


def test_a_second_server_on_the_file_stops_with_one_line_and_the_first_serves_on(
    tmp_path: Path,
) -> None:
    data = tmp_path / "tables.sqlite3"
    with running_server(data) as (base, first):
        before = new_table(base)
        refused = second(data, "serve")
        assert refused.returncode != 0, refused.stderr
        lines = refused.stderr.splitlines()
        assert len(lines) == 1 and refused.stdout == "", refused.stderr
        assert f"in use by a running Hollywood Gin server (process {first.pid})" in lines[0]
        assert str(data) in lines[0] and "HOLLYWOOD_GIN_DATA_FILE" in lines[0]
        # The first goes on: it answers, and what it writes is in the file.
        after = new_table(base)
        assert httpx.get(f"{base}/api/tables/{before}", timeout=10).status_code == 200
    with sqlite3.connect(data) as db:
        stored = {r[0] for r in db.execute("SELECT id FROM tables")}
    assert {before, after} <= stored


def test_a_server_killed_outright_leaves_no_lock_that_stops_the_next(tmp_path: Path) -> None:
    data = tmp_path / "tables.sqlite3"
    with running_server(data) as (base, first):
        table = new_table(base)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    # The lock file stays behind, naming the dead process: it stops no one.
    assert (tmp_path / "tables.sqlite3.lock").read_text().split()[0] == str(first.pid)
    with running_server(data) as (base, _):
        assert httpx.get(f"{base}/api/tables/{table}", timeout=10).status_code == 200


def test_migrate_refuses_a_file_a_server_holds(tmp_path: Path) -> None:
    data = tmp_path / "tables.sqlite3"
    with running_server(data) as (base, first):
        new_table(base)
        # Nothing listens on port 9: had it not been refused, it would fail connecting.
        refused = second(data, "migrate", "--to", "postgresql://gin@127.0.0.1:9/gin")
        assert refused.returncode == 1, refused.stderr
        (line,) = refused.stderr.splitlines()
        assert f"in use by a running Hollywood Gin server (process {first.pid})" in line
        assert "stop it first" in line
