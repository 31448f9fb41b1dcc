"""Every error of the site in one shape: `{"error": code, "message": text}`.

HTTP errors on the machine paths (`/api/`, `/ws/`, `/static/`, `/healthz`) are
JSON in that shape (docs/protocol-guide.md "Errors"): a `Refusal` of any layer (`http_answer`),
a body that does not validate (422, the field named), FastAPI's and Starlette's
own 404 and 405, a static file that is not there. Elsewhere a person gets the
pages' HTML 404 page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from hollywood_gin.engine.errors import Refusal, RuleError

# Paths whose every error is JSON (the pages layer shows HTML elsewhere).
MACHINE_PREFIXES = ("/api/", "/ws/", "/static/", "/healthz")

STATUS = {
    "unknown_table": 404,
    "unknown_hand": 404,
    "unknown_seat": 404,
    "table_full": 409,
    "no_bots": 403,
    "rate_limited": 429,
    # The store refused the write (a full disk): nothing changed, try again later.
    "server_error": 503,
}


def error_body(code: str, message: str, **extra: Any) -> dict[str, object]:
    """The one shape of an error (docs/protocol-guide.md "Errors"); `extra`: e.g. the
    field a 422 names."""
    return {"error": code, "message": message, **extra}


def error_response(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse(error_body(code, message, **extra), status_code=status)


def validation_message(errors: list[Any]) -> tuple[str, str]:
    """(field, message) of the first problem, the field as a dotted path."""
    if not errors:
        return "", "bad request"
    first = errors[0]
    if first.get("type") == "json_invalid" and first.get("loc", ())[:1] == ("body",):
        # FastAPI's JSON decoding names the character where it failed, not a field.
        return "", f"Invalid JSON: {first.get('ctx', {}).get('error', 'not JSON')}"
    loc = [str(p) for p in first.get("loc", ())]
    if loc and loc[0] in ("body", "path", "query"):
        loc = loc[1:]
    field = ".".join(loc)
    msg = str(first.get("msg", "invalid"))
    return field, f"{field}: {msg}" if field else msg


class ApiError(Refusal):
    """A refusal by the web layer, its HTTP status given where it is raised."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra


def http_answer(exc: Refusal) -> JSONResponse:
    """The HTTP answer to a refusal of any layer (the one place that maps them)."""
    if isinstance(exc, ApiError):
        return error_response(exc.status, exc.code, exc.message, **exc.extra)
    if isinstance(exc, RuleError):
        # Over HTTP the engine refuses what a request asked for (options, a record):
        # a bad request, whatever the rule.
        return error_response(422, "bad_request", str(exc))
    return error_response(STATUS.get(exc.code, 422), exc.code, str(exc))


def install(app: FastAPI, not_found_page: Callable[[Request], Response] | None = None) -> None:
    """Answer every error in the documented shape.

    A 404 outside the machine paths is answered by `not_found_page` when given (the
    pages' HTML page, `pages.not_found_page`), so a person never meets a JSON 404;
    JSON otherwise. The one handler of HTTP errors: nothing depends on what was
    installed before.
    """

    async def refusal(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refusal)
        return http_answer(exc)

    async def validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        field, message = validation_message(list(exc.errors()))
        return error_response(422, "bad_request", message, field=field)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        machine = request.url.path.startswith(MACHINE_PREFIXES)
        if exc.status_code == 404 and not machine and not_found_page is not None:
            return not_found_page(request)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "bad_request")
        response = error_response(exc.status_code, code, str(exc.detail))
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response

    app.add_exception_handler(Refusal, refusal)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
