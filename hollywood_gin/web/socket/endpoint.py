"""`/ws/tables/{id}`: one socket = one reader (parse, rate-limit, relay) and one writer.

The endpoint knows sockets, not rules: it parses each frame into a typed
message, asks the registry to act, and turns a refusal into one `error`
frame. The writer drains the connection's outbox (see `hollywood_gin.tables.hub`), so a
socket that stops reading stalls only itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable

import orjson
from fastapi import FastAPI, WebSocket
from pydantic import ValidationError
from starlette.routing import Match, WebSocketRoute
from starlette.types import Message, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect, WebSocketState

from hollywood_gin.config import Settings
from hollywood_gin.engine.errors import Refusal
from hollywood_gin.tables.errors import TableError
from hollywood_gin.tables.hub import (
    CLOSE_GONE,
    CLOSE_POLICY,
    CLOSE_TRY_AGAIN,
    Connection,
    Seat,
)
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.table import Table
from hollywood_gin.web import metrics
from hollywood_gin.web.errors import validation_message
from hollywood_gin.web.guard.connections import DIRECT, DirectSocket
from hollywood_gin.web.guard.limits import TokenBucket
from hollywood_gin.web.guard.seats import cookie_name
from hollywood_gin.web.guard.security import origin_allowed
from hollywood_gin.web.socket.inbound import ActionFrame, parse
from hollywood_gin.web.socket.messages import (
    CLIENT_MESSAGE,
    ActionMessage,
    Arrange,
    Hello,
    Hint,
    Ping,
    React,
)

log = logging.getLogger("hollywood_gin.ws")

# How long a cookieless socket may take to say `hello` when spectator places are full.
HELLO_GRACE_SECONDS = 2.0
# A seat reacts at most once in this long (docs/protocol-guide.md "Around the match").
REACTION_SECONDS = 2.0


def error_frame(code: str, message: str, version: int | None) -> dict[str, object]:
    return {"type": "error", "code": code, "message": message, "version": version}


def frame_text(message: dict[str, object]) -> str:
    return orjson.dumps(message).decode()


# The page's heartbeat, as `static/js/socket.js` sends it (`JSON.stringify`).
PING_FRAME = b'{"type":"ping"}'


@functools.lru_cache(maxsize=4)
def pong_frame(build: str) -> bytes:
    """The answer to `ping`, encoded once for the server's build."""
    return orjson.dumps({"type": "pong", "build": build})


def _retrieve(task: asyncio.Task[None]) -> None:
    """Mark a side's exception as seen: a socket's end is routine, not a loose error."""
    if not task.cancelled():
        task.exception()


class Outbox(Connection):
    """A socket's outbox that sends a frame at once (the protocol's `write_now`)
    when nothing is ahead of it: no frame waiting, none with the writer, the client
    reading. Its writer task then wakes only for what must wait (a client reading
    slowly) and for the close: at human pace that is a task's turn and its wait
    (a coroutine, a future, their callbacks: young objects the collector walks) fewer
    for every frame. Frames leave in the same order, and a state still replaces only
    an older one not yet sent."""

    __slots__ = ("_busy", "_socket")

    def __init__(self, seat: Seat, socket: DirectSocket) -> None:
        super().__init__(seat)
        self._socket = socket
        # The writer holds a frame it took and has not sent yet.
        self._busy = False

    def send(self, frame: bytes, *, state: bool = False) -> None:
        if (
            not self._frames
            and not self._busy
            and self.close_code is None
            and self._socket.write_now(frame)
        ):
            if state:
                self.sent_states += 1
            return
        super().send(frame, state=state)

    async def next_frame(self) -> bytes | None:
        self._busy = False
        frame = await super().next_frame()
        self._busy = frame is not None
        return frame


