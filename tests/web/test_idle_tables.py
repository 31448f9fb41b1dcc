"""Idle tables leave memory (`hollywood_gin.tables.idle`), over the wire: a real
server with a real SQLite file and a short idle time (`HOLLYWOOD_GIN_IDLE_TABLE_SECONDS`).
How many tables the server holds is read from /metrics (`hollywood_gin_tables`).

A table let go comes back, the same, on a socket and on its page; a correspondence
deadline of a table out of memory still passes (it is loaded for it, with nobody
asking); a restart loads only the live tables. Nothing here asserts a duration: a
test waits for what the server says.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import running_server
from tests.web.test_correspondence_wire import kinds, next_state, seated_table, socket, to_act
from tests.wire import playable

IDLE = "0.5"  # seconds: a table no longer looked at leaves memory within about a second
ENV = {
    "HOLLYWOOD_GIN_METRICS": "true",
    "HOLLYWOOD_GIN_IDLE_TABLE_SECONDS": IDLE,
    "HOLLYWOOD_GIN_SECONDS_PER_DAY": "86400",
}


def held(base: str, gauge: str = "hollywood_gin_tables") -> int:
    """How many tables the server holds in memory now (`gauge`: or another count)."""
    for line in httpx.get(base + "/metrics", timeout=10).text.splitlines():
        if line.startswith(gauge + " "):
            return int(float(line.split()[1]))
    raise AssertionError(f"no {gauge} gauge")


def wait_held(base: str, count: int, limit: float = 60) -> None:
    """Until the server holds `count` tables (a bound on a hang, not a timing claim)."""
    end = time.monotonic() + limit
    while held(base) != count:
        assert time.monotonic() < end, f"held {held(base)}, not {count}"
        time.sleep(0.1)


def steady(state: dict[str, Any]) -> dict[str, Any]:
    """A state without what the clock changes between two looks."""
    table = dict(state["table"])
    table["players"] = [
        {k: v for k, v in p.items() if k not in ("connected", "away_seconds")}
        for p in table["players"]
    ]
    return {**state, "table": table, "server_time": None}


def public(base: str, table_id: str) -> dict[str, Any]:
    """The table's public facts, without what the clock changes between two looks."""
    facts: dict[str, Any] = httpx.get(base + f"/api/tables/{table_id}", timeout=10).json()
    facts.pop("server_time", None)
    for p in facts.get("players", []):
        p.pop("away_seconds", None)
        p.pop("connected", None)
    return facts


def test_a_table_let_go_comes_back_the_same(tmp_path: Path) -> None:
    with running_server(tmp_path / "t.sqlite3", env=ENV) as (base, _):
        table_id, ann, bob = seated_table(base)
        with socket(base, table_id, ann) as ws:
            before = next_state(ws)
        facts = public(base, table_id)
        wait_held(base, 0)  # nobody there, nothing due for a day: out of memory
        # Its page reads it back from the file.
        page = httpx.get(base + f"/t/{table_id}", timeout=10)
        assert page.status_code == 200 and table_id in page.text
        wait_held(base, 0)
        # A socket reads it back: the same state, the same version and deadlines.
        with socket(base, table_id, ann) as ws:
            after = next_state(ws)
            assert held(base) == 1
        assert steady(after) == steady(before)
        assert after["version"] == before["version"]
        wait_held(base, 0)
        assert public(base, table_id) == facts
        # And it is played on from there, by the seat asked.
        with socket(base, table_id, ann if to_act(before) == 0 else bob) as ws:
            state = next_state(ws)
            assert state["version"] == before["version"]
            move = playable(state["legal"])[0]
            ws.send(json.dumps({"type": "action", "version": state["version"], "action": move}))
            while state["version"] == before["version"]:
                state = next_state(ws)
        wait_held(base, 0)
        with socket(base, table_id, ann) as ws:
            assert next_state(ws)["version"] == state["version"]


def test_a_deadline_of_a_table_out_of_memory_passes(tmp_path: Path) -> None:
    env = {**ENV, "HOLLYWOOD_GIN_SECONDS_PER_DAY": "8"}
    with running_server(tmp_path / "t.sqlite3", env=env) as (base, _):
        table_id, ann, bob = seated_table(base)
        with socket(base, table_id, ann) as ws:
            asked = to_act(next_state(ws))
        wait_held(base, 0)  # let go before its deadline (a day: 8 s)
        # Nobody asks for it: its deadline loads it. Counted, not seen in the gauge: a
        # table loaded by its clock leaves again within a sweep (a fraction of a
        # second), which a look at /metrics on a busy machine misses.
        end = time.monotonic() + 60
        while held(base, "hollywood_gin_tables_woken_total") < 1:
            assert time.monotonic() < end, "not loaded by its deadline"
            time.sleep(0.1)
        # The seat asked is away: its opponent may claim or let the computer stand in.
        with socket(base, table_id, bob if asked == 0 else ann) as ws:
            state = next_state(ws)
            while not {"claim", "stand_in"} <= kinds(state):
                state = next_state(ws)


def test_a_restart_loads_only_the_live_tables(tmp_path: Path) -> None:
    data = tmp_path / "t.sqlite3"
    # Long enough for a restart on a busy machine to find the new table still live.
    env = {**ENV, "HOLLYWOOD_GIN_IDLE_TABLE_SECONDS": "15"}
    with running_server(data, env=env) as (base, _):
        old, ann, _bob = seated_table(base)
        wait_held(base, 0)
        new = httpx.post(base + "/api/tables", json={"name": "Cy"}, timeout=10).json()["table_id"]
        assert held(base) == 1
    with running_server(data, env=env) as (base, _):
        assert held(base) == 1  # the table played a moment ago, not the one left idle
        assert httpx.get(base + f"/api/tables/{new}", timeout=10).status_code == 200
        assert held(base) == 1
        assert httpx.get(base + f"/api/tables/{old}", timeout=10).status_code == 200
        with socket(base, old, ann) as ws:  # read back, and kept while connected
            assert next_state(ws)["table"]["status"] == "playing"
            assert held(base) == 2
        assert httpx.get(base + "/api/tables/nosuchtable00", timeout=10).status_code == 404


def test_the_tables_out_of_memory_are_counted(tmp_path: Path) -> None:
    with running_server(tmp_path / "t.sqlite3", env=ENV) as (base, _):
        table_id, ann, _bob = seated_table(base)
        wait_held(base, 0)
        assert held(base, "hollywood_gin_tables_asleep") == 1
        with socket(base, table_id, ann) as ws:  # read back: in memory, not asleep
            next_state(ws)
            assert held(base, "hollywood_gin_tables_asleep") == 0
        wait_held(base, 0)
        assert held(base, "hollywood_gin_tables_asleep") == 1
