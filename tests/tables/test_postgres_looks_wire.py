"""PostgreSQL mode over the wire: the deadline of a correspondence table passes, and its
"deadline soon" push goes out, with no worker holding the table and nobody opening it,
after the worker that held it stopped (killed too) and after a restart of every worker
(docs/architecture.md "Deadlines nobody holds").

Real servers (`python -m hollywood_gin`) on one real PostgreSQL database, a short day
(`HOLLYWOOD_GIN_SECONDS_PER_DAY`), a sweep every half second, and the push service of
tests/web/test_push_wire.py, which decrypts each message. Nothing here asserts how long
anything took: a test waits for what a server sends or says.
"""

from __future__ import annotations

import contextlib
import queue
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("asyncpg")

from tests.conftest import running_server
from tests.postgres import pg_url, postgres  # noqa: F401 (fixtures)
from tests.pushservice import PushService
from tests.web.test_correspondence_wire import kinds, next_state, socket
from tests.web.test_idle_tables import held
from tests.web.test_push_wire import (
    env_for,
    join,
    service,  # noqa: F401 (fixture)
    subscribe,
)

# Seconds of a day: long enough for a table to be made, let go and its worker stopped
# before a quarter of it is left (the "deadline soon" push), on a busy machine.
DAY = 24.0
# A worker started once the "deadline soon" moment has passed must be up and have swept
# before the deadline itself (past it the push is not sent: the seat is away), a
# quarter of a day later: 6 s of a 24 s day was not always enough for a server to
# start at a load of 6 on two cores. A quarter of this day is 12 s.
LATE_DAY = 48.0


def worker_env(url: str, push: PushService, idle: str, day: float) -> dict[str, str]:
    return {
        **env_for(push),
        "HOLLYWOOD_GIN_DATABASE_URL": url,
        "HOLLYWOOD_GIN_SECONDS_PER_DAY": str(day),
        "HOLLYWOOD_GIN_DEADLINE_SWEEP_SECONDS": "0.5",
        "HOLLYWOOD_GIN_IDLE_TABLE_SECONDS": idle,
        "HOLLYWOOD_GIN_METRICS": "true",
        # Bob deals the first hand, so Ann (subscribed by then) is asked first.
        "HOLLYWOOD_GIN_TEST_HOOKS": "true",
    }


@contextlib.contextmanager
def worker(
    tmp_path: Path, name: str, url: str, push: PushService, idle: str = "600", day: float = DAY
) -> Iterator[tuple[str, Any]]:
    env = worker_env(url, push, idle, day)
    with running_server(tmp_path / f"{name}.sqlite3", env=env) as w:
        yield w


def seated(base: str, push: PushService) -> tuple[str, dict[str, str]]:
    """A table played over days (a day a move), Ann and Bob seated, both subscribed to
    pushes; returns its id and the seats' tokens by the push path of each."""
    body = {"name": "Ann", "move_days": 1, "test_first_dealer": 1}
    r = httpx.post(base + "/api/tables", json=body, timeout=10)
    assert r.status_code == 201, r.text
    table_id, ann = r.json()["table_id"], r.json()["token"]
    tokens = {"/push/ann": ann}
    r = subscribe(base, table_id, ann, push.subscriber("/push/ann").json(push.origin))
    assert r.status_code == 201, r.text
    bob = join(base, table_id)
    tokens["/push/bob"] = bob
    r = subscribe(base, table_id, bob, push.subscriber("/push/bob").json(push.origin))
    assert r.status_code == 201, r.text
    return table_id, tokens


def first_wait(base: str, push: PushService) -> tuple[str, dict[str, str], str, str, float]:
    """A seated table and the first deal's push (Ann's move, nobody connected): the
    table, its tokens, the server's key, the asked seat's push path and its deadline."""
    key = httpx.get(base + "/api/push/key", timeout=5).json()["key"]
    table_id, tokens = seated(base, push)
    players = httpx.get(base + f"/api/tables/{table_id}", timeout=10).json()["players"]
    assert [p["seat"] for p in players if p["deadline"] is not None] == [0], players
    got = push.next(60)
    assert got["path"] == "/push/ann"
    assert push.open(got, key)["kind"] == "your_move"
    return table_id, tokens, key, "/push/ann", players[0]["deadline"] / 1000


