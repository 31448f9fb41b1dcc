"""The ladder of computer opponents over HTTP: `GET /api/computers` and seating a
computer by its id (docs/protocol-guide.md "Computer opponents")."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hollywood_gin.bots.ladder import LADDER
from hollywood_gin.web.http.computers import TEXTS
from tests.web.helpers import app_client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with app_client(tmp_path) as c:
        yield c


def test_the_ladder_in_every_language(client: TestClient) -> None:
    english = client.get("/api/computers?lang=en").json()["computers"]
    german = client.get("/api/computers?lang=de").json()["computers"]
    assert [c["level"] for c in english] == list(range(1, 9))
    assert {"easy", "normal", "hard"} <= {c["id"] for c in english}
    ratings = [c["rating"] for c in english]
    assert all(a < b for a, b in itertools.pairwise(ratings)), ratings
    assert set(english[0]) == {"id", "name", "level", "rating", "style"}
    by_id = {c["id"]: c for c in german}
    assert by_id["magpie"]["name"] == "Elster" and by_id["easy"]["name"] == "Leicht"
    for lang in ("da", "hu", "et"):
        other = client.get(f"/api/computers?lang={lang}").json()["computers"]
        for e, o in zip(english, other, strict=True):
            assert o["style"] and o["style"] != e["style"], (lang, e["id"])
    assert client.get("/api/computers?lang=xx").status_code == 422


def test_the_web_texts_are_the_ladders() -> None:
    assert {p.id: (p.name, p.style) for p in LADDER} == TEXTS


def test_seat_a_computer_by_its_id(client: TestClient) -> None:
    made = client.post("/api/tables", json={}).json()
    table_id = made["table_id"]
    url = f"/api/tables/{table_id}/computer"
    r = client.post(url, json={"computer": "genius"})
    assert (r.status_code, r.json()["field"]) == (422, "computer")
    assert client.get(f"/api/tables/{table_id}").json()["status"] == "waiting"
    r = client.post(url, json={"computer": "magpie"})
    assert r.status_code == 201 and r.json() == {"seat": 1, "computer": "magpie"}
    assert client.get(f"/api/tables/{table_id}").json()["players"][1]["computer"] == "magpie"


def test_create_with_a_rung_and_strength_still_works(client: TestClient) -> None:
    made = client.post("/api/tables", json={"computer": "rookie"}).json()
    facts = client.get(f"/api/tables/{made['table_id']}").json()
    assert facts["players"][1]["computer"] == "rookie"
    made = client.post("/api/tables", json={}).json()
    r = client.post(f"/api/tables/{made['table_id']}/computer", json={"strength": "hard"})
    assert r.json() == {"seat": 1, "computer": "hard"}


def test_the_home_page_offers_the_ladder(client: TestClient) -> None:
    page = client.get("/de/").text
    for p in LADDER:
        assert f'<option value="{p.id}"' in page
    assert "Elster" in page