class Session:
    """One socket's conversation with one table."""

    # One for each open socket: no `__dict__`.
    __slots__ = (
        "_changing",
        "_hint",
        "_pong",
        "_reader_first",
        "_stop",
        "_writer",
        "bucket",
        "clock",
        "conn",
        "registry",
        "settings",
        "table",
        "websocket",
    )

    def __init__(
        self,
        websocket: WebSocket,
        table: Table,
        registry: Registry,
        settings: Settings,
        clock: Callable[[], float],
    ) -> None:
        self.websocket = websocket
        self.table = table
        self.registry = registry
        self.settings = settings
        self.clock = clock
        self.bucket = TokenBucket(settings.ws_messages_per_second, settings.ws_burst, clock)
        self.conn: Connection | None = None
        # The reader is making a change: it runs in the reader's own task
        # (`Registry.act(in_caller=True)`), so the reader is not cancelled meanwhile;
        # `_stop` asks it to end once the change is done.
        self._changing = False
        self._stop = False
        # The hint being computed for this socket (the reader goes on meanwhile).
        self._hint: asyncio.Task[None] | None = None
        # The task writing, while it writes; whether the reader ended first.
        self._writer: asyncio.Task[object] | None = None
        self._reader_first = False
        # The `pong` frame, once asked for (`app.state` raises and catches an
        # AttributeError inside each look-up of a name: ~2,000 instructions a ping).
        self._pong: bytes | None = None

    def error(self, code: str, message: str) -> None:
        counted = metrics.of(self.websocket.app)
        if counted is not None:
            counted.error(code)
        if self.conn is not None:
            self.conn.send_message(error_frame(code, message, self.table.version))

    async def refuse(self, code: str, message: str, close_code: int) -> None:
        with contextlib.suppress(Exception):
            await self.websocket.send_text(frame_text(error_frame(code, message, None)))
            await self.websocket.close(close_code, message)

    async def run(self) -> None:
        hub = self.registry.hub
        token = self.websocket.cookies.get(cookie_name(self.table.id))
        forget_headers(self.websocket)
        seat = self.table.seat_for_token(token) if token else None
        if not hub.room_for(self.table.id, seat):
            if seat is not None:
                await self.refuse("rate_limited", "too many tabs for this seat", CLOSE_TRY_AGAIN)
                return
            # Full of spectators: a client that holds a token may still say hello.
            seat = await self._await_hello()
            if seat is None or not hub.room_for(self.table.id, seat):
                await self.refuse("rate_limited", "too many connections", CLOSE_TRY_AGAIN)
                return
        direct = self._direct()
        self.conn = Connection(seat) if direct is None else Outbox(seat, direct)
        hub.attach(self.table, self.conn)
        self.registry.presence.look(self.table)
        try:
            await self.registry.touch(self.table)
            # The writer runs in this task (the server's for the socket), the reader in
            # one of its own: a task, its frames and `asyncio.wait`'s futures fewer for
            # each of thousands of open sockets (docs/performance.md "Memory"), and the
            # reader still nothing cancels while it makes a change (`_end_reader`).
            reader = asyncio.create_task(self._read())
            reader.add_done_callback(self._reader_ended)
            await self._write_while(reader)
        finally:
            if self._hint is not None:
                self._hint.cancel()
            hub.detach(self.table, self.conn)
            self.registry.presence.look(self.table)

    async def _write_while(self, reader: asyncio.Task[None]) -> None:
        """Write until the socket ends, from either side, then see the reader end."""
        writer = self._writer = asyncio.current_task()
        try:
            await self._write()
        except asyncio.CancelledError:
            self._writer = None
            assert writer is not None
            # The reader ended first and stopped the writing (`_reader_ended`), and
            # nothing else asked this task to stop: the socket's end, not the server's.
            if not (self._reader_first and writer.uncancel() == 0):
                # The server is going away: end the reader, then let the cancellation go on.
                self._end_reader(reader)
                raise
        except Exception as exc:
            self._writer = None
            if not isinstance(exc, WebSocketDisconnect | RuntimeError):
                log.warning("socket ended by %r", exc)
        self._writer = None
        if not reader.done():
            self._end_reader(reader)
            # Not `await reader`: were this task cancelled meanwhile (the server going
            # away), that would cancel a reader still making its change.
            await asyncio.wait({reader})
        ended = None if reader.cancelled() else reader.exception()
        if ended is not None and not isinstance(ended, WebSocketDisconnect | RuntimeError):
            log.warning("socket ended by %r", ended)

    def _reader_ended(self, reader: asyncio.Task[None]) -> None:
        """The reader's end (the client gone) ends the writing; not when the reader
        closed the connection (a flood): the writer then sends the close itself."""
        _retrieve(reader)
        writer = self._writer
        closing = self.conn is not None and self.conn.closed
        if writer is not None and not writer.done() and not closing:
            self._reader_first = True
            writer.cancel()

    def _end_reader(self, reader: asyncio.Task[None]) -> None:
        """Cancel the reader, unless it is making a change: a change cut in half would
        roll memory back under a store write that still commits. It then ends as soon
        as the change is done."""
        if self._changing:
            self._stop = True
        else:
            reader.cancel()

    async def _await_hello(self) -> int | None:
        """The seat named by a `hello` sent as the first message (its state comes on attach)."""
        try:
            message = await asyncio.wait_for(self.websocket.receive(), HELLO_GRACE_SECONDS)
        except TimeoutError:
            return None
        data = message.get("text") or message.get("bytes")
        if data is None:
            return None
        try:
            parsed = CLIENT_MESSAGE.validate_json(data)
        except ValidationError:
            return None
        if isinstance(parsed, Hello) and parsed.token:
            return self.table.seat_for_token(parsed.token)
        return None

    async def _write(self) -> None:
        assert self.conn is not None
        websocket = self.websocket
        # This server's sockets send orjson's bytes as a text frame (`DIRECT`). It goes
        # around every ASGI middleware's wrapping of `send`/`receive`: none of ours wraps
        # a socket's messages (the gate passes them through); one that must, drops it.
        direct = self._direct()
        while True:
            frame = await self.conn.next_frame()
            if frame is None:
                if websocket.application_state == WebSocketState.CONNECTED:
                    await websocket.close(self.conn.close_code or 1000, self.conn.close_reason)
                return
            if direct is None:
                await websocket.send_text(frame.decode())
            else:
                try:
                    await direct.send_text_bytes(frame)
                except OSError:  # the client is gone: what Starlette's `send` raises then
                    raise WebSocketDisconnect(code=1006) from None
            # orjson's bytes keep their whole write buffer (4-8 KB): an idle socket
            # waiting for its next frame must not hold the last one.
            del frame

    def _direct(self) -> DirectSocket | None:
        direct: DirectSocket | None = self.websocket.scope.get("extensions", {}).get(DIRECT)
        return direct

    async def _read(self) -> None:
        direct = self._direct()
        if direct is None:
            await self._read_all(self.websocket.receive)
            return
        # The page's heartbeat is answered in the protocol's callback while this
        # reader waits (`answer`); let go of this session when it ends.
        direct.answer_with(self)
        try:
            await self._read_all(direct.next_message)
        finally:
            direct.answer_with(None)

    async def _read_all(self, receive: Callable[[], Awaitable[Message]]) -> None:
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            data = message.get("text")
            if data is None:
                data = message.get("bytes")
            if data is None:
                continue
            await self.handle(data)
            assert self.conn is not None
            if self.conn.closed or self._stop:
                return

    def answer(self, data: bytes) -> bool:
        """The page's heartbeat, `ping` exactly as it sends it, answered as `handle`
        would, in the protocol's callback while the reader waits for a message (so in
        the same order): True, answered; False, for the reader. At human pace a
        socket's heartbeats are as many as its moves' frames: without the reader's
        turn a heartbeat is one callback and one write."""
        if data != PING_FRAME or self.conn is None or self.conn.closed or self._stop:
            return False
        if self.bucket.take():
            self.conn.send(self.pong())
        else:
            self._refused()
        return True

    def pong(self) -> bytes:
        pong = self._pong
        if pong is None:
            pong = self._pong = pong_frame(self.websocket.app.state.build)
        return pong

    def _refused(self) -> None:
        assert self.conn is not None
        if self.bucket.refused_in_a_row >= 3 * self.settings.ws_burst:
            self.conn.close(CLOSE_POLICY, "flooding")
        else:
            self.error("rate_limited", "too many messages; slow down")

    async def handle(self, data: str | bytes) -> None:
        """Answer one frame. Nothing here closes the socket except a persistent flood."""
        assert self.conn is not None
        if not self.bucket.take():
            self._refused()
            return
        size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "replace"))
        if size > self.settings.ws_max_message_bytes:
            self.error(
                "too_large", f"a message has at most {self.settings.ws_max_message_bytes} bytes"
            )
            return
        try:
            message = parse(data)
        except ValidationError as exc:
            _, text = validation_message(exc.errors(include_url=False))
            self.error("bad_message", text)
            return
        if isinstance(message, ActionFrame):
            if self.conn.seat is None:
                self.error("not_seated", "spectators cannot play; join a free seat first")
            else:
                await self.act(self.conn.seat, message)
        elif isinstance(message, Ping):
            self.conn.send(self.pong())
        elif isinstance(message, Hello):
            self.hello(message)
        elif self.conn.seat is None:
            self.error("not_seated", "spectators cannot play; join a free seat first")
        elif isinstance(message, ActionMessage):
            await self.act(self.conn.seat, message)
        elif isinstance(message, React):
            self.react(self.conn.seat, message.reaction)
        elif isinstance(message, Hint):
            self.hint(self.conn.seat)
        elif isinstance(message, Arrange):
            try:
                await self.registry.arrange(self.table, self.conn.seat, message.cards)
            except Refusal as exc:
                # `server_error` among them: not stored, so not done; the client may resend.
                self.error(exc.code, str(exc))

    def hello(self, message: Hello) -> None:
        assert self.conn is not None
        hub = self.registry.hub
        if message.token is None:
            hub.send_state(self.table, self.conn)
            self.registry.presence.look(self.table)  # a seat saying hello again is back
            return
        seat = self.table.seat_for_token(message.token)
        if seat is None:
            self.error("not_seated", "that token is no seat of this table")
            hub.send_state(self.table, self.conn)
        elif seat == self.conn.seat:
            hub.send_state(self.table, self.conn)
            self.registry.presence.look(self.table)
        elif not hub.room_for(self.table.id, seat):
            self.error("rate_limited", "too many tabs for this seat")
        else:
            hub.detach(self.table, self.conn)
            self.conn.seat = seat
            hub.attach(self.table, self.conn)
            self.registry.presence.look(self.table)

    def hint(self, seat: int) -> None:
        """Ask the coach for a hint (`Computer.hint`) in a task of its own: the reader
        goes on reading (the move itself, a ping) while the worker thinks."""
        if self._hint is not None and not self._hint.done():
            self.error("rate_limited", "a hint is on its way")
            return
        self._hint = asyncio.get_running_loop().create_task(self._answer_hint(seat))
        self._hint.add_done_callback(_retrieve)

    async def _answer_hint(self, seat: int) -> None:
        assert self.conn is not None
        try:
            body = await self.registry.computer.hint(self.table, seat)
        except Refusal as exc:
            self.error(exc.code, str(exc))
            return
        except Exception:
            log.exception("a hint failed")
            self.error("server_error", "the hint could not be computed; ask again")
            return
        self.conn.send_message({"type": "hint", **body})

    def react(self, seat: int, reaction: str) -> None:
        """A preset reaction to every connection of the table: not stored, no version;
        one per seat per `REACTION_SECONDS` (over all of the seat's tabs)."""
        if not self.registry.hub.may_react(self.table.id, seat, self.clock(), REACTION_SECONDS):
            self.error("rate_limited", "one reaction every 2 seconds")
            return
        self.registry.hub.send_all(
            self.table.id, {"type": "reaction", "seat": seat, "reaction": reaction}
        )

    async def act(self, seat: int, message: ActionFrame | ActionMessage) -> None:
        try:
            if not isinstance(message, ActionFrame):  # a shape `inbound.fast` leaves to pydantic
                # `next_hand` / `new_match` may carry the seat's entropy for the next deal.
                message = ActionFrame(
                    message.version,
                    message.action.to_action(),
                    getattr(message.action, "entropy", None),
                )
            self._changing = True
            try:
                await self.registry.act(
                    self.table,
                    seat,
                    message.action,
                    message.version,
                    entropy=message.entropy,
                    in_caller=True,  # nothing cancels this task meanwhile: `_end_reader`
                )
            finally:
                self._changing = False
        except Refusal as exc:  # `server_error` among them: not stored, so not done
            self.error(exc.code, str(exc))
            if exc.code == "stale_version":
                # The client missed something: give it the present at once.
                assert self.conn is not None
                self.registry.hub.send_state(self.table, self.conn)


