"""Shared helpers for the in-process web tests: an app on a test client, its registry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from hollywood_gin.main import create_app
from hollywood_gin.tables.registry import Registry
from tests.tables.helpers import make_settings

# One client address for every request: the per-address limits see one peer.
PEER = ("127.0.0.1", 50000)


def app_client(tmp_path: Path, client: tuple[str, int] = PEER, **overrides: Any) -> TestClient:
    """The app on `make_settings(tmp_path, **overrides)`, its requests from `client`."""
    return TestClient(create_app(make_settings(tmp_path, **overrides)), client=client)


def registry_of(client: TestClient) -> Registry:
    registry: Registry = client.app.state.registry  # type: ignore[attr-defined]
    return registry
