"""What the server itself bounds before a request reaches the app
(docs/protocol-guide.md "Limits"): header size, header count and header read time,
and open connections per address.

uvicorn's default HTTP parser (httptools) bounds none of them: a 16 MiB header and
100,000 headers were answered 200, and 2,000 connections trickling header bytes were
all still held after a minute, until the process ran out of files. uvicorn's own
`timeout_keep_alive` starts only after a first response, and its
`limit_concurrency` counts WebSockets too (every socket of every table), so neither
fits. A thin subclass of uvicorn's protocols does: measured with
`benchmarks/bench_abuse.py` (attack 4), the cost per request is one counter and one
timer.

Behind a reverse proxy the proxy's connections all come from its address, which is
never capped per address (the proxy bounds its clients: see the README).

Bodies: a request whose Content-Length passes the body limit is refused
with 413 before a byte of it is read, a body without a length is cut where it passes
the limit, and a body must arrive within `body_timeout_seconds` (408). Open
connections in all stay below the process's open-file limit (503 past it), so a
crowd of addresses cannot take every file the store and the health check need.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import struct
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.http11 import Request
from websockets.protocol import OPEN
from websockets.protocol import Protocol as WebSocketProtocol

try:
    from websockets.speedups import apply_mask
except ImportError:  # websockets built without its C speedups
    from websockets.utils import apply_mask

from hollywood_gin.config import Settings
from hollywood_gin.web.errors import error_body
from hollywood_gin.web.guard.addresses import ClientAddress, address_key
from hollywood_gin.web.guard.gate import TEST_HOOKS_BODY_BYTES
from hollywood_gin.web.guard.security import HEADERS

# An ASGI extension of this server's sockets (`GuardedWebSocket`), in each socket's
# scope: the protocol itself (`DirectSocket`), whose coroutines the app calls without
# the ASGI chain around them (Starlette's `WebSocket.send` / `receive` and their state
# checks, its exception handler's wrapper); the protocol rather than a dict of its
# bound methods, which each socket kept (~0.3 KB). `send_text_bytes` takes bytes,
# already UTF-8 (orjson's), and sends them as that text frame, byte for byte: no
# decoding to a str for the protocol to encode again (two passes over every state
# frame, ~2 KB each); docs/research/performance-log.md "The stack per frame, cut".
# Like the protocol's ASGI `send`, it raises `ClientDisconnected` (an OSError) once
# the client is gone; `receive` is the protocol's ASGI `receive`. `write_now` sends
# such bytes at once, no coroutine, when nothing holds the frame back, and says
# whether it did; `answer_with` sets what answers a message the reader would take at
# once, in the protocol's callback. Without the extension in the scope (another
# server, a test client) the app goes through ASGI.
DIRECT = "hollywood_gin.direct"

# Files kept free of connections: the store, its WAL, logs, the computer's workers'
# pipes, and a health check that arrives in a flood.
RESERVED_FILES = 64


class _Waiters:
    """Futures of whatever waits on a socket's `Inbox` or `Writable`, in a list made
    only when something waits (most sockets, most of the time, have none)."""

    __slots__ = ("_loop", "_waiters")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._waiters: list[asyncio.Future[None]] | None = None

    def _waiter(self) -> asyncio.Future[None]:
        waiter = self._loop.create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        return waiter


class Inbox(_Waiters):
    """uvicorn's receive queue for a socket (`put_nowait`, `get`, `empty`: all it asks
    of its `asyncio.Queue`) as a list, and a future only while the app waits for a
    message. An `asyncio.Queue` holds three deques and an `Event` with a fourth, 760
    bytes each even empty: 3 KB of every open socket, for a queue that holds one
    message or none (uvicorn stops reading the socket while one waits)."""

    __slots__ = ("_items", "_taker")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop)
        self._items: list[Any] = []
        # The future `take` gave out, while it waits: handed the next message itself.
        self._taker: asyncio.Future[Any] | None = None

    def put_nowait(self, item: Any) -> None:
        taker = self._taker
        if taker is not None:
            self._taker = None
            if not taker.done():  # (a taker cancelled leaves the message queued)
                taker.set_result(item)
                return
        self._items.append(item)
        self._wake()

    def take(self) -> asyncio.Future[Any]:
        """The next message as a future that `put_nowait` hands it to: a reader's wait
        without the two coroutines of `get` and uvicorn's `receive` a message (young
        objects the collector walks while each socket waits seconds for its next
        one). One taker at a time; a message already queued comes at once."""
        future = self._loop.create_future()
        if self._items:
            future.set_result(self._items.pop(0))
        else:
            self._taker = future
        return future

    def _wake(self) -> None:
        # The getter woken leaves the list here, so its `get` has nothing to drop.
        waiters = self._waiters
        if waiters is None:
            return
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
                waiters.remove(waiter)
                if not waiters:
                    self._waiters = None
                return

    def _drop(self, waiter: asyncio.Future[None]) -> None:
        if self._waiters is not None and waiter in self._waiters:
            self._waiters.remove(waiter)
            if not self._waiters:
                self._waiters = None

    def empty(self) -> bool:
        return not self._items

    def awaited(self) -> bool:
        """A getter waits and nothing is queued: the next message goes to it at once."""
        taker = self._taker
        waits = self._waiters is not None or (taker is not None and not taker.done())
        return waits and not self._items

    def qsize(self) -> int:
        return len(self._items)

    async def get(self) -> Any:
        while not self._items:
            waiter = self._waiter()
            try:
                await waiter
            except BaseException:
                self._drop(waiter)
                if self._items:
                    self._wake()  # a wake-up this getter took goes to the next one
                raise
        return self._items.pop(0)


class Writable(_Waiters):
    """uvicorn's `writable` flag for a socket (`set`, `clear`, `wait`, `is_set`: all it
    asks of its `asyncio.Event`), with no deque until something waits on it (760 bytes
    of every open socket's memory; a write waits only while the client reads slowly)."""

    __slots__ = ("_set",)

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop)
        self._set = True

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        if self._set:
            return True
        waiter = self._waiter()
        try:
            await waiter
        finally:
            # `set` let go of the list; a cancelled wait takes itself out of it.
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)
        return True