def soon_pushed(push: PushService, key: str, table_id: str, asked: str) -> None:
    """The next message is the asked seat's "deadline soon" (a worker that takes the
    table up does not push the move it waits for again)."""
    got = push.next(60)
    message = push.open(got, key)
    assert (got["path"], message["table"], message["kind"]) == (asked, table_id, "deadline_soon")


def other(path: str) -> str:
    return "/push/bob" if path == "/push/ann" else "/push/ann"


def wait_for(what: Any, limit: float = 60) -> None:
    """Until `what()` is true (a bound on a hang, not a timing claim)."""
    end = time.monotonic() + limit
    while not what():
        assert time.monotonic() < end, "never came about"
        time.sleep(0.1)


def can_claim(base: str, table_id: str, token: str, deadline: float) -> None:
    """Once the deadline has passed, the seat's socket opened now lets it claim or call
    the computer in: the other seat is away."""
    wait_for(lambda: time.time() > deadline)
    with socket(base, table_id, token) as ws:
        state = next_state(ws)
        while not {"claim", "stand_in"} <= kinds(state):  # the clock's look: within a second
            state = next_state(ws)
        assert sum(p["deadline"] is not None for p in state["table"]["players"]) == 1


def test_a_table_let_go_by_a_worker_since_killed(
    tmp_path: Path,
    pg_url: str,  # noqa: F811
    service: PushService,  # noqa: F811
) -> None:
    """Worker A lets the idle table go and is killed; B alone runs and nobody opens the
    table: B sends the "deadline soon" push, once, and at the deadline the seat asked
    is away (B holds the table for it, asked by nobody)."""
    with worker(tmp_path, "b", pg_url, service) as (b, _):
        with worker(tmp_path, "a", pg_url, service, idle="0.5") as (a, proc):
            table_id, tokens, key, asked, deadline = first_wait(a, service)
            wait_for(lambda: held(a) == 0)  # let go: no worker holds it
            proc.kill()  # kill -9: nothing of it runs any more
            proc.wait()
        assert held(b) == 0
        soon_pushed(service, key, table_id, asked)
        assert held(b) == 1  # claimed for its clock, asked by nobody
        can_claim(b, table_id, tokens[other(asked)], deadline)
        with pytest.raises(queue.Empty):
            service.next(0.5)  # nothing pushed twice (not the first deal's move again)


def test_a_table_whose_worker_stopped_and_the_next_started_late(
    tmp_path: Path,
    pg_url: str,  # noqa: F811
    service: PushService,  # noqa: F811
) -> None:
    """Every worker stopped (cleanly), holding the table; a quarter of the seat's time
    is left while none runs; a worker starts: it sends the push, nobody opening the
    table."""
    with worker(tmp_path, "a", pg_url, service, day=LATE_DAY) as (a, _):
        table_id, _, key, asked, deadline = first_wait(a, service)
        assert held(a) == 1
    wait_for(lambda: time.time() > deadline - LATE_DAY / 4)  # while no worker runs
    with worker(tmp_path, "b", pg_url, service, day=LATE_DAY) as (b, _):
        soon_pushed(service, key, table_id, asked)
        assert held(b) == 1


def test_a_deadline_passed_while_every_worker_was_down(
    tmp_path: Path,
    pg_url: str,  # noqa: F811
    service: PushService,  # noqa: F811
) -> None:
    """The only worker, holding the table, is killed; the deadline passes while none
    runs; a worker starts and, asked by nobody, holds the table with the seat away."""
    with worker(tmp_path, "a", pg_url, service) as (a, proc):
        table_id, tokens, _, asked, deadline = first_wait(a, service)
        proc.kill()
        proc.wait()
    wait_for(lambda: time.time() > deadline)  # while no worker runs
    with worker(tmp_path, "b", pg_url, service) as (b, _):
        # The killed worker's row still names it: its look is taken as nobody's after
        # a while (`sweep_stale`) and then swept.
        wait_for(lambda: held(b) == 1)
        can_claim(b, table_id, tokens[other(asked)], deadline)
