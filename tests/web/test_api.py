"""The HTTP API in-process: every endpoint, every error code, every bad body."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hollywood_gin.engine.actions import parse_action
from hollywood_gin.web.guard.addresses import ClientAddress
from hollywood_gin.web.http.bodies import HandRecord, TableCreated, TablePublic
from tests.tables.helpers import INDEX_DECK, gin_deck
from tests.web.helpers import app_client, registry_of
from tests.wire import wire


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with app_client(tmp_path) as c:
        yield c


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def test_create_seats_the_creator(client: TestClient, tmp_path: Path) -> None:
    r = client.post("/api/tables", json={"name": "Ann", "rules": "oklahoma", "scoring": "game"})
    assert r.status_code == 201
    body = TableCreated.model_validate(r.json())
    assert body.seat == 0
    assert body.url == f"http://testserver/t/{body.table_id}"
    # token_urlsafe(16) is 22 characters (128 bits); tokens carry 256 bits.
    assert len(body.table_id) == 22 and len(body.token) == 43
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"gin_seat_{body.table_id}={body.token};")
    # On the table's paths only, as long as an idle table lives (30 days by default).
    for part in ("HttpOnly", f"Path=/t/{body.table_id}", "SameSite=lax", "Max-Age=2592000"):
        assert part in cookie
    assert "Secure" not in cookie
    facts = client.get(f"/api/tables/{body.table_id}").json()
    assert TablePublic.model_validate(facts)
    assert facts == {
        "id": body.table_id,
        "rules": "oklahoma",
        "scoring": "game",
        "target": 100,
        "status": "waiting",
        "version": 0,
        "players": [
            {
                "seat": 0,
                "name": "Ann",
                "connected": False,
                "computer": None,
                "away_seconds": 0,
                "stand_in": False,
                "bot": False,
            }
        ],
        "open_seats": [1],
        "bots": True,
        "turn": None,
    }
    # Only the token's hash reaches the disk.
    with sqlite3.connect(tmp_path / "tables.sqlite3") as db:
        dump = "\n".join(db.iterdump())
    assert body.token not in dump
    assert hashlib.sha256(body.token.encode()).hexdigest() in dump


def test_defaults_and_all_nine_option_combinations(client: TestClient) -> None:
    facts = client.get(f"/api/tables/{create(client)['table_id']}").json()
    assert (facts["rules"], facts["scoring"], facts["target"]) == ("standard", "hand", 100)
    assert facts["players"][0]["name"] == "Player 1"
    for rules in ("standard", "straight", "oklahoma"):
        for scoring in ("hand", "game", "hollywood"):
            made = create(client, rules=rules, scoring=scoring, target=250)
            facts = client.get(f"/api/tables/{made['table_id']}").json()
            assert (facts["rules"], facts["scoring"], facts["target"]) == (rules, scoring, 250)


def test_https_public_url_makes_secure_cookies_and_links(tmp_path: Path) -> None:
    with app_client(tmp_path, public_url="https://gin.example.org") as client:
        r = client.post("/api/tables", json={})
        assert "Secure" in r.headers["set-cookie"]
        assert r.json()["url"] == f"https://gin.example.org/t/{r.json()['table_id']}"


def test_security_headers_on_every_kind_of_answer(tmp_path: Path) -> None:
    """docs/architecture.md "The web layer": a page, a static file, a JSON error and the
    health check carry the headers, HSTS only under an https public URL (an answer's
    own value is kept: tests/web/test_seat_link.py)."""
    for public_url, hsts in (("https://gin.example.org", "max-age=31536000"), (None, None)):
        (tmp_path / str(hsts)).mkdir()
        with app_client(tmp_path / str(hsts), public_url=public_url) as client:
            host = {"Host": "gin.example.org"} if public_url else {}
            answers = [
                client.get("/en/rules", headers=host),
                client.get("/static/nope.css", headers=host),
                client.get("/api/tables/nope", headers=host),
                client.get("/healthz", headers=host),
                client.head("/en/rules", headers=host),
            ]
            for r in answers:
                assert r.headers["x-frame-options"] == "DENY", r.url
                assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
                assert r.headers.get("strict-transport-security") == hsts, r.url


def test_names_are_trimmed_and_defaulted(client: TestClient) -> None:
    made = create(client, name="  Ann  ")
    r = client.post(f"/api/tables/{made['table_id']}/seats", json={"name": "   "})
    assert r.status_code == 201
    players = client.get(f"/api/tables/{made['table_id']}").json()["players"]
    assert [p["name"] for p in players] == ["Ann", "Player 2"]
    made = create(client, name="x" * 24)  # exactly the limit
    players = client.get(f"/api/tables/{made['table_id']}").json()["players"]
    assert players[0]["name"] == "x" * 24


BAD_BODIES: list[tuple[str, Any, str]] = [
    ("extra field", {"colour": "red"}, "colour"),
    ("bad rules", {"rules": "poker"}, "rules"),
    ("bad scoring", {"scoring": "best_of_3"}, "scoring"),
    ("bad target", {"target": 150}, "target"),
    ("target as text", {"target": "100"}, "target"),
    ("name too long", {"name": "y" * 25}, "name"),
    ("name with a newline", {"name": "Ann\nBob"}, "name"),
    ("name with a bidi override", {"name": "Ann\u202eboB"}, "name"),
    ("name not a string", {"name": 7}, "name"),
    ("bad computer", {"computer": "genius"}, "computer"),
    ("not an object", [1, 2], ""),
]


@pytest.mark.parametrize(("what", "body", "field"), BAD_BODIES, ids=[b[0] for b in BAD_BODIES])
def test_bad_create_bodies_are_422_naming_the_field(
    client: TestClient, what: str, body: Any, field: str
) -> None:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 422, what
    assert r.json()["error"] == "bad_request"
    assert r.json()["field"] == field
    assert r.json()["message"].startswith(f"{field}: " if field else "")
    assert len(registry_of(client)) == 0


def test_not_json_is_422(client: TestClient) -> None:
    r = client.post(
        "/api/tables", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422 and r.json()["error"] == "bad_request"
    assert len(registry_of(client)) == 0


def test_test_hooks_are_unknown_fields_when_off(tmp_path: Path) -> None:
    with app_client(tmp_path, test_hooks=False) as client:
        for field, value in (("test_decks", [INDEX_DECK]), ("test_first_dealer", 0)):
            r = client.post("/api/tables", json={field: value})
            assert r.status_code == 422
            assert r.json()["field"] == field
        assert len(registry_of(client)) == 0


def test_test_decks_and_first_dealer_are_used(client: TestClient) -> None:
    made = create(client, test_decks=[INDEX_DECK], test_first_dealer=1)
    client.post(f"/api/tables/{made['table_id']}/seats", json={})
    table = registry_of(client).get(made["table_id"])
    assert table is not None
    view = wire(table.view(0))
    # Seat 1 deals, so seat 0 is the non-dealer and gets the even positions.
    assert view["hand"]["dealer"] == 1
    assert view["hand"]["my_cards"] == INDEX_DECK[0:20:2]


@pytest.mark.parametrize(
    "body",
    [
        {"test_decks": [INDEX_DECK[:51]]},
        {"test_decks": [[*INDEX_DECK[:51], INDEX_DECK[0]]]},
        {"test_decks": [[*INDEX_DECK[:51], "ZZ"]]},
        {"test_first_dealer": 2},
    ],
    ids=["51 cards", "a card twice", "not a card", "dealer 2"],
)
def test_bad_test_hooks_are_422(client: TestClient, body: dict[str, Any]) -> None:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 422 and r.json()["error"] == "bad_request"


def test_join_takes_seat_one_and_starts_the_match(client: TestClient) -> None:
    made = create(client, name="Ann")
    client.cookies.clear()
    r = client.post(f"/api/tables/{made['table_id']}/seats", json={"name": "Bob"})
    assert r.status_code == 201
    assert set(r.json()) == {"seat", "token"} and r.json()["seat"] == 1
    assert r.headers["set-cookie"].startswith(f"gin_seat_{made['table_id']}={r.json()['token']};")
    facts = client.get(f"/api/tables/{made['table_id']}").json()
    assert facts["status"] == "playing" and facts["version"] == 1 and facts["open_seats"] == []
    # The hand is dealt: the non-dealer decides on the upcard first
    # (docs/rules.md "The upcard offer").
    table = registry_of(client).get(made["table_id"])
    assert table is not None and table.match.hand is not None
    hand = table.match.hand
    assert facts["turn"] == hand.turn == 1 - hand.dealer
    assert registry_of(client).seat_for_token(made["table_id"], r.json()["token"]) == 1
    assert registry_of(client).seat_for_token(made["table_id"], made["token"]) == 0
    assert registry_of(client).seat_for_token(made["table_id"], "nope") is None
    # Join with no body at all works too (all fields optional) - on another table.
    other = create(client)
    assert client.post(f"/api/tables/{other['table_id']}/seats").status_code == 201


def test_join_errors(client: TestClient) -> None:
    made = create(client)
    table_id = made["table_id"]
    r = client.post(f"/api/tables/{table_id}/seats", json={"name": "Bob", "seat": 0})
    assert (r.status_code, r.json()["field"]) == (422, "seat")
    assert client.post(f"/api/tables/{table_id}/seats", json={}).status_code == 201
    before = client.get(f"/api/tables/{table_id}").json()
    r = client.post(f"/api/tables/{table_id}/seats", json={})
    assert r.status_code == 409
    assert r.json() == {"error": "table_full", "message": "both seats are taken"}
    assert client.get(f"/api/tables/{table_id}").json() == before
    r = client.post("/api/tables/nope/seats", json={})
    assert r.status_code == 404 and r.json()["error"] == "unknown_table"
    r = client.get("/api/tables/nope")
    assert r.status_code == 404 and r.json()["error"] == "unknown_table"


def test_public_facts_hold_no_card(client: TestClient) -> None:
    made = create(client, test_decks=[INDEX_DECK], test_first_dealer=0)
    client.post(f"/api/tables/{made['table_id']}/seats", json={})
    text = client.get(f"/api/tables/{made['table_id']}").text
    for card in INDEX_DECK:
        assert f'"{card}"' not in text
    assert made["token"] not in text


def test_hand_record_only_once_the_hand_is_over(client: TestClient) -> None:
    made = create(client, test_decks=[gin_deck()], test_first_dealer=0)
    table_id = made["table_id"]
    for path in ("hands/1", "hands/0", "hands/2"):
        r = client.get(f"/api/tables/{table_id}/{path}")
        assert r.status_code == 404 and r.json()["error"] == "unknown_hand"
    client.post(f"/api/tables/{table_id}/seats", json={})
    assert client.get(f"/api/tables/{table_id}/hands/1").status_code == 404
    registry = registry_of(client)
    table = registry.get(table_id)
    assert table is not None
    client.portal.call(registry.act, table, 1, parse_action({"kind": "take_upcard"}), 1)  # type: ignore[union-attr]
    client.portal.call(registry.act, table, 1, parse_action({"kind": "knock", "discard": "KS"}), 2)  # type: ignore[union-attr]
    assert table.status == "match_over"  # `hand` scoring: one hand is the match
    r = client.get(f"/api/tables/{table_id}/hands/1")
    assert r.status_code == 200
    record = HandRecord.model_validate(r.json())
    assert record.number == 1 and record.dealer == 0 and record.deck == gin_deck()
    assert [(a.seat, a.action.model_dump(exclude_none=True)) for a in record.actions] == [
        (1, {"kind": "take_upcard"}),
        (1, {"kind": "knock", "discard": "KS"}),
    ]
    assert r.json()["result"]["kind"] == "gin"
    assert client.get(f"/api/tables/{table_id}/hands/2").status_code == 404
    r = client.get(f"/api/tables/{table_id}/hands/first")
    assert (r.status_code, r.json()["error"], r.json()["field"]) == (422, "bad_request", "number")
    assert client.get("/api/tables/nope/hands/1").json()["error"] == "unknown_table"


def test_computer_opponent_at_creation(client: TestClient) -> None:
    made = create(client, name="Ann", computer="hard")
    facts = client.get(f"/api/tables/{made['table_id']}").json()
    assert facts["status"] != "waiting" and facts["open_seats"] == []
    assert facts["players"][1] == {
        "seat": 1,
        "name": "Computer (hard)",
        "connected": True,
        "computer": "hard",
        "bot": False,
        "away_seconds": None,
        "stand_in": False,
    }
    r = client.post(f"/api/tables/{made['table_id']}/seats", json={})
    assert r.status_code == 409


def test_computer_joins_a_waiting_table(client: TestClient) -> None:
    made = create(client)
    table_id = made["table_id"]
    r = client.post(f"/api/tables/{table_id}/computer", json={"strength": "genius"})
    assert (r.status_code, r.json()["field"]) == (422, "strength")
    r = client.post(f"/api/tables/{table_id}/computer", json={"strength": "easy"})
    assert r.status_code == 201 and r.json() == {"seat": 1, "computer": "easy"}
    assert client.get(f"/api/tables/{table_id}").json()["players"][1]["computer"] == "easy"
    r = client.post(f"/api/tables/{table_id}/computer", json={"strength": "easy"})
    assert r.status_code == 409 and r.json()["error"] == "table_full"
    r = client.post("/api/tables/nope/computer", json={})
    assert r.status_code == 404 and r.json()["error"] == "unknown_table"


def test_tables_per_address_per_hour(tmp_path: Path) -> None:
    with app_client(tmp_path, tables_per_hour_per_address=2) as client:
        assert [client.post("/api/tables").status_code for _ in range(3)] == [201, 201, 429]
        r = client.post("/api/tables")
        assert r.json()["error"] == "rate_limited" and r.json()["message"]
        assert len(registry_of(client)) == 2
        # An untrusted peer cannot dodge the limit with a made-up X-Forwarded-For.
        r = client.post("/api/tables", headers={"x-forwarded-for": "203.0.113.9"})
        assert r.status_code == 429


def test_forwarded_for_is_believed_only_from_trusted_proxies(tmp_path: Path) -> None:
    with app_client(
        tmp_path, tables_per_hour_per_address=1, trusted_proxies=["127.0.0.1"]
    ) as client:
        for address in ("203.0.113.1", "203.0.113.2"):
            r = client.post("/api/tables", headers={"x-forwarded-for": address})
            assert r.status_code == 201
        r = client.post("/api/tables", headers={"x-forwarded-for": "203.0.113.1"})
        assert r.status_code == 429


def test_client_address_walks_back_through_trusted_hops() -> None:
    addresses = ClientAddress(["10.0.0.0/8", "127.0.0.1"])
    assert addresses.of("127.0.0.1", "198.51.100.7, 10.1.2.3") == "198.51.100.7"
    assert addresses.of("127.0.0.1", "6.6.6.6, 198.51.100.7") == "198.51.100.7"
    assert addresses.of("198.51.100.8", "6.6.6.6") == "198.51.100.8"
    assert addresses.of("127.0.0.1", None) == "127.0.0.1"
    assert addresses.of(None, None) == "unknown"


def test_unknown_paths_and_methods_are_json_errors(client: TestClient) -> None:
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.json()["error"] == "not_found" and r.json()["message"]
    r = client.delete("/api/tables")
    assert r.status_code == 405 and r.json()["error"] == "method_not_allowed"
    r = client.put(f"/api/tables/{create(client)['table_id']}")
    assert r.status_code == 405 and r.json()["error"] == "method_not_allowed"


def test_answers_carry_the_security_headers(client: TestClient) -> None:
    r = client.post("/api/tables", json={})
    assert r.headers["referrer-policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]


def test_every_machine_error_has_the_documented_shape(client: TestClient) -> None:
    """docs/protocol-guide.md "Errors": errors are `{"error": CODE, "message": text}`, a
    missing static file included (it used to answer FastAPI's `{"detail": ...}`)."""
    for method, path, status, code in (
        ("GET", "/static/js/nope.js", 404, "not_found"),
        ("GET", "/api/nope", 404, "not_found"),
        ("DELETE", "/api/tables", 405, "method_not_allowed"),
        ("GET", "/api/tables/nope", 404, "unknown_table"),
    ):
        answer = client.request(method, path)
        assert answer.status_code == status, path
        body = answer.json()
        assert body["error"] == code and isinstance(body["message"], str), path
        assert "detail" not in body