# A server's text frame's head (RFC 6455 5.2: FIN and the text opcode, no mask), by
# the payload's length: one byte of length, or 126 and two, or 127 and eight.
_SHORT_HEADS = tuple(bytes((0x81, n)) for n in range(126))
_HEAD_16 = struct.Struct("!BBH").pack
_HEAD_64 = struct.Struct("!BBQ").pack


def whole_frames(data: bytes) -> bool:
    """Whether `data`, read from a frame's first byte, ends where a frame ends (a
    client's frames, masked; RFC 6455 5.2)."""
    at, end = 0, len(data)
    while at < end:
        if end - at < 2:
            return False
        second = data[at + 1]
        size, head = second & 0x7F, 2
        if size == 126:
            size, head = int.from_bytes(data[at + 2 : at + 4], "big"), 4
        elif size == 127:
            size, head = int.from_bytes(data[at + 2 : at + 10], "big"), 10
        if second & 0x80:
            head += 4
        if at + head > end:
            return False
        at += head + size
    return at == end


def text_frame(text: bytes) -> bytes:
    """`text` (UTF-8) as a server's whole text frame, as websockets serializes it."""
    size = len(text)
    if size < 126:
        return _SHORT_HEADS[size] + text
    if size < 1 << 16:
        return _HEAD_16(0x81, 126, size) + text
    return _HEAD_64(0x81, 127, size) + text


class Answerer(Protocol):
    """What answers a socket's message in the protocol's callback (`answer_with`)."""

    def answer(self, data: bytes) -> bool: ...


class DirectSocket(Protocol):
    """The `DIRECT` extension: what the app calls on this server's socket protocol."""

    async def send_text_bytes(self, text: bytes) -> None: ...

    def write_now(self, text: bytes) -> bool: ...

    async def receive(self) -> Any: ...

    def next_message(self) -> Awaitable[Any]: ...

    def answer_with(self, answerer: Answerer | None) -> None: ...


class Marks:
    """A socket's own marks, apart from uvicorn's protocol's `__dict__` (about 40 names
    already: a few more and it would grow to twice its 1.6 KB)."""

    __slots__ = ("aligned", "answerer", "heard", "pinged")

    def __init__(self) -> None:
        self.heard = 0.0  # the loop's time of the last bytes received (`Keepalive`)
        self.pinged = 0.0  # when the sweep pinged the socket, unanswered (0: no ping out)
        # The frame parser waits for a frame's first byte (`GuardedWebSocket.data_received`).
        self.aligned = False
        # What answers a text message its reader would take at once (`answer_with`).
        self.answerer: Answerer | None = None


