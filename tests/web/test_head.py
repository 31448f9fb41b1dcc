"""`HEAD` answers wherever `GET` does, with the same status and headers and no body."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from hollywood_gin.main import create_app
from hollywood_gin.web.http.i18n import LANGUAGES
from tests.conftest import running_server
from tests.tables.helpers import make_settings


def page_paths(client: TestClient) -> list[str]:
    r = client.post("/api/tables", json={"name": "Ann"})
    table_id, token = r.json()["table_id"], r.json()["token"]
    client.cookies.clear()
    paths = ["/healthz", "/", "/rules", "/static/css/site.css"]
    for lang in LANGUAGES:
        paths += [f"/{lang}/", f"/{lang}/rules", f"/{lang}/variants/hollywood"]
    return [
        *paths,
        f"/t/{table_id}",
        f"/t/{table_id}/seat/{token}",
        f"/api/tables/{table_id}",
        "/no/such/page",
    ]


def test_head_answers_like_get_everywhere(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path)), follow_redirects=False) as client:
        for path in page_paths(client):
            got = client.get(path)
            head = client.head(path)
            assert head.status_code == got.status_code != 405, path
            assert head.headers.get("content-type") == got.headers.get("content-type"), path
            assert head.content == b"", path


@pytest.mark.parametrize("path", ["/healthz", "/en/"])
def test_a_real_server_answers_head_without_a_body(tmp_path: Path, path: str) -> None:
    with running_server(tmp_path / "t.sqlite3") as (base, _proc):
        r = httpx.head(base + path, timeout=5)
    assert r.status_code == 200 and r.content == b""