def forget_headers(websocket: WebSocket) -> None:
    """Let the handshake's headers go once they are read (the origin, the host, the
    seat's cookie): the socket's scope, which the server's protocol keeps, held them
    for the socket's life (~1 KB a socket: a list of pairs of bytes), and Starlette's
    views of them (its `Headers`, cookies and URL, made when first read) with them."""
    scope = websocket.scope
    if scope.get("headers"):
        scope["headers"] = []
    kept = getattr(websocket, "__dict__", {})
    for view in ("_headers", "_cookies", "_url"):
        kept.pop(view, None)


async def table_socket(websocket: WebSocket, table_id: str) -> None:
    app = websocket.app
    settings: Settings = app.state.settings
    registry: Registry = app.state.registry
    origin = websocket.headers.get("origin")
    if not origin_allowed(origin, websocket.url.scheme, websocket.headers.get("host"), settings):
        # Closing before accept makes the server answer the handshake with 403.
        await websocket.close(CLOSE_POLICY)
        return
    await websocket.accept()
    try:
        table = await registry.find(table_id)
    except TableError as exc:  # the store cannot be asked now: the client tries again
        with contextlib.suppress(Exception):
            await websocket.send_text(frame_text(error_frame(exc.code, str(exc), None)))
            await websocket.close(CLOSE_TRY_AGAIN, "try again")
        return
    if table is None:
        with contextlib.suppress(Exception):
            await websocket.send_text(
                frame_text(error_frame("unknown_table", "no such table", None))
            )
            await websocket.close(CLOSE_GONE, "unknown table")
        return
    clock: Callable[[], float] = getattr(app.state, "ws_clock", time.monotonic)
    with contextlib.suppress(WebSocketDisconnect):
        await Session(websocket, table, registry, settings, clock).run()