class Alive(Protocol):
    """What the keepalive sweep asks of a socket (`GuardedWebSocket`)."""

    marks: Marks

    def send_sweep_ping(self) -> None: ...

    def keepalive_timeout(self) -> None: ...


class Keepalive:
    """One sweep of all open sockets instead of uvicorn's timers for each (a timer a
    socket, ~1.3 KB of a table's memory, and a wake-up for each socket's ping and each
    answer's deadline): every `period` seconds, a socket nothing came from for
    `interval` seconds less that period is pinged, and one whose ping was answered
    by nothing for `timeout` seconds is closed (1011), so a client gone without a word
    is dropped within `interval` + `timeout` of its last bytes, as uvicorn's did.
    Anything received counts as alive: a page sends its own ping every 25 s, so its
    sockets are never pinged by the server at all."""

    __slots__ = ("_handle", "_loop", "interval", "period", "sockets", "timeout")

    def __init__(self, interval: float, timeout: float) -> None:
        self.interval = interval
        self.timeout = timeout
        # A quarter of the shorter of the two, at most 5 s: a sweep of 16,000 sockets
        # takes a few ms, so its own cost is a fraction of a per mille of the core.
        self.period = min(5.0, interval / 4, timeout / 4)
        self.sockets: set[Alive] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None

    def add(self, socket: Alive, loop: asyncio.AbstractEventLoop) -> None:
        socket.marks.heard = loop.time()
        socket.marks.pinged = 0.0
        self.sockets.add(socket)
        if self._handle is None or self._loop is not loop:
            self._loop = loop
            self._handle = loop.call_later(self.period, self.sweep)

    def discard(self, socket: Alive) -> None:
        self.sockets.discard(socket)

    def sweep(self) -> None:
        self._handle = None
        loop = self._loop
        if loop is None or not self.sockets or loop.is_closed():
            return
        now = loop.time()
        quiet = now - (self.interval - self.period)
        late = now - self.timeout
        for socket in tuple(self.sockets):
            marks = socket.marks
            pinged = marks.pinged
            if pinged:
                if marks.heard < pinged:
                    if pinged <= late:
                        self.sockets.discard(socket)
                        socket.keepalive_timeout()
                    continue
                marks.pinged = 0.0  # answered (or anything else came)
            if marks.heard <= quiet:
                marks.pinged = now
                socket.send_sweep_ping()
        self._handle = loop.call_later(self.period, self.sweep)


def raw_refusal(status: int, reason: str, code: str, message: str) -> bytes:
    """A whole HTTP/1.1 answer, written straight to the socket, that closes it."""
    body = orjson.dumps(error_body(code, message))
    security = "".join(f"{name.lower()}: {value}\r\n" for name, value in HEADERS.items())
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "cache-control: no-store\r\n"
        f"{security}"
        "connection: close\r\n\r\n"
    ).encode()
    return head + body


