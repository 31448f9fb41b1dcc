"""Tables played over days (docs/protocol-guide.md "Correspondence tables"), over the
wire: a real server (`python -m hollywood_gin`, a real SQLite file) with a short day
(`HOLLYWOOD_GIN_SECONDS_PER_DAY`), its sockets, and a restart in the middle.

Nothing here asserts how long anything took: a test waits for the state the server
sends when a deadline passes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from tests.conftest import running_server
from tests.wire import playable

DAY = 6.0  # seconds: long enough to connect before a deadline, short enough to wait for
ENV = {
    "HOLLYWOOD_GIN_SECONDS_PER_DAY": str(DAY),
    # A live table's seat would be away after 1 s without a socket: not on these.
    "HOLLYWOOD_GIN_CLAIM_AFTER_SECONDS": "1",
}


def create(base: str, **body: Any) -> httpx.Response:
    return httpx.post(base + "/api/tables", json={"name": "Ann", **body}, timeout=10)


def seated_table(base: str) -> tuple[str, str, str]:
    r = create(base, move_days=1)
    assert r.status_code == 201, r.text
    table_id, ann = r.json()["table_id"], r.json()["token"]
    r = httpx.post(base + f"/api/tables/{table_id}/seats", json={"name": "Bob"}, timeout=10)
    assert r.status_code == 201, r.text
    return table_id, ann, r.json()["token"]


def socket(base: str, table_id: str, token: str) -> ClientConnection:
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    return connect(url, additional_headers={"Cookie": f"gin_seat_{table_id}={token}"})


def next_state(ws: ClientConnection, timeout: float = 30) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=timeout))
        if msg["type"] == "state":
            return msg


def kinds(state: dict[str, Any]) -> set[str]:
    return {a["kind"] for a in state["legal"]}


def to_act(state: dict[str, Any]) -> int:
    """The seat asked to act now (the one with a deadline)."""
    asked = [p["seat"] for p in state["table"]["players"] if p["deadline"] is not None]
    assert len(asked) == 1, state["table"]["players"]
    return asked[0]


def test_create_refuses_bad_days(tmp_path: Path) -> None:
    with running_server(tmp_path / "t.sqlite3", env=ENV) as (base, _):
        for body in (
            {"move_days": 1, "turn_seconds": 30},
            {"move_days": 4},
            {"move_days": 0},
            {"move_days": "2"},
            {"move_days": True},
        ):
            r = create(base, **body)
            assert r.status_code == 422, (body, r.text)
            assert r.json()["error"] == "bad_request"
        assert create(base, move_days=14).status_code == 201
        # A live table's state is as before: no move_days, no deadline.
        r = create(base)
        table_id, token = r.json()["table_id"], r.json()["token"]
        with socket(base, table_id, token) as ws:
            state = next_state(ws)
        assert "move_days" not in state["table"]
        assert "deadline" not in state["table"]["players"][0]


def test_a_seat_is_away_only_once_its_deadline_passed(tmp_path: Path) -> None:
    with running_server(tmp_path / "t.sqlite3", env=ENV) as (base, _):
        table_id, ann, bob = seated_table(base)
        tokens = {0: ann, 1: bob}
        with socket(base, table_id, ann) as ws:
            first = next_state(ws)
        assert first["table"]["move_days"] == 1
        mover = to_act(first)
        deadline = first["table"]["players"][mover]["deadline"]
        assert 0 < deadline - first["server_time"] <= DAY * 1000
        waiter = 1 - mover
        # The mover has no socket, well past the live claim time: not away.
        with socket(base, table_id, tokens[waiter]) as ws:
            state = next_state(ws)
            # The server answers Ann's close before her session has left the table, so
            # this first state may still show her socket: its end comes as a new state.
            while state["table"]["players"][mover]["connected"]:
                assert not kinds(state) & {"claim", "stand_in"}
                state = next_state(ws, timeout=10)
            assert not kinds(state) & {"claim", "stand_in"}
            assert state["table"]["players"][mover]["connected"] is False
            # The deadline passes: a fresh state opens claim and stand-in; nothing moved.
            while not {"claim", "stand_in"} <= kinds(state):
                state = next_state(ws, timeout=DAY * 3)
            assert state["version"] == first["version"]
            assert state["server_time"] >= deadline


def test_a_deadline_survives_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "t.sqlite3"
    with running_server(data, env=ENV) as (base, _):
        table_id, ann, bob = seated_table(base)
        with socket(base, table_id, ann) as ws:
            before = next_state(ws)
    mover = to_act(before)
    deadline = before["table"]["players"][mover]["deadline"]
    with running_server(data, env=ENV) as (base, _):
        waiter = bob if mover == 0 else ann
        with socket(base, table_id, waiter) as ws:
            state = next_state(ws)
            # The same deadline, not a fresh one from the restart.
            assert state["table"]["players"][mover]["deadline"] == deadline
            # Re-armed at start-up: the away state comes when it passes.
            while not {"claim", "stand_in"} <= kinds(state):
                state = next_state(ws, timeout=DAY * 3)
            assert state["version"] == before["version"]


def test_the_away_seat_plays_its_turn_before_a_claim_and_the_match_goes_on(
    tmp_path: Path,
) -> None:
    with running_server(tmp_path / "t.sqlite3", env=ENV) as (base, _):
        table_id, ann, bob = seated_table(base)
        tokens = {0: ann, 1: bob}
        with socket(base, table_id, ann) as ws:
            first = next_state(ws)
        mover = to_act(first)
        with socket(base, table_id, tokens[1 - mover]) as ws:
            state = next_state(ws)
            while "claim" not in kinds(state):
                state = next_state(ws, timeout=DAY * 3)
        with socket(base, table_id, tokens[mover]) as ws:
            state = next_state(ws)
            while playable(state["legal"]):
                move = playable(state["legal"])[0]
                ws.send(json.dumps({"type": "action", "version": state["version"], "action": move}))
                version = state["version"]
                while state["version"] == version:
                    state = next_state(ws)
        assert state["table"]["status"] == "playing"
        assert state["table"]["players"][mover]["deadline"] is None
        with socket(base, table_id, tokens[1 - mover]) as ws:
            state = next_state(ws)
            assert "claim" not in kinds(state)
            assert state["table"]["players"][1 - mover]["deadline"] is not None
