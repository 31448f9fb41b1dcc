"""Shared helpers for the tables and web tests: settings, a known deal, a registry with
two seats taken, snapshots."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from starlette.testclient import WebSocketTestSession

from hollywood_gin.config import Settings
from hollywood_gin.engine.cards import full_deck
from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.lifecycle import assemble
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.store import TableStore
from hollywood_gin.tables.table import Table

# The 52 cards in index order. With seat 0 dealing, seat 1 (the non-dealer) gets the
# even positions 0..18 and seat 0 the odd ones 1..19; position 20 is the upcard.
INDEX_DECK = [str(c) for c in full_deck()]
SEAT1_CARDS = INDEX_DECK[0:20:2]  # AC 3C 5C 7C 9C JC KC 2D 4D 6D
SEAT0_CARDS = INDEX_DECK[1:20:2]  # 2C 4C 6C 8C TC QC AD 3D 5D 7D
UPCARD = INDEX_DECK[20]  # 8D
STOCK_TOP = INDEX_DECK[21]  # 9D


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "data_file": tmp_path / "tables.sqlite3",
        "test_hooks": True,
        "bot_delay_seconds": 0.0,
        "log_level": "warning",
        # Starlette's TestClient sends `Host: testserver`.
        "allowed_hosts": ["testserver"],
        # Every request of a test comes from one address: the request rate is
        # tested where it is the subject (tests/web/test_gate.py sets its own).
        "http_burst": 100_000,
        # New tables for the whole site: tested where it is the subject
        # (tests/web/test_hardening.py); some tests make hundreds of tables.
        "tables_per_minute": 1_000_000,
    }
    values.update(overrides)
    return Settings(**values)


def registry_on(store: TableStore, **kw: Any) -> Registry:
    """A registry on `store` with its hub; the computer moves at once, tables expire after
    100 s idle (unless `kw` says otherwise)."""
    kw.setdefault("expiry_seconds", 100.0)
    kw.setdefault("computer_delay", 0.0)
    return assemble(store, Hub(max_tabs_per_seat=5, max_spectators=20), **kw)


# Standard rules, each hand scored, to 100 points.
HAND_OPTIONS = {"rules": "standard", "scoring": "hand", "target": 100}


async def two_seats(registry: Registry, decks: Sequence[Sequence[str]] = (INDEX_DECK,)) -> Table:
    """A new table (`HAND_OPTIONS`, seat 0 deals `decks`) with Ann and Bob seated: the
    first hand is dealt, seat 1 to act (the upcard offer) at version 1."""
    table, _ = await registry.create(HAND_OPTIONS, "Ann", test_decks=decks, first_dealer=0)
    await registry.join(table.id, "Bob")
    return table


def snapshot(table: Table) -> tuple[int, int, bytes]:
    """Everything a refusal must leave unchanged: version, log length, every view."""
    views = [table.view(0), table.view(1), table.view(None)] if table.seats[1:] else []
    return table.version, len(table.match.log), orjson.dumps([v.wire() for v in views])


def exchange(
    ws: WebSocketTestSession, message: dict[str, Any] | str | bytes
) -> list[dict[str, Any]]:
    """Send one frame, then a ping; return every frame received up to the pong."""
    if isinstance(message, dict):
        ws.send_json(message)
    elif isinstance(message, bytes):
        ws.send_bytes(message)
    else:
        ws.send_text(message)
    return until_pong(ws)


def until_pong(ws: WebSocketTestSession) -> list[dict[str, Any]]:
    ws.send_json({"type": "ping"})
    frames = []
    for _ in range(100):
        frame = ws.receive_json()
        if frame.get("type") == "pong":
            return frames
        frames.append(frame)
    raise AssertionError("no pong after 100 frames")


def of_type(frames: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [f for f in frames if f.get("type") == kind]


# Seat 1 (non-dealer when seat 0 deals) holds AC..9C and KS; the upcard TC makes a
# 10-card club run: take it, knock discarding KS, and it is gin in two actions.
GIN_SEAT1 = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "KS"]
GIN_UPCARD = "TC"


def gin_deck() -> list[str]:
    rest = [c for c in INDEX_DECK if c not in [*GIN_SEAT1, GIN_UPCARD]]
    deck: list[str] = []
    for i in range(10):
        deck += [GIN_SEAT1[i], rest[i]]
    return [*deck, GIN_UPCARD, *rest[10:]]
