"""Frames written at once for an idle writer (`Connection.write_with`), and handed to the
writer task when the send would wait: order kept per socket, nobody waits for a slow
one, a stopped writer leaves nothing behind.

The socket is a stand-in with uvicorn's shape: its send waits on a `writable` event
(cleared while the peer does not read, as uvicorn's `pause_writing` does) and then
writes; it does not wait while the event is set."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.tables.hub import Connection, Hub
from tests.tables.test_hub import Board


class Socket:
    def __init__(self) -> None:
        self.writable = asyncio.Event()
        self.writable.set()
        self.written: list[bytes] = []
        self.fail: Exception | None = None
        self.ended_mid_send = 0

    async def send(self, frame: bytes) -> None:
        if self.fail is not None:
            raise self.fail
        try:
            await self.writable.wait()
        except GeneratorExit:
            self.ended_mid_send += 1
            raise
        self.written.append(frame)


async def writer(conn: Connection, sock: Socket) -> None:
    """The web layer's writer (`Session._write`), on the stand-in socket."""
    conn.write_with(sock.send)
    try:
        while True:
            frame = await conn.next_frame()
            if frame is None:
                return
            await sock.send(frame)
    finally:
        conn.write_with(None)


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


@pytest.mark.anyio
async def test_a_frame_for_an_idle_writer_is_written_in_the_senders_call() -> None:
    conn, sock = Connection(0), Socket()
    task = asyncio.create_task(writer(conn, sock))
    await settle()
    conn.send(b"a", state=True)
    conn.send_message({"type": "pong"})
    # Written before the sender gave the loop a turn: no hop through the writer task.
    assert sock.written == [b"a", b'{"type":"pong"}']
    assert conn.pending() == [] and conn.sent_states == 1
    conn.close(1000)
    await asyncio.wait_for(task, 5)


@pytest.mark.anyio
async def test_a_send_that_would_wait_goes_to_the_writer_and_later_frames_queue_behind_it() -> None:
    conn, sock = Connection(0), Socket()
    task = asyncio.create_task(writer(conn, sock))
    await settle()
    sock.writable.clear()  # the peer stopped reading
    conn.send(b"1")
    conn.send(b"2")
    conn.send(b"3", state=True)
    conn.send(b"4", state=True)  # replaces the unsent state 3
    await settle()
    assert sock.written == [] and conn.pending() == [b"2", b"4"]
    sock.writable.set()
    await settle()
    assert sock.written == [b"1", b"2", b"4"]
    conn.send(b"5")  # idle again: at once
    assert sock.written[-1] == b"5"
    conn.close(1000)
    await asyncio.wait_for(task, 5)


@pytest.mark.anyio
async def test_a_slow_socket_delays_nobody_else() -> None:
    hub = Hub(max_tabs_per_seat=2, max_spectators=2)
    board = Board(hub)
    slow, quick = Connection(None), Connection(None)
    slow_sock, quick_sock = Socket(), Socket()
    hub.attach(board, slow)
    hub.attach(board, quick)
    tasks = [
        asyncio.create_task(writer(slow, slow_sock)),
        asyncio.create_task(writer(quick, quick_sock)),
    ]
    await settle()
    slow_sock.writable.clear()
    for version in (2, 3, 4):
        board.version = version
        hub.broadcast(board)  # returns at once, whatever the slow socket does
        assert len(quick_sock.written) == version  # its own state, written in the call
    assert len(slow_sock.written) == 1  # the state of attach; the rest waits
    slow_sock.writable.set()
    await settle()
    assert len(slow_sock.written) == 3  # the unfinished one, then only the newest state
    hub.close_all(1012)
    await asyncio.wait_for(asyncio.gather(*tasks), 5)


@pytest.mark.anyio
async def test_a_failing_send_ends_the_writer_with_its_error() -> None:
    conn, sock = Connection(0), Socket()
    task = asyncio.create_task(writer(conn, sock))
    await settle()
    sock.fail = ConnectionResetError("peer gone")
    conn.send(b"a")  # the sender never sees the socket's error
    with pytest.raises(ConnectionResetError):
        await asyncio.wait_for(task, 5)
    conn.send(b"b")  # the writer is gone: queued, written by nobody
    assert conn.pending() == [b"b"] and sock.written == []


@pytest.mark.anyio
async def test_a_stopped_writer_ends_an_unfinished_send() -> None:
    conn, sock = Connection(0), Socket()
    task = asyncio.create_task(writer(conn, sock))
    await settle()
    sock.writable.clear()
    conn.send(b"a")  # waits for the socket: handed to the writer
    task.cancel()  # the socket's session ends before it drains
    with pytest.raises(asyncio.CancelledError):
        await task
    # The send was ended where it waited, and nothing is left waiting on the socket.
    assert sock.written == [] and sock.ended_mid_send == 1
    assert not sock.writable._waiters
    conn.send(b"b")  # no writer: queued, not written
    assert conn.pending() == [b"b"] and sock.written == []


@pytest.mark.anyio
async def test_a_writer_that_stops_before_finishing_drops_the_send() -> None:
    conn, sock = Connection(0), Socket()
    conn.write_with(sock.send)
    waiting = asyncio.create_task(conn.next_frame())
    await settle()
    sock.writable.clear()
    conn.send(b"a")  # started, would wait: left for the writer
    conn.write_with(None)  # the writer stops without taking it
    assert sock.ended_mid_send == 1 and not sock.writable._waiters
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting


# One step of a socket's life: a frame (state or not), the peer stopping or resuming
# reading, or the loop running a while.
STEP = st.one_of(
    st.tuples(st.just("frame"), st.booleans()),
    st.tuples(st.just("pause"), st.just(False)),
    st.tuples(st.just("resume"), st.just(False)),
    st.tuples(st.just("run"), st.booleans()),
)


@pytest.mark.anyio
@settings(max_examples=150, deadline=None)
@given(steps=st.lists(STEP, max_size=40))
async def test_frames_arrive_once_in_order_and_the_newest_state_always(
    steps: list[tuple[str, Any]],
) -> None:
    conn, sock = Connection(0, max_pending=1000), Socket()
    task = asyncio.create_task(writer(conn, sock))
    await settle()
    sent: list[tuple[bytes, bool]] = []
    for kind, flag in steps:
        if kind == "frame":
            frame = b"%d" % len(sent)
            sent.append((frame, flag))
            conn.send(frame, state=flag)
        elif kind == "pause":
            sock.writable.clear()
        elif kind == "resume":
            sock.writable.set()
        else:
            await (settle() if flag else asyncio.sleep(0))
    sock.writable.set()
    await settle()
    order = [frame for frame, _ in sent]
    positions = [order.index(frame) for frame in sock.written]
    assert positions == sorted(set(positions))  # each once, in the order sent
    others = [frame for frame, state in sent if not state]
    assert [f for f in sock.written if f in others] == others  # no other frame lost
    states = [frame for frame, state in sent if state]
    if states:
        assert states[-1] in sock.written  # the newest state always arrives
    assert conn.pending() == []
    conn.close(1000)
    await asyncio.wait_for(task, 5)
