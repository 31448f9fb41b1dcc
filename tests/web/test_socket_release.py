"""A closed socket's protocol goes when its tasks end, not at a collection: the
`connections.DIRECT` extension's methods (held in the socket's scope, which the
protocol holds) must not keep it in a reference cycle, nor must anything else a
socket leaves (the server freezes what a collection keeps and never walks it
again: `serve.tune_gc`, so a cycle made garbage later stays for good)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from websockets.asyncio.client import connect

from tests.web.helpers import table_server


def alive(type_name: str) -> int:
    """How many objects of the type so named the collector sees."""
    return sum(1 for o in gc.get_objects() if type(o).__name__ == type_name)


@asynccontextmanager
async def open_sockets(port: int, table_id: str, count: int) -> AsyncIterator[list[Any]]:
    """`count` spectators' sockets on the table, each past its first state; closed after."""
    url = f"ws://127.0.0.1:{port}/ws/tables/{table_id}"
    sockets = [await connect(url) for _ in range(count)]
    try:
        for socket in sockets:
            assert orjson.loads(await socket.recv())["type"] == "state"
        yield sockets
    finally:
        for socket in sockets:
            await socket.close()


@pytest.mark.anyio
async def test_closed_sockets_protocols_are_freed_without_the_collector(tmp_path: Path) -> None:
    async with table_server(tmp_path) as (port, made):
        gc.collect()
        before = alive("GuardedWebSocket")
        gc.disable()
        try:
            for _ in range(5):
                url = f"ws://127.0.0.1:{port}/ws/tables/{made['table_id']}"
                async with connect(url) as socket:
                    await socket.send(orjson.dumps({"type": "hello", "token": made["token"]}))
                    assert orjson.loads(await socket.recv())["type"] == "state"
            for _ in range(100):  # the server's side of the close, its tasks ending
                if alive("GuardedWebSocket") <= before:
                    break
                await asyncio.sleep(0.02)
            assert alive("GuardedWebSocket") <= before
        finally:
            gc.enable()


@pytest.mark.anyio
async def test_upgraded_http_protocols_are_freed_without_the_collector(tmp_path: Path) -> None:
    """The HTTP protocol a socket's handshake came through goes at the upgrade: its
    parser held its methods (a cycle), ~22 objects of every socket left to the
    collector, and the closed transport with them (`serve.tune_gc`)."""
    async with table_server(tmp_path) as (port, made):
        gc.collect()
        before = alive("GuardedHttp")
        gc.disable()
        try:
            async with open_sockets(port, made["table_id"], 5):
                assert alive("GuardedHttp") <= before
        finally:
            gc.enable()


@pytest.mark.anyio
async def test_closed_sockets_transports_are_freed_without_the_collector(
    tmp_path: Path,
) -> None:
    """asyncio's socket transport holds its own bound method (the tests' loop is
    asyncio's; the server's is uvloop where installed): the server lets go of it when
    a socket or an HTTP connection closes, so no closed transport waits for the
    collector (`serve.tune_gc` freezes what a collection keeps)."""
    async with table_server(tmp_path) as (port, made):
        gc.collect()
        before = alive("_SelectorSocketTransport")
        gc.disable()
        try:
            count = 5
            async with open_sockets(port, made["table_id"], count):
                pass
            # The client's own transports (one a socket, in this process) still wait.
            for _ in range(100):  # the server's side of the close
                if alive("_SelectorSocketTransport") - before <= count:
                    break
                await asyncio.sleep(0.02)
            assert alive("_SelectorSocketTransport") - before <= count
        finally:
            gc.enable()


@pytest.mark.anyio
async def test_open_sockets_keep_no_dependency_machinery(tmp_path: Path) -> None:
    """An open socket keeps FastAPI's per-request exit stack and nothing of its route's
    dependency machinery (exit stacks, solved dependencies): the socket's endpoint takes
    no dependency, and each of thousands of open sockets paid ~7 KB for it."""
    async with table_server(tmp_path) as (port, made):
        gc.collect()
        before = alive("AsyncExitStack")
        async with open_sockets(port, made["table_id"], 4) as sockets:
            gc.collect()
            # One per socket: the application's middleware's (fastapi/middleware).
            assert alive("AsyncExitStack") - before <= len(sockets)


@pytest.mark.anyio
async def test_open_sockets_keep_no_handshake_request(tmp_path: Path) -> None:
    """An open socket keeps nothing of its handshake's request (websockets' parser kept
    it, headers and all, for the socket's life); its frames are still read."""
    async with table_server(tmp_path) as (port, made):
        gc.collect()
        before = alive("Request")
        async with open_sockets(port, made["table_id"], 4) as sockets:
            # Frames after the handshake are read: a seat's hello gets its state.
            await sockets[0].send(orjson.dumps({"type": "hello", "token": made["token"]}))
            assert orjson.loads(await sockets[0].recv())["you"] == 0
            gc.collect()
            # The client's own handshake requests (one a socket) are in this process too.
            assert alive("Request") - before <= len(sockets)


@pytest.mark.anyio
@pytest.mark.parametrize("closing", ["close frame", "connection dropped"])
async def test_closed_sockets_frame_parsers_are_freed_without_the_collector(
    tmp_path: Path, closing: str
) -> None:
    """websockets' frame parser is a generator of its connection's that waits for more
    bytes or the stream's end, which uvicorn never feeds it: the connection and its
    parser a reference cycle. Every socket open at a collection had them frozen, and
    each closed one left them (~10 objects) for good (`serve.tune_gc`); the server lets
    go of the parser when the socket closes, the client's way of closing either way."""
    async with table_server(tmp_path) as (port, made):
        gc.collect()
        before = alive("ServerProtocol")  # the server's side (the client's: ClientProtocol)
        gc.disable()
        try:
            count = 5
            async with open_sockets(port, made["table_id"], count) as sockets:
                assert alive("ServerProtocol") - before == count
                if closing == "connection dropped":  # no close frame: a lost network
                    for socket in sockets:
                        socket.transport.abort()
            for _ in range(100):  # the server's side of the close, its tasks ending
                if alive("ServerProtocol") <= before:
                    break
                await asyncio.sleep(0.02)
            assert alive("ServerProtocol") <= before
        finally:
            gc.enable()
