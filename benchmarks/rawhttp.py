"""A keep-alive HTTP/1.1 client for a benchmark's set-up: JSON requests over one
asyncio stream, one at a time, and nothing else (no pool, no redirects, no TLS).

Why: the load generator is one process on the machine it measures, and httpx's
`AsyncClient` cost it about 9 ms of CPU a request at 32 connections (its pool and
header machinery), five times the server's own ~1.8 ms: `bench_days` set-up of
1,000 tables (4,000 requests) was the client's limit, not the server's.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlsplit

import orjson


class HttpError(Exception):
    """The connection broke or answered something this client does not read."""


class RawHttp:
    """One kept-alive connection to `base` (http://host:port)."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        return self._reader, self._writer

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(OSError):
                await self._writer.wait_closed()
        self._reader = self._writer = None

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        """(status, the JSON answer or None); one retry on a connection the server had
        closed meanwhile (as httpx's retry of a kept-alive connection)."""
        for attempt in (0, 1):
            try:
                return await self._once(method, path, body, token)
            except (OSError, asyncio.IncompleteReadError, HttpError):
                await self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _once(self, method: str, path: str, body: Any, token: str | None) -> tuple[int, Any]:
        reader, writer = await self._open()
        data = b"" if body is None else orjson.dumps(body)
        head = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            f"Content-Length: {len(data)}",
        ]
        if body is not None:
            head.append("Content-Type: application/json")
        if token is not None:
            head.append(f"Authorization: Bearer {token}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        status_line = await reader.readline()
        if not status_line:
            raise HttpError("connection closed")
        status = int(status_line.split(b" ", 2)[1])
        length, close = 0, False
        while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding":
                raise HttpError("chunked answers are not read here")
            elif name == "connection" and value.strip().lower() == "close":
                close = True
        payload = await reader.readexactly(length) if length else b""
        if close:
            await self.close()
        return status, orjson.loads(payload) if payload else None
