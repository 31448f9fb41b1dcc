"""The WebSocket endpoint in-process (Starlette TestClient, real SQLite file).

Every refusal is checked the same way: the answer is one typed `error`, the
table's version, log and every view are unchanged, and the socket still
answers a ping.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from hollywood_gin.main import create_app
from hollywood_gin.tables.table import Table
from hollywood_gin.web.socket.state_bodies import StateMessage
from tests.tables.helpers import (
    INDEX_DECK,
    SEAT0_CARDS,
    SEAT1_CARDS,
    UPCARD,
    exchange,
    make_settings,
    of_type,
    snapshot,
    until_pong,
)
from tests.web.helpers import registry_of
from tests.wire import playable


def start(tmp_path: Path, **overrides: Any) -> TestClient:
    return TestClient(create_app(make_settings(tmp_path, **overrides)))


def new_table(client: TestClient, join: bool = True) -> tuple[str, str, str | None]:
    r = client.post(
        "/api/tables",
        json={"name": "Ann", "test_decks": [INDEX_DECK], "test_first_dealer": 0},
    )
    assert r.status_code == 201
    table_id, token0 = r.json()["table_id"], r.json()["token"]
    token1 = None
    if join:
        r = client.post(f"/api/tables/{table_id}/seats", json={"name": "Bob"})
        assert r.status_code == 201
        token1 = r.json()["token"]
    client.cookies.clear()  # each socket below says who it is
    return table_id, token0, token1


def closed_with(ws: WebSocketTestSession, code: int) -> None:
    """The server closes the socket with `code` (what it reads next is the close)."""
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == code


def refused_then_closed(ws: WebSocketTestSession, error: str, code: int) -> None:
    """An `error` frame of code `error`, then the close with `code`."""
    frame = ws.receive_json()
    assert frame["type"] == "error" and frame["code"] == error
    closed_with(ws, code)


def table_of(client: TestClient, table_id: str) -> Table:
    table = registry_of(client).get(table_id)
    assert table is not None
    return table


@contextmanager
def seat_socket(
    client: TestClient, table_id: str, token: str | None
) -> Iterator[tuple[WebSocketTestSession, dict[str, Any]]]:
    """A socket that says hello with `token` (None: a spectator); yields it and its state."""
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        state = ws.receive_json()
        assert state["type"] == "state" and state["you"] is None
        if token is not None:
            ws.send_json({"type": "hello", "token": token})
            state = ws.receive_json()
            assert state["type"] == "state"
        yield ws, state


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with start(tmp_path) as c:
        yield c


def test_seats_get_their_own_cards_and_spectators_none(client: TestClient) -> None:
    table_id, token0, token1 = new_table(client)
    with (
        seat_socket(client, table_id, token0) as (_ws0, s0),
        seat_socket(client, table_id, token1) as (_ws1, s1),
        seat_socket(client, table_id, None) as (_wss, spec),
    ):
        assert s0["you"] == 0 and s1["you"] == 1
        assert s0["hand"]["my_cards"] == SEAT0_CARDS
        assert s1["hand"]["my_cards"] == SEAT1_CARDS
        assert "my_cards" not in spec["hand"]
        assert spec["hand"]["discard_top"] == UPCARD
        # Seat 1 is the non-dealer: the upcard offer is theirs.
        assert [a["kind"] for a in s1["legal"]] == ["take_upcard", "pass", "resign"]
        assert [a["kind"] for a in s0["legal"]] == ["resign"] and spec["legal"] == []
        for state in (s0, s1, spec):
            assert state["version"] == 1
            assert state["table"]["id"] == table_id
            StateMessage.model_validate(state)
        names = [(p["seat"], p["name"], p["computer"]) for p in spec["table"]["players"]]
        assert names == [(0, "Ann", None), (1, "Bob", None)]


def test_cookie_seats_the_socket(client: TestClient) -> None:
    table_id, token0, _ = new_table(client)
    client.cookies.set(f"gin_seat_{table_id}", token0)
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        state = ws.receive_json()
        assert state["you"] == 0
        assert state["hand"]["my_cards"] == SEAT0_CARDS


def test_an_action_reaches_every_connection_each_with_its_view(client: TestClient) -> None:
    table_id, token0, token1 = new_table(client)
    with (
        seat_socket(client, table_id, token1) as (ws1, _),
        seat_socket(client, table_id, token1) as (ws1b, _),
        seat_socket(client, table_id, token0) as (ws0, _),
        seat_socket(client, table_id, None) as (wss, _),
    ):
        until_pong(ws1)
        until_pong(ws1b)  # drain presence updates
        until_pong(wss)
        frames = exchange(ws1, {"type": "action", "version": 1, "action": {"kind": "pass"}})
        states = of_type(frames, "state")
        assert [s["version"] for s in states] == [2]
        assert states[0]["hand"]["turn"] == 0
        legal = {}
        for other, seat in ((ws1b, 1), (ws0, 0), (wss, None)):
            got = of_type(until_pong(other), "state")
            assert [s["version"] for s in got] == [2]
            assert got[0]["you"] == seat
            assert got[0]["hand"]["last_action"] == {"seat": 1, "kind": "pass"}
            legal[seat] = [a["kind"] for a in playable(got[0]["legal"])]
        # Seat 1 passed: now the dealer, seat 0, decides on the upcard.
        assert legal == {1: [], 0: ["take_upcard", "pass"], None: []}


def test_presence_follows_sockets(client: TestClient) -> None:
    table_id, token0, token1 = new_table(client)
    with seat_socket(client, table_id, token1) as (ws1, s1):
        assert [p["connected"] for p in s1["table"]["players"]] == [False, True]
        with seat_socket(client, table_id, token0) as (_ws0, s0):
            assert [p["connected"] for p in s0["table"]["players"]] == [True, True]
            seen = of_type(until_pong(ws1), "state")
            assert [p["connected"] for p in seen[-1]["table"]["players"]] == [True, True]
        seen = of_type(until_pong(ws1), "state")
        assert [p["connected"] for p in seen[-1]["table"]["players"]] == [False, True]
        public = client.get(f"/api/tables/{table_id}").json()
        assert [p["connected"] for p in public["players"]] == [False, True]


BAD_FRAMES: list[tuple[str, Any, str]] = [
    ("not json", "{{{", "bad_message"),
    ("not an object", "[1, 2]", "bad_message"),
    ("unknown type", {"type": "shout"}, "bad_message"),
    ("no type", {"version": 1}, "bad_message"),
    ("missing action", {"type": "action", "version": 1}, "bad_message"),
    ("missing version", {"type": "action", "action": {"kind": "pass"}}, "bad_message"),
    ("extra field", {"type": "ping", "x": 1}, "bad_message"),
    (
        "extra action field",
        {"type": "action", "version": 1, "action": {"kind": "pass", "x": 1}},
        "bad_message",
    ),
    ("unknown kind", {"type": "action", "version": 1, "action": {"kind": "fold"}}, "bad_message"),
    (
        "bad card",
        {"type": "action", "version": 1, "action": {"kind": "discard", "card": "1X"}},
        "bad_message",
    ),
    (
        "negative version",
        {"type": "action", "version": -1, "action": {"kind": "pass"}},
        "bad_message",
    ),
    (
        "stale version",
        {"type": "action", "version": 0, "action": {"kind": "pass"}},
        "stale_version",
    ),
    (
        "future version",
        {"type": "action", "version": 9, "action": {"kind": "pass"}},
        "stale_version",
    ),
    (
        "wrong turn",
        {"type": "action", "version": 1, "action": {"kind": "draw_stock"}},
        "not_your_turn",
    ),
    (
        "arrange not a permutation",
        {"type": "arrange", "cards": [*SEAT1_CARDS[:9], "8D"]},
        "bad_message",
    ),
    ("arrange too few", {"type": "arrange", "cards": SEAT1_CARDS[:3]}, "bad_message"),
    ("binary garbage", b"\xff\xfe", "bad_message"),
]


@pytest.mark.parametrize(("what", "frame", "code"), BAD_FRAMES, ids=[b[0] for b in BAD_FRAMES])
def test_bad_input_is_one_error_and_changes_nothing(
    client: TestClient, what: str, frame: Any, code: str
) -> None:
    table_id, token0, _ = new_table(client)
    table = table_of(client, table_id)
    # Seat 0 is the dealer: it is not its turn during seat 1's upcard offer.
    with seat_socket(client, table_id, token0) as (ws, _):
        before = snapshot(table)
        frames = exchange(ws, frame)
        errors = of_type(frames, "error")
        assert [e["code"] for e in errors] == [code], what
        assert errors[0]["version"] == 1 and errors[0]["message"]
        assert snapshot(table) == before
        assert until_pong(ws) == []  # still usable, nothing else pending


def test_wrong_turn_is_not_your_turn(client: TestClient) -> None:
    table_id, token0, token1 = new_table(client)
    table = table_of(client, table_id)
    with (
        seat_socket(client, table_id, token1) as (ws1, _),
        seat_socket(client, table_id, token0) as (ws0, _),
    ):
        exchange(ws1, {"type": "action", "version": 1, "action": {"kind": "pass"}})
        until_pong(ws0)
        # Now seat 0 decides on the upcard; seat 1 trying to take it is out of turn.
        before = snapshot(table)
        frames = exchange(ws1, {"type": "action", "version": 2, "action": {"kind": "take_upcard"}})
        assert [e["code"] for e in of_type(frames, "error")] == ["not_your_turn"]
        assert snapshot(table) == before
        exchange(ws0, {"type": "action", "version": 2, "action": {"kind": "take_upcard"}})
        until_pong(ws1)
        # Seat 0 holds the upcard and must discard: a card it does not hold is refused.
        before = snapshot(table)
        for card in (SEAT1_CARDS[0], "9D", UPCARD):  # the other hand, the stock top, just taken
            frames = exchange(
                ws0, {"type": "action", "version": 3, "action": {"kind": "discard", "card": card}}
            )
            assert [e["code"] for e in of_type(frames, "error")] == ["illegal_action"], card
            assert snapshot(table) == before


def test_stale_version_resends_the_current_state(client: TestClient) -> None:
    table_id, _, token1 = new_table(client)
    with seat_socket(client, table_id, token1) as (ws, _):
        exchange(ws, {"type": "action", "version": 1, "action": {"kind": "pass"}})
        # A resend after a reconnect: the same action, chosen on version 1.
        frames = exchange(ws, {"type": "action", "version": 1, "action": {"kind": "pass"}})
        assert [f["type"] for f in frames] == ["error", "state"]
        assert frames[0]["code"] == "stale_version" and frames[0]["version"] == 2
        assert frames[1]["version"] == 2


def test_spectators_cannot_act_or_arrange(client: TestClient) -> None:
    table_id, _, _ = new_table(client)
    table = table_of(client, table_id)
    with seat_socket(client, table_id, None) as (ws, _):
        before = snapshot(table)
        for frame in (
            {"type": "action", "version": 1, "action": {"kind": "pass"}},
            {"type": "arrange", "cards": SEAT1_CARDS},
        ):
            assert [e["code"] for e in of_type(exchange(ws, frame), "error")] == ["not_seated"]
        assert snapshot(table) == before


def test_a_token_of_another_table_seats_nobody(client: TestClient) -> None:
    table_a, _, _ = new_table(client)
    _, other_token, _ = new_table(client)
    table = table_of(client, table_a)
    with seat_socket(client, table_a, None) as (ws, _):
        before = snapshot(table)
        frames = exchange(ws, {"type": "hello", "token": other_token})
        assert [e["code"] for e in of_type(frames, "error")] == ["not_seated"]
        assert all(s["you"] is None for s in of_type(frames, "state"))
        frames = exchange(ws, {"type": "action", "version": 1, "action": {"kind": "pass"}})
        assert [e["code"] for e in of_type(frames, "error")] == ["not_seated"]
        assert snapshot(table) == before


def test_arrange_reaches_only_that_seat_and_keeps_the_version(client: TestClient) -> None:
    table_id, token0, token1 = new_table(client)
    table = table_of(client, table_id)
    order = list(reversed(SEAT1_CARDS))
    with (
        seat_socket(client, table_id, token1) as (ws1, _),
        seat_socket(client, table_id, token1) as (ws1b, _),
        seat_socket(client, table_id, token0) as (ws0, _),
    ):
        for ws in (ws1, ws1b, ws0):
            until_pong(ws)
        frames = exchange(ws1, {"type": "arrange", "cards": order})
        assert [(f["type"], f["version"]) for f in frames] == [("state", 1)]
        assert frames[0]["hand"]["my_cards"] == order
        assert [s["hand"]["my_cards"] for s in of_type(until_pong(ws1b), "state")] == [order]
        assert until_pong(ws0) == []
        assert table.version == 1
    # The order is stored: a new socket (another device) gets it.
    with seat_socket(client, table_id, token1) as (_ws, state):
        assert state["hand"]["my_cards"] == order


def test_oversized_message_is_too_large(tmp_path: Path) -> None:
    with start(tmp_path, ws_max_message_bytes=256) as client:
        table_id, token0, _ = new_table(client)
        table = table_of(client, table_id)
        with seat_socket(client, table_id, token0) as (ws, _):
            before = snapshot(table)
            big = '{"type":"ping","pad":"' + "x" * 300 + '"}'
            assert [e["code"] for e in of_type(exchange(ws, big), "error")] == ["too_large"]
            assert snapshot(table) == before


@pytest.mark.parametrize(("pad", "too_large"), [("é" * 117, True), ("é" * 116, False)])
def test_the_size_limit_counts_utf8_bytes(tmp_path: Path, pad: str, too_large: bool) -> None:
    """The limit is on a message's UTF-8 bytes, not its characters: 117 two-byte
    characters make 258 bytes (refused at 256) in 141 characters; 116 make 256."""
    with start(tmp_path, ws_max_message_bytes=256) as client:
        table_id, token0, _ = new_table(client)
        with seat_socket(client, table_id, token0) as (ws, _):
            message = '{"type":"ping","pad":"' + pad + '"}'
            assert len(message.encode()) == (258 if too_large else 256)
            codes = [e["code"] for e in of_type(exchange(ws, message), "error")]
            assert ("too_large" in codes) == too_large


def test_flooding_is_rate_limited_then_closed(tmp_path: Path) -> None:
    with start(tmp_path, ws_burst=3, ws_messages_per_second=1.0) as client:
        client.app.state.ws_clock = lambda: 1000.0  # type: ignore[attr-defined]  # no refill
        table_id, _token0, _ = new_table(client)
        with seat_socket(client, table_id, None) as (ws, _):
            codes = []
            # 3 messages fit the burst; then 8 refusals are answered; the 9th closes.
            for _ in range(3 + 3 * 3):
                ws.send_json({"type": "ping"})
            for _ in range(3 + 8):
                codes.append(ws.receive_json().get("code", "pong"))
            assert codes == ["pong"] * 3 + ["rate_limited"] * 8
            closed_with(ws, 1008)


def test_a_refill_lets_a_slowed_client_go_on(tmp_path: Path) -> None:
    now = [1000.0]
    with start(tmp_path, ws_burst=2, ws_messages_per_second=1.0) as client:
        client.app.state.ws_clock = lambda: now[0]  # type: ignore[attr-defined]
        table_id, _, _ = new_table(client)
        with seat_socket(client, table_id, None) as (ws, _):
            ws.send_json({"type": "ping"})
            ws.send_json({"type": "ping"})
            ws.send_json({"type": "ping"})
            assert [ws.receive_json()["type"] for _ in range(3)] == ["pong", "pong", "error"]
            now[0] += 1.0  # one second: one message's worth
            ws.send_json({"type": "ping"})
            assert ws.receive_json()["type"] == "pong"


def test_bad_origin_is_refused_before_accept(client: TestClient) -> None:
    table_id, _, _ = new_table(client)
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(
            f"/ws/tables/{table_id}", headers={"origin": "http://evil.example"}
        ),
    ):
        pass
    assert refused.value.code == 1008


@pytest.mark.parametrize(
    "origin", ["http://testserver", "https://gin.example.org", "http://localhost:5173"]
)
def test_allowed_origins(tmp_path: Path, origin: str) -> None:
    overrides = {
        "public_url": "https://gin.example.org",
        "allowed_origins": ["http://localhost:5173"],
    }
    with start(tmp_path, **overrides) as client:
        table_id, _, _ = new_table(client)
        with client.websocket_connect(f"/ws/tables/{table_id}", headers={"origin": origin}) as ws:
            assert ws.receive_json()["type"] == "state"


def test_unknown_table_gets_an_error_then_4404(client: TestClient) -> None:
    with client.websocket_connect("/ws/tables/no-such-table") as ws:
        refused_then_closed(ws, "unknown_table", 4404)


def test_tabs_per_seat_are_limited(tmp_path: Path) -> None:
    with start(tmp_path, max_tabs_per_seat=1) as client:
        table_id, token0, _ = new_table(client)
        client.cookies.set(f"gin_seat_{table_id}", token0)
        with client.websocket_connect(f"/ws/tables/{table_id}") as first:
            assert first.receive_json()["you"] == 0
            with client.websocket_connect(f"/ws/tables/{table_id}") as second:
                refused_then_closed(second, "rate_limited", 1013)
            assert until_pong(first) == []  # the first tab is untouched


def test_spectators_are_limited_but_a_hello_token_still_seats(tmp_path: Path) -> None:
    with start(tmp_path, max_spectators=1) as client:
        table_id, token0, _ = new_table(client)
        with client.websocket_connect(f"/ws/tables/{table_id}") as watcher:
            assert watcher.receive_json()["you"] is None
            with client.websocket_connect(f"/ws/tables/{table_id}") as player:
                player.send_json({"type": "hello", "token": token0})
                assert player.receive_json()["you"] == 0
            with client.websocket_connect(f"/ws/tables/{table_id}") as second_watcher:
                second_watcher.send_json({"type": "ping"})
                refused_then_closed(second_watcher, "rate_limited", 1013)


def test_waiting_table_shows_one_player_and_no_hand(client: TestClient) -> None:
    table_id, token0, _ = new_table(client, join=False)
    with seat_socket(client, table_id, token0) as (ws, state):
        assert state["version"] == 0 and state["table"]["status"] == "waiting"
        assert "hand" not in state and state["legal"] == []
        assert [p["seat"] for p in state["table"]["players"]] == [0]
        StateMessage.model_validate(state)
        # The friend arrives: the waiting socket sees the deal at once.
        client.post(f"/api/tables/{table_id}/seats", json={"name": "Bob"})
        client.cookies.clear()
        states = of_type(until_pong(ws), "state")
        assert states[-1]["version"] == 1
        assert states[-1]["hand"]["my_cards"] == SEAT0_CARDS


def test_shutdown_closes_sockets_with_1012(tmp_path: Path) -> None:
    client = start(tmp_path)
    with client:
        table_id, _token0, _ = new_table(client)
        ws_cm = client.websocket_connect(f"/ws/tables/{table_id}")
        ws = ws_cm.__enter__()
        ws.receive_json()
        hub = registry_of(client).hub
        hub.close_all(1012, "server restart")
        closed_with(ws, 1012)
        ws_cm.__exit__(None, None, None)
