"""A move the computer made for a seat says who made it, over the wire: the state's
`last_action` and `events` (`by`), the hand record's actions, the replay's steps; a
seat's own moves keep their shape (no `by`)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from hollywood_gin.web.http.replay import hand_steps
from tests.web.test_around_the_match import (  # noqa: F401 (fixtures)
    Clock,
    act,
    client,
    clock,
    connect,
    latest,
    new_table,
    table_of,
    tick,
)
from tests.wire import playable


def test_a_timeout_move_carries_by_in_the_state_the_record_and_the_replay(
    client: TestClient,  # noqa: F811
    clock: Clock,  # noqa: F811
) -> None:
    table_id, token0, token1 = new_table(client, turn_seconds=15, scoring="game")
    table = table_of(client, table_id)
    sockets = [connect(client, table_id, token0), connect(client, table_id, token1)]
    first = latest(sockets[0])
    timed_out = first["hand"]["turn"]
    clock.now += 15
    tick(client)
    for ws in sockets:  # both seats see it: the seat it was made for and the other
        state = latest(ws)
        assert state["hand"]["last_action"]["by"] == "timeout"
        assert state["hand"]["last_action"]["seat"] == timed_out
        assert state["hand"]["events"][-1] == state["hand"]["last_action"]
    # The seats' own moves to the end of the hand: no `by`.
    state = latest(sockets[0])
    for _ in range(200):
        if state["hand"]["phase"] == "over":
            break
        seat = state["hand"]["turn"]
        mine = latest(sockets[seat])
        version = mine["version"]
        act(sockets[seat], mine, _first_move(mine))
        state = latest(sockets[seat])
        assert state["version"] == version + 1
        assert "by" not in state["hand"]["last_action"]
    assert state["hand"]["phase"] == "over"
    assert [e.get("by") for e in state["hand"]["events"]].count("timeout") == 1
    record = client.get(f"/api/tables/{table_id}/hands/1").json()
    assert record["actions"][0]["by"] == "timeout"
    assert all("by" not in a for a in record["actions"][1:])
    steps = hand_steps(record)
    assert steps[1]["move"]["by"] == "timeout"
    assert all("by" not in s["move"] for s in steps[2:])
    assert table.match.hand is not None


def _first_move(state: dict[str, Any]) -> dict[str, Any]:
    legal = playable(state["legal"])
    knocks = [a for a in legal if a["kind"] == "knock"]
    action = dict(knocks[0] if knocks else legal[0])
    action.pop("deadwood", None)
    return action
