"""A record between friends (docs/protocol-guide.md "A record between friends"): each
table keeps the matches its two seats won, rematches included, as `table.matches_won`
in every state and in `GET /api/tables/{id}`, stored with the table's log so that a
restart (a real server, a real SQLite file) keeps it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from tests.conftest import running_server
from tests.e2e.conftest import ANN, BOB, deck

ENV = {"HOLLYWOOD_GIN_TEST_HOOKS": "1"}
# Ann (seat 0) leads: she takes the upcard 4H and knocks with KS, 4 against Bob's 5.
DECK = deck(ANN, BOB, "4H", [])


def socket(base: str, table_id: str, token: str) -> ClientConnection:
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    return connect(url, additional_headers={"Cookie": f"gin_seat_{table_id}={token}"})


def state_at(ws: ClientConnection, version: int = 0) -> dict[str, Any]:
    """The first state at `version` or later."""
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=30))
        if msg["type"] == "state" and msg["version"] >= version:
            return msg
        assert msg["type"] != "error", msg


def act(ws: ClientConnection, state: dict[str, Any], action: dict[str, Any]) -> None:
    ws.send(json.dumps({"type": "action", "version": state["version"], "action": action}))


def test_matches_won_over_the_wire_and_across_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "tables.sqlite3"
    with running_server(data, env=ENV) as (base, _):
        r = httpx.post(
            base + "/api/tables",
            json={
                "name": "Ann",
                "scoring": "hand",  # one hand is a match
                "test_decks": [DECK] * 6,
                "test_first_dealer": 1,
            },
            timeout=10,
        )
        assert r.status_code == 201, r.text
        table_id, ann = r.json()["table_id"], r.json()["token"]
        r = httpx.post(base + f"/api/tables/{table_id}/seats", json={"name": "Bob"}, timeout=10)
        assert r.status_code == 201, r.text
        bob = r.json()["token"]
        public = httpx.get(base + f"/api/tables/{table_id}", timeout=10).json()
        assert "matches_won" not in public  # none played yet
        with socket(base, table_id, ann) as a, socket(base, table_id, bob) as b:
            s = state_at(a)
            assert "matches_won" not in s["table"]
            # Match 1: Ann resigns, Bob wins it.
            act(a, s, {"kind": "resign"})
            s = state_at(a, s["version"] + 1)
            assert s["table"]["status"] == "match_over"
            assert s["table"]["matches_won"] == [0, 1]
            assert state_at(b, s["version"])["table"]["matches_won"] == [0, 1]
            # The rematch, played out: Ann takes the upcard and knocks, and wins it.
            act(a, s, {"kind": "new_match"})
            act(b, s, {"kind": "new_match"})
            s = state_at(a, s["version"] + 2)
            assert s["table"]["status"] == "playing"
            assert s["table"]["matches_won"] == [0, 1]  # carried into the new match
            act(a, s, {"kind": "take_upcard"})
            s = state_at(a, s["version"] + 1)
            act(a, s, {"kind": "knock", "discard": "KS"})
            s = state_at(a, s["version"] + 1)
            assert s["table"]["status"] == "match_over", s["hand"]["result"]
            assert s["table"]["matches_won"] == [1, 1]
            # A third: dealt (its snapshot carries the record), then Bob resigns.
            act(a, s, {"kind": "new_match"})
            act(b, s, {"kind": "new_match"})
            s = state_at(b, s["version"] + 2)
            act(b, s, {"kind": "resign"})
            s = state_at(b, s["version"] + 1)
            assert s["table"]["matches_won"] == [2, 1]
            # Bad input changes nothing: a resign after the match, a made-up action.
            act(b, s, {"kind": "resign", "matches_won": [9, 9]})
            act(b, s, {"kind": "new_match", "extra": 1})
            for _ in range(2):
                msg = json.loads(b.recv(timeout=30))
                assert msg["type"] == "error", msg
                assert msg["code"] in ("bad_message", "illegal_action"), msg
        public = httpx.get(base + f"/api/tables/{table_id}", timeout=10).json()
        assert public["matches_won"] == [2, 1]
    with running_server(data, env=ENV) as (base, _):
        public = httpx.get(base + f"/api/tables/{table_id}", timeout=10).json()
        assert public["matches_won"] == [2, 1]
        with socket(base, table_id, bob) as b:
            s = state_at(b)
            assert s["table"]["status"] == "match_over"
            assert s["table"]["matches_won"] == [2, 1]
            # And on into a fourth match, after the restart: the record goes with it.
            with socket(base, table_id, ann) as a:
                act(a, s, {"kind": "new_match"})
                act(b, s, {"kind": "new_match"})
                s = state_at(a, s["version"] + 2)
                assert s["table"]["status"] == "playing"
                assert s["table"]["matches_won"] == [2, 1]
    with running_server(data, env=ENV) as (base, _):
        # Restarted again with the fourth match's deal (and its snapshot) stored.
        public = httpx.get(base + f"/api/tables/{table_id}", timeout=10).json()
        assert public["status"] == "playing"
        assert public["matches_won"] == [2, 1]
