"""The load client of `bench_server`: T tables of real WebSocket players, one process.

Each table has two seat sockets (`hello` with the seat's token) and, on every
tenth table, a spectator. A table plays legal moves read from its seats'
`state` (`legal`), one action at a time: it sends an action on version v and
the action counts once *both* seats hold version v + 1; that interval is the
latency. Paced: each table one action per `period` seconds, the tables spread
evenly over the period. Flat out: each table sends its next action as soon as
the last one has reached both seats.

The same client drives echo rooms on the bare server of `benchmarks.serve`:
`echo` (one frame back to the sender) and `relay` (one frame of the state's
size to both seats and the spectator), so every comparison runs through the
same client code, sockets and event loop.

Prints one JSON document on stdout; progress goes to stderr. Run by
`benchmarks.bench_server`; alone: `python -m benchmarks.loadclient --help`.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import resource
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
import psutil
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from benchmarks.compat import playable

ACTION_TIMEOUT = 10.0


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    timeouts: int = 0
    dropped: int = 0
    frames_in: int = 0
    bytes_in: int = 0

    def reset(self) -> None:
        self.latencies = []
        self.errors = Counter()
        self.timeouts = 0
        self.frames_in = 0
        self.bytes_in = 0


@dataclass
class Sock:
    ws: ClientConnection
    seat: int | None
    version: int = -1
    state: dict[str, Any] | None = None


class Table:
    """One table's sockets and its one action in flight."""

    def __init__(self, key: str, stats: Stats) -> None:
        self.key = key
        self.stats = stats
        self.seats: list[Sock] = []
        self.spectator: Sock | None = None
        self.version = 0
        self._target = 0
        self._awaited: list[Sock] = []
        self._sent = 0.0
        self._done: asyncio.Future[float] | None = None
        self.closing = False
        self.rng = random.Random(key)
        # Seat 0's state frames, kept on one table to size permessage-deflate's gain.
        self.sample: list[str] | None = None

    def socks(self) -> list[Sock]:
        return self.seats + ([self.spectator] if self.spectator else [])

    def check(self) -> None:
        done = self._done
        if done is None or done.done():
            return
        if all(s.version >= self._target for s in self._awaited):
            done.set_result(time.perf_counter() - self._sent)

    def fail(self, code: str) -> None:
        if self._done is not None and not self._done.done():
            self._done.set_exception(RuntimeError(code))

    async def read(self, sock: Sock) -> None:
        stats = self.stats
        try:
            async for raw in sock.ws:
                stats.frames_in += 1
                stats.bytes_in += len(raw)
                if sock.seat is None:
                    continue  # a spectator's frames are read and counted, not parsed
                message = orjson.loads(raw)
                kind = message.get("type")
                if kind == "state":
                    if self.sample is not None and sock.seat == 0 and len(self.sample) < 200:
                        self.sample.append(raw if isinstance(raw, str) else raw.decode())
                    sock.state = message
                    sock.version = message["version"]
                    self.check()
                elif kind == "error":
                    stats.errors[message.get("code", "?")] += 1
                    self.fail(message.get("code", "?"))
        except ConnectionClosed:
            if not self.closing:
                stats.dropped += 1
                self.fail("closed")

    async def send(self, sock: Sock, message: dict[str, Any], awaited: list[Sock]) -> None:
        """Send one message; return once every awaited socket has the next version."""
        self._target = self.version + 1
        self._awaited = awaited
        loop = asyncio.get_running_loop()
        self._done = done = loop.create_future()
        self._sent = time.perf_counter()
        try:
            await sock.ws.send(orjson.dumps(message).decode())
            latency = await asyncio.wait_for(done, ACTION_TIMEOUT)
        except TimeoutError:
            self.stats.timeouts += 1
            self._resync()
            return
        except (RuntimeError, ConnectionClosed):
            self._resync()
            return
        finally:
            self._done = None
        self.version = self._target
        self.stats.latencies.append(latency)

    def _resync(self) -> None:
        versions = [s.version for s in self.seats]
        self.version = max(versions) if versions else self.version

    async def step_app(self) -> None:
        """One legal action, chosen from the state of the seat that may act."""
        for sock in self.seats:
            legal = playable(sock.state["legal"]) if sock.state else []
            if legal and sock.version == self.version:
                break
        else:
            await asyncio.sleep(0.05)  # no state yet: look again shortly
            self._resync()
            return
        knocks = [a for a in legal if a["kind"] == "knock"]
        # Knock when allowed half the time, so hands end by knocks and gins, not only draws.
        choice = self.rng.choice(knocks) if knocks and self.rng.random() < 0.5 else None
        if choice is None:
            plain = [a for a in legal if a["kind"] != "knock"] or legal
            choice = self.rng.choice(plain)
        message = {"type": "action", "version": self.version, "action": choice}
        await self.send(sock, message, self.seats)

    async def step_echo(self, fanout: bool, pad: int) -> None:
        sock = self.seats[self.version % 2]
        message = {
            "type": "action",
            "version": self.version,
            "action": {"kind": "draw_stock"},
            "fanout": fanout,
            "pad": pad,
        }
        await self.send(sock, message, self.seats if fanout else [sock])


