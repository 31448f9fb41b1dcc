"""One family of refusals (`Refusal`: `RuleError`, `TableError`, `ApiError`), each
with a wire code (docs/protocol-guide.md "Errors"), answered over HTTP in one place."""

from __future__ import annotations

import json
from typing import get_args

import pytest
from fastapi import FastAPI, Request, Response
from fastapi.responses import HTMLResponse
from fastapi.testclient import TestClient

from hollywood_gin.engine import errors as engine_errors
from hollywood_gin.engine.errors import IllegalAction, NotYourTurn, Refusal, RuleError, StaleVersion
from hollywood_gin.tables import errors as tables_errors
from hollywood_gin.tables.errors import (
    Moved,
    NoBots,
    StoreUnavailable,
    TableError,
    TableFull,
    UnknownHand,
    UnknownTable,
)
from hollywood_gin.web import errors
from hollywood_gin.web.errors import ApiError, http_answer
from hollywood_gin.web.http.bodies import HttpErrorCode
from hollywood_gin.web.socket.messages import ErrorCode

WIRE_CODES = set(get_args(ErrorCode)) | set(get_args(HttpErrorCode))


def family(root: type[Refusal]) -> list[type[Refusal]]:
    found, todo = [], [root]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_the_layers_roots_are_one_family() -> None:
    assert issubclass(RuleError, Refusal)
    assert issubclass(TableError, Refusal)
    assert issubclass(ApiError, Refusal)
    # Layered: neither layer's refusals are the other's.
    assert not issubclass(TableError, RuleError)
    assert not issubclass(RuleError, TableError)


def test_every_class_of_the_family_carries_a_documented_wire_code() -> None:
    classes = family(Refusal)
    modules = {cls.__module__ for cls in classes}
    assert {engine_errors.__name__, tables_errors.__name__} <= modules
    for cls in classes:
        if cls in (Refusal, ApiError):  # the root; ApiError takes its code per instance
            continue
        assert cls.code in WIRE_CODES, cls


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (UnknownTable("no such table"), 404, "unknown_table"),
        (UnknownHand("not finished"), 404, "unknown_hand"),
        (TableFull("full"), 409, "table_full"),
        (NoBots("no bots here"), 403, "no_bots"),
        (StoreUnavailable("disk full"), 503, "server_error"),
        (Moved("elsewhere"), 503, "server_error"),
        (TableError("computer strength must be one of easy"), 422, "bad_request"),
        # Over HTTP the engine refuses what a request asked for: a bad request.
        (IllegalAction("not now"), 422, "bad_request"),
        (NotYourTurn("wait"), 422, "bad_request"),
        (StaleVersion("old"), 422, "bad_request"),
        (ApiError(403, "not_seated", "only a seated player"), 403, "not_seated"),
    ],
)
def test_http_answer_of_each_layer(exc: Refusal, status: int, code: str) -> None:
    response = http_answer(exc)
    assert response.status_code == status
    assert json.loads(response.body) == {"error": code, "message": str(exc)}


def test_an_api_error_keeps_its_extra_fields() -> None:
    response = http_answer(ApiError(422, "bad_request", "name: too long", field="name"))
    assert json.loads(response.body) == {
        "error": "bad_request",
        "message": "name: too long",
        "field": "name",
    }


@pytest.mark.parametrize("with_page", [False, True])
def test_a_404_is_the_page_given_outside_the_machine_paths_and_json_on_them(
    with_page: bool,
) -> None:
    """The 404 page is named where the errors are installed, not found by the order
    the handlers were added in."""
    app = FastAPI()

    def page(request: Request) -> Response:
        return HTMLResponse("<p>lost</p>", status_code=404)

    errors.install(app, not_found_page=page if with_page else None)
    client = TestClient(app)
    person = client.get("/no/such/page")
    machine = client.get("/api/no/such/thing")
    assert person.status_code == machine.status_code == 404
    if with_page:
        assert person.text == "<p>lost</p>"
    else:
        assert person.json() == {"error": "not_found", "message": "Not Found"}
    assert machine.json() == {"error": "not_found", "message": "Not Found"}