def open_file_limit(*, raised: bool = False) -> int:
    """The process's open-file limit: the soft one, or the hard one the server raises
    it to at start (`raised`: what `check` predicts)."""
    files = 1 << 20
    with contextlib.suppress(ValueError, OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        files = hard if raised else soft
        if files == resource.RLIM_INFINITY:
            files = 1 << 20
    return files


def connection_limit(setting: int, files: int | None = None) -> int:
    """Open connections in all: the setting, kept below the open-file limit (an eighth
    of it, and at least RESERVED_FILES, stay free); 0 means from the limit alone."""
    soft = open_file_limit() if files is None else files
    bound = max(1, soft - max(RESERVED_FILES, soft // 8))
    return min(setting, bound) if setting > 0 else bound


class ConnectionCounts:
    """Open connections per address key (IPv4 address or IPv6 /64), by transport, so a
    connection upgraded to a WebSocket stays counted until its socket closes."""

    def __init__(self, limit: int, trusted_proxies: list[str], total: int = 1 << 30) -> None:
        self.limit = limit
        self.total_limit = total
        self.addresses = ClientAddress(trusted_proxies)
        self._by_transport: dict[int, str] = {}
        self._open: dict[str, int] = {}
        self.total = 0
        # Connections still waiting for their first request's headers, oldest first,
        # each with what closes it: at the bound, the oldest makes room for a newcomer,
        # so idle connections cannot keep out a health check or a player.
        self.waiting: dict[int, Callable[[], None]] = {}
        self.evicted = 0

    def admit(self, transport: asyncio.BaseTransport) -> str | None:
        """None: admitted (and counted); else why not, "address" or "total"."""
        if self.total >= self.total_limit:
            if not self.waiting:
                return "total"
            oldest = next(iter(self.waiting))
            self.waiting.pop(oldest)()  # closes it; counted until its socket is gone
            self.evicted += 1
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) and peer else None
        # A Unix socket, or a trusted proxy carrying many clients: no per-address cap.
        key = "" if host is None or self.addresses.trusted(host) else address_key(host)
        if key and self._open.get(key, 0) >= self.limit:
            return "address"
        if key:
            self._open[key] = self._open.get(key, 0) + 1
        self._by_transport[id(transport)] = key
        self.total += 1
        return None

    def release(self, transport: asyncio.BaseTransport | None) -> None:
        if transport is None:
            return
        self.waiting.pop(id(transport), None)
        key = self._by_transport.pop(id(transport), None)
        if key is None:
            return
        self.total -= 1
        if not key:
            return
        left = self._open.get(key, 0) - 1
        if left > 0:
            self._open[key] = left
        else:
            self._open.pop(key, None)

    def open(self, key: str) -> int:
        return self._open.get(key, 0)


def let_go_of_protocol(transport: asyncio.BaseTransport) -> None:
    """Break the cycle asyncio's own socket transport keeps, closed or not: it holds
    its bound `_read_ready_cb` (`asyncio.selector_events`, CPython 3.11). Each closed
    socket left 5 objects to the cyclic collector, which never walks them again once
    frozen (`serve.tune_gc`). uvloop's transports (the server's loop where it is
    installed) hold none."""
    if getattr(transport, "_read_ready_cb", None) is not None:
        transport._read_ready_cb = None  # type: ignore[attr-defined]


def _declared_length(headers: list[tuple[bytes, bytes]]) -> int | None:
    for name, value in headers:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # httptools refuses it first
    return None


def _chunked(headers: list[tuple[bytes, bytes]]) -> bool:
    return any(name.lower() == b"transfer-encoding" for name, _ in headers)


# The attributes uvicorn's `WebSocketsSansIOProtocol` (0.55) sets on itself: the
# slots of `GuardedWebSocket` (no class attribute of its has one of these names).
UVICORN_WS_ATTRIBUTES = (
    "app",
    "app_state",
    "asgi_version",
    "client",
    "close_sent",
    "close_timeout",
    "close_timer",
    "config",
    "conn",
    "connections",
    "curr_msg_data_type",
    "default_headers",
    "disconnected",
    "frames",
    "handshake_complete",
    "handshake_initiated",
    "initial_response",
    "last_ping_rtt",
    "logger",
    "loop",
    "pending_ping_payload",
    "ping_interval",
    "ping_sent_at",
    "ping_timeout",
    "ping_timer",
    "pong_timer",
    "queue",
    "read_paused",
    "request",
    "response",
    "root_path",
    "scheme",
    "scope",
    "server",
    "tasks",
    "transport",
    "writable",
)


def protocols(settings: Settings) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol]]:
    """uvicorn's `http=` and `ws=` protocol classes with this server's limits."""
    counts = ConnectionCounts(
        settings.max_connections_per_address,
        settings.trusted_proxies,
        connection_limit(settings.max_connections),
    )
    keepalive = (
        Keepalive(settings.ws_ping_seconds, settings.ws_ping_timeout_seconds)
        if settings.ws_ping_seconds > 0
        else None
    )
    header_timeout = settings.header_timeout_seconds
    body_timeout = settings.body_timeout_seconds
    max_header_bytes = settings.max_header_bytes
    max_headers = settings.max_headers
    max_body = (
        max(settings.max_body_bytes, TEST_HOOKS_BODY_BYTES)
        if settings.test_hooks
        else settings.max_body_bytes
    )

    class GuardedHttp(HttpToolsProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._in_headers = False
            self._header_bytes = 0
            self._header_count = 0
            self._header_timer: asyncio.TimerHandle | None = None
            self._body_bytes = 0
            self._body_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            refused = counts.admit(transport)
            if refused == "address":
                self._refuse(429, "Too Many Requests", "rate_limited", "too many connections")
                return
            if refused == "total":
                self._make_room()
                return
            self._start_headers()
            counts.waiting[id(transport)] = self._make_room

        def _make_room(self) -> None:
            self._refuse(503, "Service Unavailable", "busy", "the server is full; try again later")

        def connection_lost(self, exc: Exception | None) -> None:
            counts.release(self.transport)
            self._stop_timer()
            self._stop_body_timer()
            super().connection_lost(exc)
            let_go_of_protocol(self.transport)

        def _stop_body_timer(self) -> None:
            if self._body_timer is not None:
                self._body_timer.cancel()
                self._body_timer = None

        def _body_too_slow(self) -> None:
            self._body_timer = None
            if not self.transport.is_closing():
                self._refuse(408, "Request Timeout", "too_slow", "the request body took too long")

        def _body_too_large(self) -> None:
            self._refuse(
                413,
                "Content Too Large",
                "too_large",
                f"a request body has at most {max_body} bytes",
            )

        def _start_headers(self) -> None:
            if self._in_headers:
                return
            self._in_headers = True
            self._header_bytes = 0
            self._header_count = 0
            self._header_timer = self.loop.call_later(header_timeout, self._headers_too_slow)

        def _stop_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if self._in_headers and not self.transport.is_closing():
                self._refuse(
                    408, "Request Timeout", "too_slow", "the request headers took too long"
                )

        def _refuse(self, status: int, reason: str, code: str, message: str) -> None:
            self._stop_timer()
            self._stop_body_timer()
            self._in_headers = False
            counts.waiting.pop(id(self.transport), None)
            if not self.transport.is_closing():
                self.transport.write(raw_refusal(status, reason, code, message))
                self.transport.close()

        def _too_large(self) -> None:
            self._refuse(
                431,
                "Request Header Fields Too Large",
                "too_large",
                f"at most {max_header_bytes} bytes and {max_headers} header lines",
            )

        def data_received(self, data: bytes) -> None:
            if self.transport.is_closing():
                return
            if self._in_headers:
                self._header_bytes += len(data)
            super().data_received(data)
            if self._in_headers and (
                self._header_bytes > max_header_bytes or self._header_count > max_headers
            ):
                self._too_large()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._start_headers()

        def on_header(self, name: bytes, value: bytes) -> None:
            self._header_count += 1
            if self._header_count <= max_headers:
                super().on_header(name, value)

        def on_headers_complete(self) -> None:
            self._in_headers = False
            counts.waiting.pop(id(self.transport), None)
            self._stop_timer()
            # Headers that came whole in one read are measured here, exactly.
            size = len(self.url) + sum(len(n) + len(v) + 4 for n, v in self.headers)
            if self._header_count > max_headers or size > max_header_bytes:
                self._too_large()
                return
            # Refused from its length before a byte of the body is read.
            length = _declared_length(self.headers)
            if length is not None and length > max_body:
                self._body_too_large()
                return
            self._body_bytes = 0
            if (length or 0) > 0 or _chunked(self.headers):
                self._body_timer = self.loop.call_later(body_timeout, self._body_too_slow)
            super().on_headers_complete()

        def on_body(self, body: bytes) -> None:
            if self.transport.is_closing():
                return
            self._body_bytes += len(body)
            if self._body_bytes > max_body:
                self._body_too_large()  # reading stops here, at the limit
                return
            super().on_body(body)

        def on_message_complete(self) -> None:
            self._stop_body_timer()
            if not self.transport.is_closing():
                super().on_message_complete()

        def handle_websocket_upgrade(self) -> None:
            super().handle_websocket_upgrade()
            # The socket's protocol has the transport now and this one is done; its
            # parser holds its methods, a reference cycle: each socket's handshake
            # left ~22 objects (and the closed transport) to the cyclic collector.
            self.parser = None  # type: ignore[assignment]

    class GuardedWebSocket(WebSocketsSansIOProtocol):
        # Every name uvicorn's protocol sets, and ours, in slots: its `__dict__` held
        # ~40 names (1,584 bytes, one more would double it), read by hash at every
        # attribute of every frame; a slot is an offset. A name uvicorn adds later
        # still lands in the `__dict__` (made only then).
        __slots__ = (*UVICORN_WS_ATTRIBUTES, "_chunk", "_chunks", "marks")
        _chunk: bytes | None

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._chunk = None
            self._chunks = 0
            # What uvicorn asks of its queue and event, without their deques.
            self.queue = Inbox(self.loop)  # type: ignore[assignment]
            self.writable = Writable(self.loop)  # type: ignore[assignment]
            self.marks = Marks()

        # Counted when its HTTP connection was made; released when the socket closes.
        def connection_lost(self, exc: Exception | None) -> None:
            counts.release(self.transport)
            super().connection_lost(exc)
            let_go_of_protocol(self.transport)
            # The extension's methods hold the protocol, which holds the scope: without
            # this, a closed socket's protocol waited for the cyclic collector, which
            # never walks it again once frozen (`serve.tune_gc`): it stayed for good.
            scope = getattr(self, "scope", None)
            if scope is not None:
                scope["extensions"].pop(DIRECT, None)
            self.marks.answerer = None  # the app's session: the same cycle
            # websockets' parser is a generator of its connection's, waiting for bytes
            # or the end of the stream, which uvicorn never feeds it: the two a cycle
            # for good, each socket's ~10 objects left frozen once a collection saw them.
            self.conn.parser = None  # type: ignore[assignment]

        def answer_with(self, answerer: Answerer | None) -> None:
            """Let `answerer` see each text message that would go straight to the app's
            waiting reader, in the protocol's own callback: True, it is answered and
            the reader is not woken (a heartbeat: no task's turn, no pause and resume
            of the reading); False, it goes to the reader as always. None: no more."""
            self.marks.answerer = answerer

        def send_receive_event_to_app(self) -> None:
            try:
                awaited = self.queue.awaited()  # type: ignore[attr-defined]
                if not awaited or self.close_sent:
                    super().send_receive_event_to_app()
                    return
                answerer = self.marks.answerer
                if (
                    answerer is not None
                    and self.curr_msg_data_type == "text"
                    and len(self.frames) == 1
                    and answerer.answer(self.frames[0])
                ):
                    self.frames = []
                    return
                # uvicorn stops reading at each message until the app takes it; taken at
                # once, the reading goes on (each pause and resume: two or three `epoll_ctl`
                # calls of uvloop's). A message for a busy reader still stops the reading.
                if self.read_paused:
                    super().send_receive_event_to_app()
                    return
                self.read_paused = True
                try:
                    super().send_receive_event_to_app()
                finally:
                    self.read_paused = False
            except InvalidState:
                # A text not UTF-8 read with the client's close after it: websockets
                # echoed the close, and uvicorn's 1007 (a second close) raises. The
                # text is dropped and the connection ends here, as that close ends
                # it (its echo written, the app told): a message read between the
                # two must not reach the app, as websockets reads nothing past the
                # bad text. (Raised out of `data_received`, the loop dropped the
                # connection without the echo and logged a fatal error.)
                self.frames = []
                received = self.conn.close_rcvd
                self.queue.put_nowait(
                    {
                        "type": "websocket.disconnect",
                        "code": 1006 if received is None else received.code,
                        "reason": "" if received is None else received.reason,
                    }
                )
                self.transport.write(b"".join(self.conn.data_to_send()))
                self.close_sent = True
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            marks = self.marks
            marks.heard = self.loop.time()
            if marks.aligned:
                # Nearly every message a client sends (an action, the page's ping) is one
                # short text frame in one read: read here, without websockets' parser
                # (its generators, a `Frame`, its checks: ~3 µs a frame). The same checks
                # hold: a client's frame masked, FIN, no RSV bit (no extension), text,
                # no fragmented message under way, the connection open, the parser at
                # a frame's start with nothing unread.
                size = len(data)
                conn = self.conn
                if (
                    6 < size <= 131
                    and data[0] == 0x81
                    and data[1] == 0x80 + size - 6
                    and conn.state is OPEN
                    and conn.current_size is None
                    and not conn.extensions
                    and not conn.reader.buffer
                    and not conn.debug
                ):
                    self.curr_msg_data_type = "text"
                    self.frames = [apply_mask(data[6:], data[2:6])]
                    self.send_receive_event_to_app()
                    return
                super().data_received(data)
                # Still at a frame's start when these bytes were whole frames.
                marks.aligned = whole_frames(data)
                return
            if self.handshake_initiated:
                super().data_received(data)
                return
            # The handshake's bytes, seen by `handle_connect` (`_forget_request`): uvicorn
            # hands the request over in one piece, rebuilt from what httptools parsed.
            self._chunks += 1
            self._chunk = data
            try:
                super().data_received(data)
            finally:
                self._chunk = None

        def handle_connect(self, event: Request) -> None:
            super().handle_connect(event)
            scope = getattr(self, "scope", None)  # none when the handshake was refused
            if scope is not None:  # (the app starts on the next turn of the loop)
                scope["extensions"][DIRECT] = self
                self._forget_request()

        def _forget_request(self) -> None:
            """websockets' handshake parser goes on as the frame parser, and its frame
            keeps the handshake's request (its headers, ~2.6 KB) for the socket's life.
            Put a fresh frame parser in its place: the same code (`Protocol.parse`, where
            `ServerProtocol.parse` goes after the request), when it has read no byte past
            the request (the bytes received end with the request's blank line and none
            is left unread), as every client that waits for the 101 sends it; else keep it."""
            chunk, conn = self._chunk, self.conn
            if (
                chunk is None
                or self._chunks != 1
                or conn.reader.buffer
                or conn.handshake_exc is not None
                or chunk.find(b"\r\n\r\n") + 4 != len(chunk)
            ):
                return
            conn.parser = WebSocketProtocol.parse(conn)
            next(conn.parser)
            self.marks.aligned = True  # at a frame's start, nothing unread

        def write_now(self, text: bytes) -> bool:
            """Send a text already UTF-8 bytes as one frame at once, when nothing holds it
            back: the handshake done, no close sent, the client reading (the transport's
            buffer under its mark). False: not sent, the caller queues it for the writer,
            which waits or finds the client gone (`send_text_bytes`)."""
            if (
                not self.writable.is_set()
                or self.disconnected
                or not self.handshake_complete
                or self.close_sent
                or self.initial_response is not None
            ):
                return False
            return self._send_text(text)

        def _send_text(self, text: bytes) -> bool:
            """Write `text` as one text frame; False: the connection is not open."""
            conn = self.conn
            if (
                conn.state is OPEN
                and not conn.extensions
                and not conn.expect_continuation_frame
                and not conn.writes
                and not conn.debug
            ):
                # The frame websockets' `send_text` makes, made here: no `Frame`, no
                # buffer it is written into and copied out of (~1 µs a frame).
                self.transport.write(text_frame(text))
                return True
            try:
                conn.send_text(text)
            except InvalidState:
                return False
            self.transport.write(b"".join(conn.data_to_send()))
            return True

        def next_message(self) -> asyncio.Future[Any]:
            """uvicorn's `receive` as a future, no coroutine: the message it would
            return (`Inbox.take`), and the reading resumed as `receive` resumes it."""
            queue: Inbox = self.queue  # type: ignore[assignment]
            message = queue.take()
            if self.read_paused and queue.empty():
                self.read_paused = False
                self.transport.resume_reading()
            return message

        async def send_text_bytes(self, text: bytes) -> None:
            """uvicorn's `websocket.send` of a text, for a text already UTF-8 bytes."""
            await self.writable.wait()
            if self.disconnected:
                raise ClientDisconnected()
            if not self.handshake_complete or self.close_sent or self.initial_response:
                await self.send({"type": "websocket.send", "text": text.decode()})
                return
            if not self._send_text(text):
                raise ClientDisconnected()

        def start_keepalive(self) -> None:
            # The server's sweep (`Keepalive`), never uvicorn's timers (whatever its
            # `ws_ping_interval`), from when the handshake's answer is sent.
            if keepalive is not None:
                keepalive.add(self, self.loop)
            # uvicorn never reads the handshake's request and response again, and every
            # open socket would keep both, their headers parsed (about 4 KB of its ~42:
            # docs/performance.md).
            self.request = None  # type: ignore[assignment]
            self.response = None  # type: ignore[assignment]

        def stop_keepalive(self) -> None:
            super().stop_keepalive()
            if keepalive is not None:
                keepalive.discard(self)

        def send_sweep_ping(self) -> None:
            """The sweep's ping (`Keepalive`): any bytes received answer it, so it
            carries nothing to match (uvicorn ignores a pong it did not ask for)."""
            if self.close_sent or self.transport.is_closing():
                return
            self.conn.send_ping(b"")
            self.transport.write(b"".join(self.conn.data_to_send()))

    return GuardedHttp, GuardedWebSocket
