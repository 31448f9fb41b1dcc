"""How the push worker posts (`hollywood_gin.tables.push.post` with the worker's
`new_session`, aiohttp): over kept connections to a push service on loopback, whatever
way the service frames its answer or ends its connections, never following a
redirect; and the aes128gcm it seals, opened by http_ece."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import http_ece  # type: ignore[import-untyped]
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from hollywood_gin.tables.push import b64url, encrypt, new_session, post

pytestmark = pytest.mark.anyio

Answer = Callable[[int], bytes]  # the n-th request's answer (bytes as sent)
Serve = Callable[..., Awaitable["Service"]]
HEADERS = {"TTL": "60", "Content-Encoding": "aes128gcm"}


@dataclass
class Service:
    """A push service on loopback that records each request and answers `answer(n)`;
    it closes the connection after an answer that says so, or any when `hang_up`."""

    answer: Answer
    hang_up: bool = False
    # A connection's second request is read, then the connection closed unanswered.
    one_each: bool = False
    connections: int = 0
    requests: list[tuple[bytes, dict[bytes, bytes], bytes]] = field(default_factory=list)
    origin: str = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        served = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                line, *rest = head.rstrip(b"\r\n").split(b"\r\n")
                fields = dict(r.lower().split(b": ", 1) for r in rest)
                body = await reader.readexactly(int(fields[b"content-length"]))
                self.requests.append((line, fields, body))
                if self.one_each and served:
                    break
                served += 1
                answer = self.answer(len(self.requests))
                writer.write(answer)
                await writer.drain()
                if self.hang_up or answer.startswith(b"HTTP/1.0") or b"close" in answer:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


@pytest.fixture
async def serve() -> AsyncIterator[Callable[..., Awaitable[Service]]]:
    servers: list[asyncio.Server] = []

    async def starting(answer: Answer, hang_up: bool = False, one_each: bool = False) -> Service:
        service = Service(answer, hang_up, one_each)
        server = await asyncio.start_server(service.handle, "127.0.0.1", 0)
        servers.append(server)
        service.origin = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        return service

    yield starting
    for server in servers:
        server.close()


def created(_n: int) -> bytes:
    return b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"


async def test_one_kept_connection_for_many_posts(serve: Serve) -> None:
    service = await serve(created)
    session = new_session()
    try:
        for n in range(5):
            assert await post(session, service.origin + f"/p/a b?x={n}", b"sealed", HEADERS) == 201
    finally:
        await session.close()
    assert service.connections == 1
    line, fields, body = service.requests[0]
    # Percent-encoded: no space can split the request line.
    assert line == b"POST /p/a%20b?x=0 HTTP/1.1"
    assert fields[b"host"] == service.origin.removeprefix("http://").encode()
    assert fields[b"ttl"] == b"60" and fields[b"content-encoding"] == b"aes128gcm"
    assert body == b"sealed"


async def test_answers_framed_every_way(serve: Serve) -> None:
    answers = {
        1: b"HTTP/1.1 410 Gone\r\nTransfer-Encoding: chunked\r\n\r\n4\r\ngone\r\n0\r\n\r\n",
        2: b"HTTP/1.1 429 Too Many\r\nContent-Length: 5\r\nRetry-After: 1\r\n\r\nslow!",
        3: b"HTTP/1.1 201 Created\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        4: b"HTTP/1.0 201 Created\r\n\r\n",  # a body that ends with the connection
    }
    service = await serve(lambda n: answers[n], hang_up=False)
    session = new_session()
    try:
        got = [await post(session, service.origin + "/p", b"x", HEADERS) for _ in answers]
    finally:
        await session.close()
    assert got == [410, 429, 201, 201]
    # Kept across the first two; "Connection: close" and HTTP/1.0 each end theirs.
    assert service.connections == 2


async def test_a_kept_connection_the_service_closed_is_replaced(
    serve: Serve,
) -> None:
    service = await serve(created, hang_up=True)  # closes after each answer, unsaid
    session = new_session()
    try:
        for _ in range(3):
            assert await post(session, service.origin + "/p", b"x", HEADERS) == 201
            await asyncio.sleep(0)  # the close may or may not be seen before the next
    finally:
        await session.close()
    assert service.connections == 3 and len(service.requests) == 3


async def test_a_kept_connection_closed_unanswered_is_replaced_once(serve: Serve) -> None:
    # The close comes after the request went out on the kept connection: the post
    # goes again, once, on a new one.
    service = await serve(created, one_each=True)
    session = new_session()
    try:
        for _ in range(3):
            assert await post(session, service.origin + "/p", b"x", HEADERS) == 201
    finally:
        await session.close()
    assert service.connections == 3 and len(service.requests) == 5


async def test_no_answer_garbage_or_no_service_is_no_answer(serve: Serve) -> None:
    silent = asyncio.Event()

    async def never(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await silent.wait()
        writer.close()

    quiet = await asyncio.start_server(never, "127.0.0.1", 0)
    garbage = await serve(lambda n: b"SMTP ready\r\n\r\n")
    session = new_session(timeout=0.3)
    try:
        port = quiet.sockets[0].getsockname()[1]
        assert await post(session, f"http://127.0.0.1:{port}/p", b"x", HEADERS) == 0
        assert await post(session, garbage.origin + "/p", b"x", HEADERS) == 0
        quiet.close()
        await quiet.wait_closed()
        assert await post(session, f"http://127.0.0.1:{port}/p", b"x", HEADERS) == 0
        # The same session still posts where a service answers.
        ok = await serve(created)
        assert await post(session, ok.origin + "/p", b"x", HEADERS) == 201
    finally:
        silent.set()
        await session.close()


@pytest.mark.parametrize("size", [0, 1, 150, 4000])
def test_sealed_messages_open_with_http_ece(size: int) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    auth = os.urandom(16)
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    plain = os.urandom(size)
    body = encrypt(plain, b64url(public), b64url(auth))
    assert http_ece.decrypt(body, private_key=key, auth_secret=auth, version="aes128gcm") == plain
    # A fresh sender key and salt each time.
    assert body[:16] != encrypt(plain, b64url(public), b64url(auth))[:16]
    with pytest.raises(ValueError):
        encrypt(os.urandom(4096), b64url(public), b64url(auth))


async def test_a_redirect_is_not_followed(serve: Serve) -> None:
    elsewhere = await serve(created)
    moved = f"HTTP/1.1 307 Moved\r\nLocation: {elsewhere.origin}/p\r\nContent-Length: 0\r\n\r\n"
    service = await serve(lambda n: moved.encode())
    session = new_session()
    try:
        assert await post(session, service.origin + "/p", b"x", HEADERS) == 307
    finally:
        await session.close()
    assert len(service.requests) == 1 and elsewhere.requests == []


def test_a_worker_process_closes_its_session_when_it_ends(tmp_path: Path) -> None:
    """The pool's processes are spawned and end through the interpreter's shutdown: a
    session left open there prints "Unclosed client session" into the host's log at
    every stop. A process that delivered a batch (a message whose keys no browser made:
    the session is opened, nothing is posted) then ends as a pool's process does."""
    script = (
        "from hollywood_gin.tables.push import deliver, new_private_key\n"
        "host = 'mailto:host@example.org'\n"
        "one = [('https://push.example/x', b'hi', 'AA', 'AA')]\n"
        "print(deliver(new_private_key(), host, one)[0])\n"
        "deliver(new_private_key(), host, [])\n"  # a new key pair: the first session closed
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[-1]"
    assert "Unclosed" not in done.stderr, done.stderr
