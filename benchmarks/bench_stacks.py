"""The serving stack alone: per-frame cost, memory per socket and the limits each server enforces.

Run (the candidates are not dependencies of the site; a throw-away venv keeps them out):

    python -m venv --system-site-packages /tmp/stacks
    /tmp/stacks/bin/pip install hypercorn granian picows wsproto psutil
    nice /tmp/stacks/bin/python -m benchmarks.bench_stacks          # ~4 min

The same bare relay (`benchmarks.serve.build_echo_app`: a frame in, one frame back to
the sender, or one frame of the app's state size to every socket of the room) is
served by each stack: uvicorn with its default WebSocket protocol (`websockets`,
sans-I/O) and with `wsproto` (httptools and uvloop both), Hypercorn (uvloop worker),
Granian (ASGI, one worker, one runtime thread) and, bypassing ASGI altogether, a
relay written for picows (Cython framing on the event loop's protocol). All of them
run at once on loopback; the load client of `bench_server` (its `Table` and `phase`)
drives T rooms of two seats plus a spectator on every tenth, flat out, and the
stacks take turns window by window, so a busy spell of the shared machine slows
them alike. Server CPU is that of the server's whole process tree (Granian runs
its worker in a child).

Then, on a fresh server of each stack: RSS growth per idle socket (N sockets, each
past its first round trip), and probes of what the server enforces by itself:
an upgrade request with a 64 KiB header, a request whose headers never finish
(how long until the server hangs up), a 32 MiB request body (HTTP stacks), a
1 MiB frame (each server told 16 KiB where it can be), and SIGTERM with a socket
open (the close code the client gets).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from typing import Any

import orjson
from fastapi import Request

from benchmarks.serve import REPO, build_echo_app, free_port, raise_open_files, stop

STACKS = ["uvicorn-websockets", "uvicorn-wsproto", "hypercorn", "granian", "picows"]
MAX_FRAME = 16 * 1024  # what the site allows: 4 KiB messages x 4 (hollywood_gin/serve.py)


def _asgi_app() -> Any:
    app = build_echo_app()

    @app.post("/sink")
    async def sink(request: Request) -> dict[str, int]:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
        return {"bytes": size}

    return app


def serve(stack: str, port: int) -> None:
    """Run the relay on `stack` in this process (the child of `server`)."""
    raise_open_files()
    if stack.startswith("uvicorn"):
        import uvicorn

        uvicorn.run(
            _asgi_app(),
            host="127.0.0.1",
            port=port,
            log_level="warning",
            ws="wsproto" if stack == "uvicorn-wsproto" else "websockets-sansio",
            ws_max_size=MAX_FRAME,
            ws_per_message_deflate=False,
            timeout_graceful_shutdown=5,
        )
    elif stack == "hypercorn":
        import uvloop
        from hypercorn.asyncio import serve as hyper_serve
        from hypercorn.config import Config

        config = Config()
        config.bind = [f"127.0.0.1:{port}"]
        config.websocket_max_message_size = MAX_FRAME
        config.graceful_timeout = 5
        config.loglevel = "WARNING"

        async def run() -> None:
            # `hypercorn.asyncio.serve` leaves signals to its caller (its CLI does this).
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            loop.add_signal_handler(signal.SIGTERM, stop.set)
            loop.add_signal_handler(signal.SIGINT, stop.set)
            await hyper_serve(_asgi_app(), config, shutdown_trigger=stop.wait)

        uvloop.run(run())
    elif stack == "picows":
        _serve_picows(port)
    else:
        raise SystemExit(f"unknown stack {stack}")


def _serve_picows(port: int) -> None:
    """The same relay on picows: frames handled in the protocol's callbacks, no ASGI."""
    import uvloop
    from picows import WSListener, WSMsgType, WSTransport, WSUpgradeRequest, ws_create_server

    rooms: dict[str, set[WSTransport]] = {}
    fillers: dict[int, str] = {}

    class Relay(WSListener):
        def __init__(self, room: str) -> None:
            self.room = room

        def on_ws_connected(self, transport: WSTransport) -> None:
            rooms.setdefault(self.room, set()).add(transport)

        def on_ws_disconnected(self, transport: WSTransport) -> None:
            members = rooms.get(self.room)
            if members is not None:
                members.discard(transport)
                if not members:
                    rooms.pop(self.room, None)

        def on_ws_frame(self, transport: WSTransport, frame: Any) -> None:
            if frame.msg_type == WSMsgType.CLOSE:
                transport.send_close(frame.get_close_code())
                transport.disconnect()
                return
            if frame.msg_type != WSMsgType.TEXT:
                return
            message = orjson.loads(frame.get_payload_as_bytes())
            pad = int(message.get("pad", 0))
            filler = fillers.get(pad) or fillers.setdefault(pad, "x" * pad)
            reply = orjson.dumps(
                {"type": "state", "version": message["version"] + 1, "pad": filler}
            )
            members = rooms.get(self.room, ()) if message.get("fanout") else (transport,)
            for member in list(members):
                member.send(WSMsgType.TEXT, reply)

    def factory(request: WSUpgradeRequest) -> Relay:
        path = request.path.decode() if isinstance(request.path, bytes) else request.path
        return Relay(path.rsplit("/", 1)[-1])

    async def main() -> None:
        server = await ws_create_server(
            factory, "127.0.0.1", port, max_frame_size=MAX_FRAME, websocket_handshake_timeout=5
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        loop.add_signal_handler(signal.SIGINT, stop.set)
        async with server:
            await stop.wait()
            # picows has no shutdown of its own: say 1012 (service restart) to every socket.
            for members in list(rooms.values()):
                for transport in list(members):
                    transport.send_close(1012)
                    transport.disconnect()
            await asyncio.sleep(0.2)

    uvloop.run(main())


def _command(stack: str, port: int) -> list[str]:
    if stack == "granian":
        return [
            sys.executable, "-m", "granian", "--interface", "asgi", "--host", "127.0.0.1",
            "--port", str(port), "--workers", "1", "--runtime-threads", "1", "--loop", "uvloop",
            "--log-level", "warning", "--ws",
            "benchmarks.bench_stacks:asgi_app",
        ]  # fmt: skip
    return [sys.executable, "-m", "benchmarks.bench_stacks", "--serve", stack, "--port", str(port)]


def __getattr__(name: str) -> Any:  # `asgi_app` for Granian, built only when asked for
    if name == "asgi_app":
        return _asgi_app()
    raise AttributeError(name)


def _ready(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port} after {timeout:.0f} s")


@contextmanager
def server(stack: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    proc = subprocess.Popen(_command(stack, port), cwd=REPO)
    try:
        _ready(port)
        time.sleep(0.5)  # Granian's worker may listen a moment after its parent
        yield f"http://127.0.0.1:{port}", proc
    finally:
        stop(proc)


def tree_cpu(pid: int) -> float:
    import psutil

    root = psutil.Process(pid)
    total = 0.0
    for proc in [root, *root.children(recursive=True)]:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


def tree_rss(pid: int) -> int:
    import psutil

    root = psutil.Process(pid)
    total = 0
    for proc in [root, *root.children(recursive=True)]:
        with suppress(psutil.Error):
            total += proc.memory_info().rss
    return total


class TreeMeter:
    """`loadclient.Meter` over one server's whole process tree, under the name "echo"."""

    def __init__(self, pid: int) -> None:
        import psutil

        self.pid = pid
        self.me = psutil.Process()

    def start(self) -> dict[str, float]:
        return {
            "echo": tree_cpu(self.pid),
            "client": sum(self.me.cpu_times()[:2]),
            "wall": time.perf_counter(),
        }

    def stop(self, marks: dict[str, float]) -> dict[str, float]:
        wall = time.perf_counter() - marks["wall"]
        return {
            "seconds": wall,
            "echo_cpu": (tree_cpu(self.pid) - marks["echo"]) / wall,
            "echo_rss_mb": tree_rss(self.pid) / 2**20,
            "client_cpu": (sum(self.me.cpu_times()[:2]) - marks["client"]) / wall,
        }


# --- throughput -------------------------------------------------------------------------
async def throughput(
    servers: dict[str, tuple[str, int]], args: argparse.Namespace
) -> dict[str, dict[str, list[float]]]:
    from benchmarks.loadclient import Stats, Table, connect_all, phase

    stats = Stats()
    rooms: dict[str, list[Table]] = {}
    readers = []
    for stack, (base, _) in servers.items():
        ws = base.replace("http://", "ws://")
        tables = [Table(f"{stack}-{i}", stats) for i in range(args.tables)]
        plans = []
        for i, table in enumerate(tables):
            url = f"{ws}/relay/room{i}"
            parts: list[tuple[str, int | None, str | None]] = [(url, 0, None), (url, 1, None)]
            if i % 10 == 0:
                parts.append((url, None, None))
            plans.append((table, parts))
        readers += await connect_all(plans, echo=True)
        rooms[stack] = tables
    figures: dict[str, dict[str, list[float]]] = {
        s: {k: [] for k in ("echo_us", "relay_us", "echo_rate", "relay_rate", "relay_p99")}
        for s in servers
    }
    for _ in range(args.rounds):
        for stack, (_, pid) in servers.items():
            meter = TreeMeter(pid)
            for mode in ("echo", "relay"):
                r = await phase(
                    f"{stack} {mode}", rooms[stack], stats, meter,  # type: ignore[arg-type]
                    mode=mode, seconds=args.seconds, period=None, pad=args.pad,
                )  # fmt: skip
                if r["errors"] or r["timeouts"] or r["dropped"]:
                    print(
                        f"  {stack} {mode}: {r['errors']} {r['timeouts']} timeouts", file=sys.stderr
                    )
                rate = r["per_second"]
                figures[stack][f"{mode}_rate"].append(rate)
                figures[stack][f"{mode}_us"].append(r["echo_cpu"] / rate * 1e6 if rate else 0.0)
                if mode == "relay":
                    figures[stack]["relay_p99"].append(r["p99_ms"])
    for tables in rooms.values():
        for table in tables:
            table.closing = True
    await asyncio.gather(
        *(s.ws.close() for ts in rooms.values() for t in ts for s in t.socks()),
        return_exceptions=True,
    )
    for reader in readers:
        reader.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    return figures


# --- memory per socket and limits ----------------------------------------------------
async def memory_per_socket(base: str, pid: int, count: int) -> float:
    from websockets.asyncio.client import connect

    url = base.replace("http://", "ws://") + "/relay/"
    socks = []
    first = await connect(url + "warm", ping_interval=None)
    await first.send(orjson.dumps({"version": 0}).decode())
    await first.recv()
    await asyncio.sleep(0.5)
    before = tree_rss(pid)
    gate = asyncio.Semaphore(32)

    async def one(i: int) -> None:
        async with gate:
            ws = await connect(url + f"m{i}", ping_interval=None, open_timeout=60)
            await ws.send(orjson.dumps({"version": 0}).decode())
            await ws.recv()
            socks.append(ws)

    await asyncio.gather(*(one(i) for i in range(count)))
    await asyncio.sleep(1.0)
    after = tree_rss(pid)
    await asyncio.gather(*(s.close() for s in [first, *socks]), return_exceptions=True)
    return (after - before) / count


UPGRADE = (
    "GET /relay/probe HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Sec-WebSocket-Version: 13\r\n"
)


async def _raw(port: int, data: bytes, wait: float) -> tuple[str, float]:
    """Send `data`; the server's first line (or how it hung up) and when."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    start = time.monotonic()
    try:
        writer.write(data)
        await writer.drain()
    except OSError as exc:
        return f"reset while sending ({type(exc).__name__})", time.monotonic() - start
    try:
        line = await asyncio.wait_for(reader.readline(), wait)
    except TimeoutError:
        writer.close()
        return f"open after {wait:.0f} s", wait
    except OSError:
        line = b""
    finally:
        writer.close()
    taken = time.monotonic() - start
    text = line.decode(errors="replace").strip()
    return (text[9:] if text.startswith("HTTP/1.1") else text) or "closed", taken


async def probe_header_size(port: int) -> str:
    big = UPGRADE + "X-Filler: " + "a" * 65536 + "\r\n\r\n"
    answer, _ = await _raw(port, big.encode(), 10)
    return answer


async def probe_header_time(port: int, wait: float) -> str:
    answer, taken = await _raw(port, b"GET /relay/probe HTTP/1.1\r\nHost: 127.0.0.1\r\n", wait)
    return answer if answer.startswith("open") else f"{answer} after {taken:.1f} s"


async def probe_body(port: int, size: int) -> str:
    head = (
        f"POST /sink HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
        f"Content-Length: {size}\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head)
        chunk = b"x" * 65536
        for _ in range(size // len(chunk)):
            writer.write(chunk)
            await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 10)
        text = line.decode(errors="replace").strip()
        return (text[9:] if text.startswith("HTTP/1.1") else text) or "closed"
    except (OSError, TimeoutError) as exc:
        return f"cut off ({type(exc).__name__})"
    finally:
        writer.close()


async def probe_frame(base: str) -> str:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    ws = await connect(base.replace("http://", "ws://") + "/relay/big", max_size=2**22)
    try:
        await ws.send(orjson.dumps({"version": 0, "x": "y" * 2**20}).decode())
        await asyncio.wait_for(ws.recv(), 10)
        return "accepted"
    except ConnectionClosed as exc:
        return f"close {exc.rcvd.code if exc.rcvd else 'none (dropped)'}"
    except TimeoutError:
        return "no answer in 10 s"
    finally:
        await ws.close()


async def probe_shutdown(base: str, proc: subprocess.Popen[bytes]) -> str:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    ws = await connect(base.replace("http://", "ws://") + "/relay/bye", ping_interval=None)
    await ws.send(orjson.dumps({"version": 0}).decode())
    await ws.recv()
    start = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(ws.recv(), 15)
        return "a frame, not a close"
    except ConnectionClosed as exc:
        code = exc.rcvd.code if exc.rcvd else "none (dropped)"
        return f"close {code} after {time.monotonic() - start:.1f} s"
    except TimeoutError:
        return "still open after 15 s"


async def probe_all(stack: str, args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with server(stack) as (base, proc):
        port = int(base.rsplit(":", 1)[1])
        out["bytes_per_socket"] = await memory_per_socket(base, proc.pid, args.idle_sockets)
        out["header_64k"], out["header_stall"], out["frame_1m"] = await asyncio.gather(
            probe_header_size(port), probe_header_time(port, args.stall_seconds), probe_frame(base)
        )
        out["body_32m"] = "n/a (no HTTP)" if stack == "picows" else await probe_body(port, 2**25)
        out["sigterm"] = await probe_shutdown(base, proc)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stacks", default=",".join(STACKS))
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=4.0, help="each flat-out window")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pad", type=int, default=950, help="relay frame size (the app's ~990 B)")
    parser.add_argument("--idle-sockets", type=int, default=500)
    parser.add_argument("--stall-seconds", type=float, default=20.0)
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port)
        return 0
    raise_open_files()
    import uvloop

    stacks = args.stacks.split(",")
    print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
    with ExitStack() as stack_exit:
        running = {}
        for stack in stacks:
            base, proc = stack_exit.enter_context(server(stack))
            running[stack] = (base, proc.pid)
        figures = uvloop.run(throughput(running, args))
    limits = {stack: uvloop.run(probe_all(stack, args)) for stack in stacks}
    print(f"load average at end: {os.getloadavg()}", file=sys.stderr)

    def med(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    print(
        f"\nFlat out, {args.tables} rooms (2 seats, a spectator on every tenth), "
        f"{args.rounds} windows of {args.seconds:g} s per stack, the stacks alternating; "
        f"server CPU µs per round trip (medians)\n"
    )
    base = med(figures[stacks[0]]["relay_us"])
    print(
        "| stack | echo µs (1 frame in, 1 out) | echo/s | relay µs (1 in, 2.1 out) | relay/s "
        "| relay p99 ms | relay vs first | KB per idle socket |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for stack in stacks:
        f = figures[stack]
        print(
            f"| {stack} | {med(f['echo_us']):.0f} | {med(f['echo_rate']):.0f} | "
            f"{med(f['relay_us']):.0f} | {med(f['relay_rate']):.0f} | {med(f['relay_p99']):.1f} | "
            f"{med(f['relay_us']) / base:.2f} | {limits[stack]['bytes_per_socket'] / 1024:.1f} |"
        )
    print(
        f"\n| stack | 64 KiB header | headers never finished ({args.stall_seconds:g} s) "
        "| 32 MiB body | 1 MiB frame (16 KiB allowed) | SIGTERM, socket open |"
    )
    print("|---|---|---|---|---|---|")
    for stack in stacks:
        lim = limits[stack]
        print(
            f"| {stack} | {lim['header_64k']} | {lim['header_stall']} | {lim['body_32m']} | "
            f"{lim['frame_1m']} | {lim['sigterm']} |"
        )
    print("\n" + orjson.dumps({"figures": figures, "limits": limits}).decode(), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
