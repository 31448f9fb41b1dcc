"""Hypothesis: random message sequences from both seats and a stranger.

Whatever arrives, the server never fails (a 500 would raise here), never drops
a connection, answers every refusal with one known error code, and keeps the
table consistent: version = 1 + accepted actions, 52 cards in play.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hollywood_gin.engine.events import ActionTaken
from hollywood_gin.main import create_app
from hollywood_gin.web.socket.messages import ErrorCode
from tests.tables.helpers import INDEX_DECK, make_settings, until_pong
from tests.wire import wire

CODES = set(ErrorCode.__args__)  # type: ignore[attr-defined]
KINDS = [
    "take_upcard",
    "pass",
    "draw_stock",
    "draw_discard",
    "discard",
    "knock",
    "next_hand",
    "new_match",
    "fold",
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 99) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)

step = st.tuples(
    st.sampled_from([0, 1, None]),  # who: a seat or the stranger
    st.sampled_from(
        [
            "legal",
            "legal",
            "legal",
            "legal",
            "stale",
            "random_action",
            "arrange",
            "bad_arrange",
            "garbage",
            "json",
            "hello",
            "ping",
        ]
    ),
    st.integers(0, 10_000),  # a choice index
    st.text(max_size=20),
    json_values,
)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path: Path = tmp_path_factory.mktemp("fuzz")
    with TestClient(
        create_app(
            make_settings(path, ws_burst=10_000, ws_connects_burst=100_000, http_burst=100_000)
        )
    ) as c:
        yield c


def frame_for(kind: str, n: int, text: str, junk: Any, state: dict[str, Any]) -> str | bytes:
    version = state["version"]
    legal = state.get("legal") or [{"kind": "pass"}]
    mine = (state.get("hand") or {}).get("my_cards") or []
    if kind == "legal":
        return orjson.dumps(
            {"type": "action", "version": version, "action": legal[n % len(legal)]}
        ).decode()
    if kind == "stale":
        return orjson.dumps(
            {"type": "action", "version": version - 1 - n % 3, "action": legal[n % len(legal)]}
        ).decode()
    if kind == "random_action":
        action: dict[str, Any] = {"kind": KINDS[n % len(KINDS)]}
        if n % 3:
            action["card"] = INDEX_DECK[n % 52]
        if n % 5 == 0:
            action["discard"] = INDEX_DECK[(n // 5) % 52]
        return orjson.dumps(
            {"type": "action", "version": version + n % 3 - 1, "action": action}
        ).decode()
    if kind == "arrange":
        cards = list(mine)
        random.Random(n).shuffle(cards)
        return orjson.dumps({"type": "arrange", "cards": cards}).decode()
    if kind == "bad_arrange":
        return orjson.dumps({"type": "arrange", "cards": [*mine[1:], INDEX_DECK[n % 52]]}).decode()
    if kind == "garbage":
        return text if n % 2 else text.encode("utf-8", "surrogatepass")
    if kind == "json":
        return orjson.dumps(junk if n % 2 else {"type": text, "data": junk}).decode()
    if kind == "hello":
        return orjson.dumps({"type": "hello", "token": text or None, "version": n % 50}).decode()
    return '{"type":"ping"}'


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(step, min_size=1, max_size=40))
def test_random_messages_never_break_the_table(client: TestClient, steps: list[Any]) -> None:
    r = client.post("/api/tables", json={"scoring": "hand"})
    table_id, token0 = r.json()["table_id"], r.json()["token"]
    token1 = client.post(f"/api/tables/{table_id}/seats").json()["token"]
    client.cookies.clear()
    table = client.app.state.registry.get(table_id)  # type: ignore[attr-defined]
    accepted = 0
    with ExitStack() as stack:
        sockets = {}
        last: dict[int | None, dict[str, Any]] = {}
        for who, token in ((0, token0), (1, token1), (None, None)):
            headers = {"cookie": f"gin_seat_{table_id}={token}"} if token else {}
            ws = stack.enter_context(
                client.websocket_connect(f"/ws/tables/{table_id}", headers=headers)
            )
            last[who] = ws.receive_json()
            assert last[who]["you"] == who
            sockets[who] = ws
        for who, kind, n, text, junk in steps:
            ws = sockets[who]
            before = table.version
            frame = frame_for(kind, n, text, junk, last[who])
            if kind == "ping":
                pass  # until_pong below sends exactly this
            elif isinstance(frame, bytes):
                ws.send_bytes(frame)
            else:
                ws.send_text(frame)
            answers = until_pong(ws)  # the socket is still there and answering
            errors = [a for a in answers if a["type"] == "error"]
            assert {e["code"] for e in errors} <= CODES
            assert len(errors) <= 1
            if errors:
                assert table.version == before
            elif kind in ("legal", "random_action", "stale") and table.version == before + 1:
                # ("stale": `next_hand`, `new_match` and `resign` are taken at any
                # version while open, docs/protocol-guide.md "Actions")
                accepted += 1
            for answer in answers:
                if answer["type"] == "state":
                    assert answer["you"] == who and answer["version"] >= last[who]["version"]
                    last[who] = answer
            # Drain the others, so each one's latest state is known.
            for other, other_ws in sockets.items():
                if other != who:
                    for answer in until_pong(other_ws):
                        if answer["type"] == "state":
                            last[other] = answer
            assert table.version == 1 + accepted
            actions = [e for e in table.match.log if isinstance(e, ActionTaken)]
            assert len(actions) == accepted
            hand = wire(table.view(None)).get("hand")
            if hand and hand["phase"] != "over":
                assert hand["stock_count"] + hand["discard_count"] + sum(hand["card_counts"]) == 52
            for who_seen, state in last.items():
                assert state["version"] == table.version
                assert (
                    orjson.loads(orjson.dumps(wire(table.view(who_seen))))["legal"]
                    == state["legal"]
                )
