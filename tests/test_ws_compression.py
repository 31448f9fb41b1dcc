"""`HOLLYWOOD_GIN_WS_PER_MESSAGE_DEFLATE` reaches uvicorn: the handshake says so."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.conftest import running_server


async def negotiated_extensions(base: str) -> str | None:
    table_id = httpx.post(base + "/api/tables", json={}, timeout=5).json()["table_id"]
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    # The client offers permessage-deflate, as browsers do; the server decides.
    async with connect(url) as ws:
        await ws.recv()
        assert ws.response is not None
        return ws.response.headers.get("Sec-WebSocket-Extensions")


@pytest.mark.anyio
@pytest.mark.parametrize(("setting", "deflate"), [("true", True), ("false", False)])
async def test_deflate_setting_decides_the_handshake(
    tmp_path: Path, setting: str | None, deflate: bool
) -> None:
    env = {"HOLLYWOOD_GIN_WS_PER_MESSAGE_DEFLATE": setting}
    with running_server(tmp_path / "t.sqlite3", env=env) as (base, _proc):
        extensions = await negotiated_extensions(base)
    assert (extensions is not None and "permessage-deflate" in extensions) is deflate
