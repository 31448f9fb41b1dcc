"""Bot seats (docs/protocol-guide.md "Bots"): `"bot": true` on create and join marks the seat in
every state and in the public facts, `"bots": false` refuses a bot's join, and a
restart keeps both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from hollywood_gin.web.http.bodies import TablePublic
from hollywood_gin.web.socket.state_bodies import StateMessage
from tests.web.helpers import app_client
from tests.web.test_api import create


def facts(client: TestClient, table_id: str) -> dict[str, Any]:
    r = client.get(f"/api/tables/{table_id}")
    assert r.status_code == 200
    TablePublic.model_validate(r.json())
    body: dict[str, Any] = r.json()
    return body


def bots_of(players: list[dict[str, Any]]) -> list[bool]:
    return [p["bot"] for p in players]


def test_a_bot_joins_and_is_a_bot_in_the_facts_and_every_state(tmp_path: Path) -> None:
    with app_client(tmp_path) as client:
        table = create(client, name="Ann")
        tid = table["table_id"]
        assert facts(client, tid)["bots"] is True  # bots welcome by default
        assert bots_of(facts(client, tid)["players"]) == [False]
        r = client.post(f"/api/tables/{tid}/seats", json={"name": "Bob", "bot": True})
        assert r.status_code == 201
        assert bots_of(facts(client, tid)["players"]) == [False, True]
        for token in (table["token"], r.json()["token"], None):
            with client.websocket_connect(f"/ws/tables/{tid}") as ws:
                if token:
                    ws.send_json({"type": "hello", "token": token})
                while True:
                    state = ws.receive_json()
                    if state["you"] == (None if token is None else state["you"]):
                        break
                StateMessage.model_validate(state)
                assert bots_of(state["table"]["players"]) == [False, True]
                assert state["table"]["players"][1]["name"] == "Bob"


def test_a_person_joining_is_no_bot(tmp_path: Path) -> None:
    with app_client(tmp_path) as client:
        tid = create(client, name="Ann", bot=True)["table_id"]
        client.post(f"/api/tables/{tid}/seats", json={"name": "Cy"})
        assert bots_of(facts(client, tid)["players"]) == [True, False]


def test_a_table_without_bots_refuses_a_bot_and_changes_nothing(tmp_path: Path) -> None:
    with app_client(tmp_path) as client:
        tid = create(client, name="Ann", bots=False)["table_id"]
        before = facts(client, tid)
        assert before["bots"] is False
        r = client.post(f"/api/tables/{tid}/seats", json={"name": "Bob", "bot": True})
        assert r.status_code == 403
        assert r.json()["error"] == "no_bots"
        assert "set-cookie" not in r.headers
        assert facts(client, tid) == before  # the seat is still free
        # a person still may
        r = client.post(f"/api/tables/{tid}/seats", json={"name": "Cy"})
        assert r.status_code == 201
        assert bots_of(facts(client, tid)["players"]) == [False, False]


def test_the_computer_is_no_bot_and_a_bots_table_may_seat_it(tmp_path: Path) -> None:
    with app_client(tmp_path) as client:
        tid = create(client, name="Ann", computer="easy", bots=False)["table_id"]
        players = facts(client, tid)["players"]
        assert bots_of(players) == [False, False]
        assert players[1]["computer"] == "easy"


def test_bad_bot_fields_are_422(tmp_path: Path) -> None:
    with app_client(tmp_path) as client:
        for body in ({"bot": "yes"}, {"bots": 3}, {"bot": None}):
            r = client.post("/api/tables", json=body)
            assert r.status_code == 422, body
        tid = create(client)["table_id"]
        r = client.post(f"/api/tables/{tid}/seats", json={"bot": "maybe"})
        assert r.status_code == 422
        assert r.json()["field"] == "bot"
        assert facts(client, tid)["open_seats"] == [1]


def test_a_restart_keeps_the_bot_marks_and_the_no_bots_choice(tmp_path: Path) -> None:
    with app_client(tmp_path) as client:
        a = create(client, name="Ann", bot=True)["table_id"]
        client.post(f"/api/tables/{a}/seats", json={"name": "Bob", "bot": True})
        b = create(client, name="Cy", bots=False)["table_id"]
    with app_client(tmp_path) as client:
        assert bots_of(facts(client, a)["players"]) == [True, True]
        assert facts(client, b)["bots"] is False
        r = client.post(f"/api/tables/{b}/seats", json={"bot": True})
        assert r.status_code == 403 and r.json()["error"] == "no_bots"


def test_the_invitation_preview_names_a_bot_as_a_bot(tmp_path: Path) -> None:
    with app_client(tmp_path) as client:
        tid = create(client, name="Robo", bot=True, lang="de")["table_id"]
        assert "Robo (Bot) lädt" in client.get(f"/t/{tid}").text
        tid = create(client, name="Ann", lang="de")["table_id"]
        assert "Ann lädt" in client.get(f"/t/{tid}").text


def answers_to_a_burst(client: TestClient, table_id: str, token: str) -> list[str]:
    """What one seat's socket gets for a message too large and eight pings."""
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": token})
        while ws.receive_json().get("you") is None:
            pass
        ws.send_text('{"type": "ping", "pad": "' + "x" * 600 + '"}')
        for _ in range(8):
            ws.send_json({"type": "ping"})
        got = []
        for _ in range(9):
            message = ws.receive_json()
            got.append(message["type"] if message["type"] != "error" else message["code"])
        return got


def test_a_bot_meets_exactly_the_limits_a_person_meets(tmp_path: Path) -> None:
    """Same message rate, size and tabs for a bot's seat as for a person's: the server
    has no other way in for a bot (docs/protocol-guide.md "Bots")."""
    limits = {
        "ws_messages_per_second": 0.001,
        "ws_burst": 5,
        "ws_max_message_bytes": 512,
        "max_tabs_per_seat": 1,
    }
    with app_client(tmp_path, **limits) as client:
        made = create(client, name="Ann")
        tid = made["table_id"]
        bot = client.post(f"/api/tables/{tid}/seats", json={"name": "Bob", "bot": True}).json()
        person = answers_to_a_burst(client, tid, made["token"])
        program = answers_to_a_burst(client, tid, bot["token"])
        assert person == program
        assert person == ["too_large", "pong", "pong", "pong"] + ["rate_limited"] * 5
        # one tab per seat here: a second socket of either seat is refused alike
        refused = []
        for token in (made["token"], bot["token"]):
            with (
                client.websocket_connect(f"/ws/tables/{tid}") as first,
                client.websocket_connect(f"/ws/tables/{tid}") as second,
            ):
                first.send_json({"type": "hello", "token": token})
                while first.receive_json().get("you") is None:
                    pass
                second.send_json({"type": "hello", "token": token})
                answer = second.receive_json()
                while answer["type"] == "state":
                    answer = second.receive_json()
                refused.append(answer.get("code"))
        assert refused == ["rate_limited", "rate_limited"]