async def open_sock(url: str, seat: int | None, token: str | None, *, echo: bool) -> Sock:
    ws = await connect(url, max_size=2**20, ping_interval=None, open_timeout=60)
    sock = Sock(ws, seat)
    if echo:
        sock.version = 0  # the bare server sends nothing before it is spoken to
        return sock
    if token is not None:
        await ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
    # Wait for this socket's own first state (a seat's state names it in `you`).
    while True:
        message = orjson.loads(await ws.recv())
        if message.get("type") == "state" and (token is None or message.get("you") == seat):
            sock.state = message
            sock.version = message["version"]
            return sock


async def create_tables(base: str, count: int) -> list[tuple[str, str, str]]:
    """`count` tables with both seats taken: (table_id, token0, token1)."""
    gate = asyncio.Semaphore(16)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:

        async def one() -> tuple[str, str, str]:
            async with gate:
                made = (await http.post("/api/tables", json={"name": "Ann"})).raise_for_status()
                body = made.json()
                http.cookies.clear()  # seats come from `hello`, never from a cookie
                joined = await http.post(f"/api/tables/{body['table_id']}/seats", json={})
                http.cookies.clear()
                return body["table_id"], body["token"], joined.raise_for_status().json()["token"]

        return await asyncio.gather(*(one() for _ in range(count)))


async def connect_all(
    plans: list[tuple[Table, list[tuple[str, int | None, str | None]]]], *, echo: bool = False
) -> list[asyncio.Task[None]]:
    gate = asyncio.Semaphore(64)

    async def one(table: Table, url: str, seat: int | None, token: str | None) -> None:
        async with gate:
            sock = await open_sock(url, seat, token, echo=echo)
        if seat is None:
            table.spectator = sock
        else:
            table.seats.append(sock)

    await asyncio.gather(*(one(t, *p) for t, parts in plans for p in parts))
    for table, _ in plans:
        table.seats.sort(key=lambda s: s.seat or 0)
        table._resync()
    return [asyncio.get_running_loop().create_task(t.read(s)) for t, _ in plans for s in t.socks()]


