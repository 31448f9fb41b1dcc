"""A seat's credential as the site carries it: the seat's token in a cookie scoped to
its table, or an `Authorization: Bearer` header (docs/protocol-guide.md "HTTP endpoints").

Read by the routes and by the socket alike, so it lives with the guards and neither
of them imports the other for it."""

from __future__ import annotations

from fastapi import Request, Response

from hollywood_gin.config import Settings
from hollywood_gin.web.guard.security import is_https

COOKIE_MAX_AGE = 400 * 86400  # the longest lifetime browsers keep (RFC 6265bis)


def seat_cookie_paths(table_id: str) -> tuple[str, str]:
    """Where a table's seat cookie is sent: its page, socket and seat link; its API.

    Never `/`: one cookie per table on every request of the site passed 8 KiB of
    Cookie header after about 106 tables (nginx then answers 400 to everything).
    """
    return f"/t/{table_id}", f"/api/tables/{table_id}"


def cookie_name(table_id: str) -> str:
    return f"gin_seat_{table_id}"


def bearer_token(request: Request) -> str | None:
    """The token of an `Authorization: Bearer <token>` header (non-browser clients)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def set_seat_cookie(response: Response, table_id: str, token: str, settings: Settings) -> None:
    """The seat's cookie on the table's paths, living as long as an idle table does.

    Set again on each visit of the table's page, so it lasts while the table does.
    """
    secure = is_https(settings)
    max_age = int(min(COOKIE_MAX_AGE, settings.table_expiry_seconds))
    for path in seat_cookie_paths(table_id):
        response.set_cookie(
            cookie_name(table_id),
            token,
            max_age=max_age,
            path=path,
            httponly=True,
            samesite="lax",
            secure=secure,
        )
    # The cookie of earlier versions, on every path of the site: dropped.
    response.delete_cookie(
        cookie_name(table_id), path="/", httponly=True, samesite="lax", secure=secure
    )
