"""The server's own reading and writing of the usual frames (`connections`): a short
text frame read in one piece without websockets' parser, a text frame's head made
without websockets' `Frame`, byte for byte what websockets would read and write;
anything else (split, several at once, fragmented) still through websockets'."""

from __future__ import annotations

import asyncio
import struct
from pathlib import Path
from typing import Any

import orjson
import pytest
from websockets.frames import Frame, Opcode

from hollywood_gin.web.guard.connections import text_frame, whole_frames
from tests.conftest import upgrade_request
from tests.web.test_socket_memory import protocols, serving

PING = b'{"type":"ping"}'


def masked(payload: bytes, opcode: int = 0x1, fin: bool = True) -> bytes:
    """A client's frame of `payload`, masked (key 1, 2, 3, 4)."""
    return Frame(Opcode(opcode), payload, fin=fin).serialize(mask=True, extensions=[])


@pytest.mark.parametrize("size", [0, 1, 125, 126, 2249, 65535, 65536])
def test_a_text_frame_is_websockets_own(size: int) -> None:
    text = b"x" * size
    assert text_frame(text) == Frame(Opcode.TEXT, text).serialize(mask=False, extensions=[])


def test_whole_frames_ends_where_a_frame_ends() -> None:
    one, big = masked(PING), masked(b"y" * 300)
    assert whole_frames(one) and whole_frames(one + big) and whole_frames(big + one)
    for cut in (1, 2, 5, 6, len(one) - 1):
        assert not whole_frames(one[:cut])
        assert not whole_frames(one + one[:cut])
    assert not whole_frames(big[:3])  # inside the extended length


class Raw:
    """A table socket written by hand: the upgrade, then frames as its test sends them."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, url: str) -> Raw:
        base, _, table_id = url.removeprefix("ws://").rpartition("/ws/tables/")
        host, port = base.split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(upgrade_request(f"http://{base}", table_id))
        await reader.readuntil(b"\r\n\r\n")
        raw = cls(reader, writer)
        assert (await raw.message())["type"] == "state"
        return raw

    async def send(self, *chunks: bytes) -> None:
        for chunk in chunks:
            self.writer.write(chunk)
            await self.writer.drain()
            await asyncio.sleep(0.05)  # each its own read, as far as loopback goes

    async def message(self) -> dict[str, Any]:
        head = await self.reader.readexactly(2)
        size = head[1] & 0x7F
        if size == 126:
            (size,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif size == 127:
            (size,) = struct.unpack("!Q", await self.reader.readexactly(8))
        assert head[0] == 0x81, head  # a whole text frame
        message: dict[str, Any] = orjson.loads(await self.reader.readexactly(size))
        return message

    async def pongs(self, count: int) -> None:
        for _ in range(count):
            assert (await asyncio.wait_for(self.message(), 10))["type"] == "pong"


def parsed_by_websockets(protocol: Any) -> list[int]:
    """Count the reads the protocol hands to websockets' parser from now on."""
    conn, calls = protocol.conn, [0]
    receive_data = conn.receive_data

    def counted(data: bytes) -> None:
        calls[0] += 1
        receive_data(data)

    conn.receive_data = counted
    return calls


@pytest.mark.anyio
async def test_short_frames_are_read_without_websockets_parser(tmp_path: Path) -> None:
    async with serving(tmp_path) as (url, _token):
        raw = await Raw.open(url)
        (protocol,) = [p for p in protocols() if not p.disconnected]
        calls = parsed_by_websockets(protocol)
        for _ in range(3):
            await raw.send(masked(PING))
            await raw.pongs(1)
        await raw.send(masked(b'{"type": "ping"}'))  # the reader's, still read here
        await raw.pongs(1)
        assert calls == [0]
        raw.writer.close()


@pytest.mark.anyio
async def test_frames_split_joined_or_fragmented_are_read_as_before(tmp_path: Path) -> None:
    async with serving(tmp_path) as (url, _token):
        raw = await Raw.open(url)
        frame = masked(PING)
        await raw.send(frame + frame)  # two in one read
        await raw.pongs(2)
        await raw.send(masked(PING[:5], fin=False), masked(PING[5:], opcode=0x0))  # fragmented
        await raw.pongs(1)
        await raw.send(frame[:2], frame[2:])  # split after its head
        await raw.pongs(1)
        await raw.send(frame, frame[:7], frame[7:] + frame)  # whole, then split
        await raw.pongs(3)
        raw.writer.close()


@pytest.mark.anyio
async def test_a_short_frame_that_is_not_utf8_closes_as_before(tmp_path: Path) -> None:
    async with serving(tmp_path) as (url, _token):
        raw = await Raw.open(url)
        await raw.send(masked(b'{"type":"\xff"}'))
        head = await asyncio.wait_for(raw.reader.readexactly(4), 10)
        assert head[0] == 0x88 and struct.unpack("!H", head[2:4])[0] == 1007  # a close
        raw.writer.close()
