"""Seat cookies stay on their table's paths and live as long as an idle table does."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from hollywood_gin.main import create_app
from tests.tables.helpers import make_settings


def seat_cookies(header: str | None) -> list[str]:
    return [c for c in (header or "").split("; ") if c.startswith("gin_seat_")]


def test_two_hundred_tables_do_not_grow_the_cookie_header_of_other_pages(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, tables_per_hour_per_address=1000, table_expiry_days=7, http_burst=10_000
    )
    with TestClient(create_app(settings), follow_redirects=False) as client:
        client.get("/en/rules")  # the language cookie, which every page gets
        first = client.get("/en/rules")
        ids = []
        for _ in range(200):
            r = client.post("/api/tables", json={"name": "Ann"})
            assert r.status_code == 201
            ids.append(r.json()["table_id"])
            cookies = r.headers.get_list("set-cookie")
            scoped = [c for c in cookies if "Max-Age=604800" in c]
            assert sorted(c.split("Path=")[1].split(";")[0] for c in scoped) == [
                f"/api/tables/{ids[-1]}",
                f"/t/{ids[-1]}",
            ]
        other = client.get("/en/rules")
        assert seat_cookies(other.request.headers.get("cookie")) == []
        assert len(other.request.headers.get("cookie", "")) == len(
            first.request.headers.get("cookie", "")
        )
        # A table's own paths get its cookie, and only its.
        for path in (f"/t/{ids[7]}", f"/t/{ids[7]}/seat/x", f"/api/tables/{ids[7]}"):
            sent = seat_cookies(client.get(path).request.headers.get("cookie"))
            assert sent and all(c.startswith(f"gin_seat_{ids[7]}=") for c in sent), path


def test_the_socket_under_the_table_path_knows_the_seat_by_its_cookie(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        r = client.post("/api/tables", json={"name": "Ann"})
        table_id = r.json()["table_id"]
        page = client.get(f"/t/{table_id}")
        assert f'"ws":"/t/{table_id}/ws"' in page.text.replace(" ", "")
        with client.websocket_connect(f"/t/{table_id}/ws") as ws:
            assert ws.receive_json()["you"] == 0
        # The first path still answers, for clients that say hello with their token.
        token = r.json()["token"]
        client.cookies.clear()
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            assert ws.receive_json()["you"] is None
            ws.send_json({"type": "hello", "token": token})
            assert ws.receive_json()["you"] == 0


def test_a_visit_sets_the_cookie_again_and_drops_the_old_site_wide_one(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, table_expiry_days=2)
    with TestClient(create_app(settings)) as client:
        r = client.post("/api/tables", json={"name": "Ann"})
        table_id, token = r.json()["table_id"], r.json()["token"]
        client.cookies.clear()
        client.cookies.set(f"gin_seat_{table_id}", token, path="/")  # an earlier version's
        page = client.get(f"/t/{table_id}")
        cookies = page.headers.get_list("set-cookie")
        renewed = [c for c in cookies if c.startswith(f"gin_seat_{table_id}={token}")]
        assert len(renewed) == 2 and all("Max-Age=172800" in c for c in renewed)
        assert all("HttpOnly" in c and "SameSite=lax" in c for c in renewed)
        dropped = [c for c in cookies if c.startswith("gin_seat_") and "Path=/;" in c]
        assert len(dropped) == 1 and "Max-Age=0" in dropped[0]