def percentile(values: list[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=1000, method="inclusive")[int(q * 10) - 1]


class Meter:
    """CPU seconds and RSS of the servers and of this client over one phase."""

    def __init__(self, pids: dict[str, int]) -> None:
        self.procs = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.me = psutil.Process()

    def start(self) -> dict[str, float]:
        marks = {name: sum(p.cpu_times()[:2]) for name, p in self.procs.items()}
        marks["client"] = sum(self.me.cpu_times()[:2])
        marks["wall"] = time.perf_counter()
        return marks

    def stop(self, marks: dict[str, float]) -> dict[str, float]:
        wall = time.perf_counter() - marks["wall"]
        out = {"seconds": wall}
        for name, proc in self.procs.items():
            out[f"{name}_cpu"] = (sum(proc.cpu_times()[:2]) - marks[name]) / wall
            out[f"{name}_rss_mb"] = proc.memory_info().rss / 2**20
        out["client_cpu"] = (sum(self.me.cpu_times()[:2]) - marks["client"]) / wall
        return out


async def phase(
    name: str,
    tables: list[Table],
    stats: Stats,
    meter: Meter,
    *,
    mode: str,
    seconds: float,
    period: float | None,
    pad: int = 0,
) -> dict[str, Any]:
    """Run every table for `seconds`; figures of the actions completed in that window."""
    stats.reset()
    marks = meter.start()
    start = time.perf_counter()
    deadline = start + seconds
    lag = [0.0]

    async def watch_lag() -> None:
        """This client's own longest stall: a latency figure is only as good as it."""
        while time.perf_counter() < deadline:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            lag[0] = max(lag[0], time.perf_counter() - before - 0.01)

    watcher = asyncio.get_running_loop().create_task(watch_lag())

    async def drive(index: int, table: Table) -> None:
        next_at = start + (period * index / len(tables) if period else 0.0)
        while True:
            if period:
                now = time.perf_counter()
                if next_at > now:
                    await asyncio.sleep(next_at - now)
                # A late table sends at once, but never bunches up missed beats.
                next_at = max(next_at + period, time.perf_counter())
            if time.perf_counter() >= deadline:
                return
            if mode == "app":
                await table.step_app()
            else:
                await table.step_echo(fanout=mode == "relay", pad=pad)

    await asyncio.gather(*(drive(i, t) for i, t in enumerate(tables)))
    measured = meter.stop(marks)
    await watcher
    lat = stats.latencies
    result: dict[str, Any] = {
        "phase": name,
        "mode": mode,
        "tables": len(tables),
        "paced": period is not None,
        "actions": len(lat),
        "per_second": len(lat) / measured["seconds"],
        "p50_ms": percentile(lat, 50) * 1000,
        "p95_ms": percentile(lat, 95) * 1000,
        "p99_ms": percentile(lat, 99) * 1000,
        "max_ms": max(lat, default=float("nan")) * 1000,
        "errors": dict(stats.errors),
        "timeouts": stats.timeouts,
        "dropped": stats.dropped,
        "frames_in": stats.frames_in,
        "mean_frame_bytes": stats.bytes_in / stats.frames_in if stats.frames_in else 0,
        "client_max_stall_ms": lag[0] * 1000,
        **measured,
    }
    say(
        f"  {name:<14} {result['per_second']:8.1f}/s  p50 {result['p50_ms']:6.2f}  "
        f"p99 {result['p99_ms']:7.2f} ms  server {measured.get(mode_server(mode) + '_cpu', 0):.2f} "
        f"client {measured['client_cpu']:.2f} CPU, longest client stall {lag[0] * 1000:.0f} ms"
    )
    return result


def mode_server(mode: str) -> str:
    return "app" if mode == "app" else "echo"


async def run(args: argparse.Namespace) -> dict[str, Any]:
    stats = Stats()
    t0 = time.perf_counter()
    say(f"T={args.tables}: creating tables")
    made = await create_tables(args.app, args.tables)
    app_ws = args.app.replace("http://", "ws://")
    echo_ws = args.echo.replace("http://", "ws://")
    app_tables = [Table(table_id, stats) for table_id, _, _ in made]
    plans: list[tuple[Table, list[tuple[str, int | None, str | None]]]] = []
    for i, (table, (table_id, token0, token1)) in enumerate(zip(app_tables, made, strict=True)):
        url = f"{app_ws}/ws/tables/{table_id}"
        parts: list[tuple[str, int | None, str | None]] = [(url, 0, token0), (url, 1, token1)]
        if i % 10 == 0:
            parts.append((url, None, None))
        plans.append((table, parts))
    say(f"T={args.tables}: connecting {sum(len(p) for _, p in plans)} app sockets")
    readers = await connect_all(plans)
    app_tables[0].sample = []
    sizes = [len(orjson.dumps(s.state)) for t in app_tables for s in t.seats if s.state]
    # Echo replies as large as the app's frames of the last app phase (the first
    # states until then); the reply's own fields take about 40 bytes.
    pad = max(0, int(statistics.mean(sizes)) - 40)
    echo_tables = [Table(f"room{i}", stats) for i in range(args.tables)]
    echo_plans: list[tuple[Table, list[tuple[str, int | None, str | None]]]] = []
    for i, table in enumerate(echo_tables):
        url = f"{echo_ws}/relay/{table.key}"
        parts = [(url, 0, None), (url, 1, None)]
        if i % 10 == 0:
            parts.append((url, None, None))
        echo_plans.append((table, parts))
    say(f"T={args.tables}: connecting {sum(len(p) for _, p in echo_plans)} echo sockets")
    readers += await connect_all(echo_plans, echo=True)
    setup = time.perf_counter() - t0
    # This process holds ~4,000 sockets and the latest state of each seat: with
    # CPython's default thresholds its own collections stall it for 100 ms and more,
    # which would be counted as the server's latency. It lives for minutes: freeze
    # the set-up and collect rarely.
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 50, 1000)
    meter = Meter({"app": args.app_pid, "echo": args.echo_pid})
    phases: list[dict[str, Any]] = []

    async def run_phase(name: str, mode: str, seconds: float, period: float | None) -> None:
        nonlocal pad
        tables = app_tables if mode == "app" else echo_tables
        result = await phase(
            name, tables, stats, meter, mode=mode, seconds=seconds, period=period, pad=pad
        )
        if mode == "app" and result["frames_in"]:
            pad = max(0, int(result["mean_frame_bytes"]) - 40)
        phases.append(result)

    if args.seconds > 0:
        await run_phase("paced app", "app", args.seconds, args.period)
        await run_phase("paced relay", "relay", args.seconds, args.period)
    for rep in range(args.repeats):
        for mode in args.modes.split(","):
            await run_phase(f"flat {mode} #{rep + 1}", mode, args.flat_seconds, None)
            phases[-1]["repeat"] = rep
    dropped = stats.dropped
    for table in app_tables + echo_tables:
        table.closing = True
    await asyncio.wait_for(
        asyncio.gather(
            *(s.ws.close() for t in app_tables + echo_tables for s in t.socks()),
            return_exceptions=True,
        ),
        60,
    )
    for reader in readers:
        reader.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    return {
        "tables": args.tables,
        "sockets": sum(len(t.socks()) for t in app_tables),
        "state_bytes_mean": statistics.mean(sizes),
        "setup_seconds": setup,
        "dropped": dropped,
        "phases": phases,
        "state_sample": app_tables[0].sample,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--app", required=True, help="the app's base URL")
    parser.add_argument("--app-pid", type=int, required=True)
    parser.add_argument("--echo", required=True, help="the echo server's base URL")
    parser.add_argument("--echo-pid", type=int, required=True)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0, help="paced phase length")
    parser.add_argument("--period", type=float, default=1.0, help="seconds between actions")
    parser.add_argument("--flat-seconds", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--modes", default="app,relay,echo", help="flat-out windows of each repetition, in turn"
    )
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:  # pragma: no cover - uvicorn[standard] brings it
        runner = asyncio.run
    result = runner(run(args))
    # The event loop may leave the inherited pipe non-blocking: a long document would
    # then be cut off at the pipe's buffer size whenever the reader is slow.
    os.set_blocking(sys.stdout.fileno(), True)
    sys.stdout.write(orjson.dumps(result).decode() + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
