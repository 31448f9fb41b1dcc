"""Play a scripted hand on a real server over its WebSocket (the tables' only way in
for moves), as two seated clients would."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect


def _state(ws: ClientConnection, at_least: int) -> dict[str, Any]:
    while True:
        msg = json.loads(ws.recv(timeout=20))
        if msg.get("type") == "state" and msg["version"] >= at_least:
            return dict(msg)


def play_script(
    base: str, deck: list[str], script: list[tuple[int, dict[str, Any]]], **options: Any
) -> tuple[str, list[str]]:
    """A table of Ann (seat 0, the first dealer) and Bob dealt `deck`, the script played
    on it; returns the table id and the two seat tokens."""
    body = {"name": "Ann", "test_decks": [deck], "test_first_dealer": 0, **options}
    r = httpx.post(base + "/api/tables", json=body, timeout=10)
    assert r.status_code == 201, r.text
    table_id, token0 = r.json()["table_id"], r.json()["token"]
    r = httpx.post(base + f"/api/tables/{table_id}/seats", json={"name": "Bob"}, timeout=10)
    assert r.status_code == 201, r.text
    tokens = [token0, r.json()["token"]]
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    with contextlib.ExitStack() as stack:
        sockets = [
            stack.enter_context(
                connect(url, additional_headers={"Cookie": f"gin_seat_{table_id}={t}"}, proxy=None)
            )
            for t in tokens
        ]
        version = max(_state(ws, 0)["version"] for ws in sockets)
        for seat, action in script:
            sockets[seat].send(json.dumps({"type": "action", "version": version, "action": action}))
            version = _state(sockets[seat], version + 1)["version"]
    return table_id, tokens
