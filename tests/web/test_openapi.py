"""The HTTP API's schema, `/openapi.json` from a real server, names what the routes
really answer: every `/api` route its answer's model and its errors in the one
envelope (`ErrorBody`, never FastAPI's own `HTTPValidationError`); the test hooks'
body only when the server runs with them; and a body that does not validate still
gets the envelope and changes nothing (docs/protocol-guide.md "Errors")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hollywood_gin.web.http.bodies import ErrorBody
from tests.conftest import running_server

SCHEMAS = "#/components/schemas/"
ENVELOPE = {"$ref": SCHEMAS + "ErrorBody"}
# The request body each `/api` route takes (absent: it takes none).
BODIES = {
    ("post", "/api/tables"): "CreateTable",
    ("post", "/api/tables/{table_id}/seats"): "JoinTable",
    ("post", "/api/tables/{table_id}/computer"): "SeatComputer",
    ("post", "/api/tables/{table_id}/push"): "Subscribe",
    ("delete", "/api/tables/{table_id}/push"): "Unsubscribe",
}
ON = {"HOLLYWOOD_GIN_OPENAPI": "true"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("openapi") / "t.sqlite3", env=ON) as (base, _):
        yield base


def json_schema(answer: dict[str, Any]) -> dict[str, Any] | None:
    schema: dict[str, Any] | None = (
        answer.get("content", {}).get("application/json", {}).get("schema")
    )
    return schema


def api_operations(schema: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, operations in schema["paths"].items():
        if path.startswith("/api/"):
            for method, operation in operations.items():
                yield method, path, operation


def test_every_api_route_names_its_answer_and_the_error_envelope(server: str) -> None:
    schema = httpx.get(server + "/openapi.json", timeout=10).json()
    operations = list(api_operations(schema))
    assert len(operations) >= 10
    for method, path, operation in operations:
        where = f"{method.upper()} {path}"
        answers = operation["responses"]
        done = [status for status in answers if status.startswith("2")]
        assert done, where
        for status in done:
            if status != "204":
                model = json_schema(answers[status]) or {}
                assert model.get("$ref", "").startswith(SCHEMAS), (where, status, model)
        errors = [status for status in answers if status[0] in "45"]
        assert "429" in errors, where  # the gate's per-address rate, on every route
        if operation.get("parameters") or operation.get("requestBody"):
            assert "422" in errors, where
        for status in errors:
            assert json_schema(answers[status]) == ENVELOPE, (where, status)
        body = operation.get("requestBody")
        wanted = BODIES.get((method, path))
        assert (json_schema(body) if body else None) == (
            {"$ref": SCHEMAS + wanted} if wanted else None
        ), where
    assert {(m, p) for m, p, _ in operations} >= set(BODIES)

    components = schema["components"]["schemas"]
    assert "HTTPValidationError" not in components and "ValidationError" not in components
    envelope = components["ErrorBody"]
    assert {"error", "message", "field"} <= set(envelope["properties"])
    assert {"bad_request", "unknown_table", "rate_limited"} <= set(
        envelope["properties"]["error"]["enum"]
    )
    # The review's 202 names its progress.
    review = schema["paths"]["/api/tables/{table_id}/hands/{number}/review"]["get"]
    assert json_schema(review["responses"]["202"]) == {"$ref": SCHEMAS + "ReviewComputing"}


def test_the_test_hooks_are_in_the_schema_only_when_on(server: str, tmp_path: Path) -> None:
    off = httpx.get(server + "/openapi.json", timeout=10)
    assert "test_decks" not in off.text and "CreateTableWithHooks" not in off.text
    # And the route refuses them as unknown fields (tests/web/test_api.py).
    hooks = {**ON, "HOLLYWOOD_GIN_TEST_HOOKS": "true"}
    with running_server(tmp_path / "t.sqlite3", env=hooks) as (base, _):
        on = httpx.get(base + "/openapi.json", timeout=10).json()
    create = on["paths"]["/api/tables"]["post"]
    assert json_schema(create["requestBody"]) == {"$ref": SCHEMAS + "CreateTableWithHooks"}
    assert "test_decks" in on["components"]["schemas"]["CreateTableWithHooks"]["properties"]


def facts(table: str) -> dict[str, Any]:
    """The table's public facts, but for how long its seats have been away (a clock)."""
    public: dict[str, Any] = httpx.get(table, timeout=10).json()
    for player in public["players"]:
        player.pop("away_seconds", None)
    return public


BAD = [
    ("not JSON", b"{not json", ""),
    ("null", b"null", ""),
    ("a list", b"[1, 2]", ""),
    ("a number for a name", b'{"name": 5}', "name"),
    ("a text for bot", b'{"bot": "yes"}', "bot"),
    ("an unknown field", b'{"seat": 0}', "seat"),
    ("bad entropy", b'{"entropy": "zz"}', "entropy"),
]


@pytest.mark.parametrize(("what", "raw", "field"), BAD, ids=[b[0] for b in BAD])
def test_a_body_that_does_not_validate_is_the_envelope_and_changes_nothing(
    server: str, what: str, raw: bytes, field: str
) -> None:
    made = httpx.post(server + "/api/tables", json={"name": "Ann"}, timeout=10).json()
    table = f"{server}/api/tables/{made['table_id']}"
    before = facts(table)
    json_type = {"content-type": "application/json"}
    for route in ("/seats", "/computer"):
        # (`name`, `bot` and `entropy` are unknown to the computer's body: refused too.)
        r = httpx.post(table + route, content=raw, headers=json_type, timeout=10)
        assert r.status_code == 422, (what, route, r.text)
        answer = r.json()
        # The one envelope, naming the field (FastAPI's own would be `{"detail": [...]}`,
        # and its JSON error would name a character position).
        assert set(answer) == {"error", "message", "field"}, answer
        assert (answer["error"], answer["field"]) == ("bad_request", field), answer
        ErrorBody.model_validate(answer)
    r = httpx.post(server + "/api/tables", content=raw, headers=json_type, timeout=10)
    assert (r.status_code, r.json()["error"], r.json()["field"]) == (422, "bad_request", field)
    assert facts(table) == before
