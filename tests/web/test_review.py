"""`GET /api/tables/{id}/hands/{n}/review` (docs/protocol-guide.md "Hand review") in-process, on
the real SQLite store, with the computer's real worker pool."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson
from fastapi.testclient import TestClient

from hollywood_gin.bots.coach import CoachPolicy
from hollywood_gin.engine.actions import parse_action
from hollywood_gin.web.http.bodies import HandReview, ReviewComputing
from tests.bots.coach_hands import MELD_BREAK, review_hand
from tests.web.helpers import app_client, registry_of
from tests.web.test_api import create

SAMPLES = 40


def wait_review(client: TestClient, url: str) -> dict[str, Any]:
    """Ask as the page does, until the review is there (no wall-clock assertion: the
    loop only bounds a hang)."""
    for _ in range(600):
        r = client.get(url)
        if r.status_code == 200:
            body: dict[str, Any] = r.json()
            return body
        assert r.status_code == 202, r.text
        body = r.json()
        assert body["status"] == "computing" and 0 <= body["done"] <= body["of"], body
        ReviewComputing.model_validate(body)
        time.sleep(0.1)
    raise AssertionError("the review never came")


def play_meld_break(client: TestClient) -> str:
    made = create(client, test_decks=[MELD_BREAK["deck"]], test_first_dealer=0)
    table_id: str = made["table_id"]
    client.post(f"/api/tables/{table_id}/seats", json={})
    registry = registry_of(client)
    table = registry.get(table_id)
    assert table is not None
    for n, entry in enumerate(MELD_BREAK["actions"]):
        if n == 3:
            # In play: no review of hand 1 yet, of either seat.
            for seat in (0, 1):
                r = client.get(f"/api/tables/{table_id}/hands/1/review?seat={seat}")
                assert r.status_code == 404 and r.json()["error"] == "unknown_hand"
        action = parse_action(entry["action"])
        client.portal.call(registry.act, table, entry["seat"], action, table.version)  # type: ignore[union-attr]
    assert table.status == "match_over"
    return table_id


def test_review_of_a_finished_hand(tmp_path: Path) -> None:
    with app_client(tmp_path, review_samples=SAMPLES) as client:
        table_id = play_meld_break(client)
        url = f"/api/tables/{table_id}/hands/1/review?seat=1"
        for bad in ("", "?seat=2", "?seat=x", "?seat=-1"):
            r = client.get(f"/api/tables/{table_id}/hands/1/review{bad}")
            assert (r.status_code, r.json()["error"], r.json()["field"]) == (
                422,
                "bad_request",
                "seat",
            )
        r = client.get(f"/api/tables/{table_id}/hands/2/review?seat=1")
        assert r.status_code == 404 and r.json()["error"] == "unknown_hand"
        assert client.get("/api/tables/nope/hands/1/review?seat=0").status_code == 404
        review = wait_review(client, url)
        # The worker pool computes what the coach computes in process.
        record = client.get(f"/api/tables/{table_id}/hands/1").json()
        assert review == review_hand(record, 1, CoachPolicy(samples=SAMPLES))
        assert [d["index"] for d in review["decisions"]] == [0, 2, 3]
        assert review["hand"] == 1 and review["seat"] == 1
        HandReview.model_validate(review)  # the documented shape (docs/protocol.md)
        # Asked again: the same bytes, not computed again.
        registry = registry_of(client)
        assert registry.reviews.computed == 1
        assert client.get(url).content == orjson.dumps(review)
        assert registry.reviews.computed == 1
        theirs = wait_review(client, url.replace("seat=1", "seat=0"))
        assert [d["index"] for d in theirs["decisions"]] == [1, 4, 5]
    # After a restart the stored review is answered at once, not computed again.
    with app_client(tmp_path, review_samples=SAMPLES) as client:
        r = client.get(url)
        assert r.status_code == 200 and r.json() == review
        assert registry_of(client).reviews.computed == 0
    # Another budget is another coach: computed again rather than served stale.
    with app_client(tmp_path, review_samples=SAMPLES + 10) as client:
        assert client.get(url).status_code == 202
        assert wait_review(client, url)["coach"]["samples"] == SAMPLES + 10


def test_a_table_past_its_cap_is_told_and_a_review_nobody_asks_for_is_dropped(
    tmp_path: Path,
) -> None:
    with app_client(tmp_path, review_samples=SAMPLES) as client:
        table_id = play_meld_break(client)
        reviews = registry_of(client).reviews
        now = [1000.0]
        reviews.clock = lambda: now[0]
        reviews.per_table = 1
        url = f"/api/tables/{table_id}/hands/1/review?seat="
        first = client.get(url + "1")
        assert first.status_code == 202
        assert first.json() == {"status": "computing", "done": 0, "of": 3}
        # The table has its one review under way: a second is refused, not queued.
        r = client.get(url + "0")
        assert (r.status_code, r.json()["error"]) == (429, "rate_limited")
        # Nobody asks for seat 1's any more: the next request drops it and is admitted.
        now[0] += reviews.abandon_after + 1
        assert client.get(url + "0").status_code == 202
        assert reviews.dropped == 1
        wait_review(client, url + "0")
        assert reviews.computed == 1
        # Asked again, the dropped review starts afresh and comes.
        assert [d["index"] for d in wait_review(client, url + "1")["decisions"]] == [0, 2, 3]
        assert reviews.computed == 2