async def table_route(websocket: WebSocket) -> None:
    await table_socket(websocket, websocket.path_params["table_id"])


# Under the table's path, where its seat cookie is sent (`seat_cookie_paths`); the
# first path stays for clients that know it (and say `hello` with their token).
# Starlette's own routes, not FastAPI's `websocket` decorator: FastAPI keeps, for the
# life of each socket, its dependency machinery (exit stacks, solved dependencies,
# the route context), about 4 KB a socket of the ~50
# (docs/research/performance-log.md "Memory per table, both seats connected"); this
# endpoint takes no dependency.
ROUTES = [
    WebSocketRoute("/ws/tables/{table_id}", table_route),
    WebSocketRoute("/t/{table_id}/ws", table_route),
]


def matched(scope: Scope) -> Scope | None:
    """What the routes below add to a table socket's scope (its path parameters), as
    the router matches them; None for any other scope."""
    if scope["type"] != "websocket":
        return None
    for route in ROUTES:
        match, child = route.matches(scope)
        if match is Match.FULL:
            return child
    return None


async def direct(scope: Scope, receive: Receive, send: Send) -> bool:
    """Serve a table's socket straight from the gate (`gate.Direct`), past the
    middleware and the router, which pass a socket through untouched and would each
    hold a coroutine frame for its life; False for any other path."""
    child = matched(scope)
    if child is None:
        return False
    scope.update(child)
    await table_socket(WebSocket(scope, receive, send), child["path_params"]["table_id"])
    return True


def install(app: FastAPI) -> None:
    app.router.routes.extend(ROUTES)
