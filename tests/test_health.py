from pathlib import Path

import httpx
import pytest

from hollywood_gin import __version__
from hollywood_gin.config import Settings
from hollywood_gin.main import create_app
from tests.conftest import run_gin, running_server


@pytest.mark.anyio
async def test_healthz_through_asgi(tmp_path: Path) -> None:
    app = create_app(
        Settings(data_file=tmp_path / "t.sqlite3", commit="abc1234", allowed_hosts=["testserver"])
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        r = await client.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"ok": True, "version": __version__, "commit": "abc1234"}
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]


def test_real_server_answers_healthz(tmp_path: Path) -> None:
    with running_server(tmp_path / "t.sqlite3") as (base, _proc):
        r = httpx.get(base + "/healthz", timeout=5)
    assert r.status_code == 200
    assert r.json()["ok"] is True
    assert r.json()["version"] == __version__


def test_bad_setting_stops_start_up_with_a_clear_message() -> None:
    out = run_gin(env={"HOLLYWOOD_GIN_PORT": "not-a-port", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 2
    assert "HOLLYWOOD_GIN_PORT" in out.stderr
    assert "Traceback" not in out.stderr


def test_no_server_banner_and_the_schema_unless_turned_off(tmp_path: Path) -> None:
    with running_server(tmp_path / "t.sqlite3") as (base, _proc):
        r = httpx.get(base + "/healthz", timeout=5)
        assert "server" not in r.headers, r.headers
        schema = httpx.get(base + "/openapi.json", timeout=5)
        assert schema.status_code == 200 and "/api/tables" in schema.json()["paths"]
    with running_server(tmp_path / "u.sqlite3", env={"HOLLYWOOD_GIN_OPENAPI": "false"}) as (
        base,
        _proc,
    ):
        assert httpx.get(base + "/openapi.json", timeout=5).status_code == 404


@pytest.mark.anyio
@pytest.mark.parametrize("commit", ["abc1234", "zoë-build"])
async def test_healthz_answered_early_is_the_routes_answer(tmp_path: Path, commit: str) -> None:
    # `Health` answers GET /healthz before the routing (docs/performance.md): the same JSON as the
    # route's own response, byte for byte (HOLLYWOOD_GIN_COMMIT may be any text), with the
    # security headers; other methods still reach the app.
    from fastapi.responses import JSONResponse

    settings = Settings(
        data_file=tmp_path / "t.sqlite3", commit=commit, allowed_hosts=["testserver"]
    )
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        r = await client.get("/healthz?probe=1")
        post = await client.post("/healthz")
        head = await client.head("/healthz")
    expected = JSONResponse({"ok": True, "version": __version__, "commit": commit})
    assert r.content == expected.body
    assert r.headers["content-type"] == "application/json"
    assert r.headers["content-length"] == str(len(expected.body))
    assert r.headers["x-frame-options"] == "DENY"
    assert post.status_code == 405
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == str(len(expected.body))
