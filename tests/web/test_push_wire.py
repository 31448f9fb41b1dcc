"""Web Push end to end (docs/protocol-guide.md "Notifications"), over the wire: a real
server (`python -m hollywood_gin`, a real SQLite file) and a push service started by
the test on loopback (`tests.pushservice`), which holds the subscriber's private keys,
DECRYPTS each message (RFC 8291 `aes128gcm`) and checks the VAPID JWT (RFC 8292)
against `GET /api/push/key`.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from tests.conftest import running_server
from tests.pushservice import PushService, unb64
from tests.wire import playable

SUBJECT = "mailto:push-test@example.org"


@pytest.fixture
def service() -> Iterator[PushService]:
    s = PushService(SUBJECT)
    yield s
    s.close()


def env_for(service: PushService) -> dict[str, str]:
    return {
        "HOLLYWOOD_GIN_VAPID_SUBJECT": SUBJECT,
        "HOLLYWOOD_GIN_PUSH_SERVICES": service.origin,
        "HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0",
    }


def create(base: str) -> tuple[str, str]:
    r = httpx.post(base + "/api/tables", json={"name": "Ann"}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()["table_id"], r.json()["token"]


def join(base: str, table_id: str) -> str:
    r = httpx.post(base + f"/api/tables/{table_id}/seats", json={"name": "Bob"}, timeout=10)
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


def subscribe(base: str, table_id: str, token: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        base + f"/api/tables/{table_id}/push",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )


def move_once(base: str, table_id: str, token: str) -> bool:
    """The seat makes one move if one is open to it (over its own socket)."""
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    with connect(url, additional_headers={"Cookie": f"gin_seat_{table_id}={token}"}) as ws:
        while True:
            msg = json.loads(ws.recv(timeout=10))
            if msg["type"] == "state":
                break
        legal = playable(msg["legal"])
        if legal:
            ws.send(json.dumps({"type": "action", "version": msg["version"], "action": legal[0]}))
            while True:
                after = json.loads(ws.recv(timeout=10))
                if after["type"] == "state" and after["version"] > msg["version"]:
                    return True
        return False


def play_turn(base: str, table_id: str, token: str) -> int:
    """The seat moves until nothing is open to it; returns how many moves it made."""
    for moves in range(6):
        if not move_once(base, table_id, token):
            return moves
    raise AssertionError("a turn of more than 6 moves")


def stored_push(data: Path, table_id: str) -> list[Any]:
    db = sqlite3.connect(data)
    try:
        (seats,) = db.execute("SELECT seats FROM tables WHERE id = ?", (table_id,)).fetchone()
    finally:
        db.close()
    return [s.get("push", []) for s in json.loads(seats)]


def test_a_push_reaches_an_absent_seat_encrypted_and_signed_and_survives_a_restart(
    tmp_path: Path, service: PushService
) -> None:
    data = tmp_path / "tables.sqlite3"
    with running_server(data, env=env_for(service)) as (base, _):
        key = httpx.get(base + "/api/push/key", timeout=5).json()["key"]
        assert len(unb64(key)) == 65 and unb64(key)[0] == 4
        table_id, ann = create(base)
        sub = service.subscriber("/push/ann")
        r = subscribe(base, table_id, ann, sub.json(service.origin, lang="de"))
        assert r.status_code == 201, r.text
        bob = join(base, table_id)
        play_turn(base, table_id, bob)  # whoever was first, Ann waits now
        message = service.open(service.next(), key)
        assert message["table"] == table_id
        assert message["kind"] == "your_move"
        assert message["url"] == f"/t/{table_id}"
        assert message["title"] == "Sie sind am Zug"  # the subscription's language
        assert "Bob" in message["body"]
        assert not any(c in json.dumps(message) for c in ("♥", "♠")), "no card"
        assert stored_push(data, table_id)[0][0]["endpoint"] == service.origin + "/push/ann"
    # A restart keeps the key and the subscription: the next wait is pushed again.
    with running_server(data, env=env_for(service)) as (base, _):
        assert httpx.get(base + "/api/push/key", timeout=5).json()["key"] == key
        # Ann waits already (told before the restart): her own move, then Bob's, makes
        # a new wait, pushed by the restarted server.
        assert play_turn(base, table_id, ann)
        assert play_turn(base, table_id, bob)
        assert service.open(service.next(), key)["table"] == table_id


def test_a_410_deletes_the_subscription(tmp_path: Path, service: PushService) -> None:
    data = tmp_path / "tables.sqlite3"
    with running_server(data, env=env_for(service)) as (base, _):
        table_id, ann = create(base)
        sub = service.subscriber("/push/gone")
        service.status["/push/gone"] = 410
        assert subscribe(base, table_id, ann, sub.json(service.origin)).status_code == 201
        assert stored_push(data, table_id)[0]
        bob = join(base, table_id)
        play_turn(base, table_id, bob)
        service.next()
        end = time.monotonic() + 60  # a bound on a hang: the 410 comes in its own time
        while stored_push(data, table_id)[0] and time.monotonic() < end:
            time.sleep(0.05)  # the server forgets it once the 410 is in
        assert stored_push(data, table_id)[0] == []


def test_refusals(tmp_path: Path, service: PushService) -> None:
    data = tmp_path / "tables.sqlite3"
    with running_server(data, env=env_for(service)) as (base, _):
        table_id, ann = create(base)
        sub = service.subscriber("/push/x")
        for endpoint in (
            "http://10.0.0.1/push",  # a private address
            "http://127.0.0.1:1/push",  # loopback, another port: another origin
            "https://fcm.googleapis.com/fcm/send/x",  # not in this server's list
            f"http://user@127.0.0.1:{service.port}/push",
        ):
            body = sub.json(service.origin) | {"endpoint": endpoint}
            r = subscribe(base, table_id, ann, body)
            assert r.status_code == 422 and r.json()["error"] == "push_service", (endpoint, r.text)
        # Without a seat.
        r = httpx.post(base + f"/api/tables/{table_id}/push", json=sub.json(service.origin))
        assert r.status_code == 403 and r.json()["error"] == "not_seated"
        # A bad body: typed, nothing stored.
        r = subscribe(base, table_id, ann, {"endpoint": service.origin + "/p", "keys": {}})
        assert r.status_code == 422
        assert stored_push(data, table_id)[0] == []
        # Five at most, the oldest dropped; DELETE forgets one.
        for n in range(7):
            body = service.subscriber(f"/push/{n}").json(service.origin)
            assert subscribe(base, table_id, ann, body).status_code == 201
        kept = [s["endpoint"].rsplit("/", 1)[1] for s in stored_push(data, table_id)[0]]
        assert kept == ["2", "3", "4", "5", "6"]
        r = httpx.request(
            "DELETE",
            base + f"/api/tables/{table_id}/push",
            json={"endpoint": service.origin + "/push/4"},
            headers={"Authorization": f"Bearer {ann}"},
        )
        assert r.status_code == 204, r.text
        kept = [s["endpoint"].rsplit("/", 1)[1] for s in stored_push(data, table_id)[0]]
        assert kept == ["2", "3", "5", "6"]
        assert httpx.get(base + "/healthz").status_code == 200


def test_push_is_off_without_a_subject(tmp_path: Path) -> None:
    with running_server(tmp_path / "t.sqlite3") as (base, _):
        assert httpx.get(base + "/api/push/key", timeout=5).status_code == 404
