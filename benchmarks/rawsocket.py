"""A WebSocket client of the fewest steps a frame: the load generator's sockets.

`bench_capacity` plays thousands of seats from one process on one core, and what
each seat costs there is what the generator can measure at all. The `websockets`
library spends a task per socket reading, a coroutine and a task per send and its
own framing in Python on every frame. Here each socket is an `asyncio.Protocol`:
its frames are parsed in `data_received`, handed to a callback as bytes, and a
send is one `transport.write` of a header and the payload, never a task.

Client frames must be masked (RFC 6455 5.3); the mask key here is four zero bytes,
which leaves the payload as it is, so a frame's bytes can be built once (`frame`)
and sent to any number of sockets. No extensions are offered (no compression),
as the page's own sockets do not use it by default.
"""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import Callable
from typing import cast
from urllib.parse import urlsplit

TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA


def frame(payload: bytes, opcode: int = TEXT) -> bytes:
    """A whole masked client frame of `payload` (mask key zero: payload unchanged)."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 65536:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    return head + b"\0\0\0\0" + payload


class RawSocket(asyncio.Protocol):
    """One client socket: the upgrade, then each server message to `on_message`."""

    def __init__(self, request: bytes, on_message: Callable[[bytes], None] | None = None) -> None:
        self.request = request
        self.on_message = on_message
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.on_close: Callable[[], None] | None = None
        self._buffer = b""
        self._upgraded = False
        self._parts: list[bytes] = []  # a fragmented message's frames so far
        # Messages that came before an `on_message` was set (the first states).
        self.early: list[bytes] = []

    # --- asyncio.Protocol -------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, but behave as one.
        self.transport = cast(asyncio.Transport, transport)
        self.transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed before the upgrade"))
        if not self.closed.done():
            self.closed.set_result(None)
        if self.on_close is not None:
            self.on_close()

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer + data if self._buffer else data
        if not self._upgraded:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                self._buffer = buffer
                return
            status = buffer[: buffer.find(b"\r\n")]
            if b" 101 " not in status:
                self.opened.set_exception(ConnectionError(status.decode("latin-1")))
                assert self.transport is not None
                self.transport.close()
                return
            self._upgraded = True
            self.opened.set_result(None)
            buffer = buffer[end + 4 :]
        at, size = 0, len(buffer)
        while size - at >= 2:
            first, second = buffer[at], buffer[at + 1]
            n = second & 0x7F
            head = 2
            if n == 126:
                if size - at < 4:
                    break
                n = int.from_bytes(buffer[at + 2 : at + 4], "big")
                head = 4
            elif n == 127:
                if size - at < 10:
                    break
                n = int.from_bytes(buffer[at + 2 : at + 10], "big")
                head = 10
            if size - at < head + n:
                break
            payload = buffer[at + head : at + head + n]
            at += head + n
            self._frame(first, payload)
        self._buffer = buffer[at:] if at < size else b""

    def _frame(self, first: int, payload: bytes) -> None:
        opcode = first & 0x0F
        if opcode == PING:
            self.send(frame(payload, PONG))
            return
        if opcode == CLOSE:
            self.send(frame(payload[:2], CLOSE))
            assert self.transport is not None
            self.transport.close()
            return
        if opcode == PONG:
            return
        if not first & 0x80:  # more of this message to come
            self._parts.append(payload)
            return
        if self._parts:
            self._parts.append(payload)
            payload = b"".join(self._parts)
            self._parts = []
        if self.on_message is None:
            self.early.append(payload)
        else:
            self.on_message(payload)

    # --- use ------------------------------------------------------------------------
    def send(self, whole_frame: bytes) -> None:
        """Send a frame made by `frame` (nothing when the socket is gone)."""
        transport = self.transport
        if transport is not None and not transport.is_closing():
            transport.write(whole_frame)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def connect(url: str) -> RawSocket:
    """Open `url` (ws://host:port/path) and finish its upgrade."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()
    loop = asyncio.get_running_loop()
    _, sock = await loop.create_connection(lambda: RawSocket(request), host, port)
    await sock.opened
    return sock
