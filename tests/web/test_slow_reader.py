"""A socket that stops reading, on the real server: the seats' moves are answered as if it
were not there, it gets the newest state once it reads again, and cutting it frees its
place. (The hub's outboxes and the writer task per socket, `tables/hub.py`,
`web/socket/endpoint.py`; any change to how frames reach a socket must keep these.)"""

from __future__ import annotations

import os
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from tests.conftest import running_server, upgrade_request
from tests.web.test_fair_deals_wire import FAST, Seat, play_hand

METRICS = {**FAST, "HOLLYWOOD_GIN_METRICS": "true"}
# States asked for by the stalled socket: about 7 MB, more than loopback's buffers hold
# (the kernel's send buffer grows to 4 MB, uvicorn's to 64 KB), so the server's sends to
# it wait (measured: about 3 MB taken, then the states queued and replaced each other).
HELLOS = 8000


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with running_server(tmp_path / "tables.sqlite3", env=METRICS) as (base, _proc):
        yield base


def new_table(base: str) -> tuple[str, str, str]:
    made = httpx.post(f"{base}/api/tables", json={"name": "Ann"}).json()
    joined = httpx.post(f"{base}/api/tables/{made['table_id']}/seats", json={"name": "Bob"})
    return made["table_id"], made["token"], joined.json()["token"]


def stalled_socket(base: str, table_id: str) -> socket.socket:
    """A spectator's socket with a small receive buffer that reads the handshake's
    answer and then nothing."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    sock.sendall(upgrade_request(base, table_id))
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(1)  # byte by byte: nothing of the first frame taken
    assert answer.startswith(b"HTTP/1.1 101")
    return sock


def client_frame(text: bytes) -> bytes:
    """A masked text frame, as a client sends one (shorter than 126 bytes)."""
    mask = os.urandom(4)
    return (
        bytes([0x81, 0x80 | len(text)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(text))
    )


def stall(sock: socket.socket, hellos: int) -> None:
    """Ask for the state `hellos` times (each answered with the whole state, about 1 KB)."""
    sock.sendall(client_frame(b'{"type":"hello"}') * hellos)


def frames(data: bytes) -> list[tuple[int, bytes]]:
    """The whole server frames in `data` (unmasked): (opcode, payload)."""
    found = []
    at = 0
    while at + 2 <= len(data):
        opcode, length = data[at] & 0x0F, data[at + 1] & 0x7F
        at += 2
        if length == 126:
            (length,) = struct.unpack("!H", data[at : at + 2])
            at += 2
        elif length == 127:
            (length,) = struct.unpack("!Q", data[at : at + 8])
            at += 8
        if at + length > len(data):
            break
        found.append((opcode, data[at : at + length]))
        at += length
    return found


def sockets_open(base: str) -> float:
    for line in httpx.get(f"{base}/metrics").text.splitlines():
        if line.startswith("hollywood_gin_sockets "):
            return float(line.split()[1])
    raise AssertionError("no socket gauge")


def wait_for_sockets(base: str, count: int) -> None:
    deadline = time.monotonic() + 15
    while sockets_open(base) != count:
        assert time.monotonic() < deadline, f"{sockets_open(base)} sockets, not {count}"
        time.sleep(0.05)


def play_hands(seats: list[Seat], hands: int) -> dict[str, Any]:
    for number in range(hands):
        if number:
            for seat in seats:
                seat.send({"kind": "next_hand"})
        play_hand(seats)
    for seat in seats:
        seat.drain()
    return seats[0].state


def test_a_spectator_that_stops_reading_delays_nobody_and_then_gets_the_newest_state(
    server: str,
) -> None:
    table_id, token0, token1 = new_table(server)
    seats = [Seat(server, table_id, token0), Seat(server, table_id, token1)]
    stalled = stalled_socket(server, table_id)
    wait_for_sockets(server, 3)
    stall(stalled, HELLOS)
    # Every move of a hand answered to both seats (`Seat.send` waits for each, with a
    # timeout) while the spectator reads nothing.
    final = play_hands(seats, 1)
    assert sockets_open(server) == 3  # held, not dropped: states replace each other
    stalled.settimeout(2)
    got = b""
    while True:
        try:
            chunk = stalled.recv(65536)
        except TimeoutError:
            break
        assert chunk
        got += chunk
    states = [orjson.loads(p) for op, p in frames(got) if op == 1]
    assert all(s["type"] == "state" for s in states)
    # Older states were left out (they replaced each other while the sends waited), and
    # the newest one came when it read again.
    assert len(states) < 1 + HELLOS + final["version"]
    assert states[-1]["version"] == final["version"]
    stalled.close()
    wait_for_sockets(server, 2)
    for seat in seats:
        seat.close()


def test_a_stalled_socket_that_is_cut_frees_its_place(server: str) -> None:
    table_id, token0, token1 = new_table(server)
    seats = [Seat(server, table_id, token0), Seat(server, table_id, token1)]
    stalled = stalled_socket(server, table_id)
    stall(stalled, HELLOS)
    play_hands(seats, 1)
    # Reset, not closed: the server learns of it only from its own writes and reads.
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    stalled.close()
    wait_for_sockets(server, 2)
    state = play_hands(seats, 1)  # the table plays on
    assert state["hand"]["phase"] == "over"
    for seat in seats:
        seat.close()
